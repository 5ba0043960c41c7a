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
}
