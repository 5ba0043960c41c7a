use std::time::Duration;

use chrono::DateTime;

use super::*;
use crate::jobs::JobId;
use crate::records::runs::{JobKind, Trigger};

fn record(outcome: Outcome) -> RunRecord {
    let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
    RunRecord {
        run: "3f2a9c1d0b7e".into(),
        job: JobId("morning-checkin".into()),
        kind: JobKind::Routine,
        tag: "routine-bg".into(),
        name: "Morning check-in".into(),
        file: "routines/morning-checkin.md".into(),
        scheduled: at("2026-03-02T09:00:00-05:00"),
        started: Some(at("2026-03-02T09:00:00-05:00")),
        ended: at("2026-03-02T09:02:14-05:00"),
        outcome,
        pinged: false,
        reported: true,
        cost_usd: Some(0.0123),
        turns: Some(4),
        error: None,
        late_since: None,
        trigger: Trigger::Schedule,
        alerted: false,
        count: None,
        session: None,
    }
}

fn facts(outcome: Outcome) -> Facts {
    Facts {
        record: record(outcome),
        reports: vec!["Two tasks are overdue.".into()],
        timeout: Duration::from_secs(1800),
    }
}

#[test]
fn a_completed_run_renders_every_fact_then_the_trace_and_the_reflections_cost() {
    let text = render(
        &facts(Outcome::Ok),
        &Trace::Written("Checked the day's tasks and reported two overdue ones.".into()),
        "haiku",
        Some(ModelCost {
            cost_usd: Some(0.0008),
            turns: Some(2),
        }),
    );
    assert_eq!(
        text,
        "# Reflection: Morning check-in\n\
         \n\
         - **Job**: routine-bg:morning-checkin (routines/morning-checkin.md)\n\
         - **Run**: 3f2a9c1d0b7e, started 2026-03-02 09:00:00 -05:00, took 2 min 14 s\n\
         - **Status**: completed\n\
         - **Report filed**: yes\n\
         - **Pinged**: no\n\
         - **Errors**: none\n\
         - **Cost**: $0.0123 over 4 turns\n\
         - **Report**:\n\
         \x20 > Two tasks are overdue.\n\
         \n\
         **Trace**: Checked the day's tasks and reported two overdue ones.\n\
         \n\
         _Reflection by haiku: $0.0008, 2 turns._\n"
    );
}

#[test]
fn status_says_timed_out_with_the_limit_or_failed_with_the_error() {
    let mut timed_out = facts(Outcome::TimedOut);
    timed_out.record.error = Some("Morning check-in timed out after 30 minutes.".into());
    assert_eq!(timed_out.status(), "timed out after 30 minutes");
    let mut failed = facts(Outcome::Failed);
    failed.record.error = Some("the claude cli exited mid-job (exit code 1)".into());
    assert_eq!(
        failed.status(),
        "failed: the claude cli exited mid-job (exit code 1)"
    );
    let text = render(&failed, &Trace::Missing("x".into()), "haiku", None);
    assert!(text.contains("- **Status**: failed: the claude cli exited mid-job (exit code 1)\n"));
    assert!(text.contains("- **Errors**: the claude cli exited mid-job (exit code 1)\n"));
}

#[test]
fn without_a_trace_the_file_says_why_and_without_a_model_run_no_cost_line() {
    let text = render(
        &facts(Outcome::Ok),
        &Trace::Missing("the reflection model timed out after 1 minute".into()),
        "haiku",
        None,
    );
    assert!(text.ends_with(
        "**Trace**: (none: the reflection could not be made — the reflection model timed out after 1 minute)\n"
    ));
    assert!(!text.contains("_Reflection by"));
}

#[test]
fn no_report_and_unknown_cost_read_plainly() {
    let mut f = facts(Outcome::Ok);
    f.reports.clear();
    f.record.reported = false;
    f.record.pinged = true;
    f.record.cost_usd = None;
    f.record.turns = None;
    f.record.started = None;
    let text = template(&f);
    assert!(text.contains("- **Run**: 3f2a9c1d0b7e\n"));
    assert!(text.contains("- **Report filed**: no\n- **Pinged**: yes\n"));
    assert!(text.contains("- **Cost**: unknown\n"));
    assert!(!text.contains("**Report**:"));
    assert!(text.ends_with("**Trace**: TRACE_PLACEHOLDER\n"));
}

#[test]
fn fields_that_could_break_the_layout_stay_on_one_line_and_reports_are_quoted() {
    let mut f = facts(Outcome::Failed);
    f.record.error = Some("line one\n- **Status**: completed".into());
    f.reports = vec!["first\nsecond".into()];
    let text = template(&f);
    assert!(text.contains("- **Errors**: line one - **Status**: completed\n"));
    assert!(text.contains("- **Report**:\n  > first\n  > second\n"));
    assert_eq!(text.matches("\n- **Status**:").count(), 1);
}

#[test]
fn the_trace_is_read_after_its_label_and_a_copied_placeholder_is_no_trace() {
    let f = facts(Outcome::Ok);
    let written = template(&f).replace(PLACEHOLDER, "It checked tasks.\nIt reported.");
    assert_eq!(
        trace_in(&written).as_deref(),
        Some("It checked tasks.\nIt reported.")
    );
    assert_eq!(trace_in(&template(&f)), None);
    assert_eq!(trace_in("**Trace**:   \n"), None);
    // Without the label, the lines that are not our fields are the trace.
    assert_eq!(
        trace_in("# Reflection: x\n- **Status**: completed\n\nIt ran fine.\n").as_deref(),
        Some("It ran fine.")
    );
    // Our footer is never part of it.
    assert_eq!(
        trace_in("**Trace**: Fine.\n\n_Reflection by haiku: $0.1._\n").as_deref(),
        Some("Fine.")
    );
    let long = format!("**Trace**: {}", "y".repeat(MAX_TRACE_CHARS + 10));
    assert_eq!(
        trace_in(&long).map(|t| t.chars().count()),
        Some(MAX_TRACE_CHARS + 1)
    );
}

#[test]
fn file_names_are_utc_with_hyphens_and_a_counter_after_the_first() {
    let ended = DateTime::parse_from_rfc3339("2026-04-09T09:30:00-05:00").unwrap();
    assert_eq!(file_name(ended, 1), "2026-04-09T14-30-00Z.md");
    assert_eq!(file_name(ended, 2), "2026-04-09T14-30-00Z-2.md");
}

#[test]
fn directory_names_keep_ids_and_defuse_anything_else() {
    assert_eq!(dir_name("morning-checkin"), "morning-checkin");
    assert_eq!(dir_name("a1b2c3d4"), "a1b2c3d4");
    assert_eq!(dir_name("../x"), "job..-x");
    assert_eq!(dir_name("a/b c"), "a-b-c");
    assert_eq!(dir_name(""), "job");
}
