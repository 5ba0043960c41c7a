//! Property tests: whatever text a routine or reminder holds, writing its file and reading it
//! back gives the same job (SPEC §3).
//!
//! The text is built from pieces YAML and our file layout treat specially (quotes, `---`, line
//! breaks of every kind, `: `, `#`, `- `, block and flow indicators, tabs, leading and trailing
//! spaces, the byte-order mark, U+2028/U+2029/U+0085, control characters, non-characters) mixed
//! with arbitrary characters. The one normalisation a round trip makes, stated in each property:
//! the body (the prompt) comes back trimmed of surrounding whitespace, as [`super::split`] reads
//! it. Every other string field (description, allowed-tools, skills, a routine's `cron` with
//! its spacing) comes back byte for byte.

use chrono::DateTime;
use proptest::collection::vec;
use proptest::prelude::*;

use super::quote;
use crate::jobs::{catch_up::CatchUp, session_mode::SessionMode, UpdateMode};
use crate::jobs::{reminder, routine, JobId, JobSettings, ModelChoice, Reminder, Routine};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces of text YAML or the file layout give a meaning to.
const SPECIAL: &[&str] = &[
    "\"",
    "'",
    "\\",
    "---",
    "...",
    "\n",
    "\r\n",
    "\r",
    ": ",
    ":",
    "#",
    " #",
    "- ",
    "-",
    "|",
    ">",
    "&",
    "*",
    "!",
    "%",
    "@",
    "`",
    "{",
    "}",
    "[",
    "]",
    ",",
    "?",
    " ",
    "  ",
    "\t",
    "~",
    "null",
    "true",
    "no",
    "0x1F",
    "1e3",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{85}",
    "\u{a0}",
    "\u{200b}",
    "\u{7f}",
    "\u{9f}",
    "\u{fffe}",
    "\u{ffff}",
    "\0",
    "\u{1b}",
    "é",
    "日本語",
    "🎉",
    "\\n",
    "\\u2028",
    "%YAML",
    "<<",
];

/// Arbitrary text, leaning on [`SPECIAL`] pieces and control characters.
fn nasty_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(SPECIAL).prop_map(str::to_owned),
        2 => any::<char>().prop_map(String::from),
        1 => (0u32..0x20).prop_map(|c| char::from_u32(c).map(String::from).unwrap_or_default()),
        1 => "[a-z ]{1,8}",
    ];
    vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn settings() -> impl Strategy<Value = JobSettings> {
    (
        nasty_text(),
        proptest::option::of(vec(nasty_text(), 0..3)),
        proptest::option::of(vec(nasty_text(), 0..3)),
        any::<bool>(),
        proptest::option::of(proptest::sample::select(ModelChoice::ALL.to_vec())),
        proptest::sample::select(UpdateMode::ALL.to_vec()),
    )
        .prop_map(
            |(description, allowed_tools, skills, flag, model, update_main_session)| JobSettings {
                background: flag,
                model,
                thinking: !flag,
                isolated: flag,
                description,
                update_main_session,
                allow_ping: !flag,
                allowed_tools,
                skills,
                ..JobSettings::default()
            },
        )
}

/// Five cron-like fields between runs of spaces and tabs (and, possibly, around them): the
/// reader checks only that there are five, and the text must come back byte for byte.
fn cron_text() -> impl Strategy<Value = String> {
    let gap = |at_least: usize| {
        vec(prop_oneof![Just(' '), Just('\t')], at_least..3).prop_map(String::from_iter)
    };
    (
        vec("[0-9*/,A-Za-z-]{1,8}", 5),
        [gap(0), gap(1), gap(1), gap(1), gap(1), gap(0)],
    )
        .prop_map(|(fields, gaps)| {
            let mut out = gaps[0].clone();
            for (field, gap) in fields.iter().zip(&gaps[1..]) {
                out.push_str(field);
                out.push_str(gap);
            }
            out
        })
}

fn job_id() -> impl Strategy<Value = JobId> {
    "[a-z0-9][a-z0-9_.-]{0,15}".prop_map(JobId)
}

proptest! {
    #![proptest_config(config())]

    /// A quoted scalar reads back as exactly the text that was quoted.
    #[test]
    fn quoted_text_reads_back_exactly(text in nasty_text()) {
        let yaml = format!("key: {}\n", quote(&text));
        let back: std::collections::BTreeMap<String, String> = serde_yaml::from_str(&yaml)
            .map_err(|e| TestCaseError::fail(format!("{yaml:?} does not parse: {e}")))?;
        prop_assert_eq!(back.get("key"), Some(&text));
    }

    /// A routine written and read back is the same routine, its body trimmed.
    #[test]
    fn routine_round_trips(
        id in job_id(),
        message in nasty_text(),
        cron in cron_text(),
        settings in settings(),
        paused in any::<bool>(),
    ) {
        let written = Routine {
            id,
            message,
            cron,
            settings,
            paused,
            catch_up: CatchUp::Default,
            session: SessionMode::Fork,
        };
        let text = routine::to_markdown(&written);
        let read = routine::parse(&text)
            .map_err(|e| TestCaseError::fail(format!("{text:?} does not parse: {e}")))?;
        let expected = Routine { message: written.message.trim().to_owned(), ..written };
        prop_assert_eq!(&read, &expected, "file: {:?}", text);
        prop_assert_eq!(routine::to_markdown(&read), routine::to_markdown(&expected));
    }

    /// A reminder written and read back is the same reminder, its body trimmed.
    #[test]
    fn reminder_round_trips(
        id in job_id(),
        message in nasty_text(),
        settings in settings(),
        parent in proptest::option::of(job_id()),
        chain in (0u32..4, 0u32..4),
    ) {
        let run_at_raw = "2026-02-24T14:00:00-08:00".to_owned();
        let run_at = DateTime::parse_from_rfc3339(&run_at_raw)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (depth, max) = (chain.0.min(chain.1), chain.0.max(chain.1));
        let written = Reminder {
            id,
            message,
            run_at,
            run_at_raw,
            chain_depth: depth,
            max_chain: max,
            chain_parent: parent.map(|p| p.0),
            // The reader records a `background` key it saw: one is written only when it is not
            // the reminder default (true).
            background_as_read: (!settings.background).then_some(false),
            settings,
        };
        let text = reminder::to_markdown(&written);
        let read = reminder::parse(&text)
            .map_err(|e| TestCaseError::fail(format!("{text:?} does not parse: {e}")))?;
        let expected = Reminder { message: written.message.trim().to_owned(), ..written };
        prop_assert_eq!(&read, &expected, "file: {:?}", text);
        prop_assert_eq!(reminder::to_markdown(&read), reminder::to_markdown(&expected));
    }
}
