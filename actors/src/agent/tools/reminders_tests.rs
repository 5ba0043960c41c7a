use serde_json::json;

use super::super::recording_backend::{call, workspace, Recording};
use super::super::{BackgroundRules, SessionKind};
use super::*;

/// A main-session server on a fresh data directory (09:00 in New York).
fn main_tools() -> (tempfile::TempDir, DiscordTools) {
    let tmp = tempfile::tempdir().unwrap();
    let (tools, _) = Recording::tools_in(SessionKind::Main, workspace(tmp.path()));
    (tmp, tools)
}

fn reminders(tmp: &tempfile::TempDir) -> Vec<Reminder> {
    let dir = tmp.path().join("reminders");
    store::load_dir::<Reminder>(&dir)
        .map(|l| l.items.into_iter().map(|(_, r)| r).collect())
        .unwrap_or_default()
}

fn text(output: ToolOutput) -> String {
    match output {
        ToolOutput {
            text,
            is_error: false,
        } => text,
        other => panic!("an error result: {other:?}"),
    }
}

#[tokio::test]
async fn a_delay_writes_a_background_reminder_file() {
    let (tmp, tools) = main_tools();
    let out = text(
        call(
            &tools,
            "add_reminder",
            json!({"prompt": "stretch your legs", "delay_minutes": 30, "description": "stretch"}),
        )
        .await,
    );
    let saved = reminders(&tmp);
    assert_eq!(saved.len(), 1);
    let r = &saved[0];
    assert!(r.settings.background);
    assert_eq!(r.message, "stretch your legs");
    assert_eq!(r.settings.description, "stretch");
    assert_eq!(r.run_at_raw, "2026-03-02T09:30:00.000000-05:00");
    assert_eq!(
        out,
        format!(
            "scheduled {}  Mon 2026-03-02 09:30 EST  [bg]  -- stretch (in 30 min)",
            r.id
        )
    );
}

#[tokio::test]
async fn run_at_without_an_offset_is_local_time_and_foreground_is_kept() {
    let (tmp, tools) = main_tools();
    text(
        call(
            &tools,
            "add_reminder",
            json!({"prompt": "call mum", "run_at": "2026-03-02T18:15", "foreground": true,
                   "max_chain": 2}),
        )
        .await,
    );
    let r = &reminders(&tmp)[0];
    assert_eq!(r.run_at_raw, "2026-03-02T18:15:00-05:00");
    assert!(!r.settings.background);
    assert_eq!(r.max_chain, 2);
    assert_eq!(r.chain_parent.as_deref(), Some(r.id.as_str()));
    text(
        call(
            &tools,
            "add_reminder",
            json!({"prompt": "later", "run_at": "2026-03-03T08:00:00+01:00"}),
        )
        .await,
    );
    assert!(reminders(&tmp)
        .iter()
        .any(|r| r.run_at_raw == "2026-03-03T08:00:00+01:00"));
}

#[tokio::test]
async fn times_that_cannot_be_used_are_refused_and_nothing_is_written() {
    let (tmp, tools) = main_tools();
    let cases = [
        (
            json!({"prompt": "x", "delay_minutes": 5, "run_at": "2026-03-02T18:00"}),
            Refusal::ReminderTimeTwice,
        ),
        (json!({"prompt": "x"}), Refusal::ReminderTimeMissing),
        (
            json!({"prompt": "x", "run_at": "2026-03-02T08:00"}),
            Refusal::ReminderTimePassed("2026-03-02 08:00 -05:00".into()),
        ),
        (
            json!({"prompt": "x", "run_at": "tomorrow-ish"}),
            Refusal::ReminderTimeUnreadable("tomorrow-ish".into()),
        ),
        (
            json!({"prompt": "x", "delay_minutes": 99_999_999}),
            Refusal::ReminderRefused(Invalid::DelayTooFar(99_999_999).to_string()),
        ),
    ];
    for (arguments, refusal) in cases {
        let out = call(&tools, "add_reminder", arguments.clone()).await;
        assert_eq!(out, ToolOutput::ok(refusal.text()), "{arguments}");
    }
    let bad = call(
        &tools,
        "add_reminder",
        json!({"prompt": "x", "delay_minutes": -4}),
    )
    .await;
    assert!(bad.is_error, "{bad:?}");
    assert!(reminders(&tmp).is_empty());
}

#[tokio::test]
async fn list_and_cancel_work_on_the_same_files() {
    let (tmp, tools) = main_tools();
    assert_eq!(
        call(&tools, "list_reminders", json!({})).await,
        ToolOutput::ok("no pending reminders")
    );
    for minutes in [90, 20] {
        text(
            call(
                &tools,
                "add_reminder",
                json!({"prompt": format!("in {minutes}"), "delay_minutes": minutes}),
            )
            .await,
        );
    }
    let listed = text(call(&tools, "list_reminders", json!({})).await);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].ends_with("-- in 20") && lines[1].ends_with("-- in 90"),
        "{listed}"
    );
    let first = reminders(&tmp)
        .into_iter()
        .find(|r| r.message == "in 20")
        .unwrap();
    assert_eq!(
        call(&tools, "cancel_reminder", json!({"id": first.id.as_str()})).await,
        ToolOutput::ok(format!("cancelled {}", first.id))
    );
    assert_eq!(reminders(&tmp).len(), 1);
    assert_eq!(
        call(&tools, "cancel_reminder", json!({"id": first.id.as_str()})).await,
        ToolOutput::ok(Refusal::ReminderNotFound(first.id.0.clone()).text())
    );
    let out = call(&tools, "cancel_reminder", json!({"id": "../../etc"})).await;
    let prefix = Refusal::ReminderIdInvalid(String::new())
        .text()
        .into_owned();
    assert!(out.text.starts_with(&prefix), "{out:?}");
}

#[tokio::test]
async fn a_background_job_uses_them_only_when_its_allowed_set_names_them() {
    let tmp = tempfile::tempdir().unwrap();
    // The default set names them; a set without them (tool-policy.yaml's override) does not.
    let plain = SessionKind::Background(BackgroundRules {
        allowed: crate::agent::tools::BG_REPLY_TOOLS
            .iter()
            .map(|t| (*t).to_owned())
            .collect(),
        ..BackgroundRules::default()
    });
    let (tools, _) = Recording::tools_in(plain, workspace(tmp.path()));
    let out = call(&tools, "list_reminders", json!({})).await;
    assert_eq!(
        out,
        ToolOutput::ok(Refusal::NotOffered("mcp__discord__list_reminders".into()).text())
    );
    let rules = BackgroundRules::default();
    let (tools, _) = Recording::tools_in(SessionKind::Background(rules), workspace(tmp.path()));
    text(
        call(
            &tools,
            "add_reminder",
            json!({"prompt": "x", "delay_minutes": 1}),
        )
        .await,
    );
    assert_eq!(reminders(&tmp).len(), 1);
}
