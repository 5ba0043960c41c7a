//! Which failures pass *(ours, issue 28)*: a job run that failed for one of these is run again
//! later (by the job runner) instead of being given up. The CLI has already retried a failed
//! model call itself (CLI 2.1.330: ten times over about three minutes, `CLAUDE_CODE_MAX_RETRIES`
//! sets how often), so what reaches us is an outage longer than that.
//!
//! Passing: the model's API overloaded (529) or rate-limited (429), any other 5xx, a call that
//! never got an answer (connection refused, reset, timed out: the CLI reports `api_error`
//! without a status), and the CLI exiting before any tool ran. Not passing: a sign-in refused,
//! no credit, a request the API refused (4xx), a run that timed out, a tool loop limit.

use super::TurnResult;

/// The cause, in words, when `result` (a failed turn) failed for a passing reason.
pub fn cause_of(result: &TurnResult) -> Option<String> {
    if !result.is_error {
        return None;
    }
    let said = result
        .result
        .as_deref()
        .or_else(|| result.errors.first().map(String::as_str))
        .unwrap_or_default();
    let said = one_line(said);
    match result.api_error_status {
        Some(529) => Some(format!("the model's API is overloaded (529): {said}")),
        Some(429) => Some(format!("rate-limited (429): {said}")),
        Some(status) if (500..600).contains(&status) => {
            Some(format!("the model's API failed ({status}): {said}"))
        }
        Some(_) => None,
        None if result.terminal_reason.as_deref() == Some("api_error") && is_network(&said) => {
            Some(format!("network error: {said}"))
        }
        None => None,
    }
}

/// The cause for a CLI that exited (`how`: `exit code 1`) before any tool ran.
pub fn exited_early(how: &str) -> String {
    format!("the claude cli exited before any tool ran ({how})")
}

/// Whether the CLI's words name a call that never got an answer.
fn is_network(said: &str) -> bool {
    let lower = said.to_ascii_lowercase();
    [
        "connection",
        "econnrefused",
        "econnreset",
        "etimedout",
        "enotfound",
        "eai_again",
        "socket",
        "network",
        "timed out",
        "timeout",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// The text on one line, cut short for the run history.
fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = line.strip_prefix("API Error: ").unwrap_or(&line).to_owned();
    crate::base::ellipsis::cut(&line, 160)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(result: &str, status: Option<u16>) -> TurnResult {
        TurnResult {
            subtype: "success".into(),
            is_error: true,
            result: Some(result.into()),
            terminal_reason: Some("api_error".into()),
            api_error_status: status,
            ..TurnResult::default()
        }
    }

    #[test]
    fn overloaded_rate_limited_server_and_network_errors_pass() {
        // What CLI 2.1.330 reports once its own retries ran out (captured against a mock).
        let overloaded = failed("API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.", Some(529));
        assert_eq!(
            cause_of(&overloaded).unwrap(),
            "the model's API is overloaded (529): 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."
        );
        assert!(
            cause_of(&failed("API Error: Request rejected (429)", Some(429)))
                .unwrap()
                .starts_with("rate-limited (429)")
        );
        assert!(cause_of(&failed("API Error: 500 boom", Some(500))).is_some());
        let refused = failed(
            "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
            None,
        );
        assert!(cause_of(&refused)
            .unwrap()
            .starts_with("network error: Connection refused"));
    }

    #[test]
    fn what_waiting_does_not_fix_is_not_retried() {
        for (text, status) in [
            ("Invalid API key · Fix external API key", Some(401)),
            ("Credit balance is too low", Some(402)),
            ("API Error: 400 prompt is too long", Some(400)),
            ("Not logged in · Please run /login", None),
        ] {
            assert_eq!(cause_of(&failed(text, status)), None, "{text}");
        }
        let mut max_turns = failed("Reached maximum number of turns (5)", None);
        max_turns.terminal_reason = Some("max_turns".into());
        assert_eq!(cause_of(&max_turns), None);
        let mut ok = failed("fine", Some(529));
        ok.is_error = false;
        assert_eq!(cause_of(&ok), None);
    }
}
