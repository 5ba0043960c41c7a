//! A Gmail message's readable text: the first `text/plain` part anywhere in the MIME tree,
//! else the first `text/html` part with styles, scripts and tags stripped; base64url decoded;
//! cut at 3,000 characters with `\n... (truncated)`.

use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use serde::Deserialize;

/// Most characters of a body shown.
pub const BODY_LIMIT: usize = 3000;

/// Gmail's base64url, with or without padding.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A MIME part as Gmail returns it (`payload` and its `parts`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// `text/plain`, `multipart/alternative`, …
    #[serde(default)]
    pub mime_type: String,
    /// The headers (only the top part's matter).
    #[serde(default)]
    pub headers: Vec<Header>,
    /// The content, base64url.
    #[serde(default)]
    pub body: Body,
    /// Nested parts.
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// One header.
#[derive(Debug, Clone, Deserialize)]
pub struct Header {
    /// `From`, `Subject`, …
    pub name: String,
    /// Its value.
    #[serde(default)]
    pub value: String,
}

/// A part's content.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Body {
    /// base64url data, when inline.
    #[serde(default)]
    pub data: Option<String>,
}

impl Part {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// The decoded text of the first part of `mime` type, depth first.
    fn find(&self, mime: &str) -> Option<String> {
        if self.mime_type.eq_ignore_ascii_case(mime) {
            if let Some(data) = self.body.data.as_deref().filter(|d| !d.is_empty()) {
                match BASE64URL.decode(data.trim()) {
                    Ok(bytes) => {
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        if !text.is_empty() {
                            return Some(text);
                        }
                    }
                    Err(e) => tracing::warn!(cause = %e, "a gmail part is not valid base64url"),
                }
            }
        }
        self.parts.iter().find_map(|p| p.find(mime))
    }
}

/// The readable text of `payload`, cut to [`BODY_LIMIT`]; `None` when it has none.
pub fn text(payload: &Part) -> Option<String> {
    let body = payload
        .find("text/plain")
        .or_else(|| payload.find("text/html").map(|h| strip_html(&h)))
        .filter(|t| !t.trim().is_empty())?;
    Some(truncate(&body))
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(BODY_LIMIT) {
        Some((cut, _)) => format!("{}\n... (truncated)", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Removes `<tag …>…</tag>` blocks (case-insensitive), leaving what follows.
fn drop_blocks(html: &str, tag: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    while let Some(start) = lower[at..].find(&open).map(|i| at + i) {
        out.push_str(&html[at..start]);
        match lower[start..].find(&close) {
            Some(end) => at = start + end + close.len(),
            None => {
                at = html.len();
                break;
            }
        }
    }
    out.push_str(&html[at..]);
    out
}

/// HTML as plain text: styles and scripts removed, tags turned into spaces, common entities
/// decoded, runs of spaces collapsed.
pub fn strip_html(html: &str) -> String {
    let mut text = drop_blocks(&drop_blocks(html, "style"), "script");
    let mut plain = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.drain(..) {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                plain.push(' ');
            }
            _ if !in_tag => plain.push(c),
            _ => {}
        }
    }
    let decoded = [
        ("&nbsp;", " "),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&apos;", "'"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(plain, |t, (from, to)| t.replace(from, to));
    let mut collapsed = String::with_capacity(decoded.len());
    for c in decoded.chars() {
        if c == ' ' && collapsed.ends_with(' ') {
            continue;
        }
        collapsed.push(c);
    }
    collapsed.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    fn part(mime: &str, text: &str) -> Part {
        Part {
            mime_type: mime.into(),
            body: Body {
                data: Some(URL_SAFE_NO_PAD.encode(text)),
            },
            ..Part::default()
        }
    }

    #[test]
    fn plain_text_wins_over_html_wherever_it_sits() {
        let message = Part {
            mime_type: "multipart/mixed".into(),
            parts: vec![Part {
                mime_type: "multipart/alternative".into(),
                parts: vec![
                    part("text/html", "<p>html</p>"),
                    part("text/plain", "plain ü ?>"),
                ],
                ..Part::default()
            }],
            ..Part::default()
        };
        assert_eq!(text(&message).unwrap(), "plain ü ?>");
    }

    #[test]
    fn html_alone_is_stripped() {
        let html = "<html><head><STYLE>p{color:red}</STYLE><script>x()</script></head>\
                    <body><p>Hi&nbsp;Sam,</p>  <b>5 &lt; 6</b> &amp; more</body></html>";
        assert_eq!(
            text(&part("text/html", html)).unwrap(),
            "Hi Sam, 5 < 6 & more"
        );
    }

    #[test]
    fn long_bodies_are_cut_at_3000_characters() {
        let long = "é".repeat(3500);
        let shown = text(&part("text/plain", &long)).unwrap();
        assert_eq!(shown.chars().count(), 3000 + "\n... (truncated)".len());
        assert!(shown.ends_with("é\n... (truncated)"));
        let exact = "a".repeat(3000);
        assert_eq!(text(&part("text/plain", &exact)).unwrap(), exact);
    }

    #[test]
    fn padded_data_and_empty_messages() {
        let padded = Part {
            mime_type: "text/plain".into(),
            body: Body {
                data: Some(base64::engine::general_purpose::URL_SAFE.encode("hi")),
            },
            ..Part::default()
        };
        assert_eq!(text(&padded).unwrap(), "hi");
        assert_eq!(text(&Part::default()), None);
    }
}
