use super::*;
use crate::agent::prompts::test_jobs::*;
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
            spend: None,
            schedule_items: items,
            allowed_tools: None,
            google: GoogleStatus::NotConnected,
        },
        skills: &[],
        data_dir: dir,
        home: None,
        limits: CommandLimits::default(),
        late_since: None,
        interrupted_since: None,
        payload: None,
        gate_output: None,
        invokes_skill: false,
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

fn skill(name: &str, instructions: &str) -> Skill {
    Skill {
        name: name.to_owned(),
        description: String::new(),
        allowed_tools: None,
        instructions: instructions.to_owned(),
    }
}

fn webhook(id: &str, template: &str, skills: Option<Vec<String>>) -> Job {
    Job::Webhook(crate::jobs::WebhookJob {
        id: crate::jobs::JobId(id.to_owned()),
        message: template.to_owned(),
        settings: crate::jobs::JobSettings {
            skills,
            ..settings(true)
        },
    })
}

#[tokio::test]
async fn a_webhook_prompt_carries_its_skills_before_the_data() {
    let job = webhook(
        "ci",
        "Look at {repo}.",
        Some(vec!["repo-status".to_owned()]),
    );
    let dir = std::env::temp_dir();
    let library = [skill("repo-status", "Branch: !`echo main`")];
    let data = serde_json::json!({"repo": "ollim-bot"});
    let mut ctx = context(&[], &dir);
    ctx.skills = &library;
    ctx.payload = data.as_object();
    let text = assemble_job_prompt(&job, &ctx).await;
    let skills = text
        .find("\n\nSKILL INSTRUCTIONS:\n\n### repo-status\nBranch: main\n\n")
        .unwrap_or_else(|| panic!("no skills section: {text}"));
    let data = text
        .find(crate::agent::prompts::webhook::DATA_FENCE)
        .unwrap_or(0);
    assert!(text.starts_with("[webhook:ci] "), "{text}");
    assert!(skills < data, "{text}");
    assert!(text.ends_with(
        "TASK (from your webhook spec -- this is your instruction):\nLook at ollim-bot."
    ));
}

#[tokio::test]
async fn a_body_invoking_a_skill_comes_first_and_the_rest_follows() {
    let dir = std::env::temp_dir();
    let mut fg = routine("r1", settings(false));
    fg.message = "/weekly-review extra words".to_owned();
    let mut ctx = context(&[], &dir);
    ctx.invokes_skill = true;
    ctx.late_since = Some(now() - chrono::Duration::minutes(90));
    assert_eq!(
        assemble_job_prompt(&Job::Routine(fg.clone()), &ctx).await,
        "/weekly-review extra words\n\n[routine:r1] [late: was scheduled for 7:30 AM, running now]"
    );
    ctx.late_since = None;

    // Background: tag, preamble and skills after the body; the gate's output still last.
    let library = [skill("focus", "Do one thing.")];
    let mut bg_routine = routine(
        "r2",
        crate::jobs::JobSettings {
            skills: Some(vec!["focus".to_owned()]),
            ..settings(true)
        },
    );
    bg_routine.message = "/weekly-review\nthen tidy up".to_owned();
    ctx.skills = &library;
    ctx.gate_output = Some("3 open");
    let text = assemble_job_prompt(&Job::Routine(bg_routine), &ctx).await;
    assert!(
        text.starts_with("/weekly-review\nthen tidy up\n\n[routine-bg:r2] "),
        "{text}"
    );
    assert!(text
        .contains("\n\nSKILL INSTRUCTIONS:\n\n### focus\nDo one thing.\n\nGATE OUTPUT:\n3 open"));
    ctx.gate_output = None;

    // A reminder: its tag, chain context and all after the body.
    let mut chained = reminder("m1", 0, 2, settings(true));
    chained.message = "/weekly-review".to_owned();
    let text = assemble_job_prompt(&Job::Reminder(chained), &ctx).await;
    assert!(
        text.starts_with("/weekly-review\n\n[reminder-bg:m1]\n"),
        "{text}"
    );
    assert!(text.ends_with("`follow_up_chain` is available: call follow_up_chain(minutes_from_now=N) to schedule another check. If the task is done or needs no more follow-up, don't call it and the chain ends. When you reach out, say briefly that this is a follow-up (\"checking in again\") so the user knows it is on purpose."), "{text}");

    // A webhook keeps only `/name` first; its template stays in the task after the data.
    let hook = webhook("ci", "/ci-review {repo} failed", None);
    let data = serde_json::json!({"repo": "ollim-bot"});
    ctx.payload = data.as_object();
    let text = assemble_job_prompt(&hook, &ctx).await;
    assert!(text.starts_with("/ci-review\n\n[webhook:ci] "), "{text}");
    assert!(
        text.ends_with("this is your instruction):\nollim-bot failed"),
        "{text}"
    );
}

#[tokio::test]
async fn a_leading_slash_stays_after_the_tag_unless_it_invokes_a_skill() {
    let dir = std::env::temp_dir();
    let mut r = routine("r1", settings(false));
    r.message = "/weekly-review extra words".to_owned();
    let ctx = context(&[], &dir);
    assert_eq!(
        assemble_job_prompt(&Job::Routine(r), &ctx).await,
        "[routine:r1] /weekly-review extra words"
    );
}

#[tokio::test]
async fn a_job_bound_to_a_subagent_is_told_to_hand_its_work_over() {
    let bound = crate::jobs::JobSettings {
        subagent: Some("gmail-reader".into()),
        ..settings(true)
    };
    let job = Job::Routine(routine("r1", bound));
    let dir = std::env::temp_dir();
    let text = assemble_job_prompt(&job, &context(&[], &dir)).await;
    let instruction = text
        .find("REQUIRED SUBAGENT: gmail-reader\n")
        .expect("the instruction");
    let body = text.find("message of r1").expect("the body");
    assert!(instruction < body, "{text}");
    assert!(text.contains("subagent_type \"gmail-reader\""), "{text}");
    let plain = Job::Routine(routine("r1", settings(true)));
    let text = assemble_job_prompt(&plain, &context(&[], &dir)).await;
    assert!(!text.contains("REQUIRED SUBAGENT"), "{text}");
}

/// Runs `git` in `dir` with a fixed identity, for a repository a test makes.
fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-C"])
        .arg(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn a_skill_command_reads_a_repository_under_the_owners_home() {
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "a").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-q", "-m", "water the ferns"]);
    let data = tempfile::tempdir().unwrap();
    let skills = [crate::jobs::skills::Skill {
        name: "repo-glance".into(),
        description: String::new(),
        allowed_tools: None,
        instructions: "Last commit: !`git -C ~/repo log -1 --format=%s`".into(),
    }];
    let job = Job::Routine(routine(
        "r1",
        crate::jobs::JobSettings {
            skills: Some(vec!["repo-glance".into()]),
            ..settings(false)
        },
    ));
    let mut ctx = context(&[], data.path());
    ctx.skills = &skills;
    ctx.home = Some(home.path());
    let prompt = assemble_job_prompt(&job, &ctx).await;
    assert!(
        prompt.contains("### repo-glance\nLast commit: water the ferns\n"),
        "{prompt}"
    );
}
