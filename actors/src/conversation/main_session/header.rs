//! What the model reads around a turn: the timestamp header every message gets, with pending
//! updates prepended (SPEC §5) — and a background job's prompt, which gets the same header
//! (SPEC §17: the original's background forks carry it too).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::records::pending_updates::{prepend_updates, PendingUpdate, Reader};

/// `[2026-02-24 Tue 02:30 PM PST]`: the zone's real abbreviation, not a hard-coded `PT`.
pub fn timestamp(now: DateTime<Utc>, tz: Tz) -> String {
    format!(
        "[{}]",
        now.with_timezone(&tz).format("%Y-%m-%d %a %I:%M %p %Z")
    )
}

/// The message a session sends: header, pending updates (if any) with `reader`'s heading, then
/// the user's text.
pub fn compose(
    now: DateTime<Utc>,
    tz: Tz,
    reader: Reader,
    updates: &[PendingUpdate],
    text: &str,
) -> String {
    prepend_updates(&timestamp(now, tz), updates, reader, now, text)
}

/// A foreground job's line: as [`compose`], except that a prompt invoking a skill keeps it at
/// position 0, where the CLI expands it, with the header and updates after it
/// ([`crate::agent::prompts::slash`]). Only such a prompt opens with `/`: every other job prompt opens
/// with its tag (a person's own message never comes here, so a typed `/clear` stays text).
pub fn compose_job(
    now: DateTime<Utc>,
    tz: Tz,
    reader: Reader,
    updates: &[PendingUpdate],
    prompt: &str,
) -> String {
    if !prompt.starts_with('/') {
        return compose(now, tz, reader, updates, prompt);
    }
    let context = compose(now, tz, reader, updates, "");
    format!("{}\n\n{}", prompt.trim_end(), context.trim_end())
}

/// A background job's first message: the header, then the updates `peeked` (read-only heading;
/// none for an isolated job), then `prompt` — with a skill command kept first ([`compose_job`]).
pub fn background_prompt(
    now: DateTime<Utc>,
    tz: Tz,
    peeked: &[PendingUpdate],
    prompt: &str,
) -> String {
    compose_job(now, tz, Reader::Fork, peeked, prompt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn header_uses_the_zones_own_abbreviation() {
        let winter = Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap();
        assert_eq!(
            timestamp(winter, chrono_tz::America::Los_Angeles),
            "[2026-02-24 Tue 02:30 PM PST]"
        );
        let summer = Utc.with_ymd_and_hms(2026, 7, 1, 7, 5, 0).unwrap();
        assert_eq!(
            timestamp(summer, chrono_tz::Europe::Berlin),
            "[2026-07-01 Wed 09:05 AM CEST]"
        );
    }

    #[test]
    fn updates_are_prepended_after_the_header() {
        let now = Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap();
        let u = PendingUpdate {
            ts: "2026-02-24T14:15:00-08:00".into(),
            message: "inbox: 2 items need you".into(),
        };
        let text = compose(
            now,
            chrono_tz::America::Los_Angeles,
            Reader::MainSession,
            std::slice::from_ref(&u),
            "how's it going?",
        );
        assert_eq!(
            text,
            "[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND UPDATES (mention key findings in your response):\n- (15m ago) inbox: 2 items need you\n\nhow's it going?"
        );
        assert_eq!(
            compose(
                now,
                chrono_tz::America::Los_Angeles,
                Reader::MainSession,
                &[],
                "hi"
            ),
            "[2026-02-24 Tue 02:30 PM PST] hi"
        );
        let peeked = compose(
            now,
            chrono_tz::America::Los_Angeles,
            Reader::Fork,
            &[u],
            "and?",
        );
        assert!(peeked.starts_with(
            "[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND UPDATES (read-only — main session will also see these):"
        ), "{peeked}");
    }

    #[test]
    fn a_background_prompt_gets_the_header_and_peeked_updates_before_it() {
        let now = Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap();
        let tz = chrono_tz::America::Los_Angeles;
        let u = PendingUpdate {
            ts: "2026-02-24T14:15:00-08:00".into(),
            message: "inbox: 2 items need you".into(),
        };
        assert_eq!(
            background_prompt(now, tz, &[], "[routine-bg:r1] check mail"),
            "[2026-02-24 Tue 02:30 PM PST] [routine-bg:r1] check mail"
        );
        assert_eq!(
            background_prompt(now, tz, std::slice::from_ref(&u), "[routine-bg:r1] check mail"),
            "[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND UPDATES (read-only — main session \
             will also see these):\n- (15m ago) inbox: 2 items need you\n\n[routine-bg:r1] check mail"
        );
        // A skill command stays first; the header and updates follow the prompt.
        assert_eq!(
            background_prompt(now, tz, &[u], "/triage [routine-bg:r1] go\n"),
            "/triage [routine-bg:r1] go\n\n[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND \
             UPDATES (read-only — main session will also see these):\n- (15m ago) inbox: 2 items \
             need you"
        );
        assert_eq!(
            background_prompt(now, tz, &[], "/triage go"),
            "/triage go\n\n[2026-02-24 Tue 02:30 PM PST]"
        );
    }

    #[test]
    fn a_job_invoking_a_skill_keeps_it_first() {
        let now = Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap();
        let tz = chrono_tz::America::Los_Angeles;
        let u = PendingUpdate {
            ts: "2026-02-24T14:15:00-08:00".into(),
            message: "inbox: 2 items need you".into(),
        };
        assert_eq!(
            compose_job(
                now,
                tz,
                Reader::MainSession,
                &[],
                "/weekly-review\n\n[routine:r1]"
            ),
            "/weekly-review\n\n[routine:r1]\n\n[2026-02-24 Tue 02:30 PM PST]"
        );
        assert_eq!(
            compose_job(now, tz, Reader::MainSession, &[u], "/weekly-review go"),
            "/weekly-review go\n\n[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND UPDATES (mention key findings in your response):\n- (15m ago) inbox: 2 items need you"
        );
        assert_eq!(
            compose_job(now, tz, Reader::MainSession, &[], "[routine:r1] go"),
            "[2026-02-24 Tue 02:30 PM PST] [routine:r1] go"
        );
    }
}
