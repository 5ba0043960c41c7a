//! Forgiving readers for frontmatter values, so files the original accepted still load (SPEC §3).
//!
//! The original read YAML 1.1 with PyYAML and converted string fields with `str(value)`: an
//! unquoted `id: 12345678` became the text `"12345678"`, and `background: yes` was true.
//! serde_yaml reads YAML 1.2, so these wrappers restore that tolerance field by field:
//! [`Text`] takes any scalar as text, [`Flag`] takes booleans and the YAML 1.1 words,
//! [`Count`] takes a non-negative integer, [`TextList`] takes a list of scalars (or one scalar).
//! Errors come from serde_yaml, which names the key and the line.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

/// Any scalar, as text (a number or boolean is written out the way it reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor).map(Text)
    }
}

struct TextVisitor;

impl Visitor<'_> for TextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
}

/// A boolean: `true`/`false`, or the YAML 1.1 words `yes`/`no`/`on`/`off` in any case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FlagVisitor).map(Flag)
    }
}

struct FlagVisitor;

impl Visitor<'_> for FlagVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("true or false")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        match v.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Ok(true),
            "false" | "no" | "off" => Ok(false),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
        }
    }
}

/// A non-negative integer that fits in 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count(pub u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CountVisitor).map(Count)
    }
}

struct CountVisitor;

impl Visitor<'_> for CountVisitor {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number, 0 or more")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }
}

/// A list of scalars as text; a lone scalar counts as a one-item list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextList(pub Vec<String>);

impl<'de> Deserialize<'de> for TextList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextListVisitor).map(TextList)
    }
}

struct TextListVisitor;

impl<'de> Visitor<'de> for TextListVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Text(entry)) = seq.next_element::<Text>()? {
            out.push(entry);
        }
        Ok(out)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<String>, E> {
        Ok(vec![v.to_owned()])
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<String>, E> {
        Ok(vec![v.to_string()])
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<String>, E> {
        Ok(vec![v.to_string()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Probe {
        text: Option<Text>,
        flag: Option<Flag>,
        count: Option<Count>,
        list: Option<TextList>,
    }

    fn probe(yaml: &str) -> Result<Probe, serde_yaml::Error> {
        serde_yaml::from_str(yaml)
    }

    #[test]
    fn text_accepts_numbers_and_booleans_as_written() {
        let p = probe("text: 12345678\n").unwrap();
        assert_eq!(p.text, Some(Text("12345678".into())));
        let p = probe("text: true\n").unwrap();
        assert_eq!(p.text, Some(Text("true".into())));
    }

    #[test]
    fn null_reads_as_absent() {
        let p = probe("text: null\nflag: ~\ncount:\nlist:\n").unwrap();
        assert!(p.text.is_none() && p.flag.is_none() && p.count.is_none() && p.list.is_none());
    }

    #[test]
    fn flag_accepts_yaml_1_1_words() {
        for (word, want) in [("yes", true), ("Off", false), ("true", true), ("NO", false)] {
            let p = probe(&format!("flag: {word}\n")).unwrap();
            assert_eq!(p.flag, Some(Flag(want)), "{word}");
        }
    }

    #[test]
    fn flag_rejects_other_words_naming_the_key() {
        let err = probe("flag: maybe\n").err().unwrap().to_string();
        assert!(err.contains("flag"), "{err}");
    }

    #[test]
    fn count_rejects_negative_and_text() {
        assert!(probe("count: -1\n").is_err());
        assert!(probe("count: three\n").is_err());
        assert_eq!(probe("count: 3\n").unwrap().count, Some(Count(3)));
    }

    #[test]
    fn list_accepts_block_flow_and_single_scalar() {
        let p = probe("list:\n  - \"a\"\n  - b\n").unwrap();
        assert_eq!(p.list, Some(TextList(vec!["a".into(), "b".into()])));
        let p = probe("list: [a, 2]\n").unwrap();
        assert_eq!(p.list, Some(TextList(vec!["a".into(), "2".into()])));
        let p = probe("list: only\n").unwrap();
        assert_eq!(p.list, Some(TextList(vec!["only".into()])));
    }

    #[test]
    fn list_rejects_nested_mappings() {
        assert!(probe("list:\n  - a: 1\n").is_err());
    }
}
