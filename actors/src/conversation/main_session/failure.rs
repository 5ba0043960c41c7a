//! Why a turn failed, in words the user can act on. The CLI reports a failed model call as a
//! synthetic assistant message carrying an error kind and a result with the HTTP status
//! (protocol reference §10.3, §10.5; what 2.1.330 sends for each case was captured against the
//! mock API): not signed in or a refused sign-in (`authentication_failed`, 401, 403), no credit
//! left (`billing_error`, 402), rate-limited (`rate_limit`, 429). A conversation too long for
//! the model that the CLI could not compact (`compact_result: failed`, then `Prompt is too long`;
//! 2.1.197 refuses to compact a single exchange, any release gives up when the summary call
//! fails) says so and what helps. Anything else stays a short "something went wrong"; the
//! detail goes to the log.

use crate::claude::brain::TurnResult;

/// What kind of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The CLI has no usable sign-in.
    NotSignedIn,
    /// The account has no credit left.
    OutOfCredit,
    /// Too many requests for now.
    RateLimited,
    /// The conversation no longer fits the model's context and compacting it failed.
    ContextFull,
    /// Another failed model call.
    Api,
    /// Anything else (a tool loop limit, an internal error).
    Other,
}

/// A failed turn: its kind and the CLI's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind.
    pub kind: FailureKind,
    /// What the CLI said (for the log, and quoted where it helps).
    pub detail: String,
}

/// The kind for the CLI's error kind and the failed call's HTTP status.
pub fn classify(api_error: Option<&str>, status: Option<u16>) -> FailureKind {
    match (api_error, status) {
        (Some("authentication_failed" | "oauth_org_not_allowed"), _) | (_, Some(401 | 403)) => {
            FailureKind::NotSignedIn
        }
        (Some("billing_error"), _) | (_, Some(402)) => FailureKind::OutOfCredit,
        (Some("rate_limit"), _) | (_, Some(429)) => FailureKind::RateLimited,
        (Some(_), _) | (None, Some(_)) => FailureKind::Api,
        (None, None) => FailureKind::Other,
    }
}

impl Failure {
    /// The failure a result reports; `api_error` is the error kind of the turn's synthetic
    /// assistant message, if it had one; `compact_failed` why the CLI's compaction in the turn
    /// failed, if it did.
    pub fn of(api_error: Option<&str>, compact_failed: Option<&str>, result: &TurnResult) -> Self {
        let said = result
            .errors
            .first()
            .cloned()
            .or_else(|| result.result.clone())
            .unwrap_or_else(|| result.subtype.clone());
        let too_long = said.to_ascii_lowercase().contains("prompt is too long");
        let kind = match classify(api_error, result.api_error_status) {
            FailureKind::Api | FailureKind::Other if too_long || compact_failed.is_some() => {
                FailureKind::ContextFull
            }
            kind => kind,
        };
        let detail = match compact_failed {
            Some(why) => format!("{said}; compacting failed: {why}"),
            None => said,
        };
        Failure { kind, detail }
    }

    /// The line shown to the user.
    pub fn notice(&self) -> String {
        match self.kind {
            FailureKind::NotSignedIn => crate::base::own_command::in_text(
                "-# claude isn't signed in (or its sign-in was refused) — run `ollim-bot auth \
                 login` where the bot runs (or fix ANTHROPIC_API_KEY), then send that again.",
            ),
            FailureKind::OutOfCredit => "-# the Anthropic account is out of credit — add credit \
                (console.anthropic.com → Plans & Billing) or sign in with another account, then \
                send that again."
                .to_owned(),
            FailureKind::RateLimited => format!(
                "-# claude is rate-limited right now ({}) — wait a bit, then send that again.",
                short(&self.detail)
            ),
            FailureKind::Api => format!(
                "-# claude couldn't reach the model ({}) — try again.",
                short(&self.detail)
            ),
            FailureKind::ContextFull => format!(
                "-# the conversation no longer fits the model ({}) — /clear starts a fresh one, \
                then send that again.",
                short(&self.detail)
            ),
            FailureKind::Other => "-# something went wrong answering that — try again.".to_owned(),
        }
    }
}

