//! A search query, compiled twice: once for a message's text, and once for the raw bytes of a
//! transcript line, so a file is only parsed where a line could hold a match. Both ignore case
//! the Unicode way (`ΣΊΣΥΦΟΣ` matches `σίσυφος`, final sigma and all; `istanbul` matches
//! `İstanbul`), and a run of spaces in the query matches any run of white space — in a line's
//! JSON that includes the escapes `\n`, `\r` and `\t`; a quote or backslash is matched in its
//! escaped form there.

use regex::bytes::Regex as BytesRegex;
use regex::{Regex, RegexBuilder};

/// A compiled query.
pub struct Query {
    /// Finds the query in a message's text.
    text: Regex,
    /// Finds where a transcript line's JSON could hold the query.
    raw: BytesRegex,
}

impl Query {
    /// Compiles `query` (already trimmed, not empty).
    pub fn new(query: &str) -> anyhow::Result<Self> {
        let mut text = String::new();
        let mut raw = String::new();
        let mut chars = query.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_whitespace() {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                text.push_str(r"\s+");
                raw.push_str(r"(?:\s|\\[nrt])+");
                continue;
            }
            let (in_text, in_json) = match c {
                'i' | 'I' | 'İ' => ("[iIİ]".to_owned(), "[iIİ]".to_owned()),
                '"' => ("\"".to_owned(), r#"\\""#.to_owned()),
                '\\' => (r"\\".to_owned(), r"\\\\".to_owned()),
                c if c.is_control() => (
                    regex::escape(c.encode_utf8(&mut [0; 4])),
                    format!(r"\\u{:04x}", c as u32),
                ),
                c => {
                    let escaped = regex::escape(c.encode_utf8(&mut [0; 4]));
                    (escaped.clone(), escaped)
                }
            };
            text.push_str(&in_text);
            raw.push_str(&in_json);
        }
        let size = 1 << 24;
        Ok(Self {
            text: RegexBuilder::new(&text)
                .case_insensitive(true)
                .size_limit(size)
                .build()?,
            raw: regex::bytes::RegexBuilder::new(&raw)
                .case_insensitive(true)
                .size_limit(size)
                .build()?,
        })
    }

    /// Where the query is in `text` (byte range), if it is.
    pub fn find(&self, text: &str) -> Option<std::ops::Range<usize>> {
        self.text.find(text).map(|m| m.range())
    }

    /// The lines of `bytes` (JSON records) that could hold the query, each once.
    pub fn lines<'a>(&'a self, bytes: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        let mut from = 0;
        std::iter::from_fn(move || {
            let found = self.raw.find_at(bytes, from)?;
            let start = memchr::memrchr(b'\n', &bytes[..found.start()]).map_or(0, |p| p + 1);
            let end = memchr::memchr(b'\n', &bytes[found.start()..])
                .map_or(bytes.len(), |p| found.start() + p);
            from = (end + 1).min(bytes.len()).max(found.end());
            Some(&bytes[start..end])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Query {
        fn may_hold(&self, bytes: &[u8]) -> bool {
            self.lines(bytes).next().is_some()
        }
    }

    #[test]
    fn case_is_folded_the_unicode_way() {
        let q = Query::new("σίσυφος").unwrap();
        assert!(q.find("ο ΣΊΣΥΦΟΣ ήταν").is_some());
        assert!(q.may_hold("{\"text\":\"ο ΣΊΣΥΦΟΣ\"}".as_bytes()));
        let q = Query::new("istanbul").unwrap();
        assert_eq!(q.find("to İstanbul"), Some(3..12));
        assert!(Query::new("STRASSE").unwrap().find("die strasse").is_some());
    }

    #[test]
    fn spaces_quotes_and_backslashes_match_in_text_and_in_json() {
        let q = Query::new("hello  exhausted").unwrap();
        assert!(q.find("hello\n exhausted").is_some());
        assert!(q.may_hold(br#"{"text":"hello\n exhausted"}"#));
        let q = Query::new(r#"say "hi" \o/"#).unwrap();
        assert!(q.find(r#"then say "hi" \o/ twice"#).is_some());
        assert!(q.may_hold(br#"{"text":"then say \"hi\" \\o/ twice"}"#));
        assert!(!q.may_hold(br#"{"text":"then say hi"}"#));
    }

    #[test]
    fn only_the_lines_that_could_match_are_handed_out_once_each() {
        let q = Query::new("heron").unwrap();
        let bytes = b"{\"a\":\"heron heron\"}\n{\"b\":\"gull\"}\n{\"c\":\"HERON\"}";
        let lines: Vec<&[u8]> = q.lines(bytes).collect();
        assert_eq!(
            lines,
            [&b"{\"a\":\"heron heron\"}"[..], &b"{\"c\":\"HERON\"}"[..]]
        );
    }
}
