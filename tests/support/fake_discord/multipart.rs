//! Reads the `multipart/form-data` bodies serenity sends when files are attached: the
//! `payload_json` part is the message body, every part with a filename is a file.

use serde_json::Value;

/// One uploaded file.
#[derive(Debug, Clone)]
pub struct File {
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let lower = content_type.to_ascii_lowercase();
    if !lower.starts_with("multipart/form-data") {
        return None;
    }
    content_type.split(';').find_map(|param| {
        let (key, value) = param.trim().split_once('=')?;
        key.eq_ignore_ascii_case("boundary")
            .then(|| value.trim_matches('"').to_owned())
    })
}

/// Splits a multipart body into its JSON payload and its files.
pub fn parse(body: &[u8], boundary: &str) -> (Value, Vec<File>) {
    let delimiter = format!("--{boundary}");
    let mut json = Value::Null;
    let mut files = Vec::new();
    for part in split(body, delimiter.as_bytes()) {
        let part = part.strip_prefix(b"\r\n").unwrap_or(part);
        if part.starts_with(b"--") {
            break;
        }
        let Some(head_end) = find(part, b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&part[..head_end]);
        let content = &part[head_end + 4..];
        let content = content.strip_suffix(b"\r\n").unwrap_or(content);
        let name = param(&head, "name").unwrap_or_default();
        match param(&head, "filename") {
            Some(filename) => files.push(File {
                filename,
                content_type: header(&head, "content-type")
                    .unwrap_or_else(|| "application/octet-stream".to_owned()),
                bytes: content.to_vec(),
            }),
            None if name == "payload_json" => {
                json = serde_json::from_slice(content).unwrap_or_else(|_| {
                    Value::String(String::from_utf8_lossy(content).into_owned())
                });
            }
            None => {}
        }
    }
    (json, files)
}

/// The parts between delimiters (the preamble dropped).
fn split<'a>(body: &'a [u8], delimiter: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = body;
    let mut first = true;
    while let Some(at) = find(rest, delimiter) {
        if !first {
            parts.push(&rest[..at]);
        }
        first = false;
        rest = &rest[at + delimiter.len()..];
    }
    if !first {
        parts.push(rest);
    }
    parts
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A `key="value"` parameter of the Content-Disposition header.
fn param(head: &str, key: &str) -> Option<String> {
    let disposition = header(head, "content-disposition")?;
    disposition.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        (k == key).then(|| v.trim_matches('"').to_owned())
    })
}

/// A header value of one part.
fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}
