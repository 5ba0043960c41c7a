//! A job's `retries` key *(ours, issue 28)*: how many times a run that failed for a passing
//! cause (the model's API overloaded or rate-limited, the network, the CLI dying before any
//! tool ran) is run again, after 30 s, 2 min and 10 min (the runner's
//! `job_runner::retry`). Absent: [`DEFAULT_RETRIES`]; `0` turns retries off; more than
//! [`MAX_RETRIES`] is refused (each retry after the third waits 10 minutes again).

use super::frontmatter::ParseError;
use super::yaml_scalars::Count;

/// Retries when the key is absent.
pub const DEFAULT_RETRIES: u32 = 3;
/// The most retries a job may ask for.
pub const MAX_RETRIES: u32 = 10;

/// Reads `retries`: absent → [`DEFAULT_RETRIES`].
pub fn parse_retries(value: Option<Count>) -> Result<u32, ParseError> {
    match value {
        None => Ok(DEFAULT_RETRIES),
        Some(Count(n)) if n <= MAX_RETRIES => Ok(n),
        Some(Count(n)) => Err(ParseError::TooManyRetries { value: n }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_is_three_zero_is_off_and_too_many_is_named() {
        assert_eq!(parse_retries(None).unwrap(), 3);
        assert_eq!(parse_retries(Some(Count(0))).unwrap(), 0);
        assert_eq!(parse_retries(Some(Count(10))).unwrap(), 10);
        let err = parse_retries(Some(Count(11))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`retries` 11 is more than 10 (write 0 to turn retries off)"
        );
    }

    #[test]
    fn a_routine_reads_and_writes_it_only_when_not_the_default() {
        let text = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * *\"\nretries: 0\n---\nGo.\n";
        let r = crate::jobs::routine::parse(text).unwrap();
        assert_eq!(r.settings.retries, 0);
        assert_eq!(crate::jobs::routine::to_markdown(&r), text);
        let plain =
            crate::jobs::routine::parse("---\nid: x\ncron: \"0 9 * * *\"\n---\nGo.\n").unwrap();
        assert_eq!(plain.settings.retries, DEFAULT_RETRIES);
        assert!(!crate::jobs::routine::to_markdown(&plain).contains("retries"));
        let err = crate::jobs::reminder::parse(
            "---\nid: x\nrun-at: \"2026-02-24T14:00:00-08:00\"\nretries: 99\n---\nb\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("`retries` 99"), "{err}");
    }
}
