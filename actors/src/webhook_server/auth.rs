//! The bearer-token check of `POST /hook/<id>` (SPEC §13).
//!
//! The whole `Authorization` header is compared with `Bearer <secret>` in time that does not
//! depend on where the first difference is (only the length can show through, as with the
//! original's `hmac.compare_digest`).

/// Whether `header` (the raw `Authorization` value, if any) carries exactly `secret`.
pub fn bearer_matches(header: Option<&[u8]>, secret: &str) -> bool {
    let expected = format!("Bearer {secret}");
    constant_time_eq(header.unwrap_or(b""), expected.as_bytes())
}

/// Byte equality that looks at every byte of `expected` whatever the input.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        // Past the end of a short input, compare against a byte that cannot match by luck.
        let g = given.get(i).copied().unwrap_or(!e);
        diff |= g ^ e;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bearer_token_passes() {
        assert!(bearer_matches(Some(b"Bearer s3cret"), "s3cret"));
    }

    #[test]
    fn wrong_missing_or_partial_tokens_fail() {
        assert!(!bearer_matches(Some(b"Bearer s3creT"), "s3cret"));
        assert!(!bearer_matches(None, "s3cret"));
        assert!(!bearer_matches(Some(b"Bearer s3cret "), "s3cret"));
        assert!(!bearer_matches(Some(b"Bearer s3cre"), "s3cret"));
        assert!(!bearer_matches(Some(b"s3cret"), "s3cret"));
        assert!(!bearer_matches(Some(b"bearer s3cret"), "s3cret"));
    }
}
