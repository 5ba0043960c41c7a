//! JSON encoded the way the original's `json.dumps` writes it: one line, `", "` between items,
//! `": "` after keys, and every non-ASCII character escaped as `\uXXXX`.
//!
//! The session files are shared with the Python ollim-bot (SPEC §2 compatibility goal). Readers
//! do not care about spacing, but `session_history.jsonl` is appended to, so writing the same
//! bytes keeps an old file and our additions uniform for anyone reading it by eye or with grep.

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// The spacing and escaping of Python's default `json.dumps`.
struct PythonFormatter;

impl Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if fragment.is_ascii() {
            return writer.write_all(fragment.as_bytes());
        }
        let mut units = [0u16; 2];
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

/// Encodes `value` as one line of JSON in the original's spacing (no trailing newline).
pub fn to_line<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::new();
    value.serialize(&mut Serializer::with_formatter(&mut out, PythonFormatter))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_and_arrays_get_python_spacing() {
        let value = json!([{"a": 1, "b": null}, 2.5]);
        let line = to_line(&value).unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"[{"a": 1, "b": null}, 2.5]"#
        );
    }

    #[test]
    fn non_ascii_is_escaped_like_ensure_ascii() {
        let line = to_line(&json!({"prompt": "café — 🙂\n"})).unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"{"prompt": "caf\u00e9 \u2014 \ud83d\ude42\n"}"#
        );
        let back: serde_json::Value =
            serde_json::from_slice(&to_line(&json!("café 🙂")).unwrap()).unwrap();
        assert_eq!(back, json!("café 🙂"));
    }
}
