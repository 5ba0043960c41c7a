use super::*;
use crate::prompts::test_jobs::*;
use chrono::TimeZone;

const SKILLS: &str = "SKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\n";
const PREAMBLE: &str = "Preamble text.\n\n";

#[test]
fn foreground_routine_is_tag_skills_body_without_preamble() {
    let r = routine("r1", settings(false));
    assert_eq!(
        routine_prompt(&r, Some(PREAMBLE), SKILLS),
        "[routine:r1] SKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\nmessage of r1"
    );
    assert_eq!(routine_prompt(&r, None, ""), "[routine:r1] message of r1");
}

#[test]
fn background_routine_is_tag_preamble_skills_body() {
    let r = routine("r1", settings(true));
    assert_eq!(
        routine_prompt(&r, Some(PREAMBLE), SKILLS),
        "[routine-bg:r1] Preamble text.\n\nSKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\nmessage of r1"
    );
}

#[test]
fn foreground_reminder_puts_each_part_on_its_own_line() {
    let r = reminder("m1", 0, 0, settings(false));
    assert_eq!(
        reminder_prompt(&r, Some(PREAMBLE), SKILLS, None),
        "[reminder:m1]\n\nSKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\nmessage of m1"
    );
    assert_eq!(
        reminder_prompt(&r, None, "", None),
        "[reminder:m1]\n\nmessage of m1"
    );
}

#[test]
fn overdue_reminder_gets_late_marker_after_the_tag() {
    let r = reminder("m1", 0, 0, settings(true));
    let late = late_marker(Utc.with_ymd_and_hms(2026, 2, 24, 22, 30, 0).unwrap(), TZ);
    assert_eq!(late, "[late: was scheduled for 2:30 PM, running now]");
    assert_eq!(
        reminder_prompt(&r, Some(PREAMBLE), SKILLS, Some(&late)),
        "[reminder-bg:m1]\n[late: was scheduled for 2:30 PM, running now]\nPreamble text.\n\n\
         SKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\nmessage of m1"
    );
}

#[test]
fn plain_reminder_has_no_chain_context() {
    let r = reminder("m1", 0, 0, settings(true));
    assert_eq!(chain_context(&r), None);
    assert!(!reminder_prompt(&r, None, "", None).contains("CHAIN CONTEXT"));
}

#[test]
fn first_and_middle_links_offer_follow_up_chain() {
    for (depth, check) in [(0, "check 1 of 4"), (2, "check 3 of 4")] {
        let r = reminder("m1", depth, 3, settings(true));
        let text = chain_context(&r).unwrap_or_default();
        assert!(text.starts_with(&format!(
            "CHAIN CONTEXT: This is a follow-up chain reminder ({check})."
        )));
        assert!(text.contains("`follow_up_chain` is available"));
        assert!(text.contains("follow_up_chain(minutes_from_now=N)"));
        assert!(!text.contains("NOT available"));
    }
}

#[test]
fn final_link_says_follow_up_chain_is_not_available() {
    let r = reminder("m1", 3, 3, settings(true));
    let text = chain_context(&r).unwrap_or_default();
    assert!(text.contains("FINAL check"));
    assert!(text.contains("(check 4 of 4)"));
    assert!(text.contains("`follow_up_chain` is NOT available"));
    assert!(!text.contains("minutes_from_now"));
}

#[test]
fn blocked_background_chain_cannot_follow_up() {
    let blocked = crate::jobs::JobSettings {
        update_main_session: UpdateMode::Blocked,
        ..settings(true)
    };
    let text = chain_context(&reminder("m1", 0, 2, blocked)).unwrap_or_default();
    assert!(text.contains("(check 1 of 3)"));
    assert!(text.contains("`follow_up_chain` is NOT available"));
}

#[test]
fn chain_context_sits_between_skills_and_body() {
    let r = reminder("m1", 1, 4, settings(false));
    let text = reminder_prompt(&r, None, SKILLS, None);
    let skills = text.find("### focus").unwrap_or(usize::MAX);
    let chain = text.find("\n\nCHAIN CONTEXT: ").unwrap_or(usize::MAX);
    let body = text.find("\n\nmessage of m1").unwrap_or(usize::MAX);
    assert!(skills < chain && chain < body && body != usize::MAX);
    assert!(text.ends_with("\n\nmessage of m1"));
}

fn context<'a>(items: &'a [ScheduledItem], dir: &'a Path) -> JobPromptContext<'a> {
    JobPromptContext {
        background: BackgroundContext {
            now: now(),
            tz: TZ,
            busy: false,
            quiet_until: None,
            budget: partial_budget(),
            schedule_items: items,
            allowed_tools: None,
            google: GoogleStatus::NotConnected,
        },
        skills: &[],
        data_dir: dir,
        limits: CommandLimits::default(),
        late_since: None,
        interrupted_since: None,
        payload: None,
        gate_output: None,
    }
}

#[tokio::test]
async fn a_late_routine_and_a_rerun_carry_their_markers_after_the_tag() {
    let routine = Job::Routine(routine("r1", settings(false)));
    let dir = std::env::temp_dir();
    let mut ctx = context(&[], &dir);
    ctx.late_since = Some(now() - chrono::Duration::minutes(90));
    assert_eq!(
        assemble_job_prompt(&routine, &ctx).await,
        "[routine:r1] [late: was scheduled for 7:30 AM, running now] message of r1"
    );
    ctx.late_since = None;
    ctx.interrupted_since = Some(now() - chrono::Duration::minutes(5));
    let reminder = Job::Reminder(reminder("m1", 0, 0, settings(false)));
    assert!(assemble_job_prompt(&reminder, &ctx).await.starts_with(
        "[reminder:m1]\n[interrupted: started at 8:55 AM and cut off by a restart, running again]\n"
    ));
}

#[tokio::test]
async fn background_job_prompt_marks_itself_in_the_schedule() {
    let job = Job::Reminder(reminder("m1", 0, 1, settings(true)));
    let items = [at(0, job.clone()), at(45, bg("r2"))];
    let dir = std::env::temp_dir();
    let mut ctx = context(&items, &dir);
    ctx.late_since = Some(now() - chrono::Duration::minutes(90));
    let text = assemble_job_prompt(&job, &ctx).await;
    assert!(text.starts_with(
        "[reminder-bg:m1]\n[late: was scheduled for 7:30 AM, running now]\nWhatever you write"
    ));
    assert!(text.contains("budget: 3/5 (next refill in 42 min)\n"));
    assert!(text.contains("(reminders/m1-file.md) [this task]\n"));
    assert!(text.contains("(check 1 of 2)"));
    assert!(text.ends_with("\n\nmessage of m1"));
}

#[tokio::test]
async fn a_gates_output_comes_last_under_its_label() {
    let job = Job::Routine(routine("r1", settings(false)));
    let dir = std::env::temp_dir();
    let mut ctx = context(&[], &dir);
    ctx.gate_output = Some("3 unread from Jo\n");
    let text = assemble_job_prompt(&job, &ctx).await;
    assert_eq!(
        text,
        "[routine:r1] message of r1\n\nGATE OUTPUT:\n3 unread from Jo"
    );
    ctx.gate_output = Some("  \n");
    assert_eq!(
        assemble_job_prompt(&job, &ctx).await,
        "[routine:r1] message of r1"
    );
}

#[tokio::test]
async fn foreground_job_prompt_has_no_preamble() {
    let job = Job::Routine(routine("r1", settings(false)));
    let dir = std::env::temp_dir();
    let text = assemble_job_prompt(&job, &context(&[], &dir)).await;
    assert_eq!(text, "[routine:r1] message of r1");
}