/// The status line while the CLI retries a failed call.
pub fn retry_status(
    attempt: u32,
    max_retries: u32,
    api_error: Option<&str>,
    status: Option<u16>,
) -> String {
    let what = match classify(api_error, status) {
        FailureKind::NotSignedIn => "sign-in refused",
        FailureKind::OutOfCredit => "out of credit",
        FailureKind::RateLimited => "rate-limited",
        FailureKind::Api | FailureKind::ContextFull | FailureKind::Other => {
            "the model's API failed"
        }
    };
    format!("{what} — retrying ({attempt}/{max_retries})...")
}

/// The CLI's words on one line, cut to a length that fits a status line.
fn short(detail: &str) -> String {
    let line = detail.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = line.strip_prefix("API Error: ").unwrap_or(&line);
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(119).collect::<String>())
    } else {
        line.to_owned()
    }
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
    fn each_case_the_cli_reports_gets_its_own_words() {
        // What CLI 2.1.330 sends: error kind of the synthetic message, result text, status.
        let cases = [
            (Some("authentication_failed"), "Not logged in · Please run /login", None, "ollim-bot auth login"),
            (Some("authentication_failed"), "Invalid API key · Fix external API key", Some(401), "ollim-bot auth login"),
            (Some("authentication_failed"), "Failed to authenticate: OAuth token revoked.", Some(403), "ollim-bot auth login"),
            (Some("billing_error"), "Credit balance is too low", Some(402), "out of credit"),
            (Some("rate_limit"), "API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit", Some(429), "rate-limited right now (Request rejected (429)"),
            (Some("unknown"), "API Error: 500 boom", Some(500), "couldn't reach the model (500 boom)"),
        ];
        for (kind, text, status, expected) in cases {
            let notice = Failure::of(kind, None, &failed(text, status)).notice();
            assert!(notice.contains(expected), "{kind:?} {status:?}: {notice}");
        }
        let other = Failure::of(None, None, &failed("Reached maximum number of turns", None));
        assert_eq!(other.kind, FailureKind::Other);
        assert_eq!(
            other.notice(),
            "-# something went wrong answering that — try again."
        );
    }

    #[test]
    fn a_conversation_too_long_to_compact_says_so_and_what_helps() {
        // 2.1.197 on one exchange: `compact_result: failed, compact_error: too_few_groups`,
        // a synthetic `invalid_request` message, then the result.
        let too_long = failed("Prompt is too long", Some(400));
        let failure = Failure::of(Some("invalid_request"), Some("too_few_groups"), &too_long);
        assert_eq!(failure.kind, FailureKind::ContextFull);
        assert_eq!(
            failure.notice(),
            "-# the conversation no longer fits the model (Prompt is too long; compacting \
            failed: too_few_groups) — /clear starts a fresh one, then send that again."
        );
        // Too long with no compaction tried is the same case; a refused sign-in stays itself.
        let plain = Failure::of(Some("invalid_request"), None, &too_long);
        assert_eq!(plain.kind, FailureKind::ContextFull);
        let signed_out = Failure::of(
            Some("authentication_failed"),
            Some("exhausted"),
            &failed("Invalid API key", Some(401)),
        );
        assert_eq!(signed_out.kind, FailureKind::NotSignedIn);
    }

    #[test]
    fn retries_say_what_is_being_waited_for() {
        assert_eq!(
            retry_status(2, 10, Some("rate_limit"), Some(429)),
            "rate-limited — retrying (2/10)..."
        );
        assert_eq!(
            retry_status(1, 10, Some("authentication_failed"), Some(401)),
            "sign-in refused — retrying (1/10)..."
        );
    }
}
