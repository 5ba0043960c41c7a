//! Skills end to end with the real CLI (SPEC §3, §17): a job naming a skill that is missing or
//! broken is blocked before any model request (its run recorded as skipped, the agent told
//! through a pending update), and a body opening with `/name` of a skill goes first in the
//! prompt, where the CLI expands it into the skill's instructions.

use serde_json::Value;

use crate::proactive::{history_until, runs_until};
use crate::rig::{bg_reminder, bg_routine, rig, start_instant};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// Writes `skills/<name>/SKILL.md`.
fn skill(data: &ollim_actors::base::data_dir::DataDir, name: &str, text: &str) {
    let dir = data.skills().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// A foreground reminder due `minutes` after the start.
fn fg_reminder(id: &str, minutes: i64, extra: &str, body: &str) -> String {
    let at = (start_instant() + chrono::Duration::minutes(minutes))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!("---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: false\n{extra}---\n{body}\n")
}

/// The pending updates as stored.
fn pending_updates(rig: &crate::rig::Rig) -> Vec<String> {
    let text =
        std::fs::read_to_string(rig.data.state_file("pending_updates.json")).unwrap_or_default();
    let parsed: Vec<Value> = serde_json::from_str(&text).unwrap_or_default();
    parsed
        .iter()
        .map(|u| u["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[actix_rt::test]
async fn a_job_naming_a_missing_or_broken_skill_is_blocked_and_the_agent_is_told() {
    let rig = rig(
        |_req| Reply::Text("done".into()),
        |data| {
            skill(
                data,
                "focus",
                "---\ndescription: \"Focus.\"\n---\nDo one thing.\n",
            );
            skill(
                data,
                "broken",
                "---\nname: \"other\"\n---\nWrong directory.\n",
            );
        },
    )
    .await;
    rig.write(
        "routines/ghostly.md",
        &bg_routine(
            "5c110001",
            "1 9 * * *",
            "skills:\n  - \"ghost\"\n",
            "look at things",
        ),
    );
    rig.write(
        "reminders/broken.md",
        &bg_reminder(
            "5c110002",
            1,
            "skills:\n  - \"focus\"\n  - \"broken\"\n",
            "stretch",
        ),
    );
    rig.write(
        "reminders/in-chat.md",
        &fg_reminder("5c110003", 1, "skills:\n  - \"ghost\"\n", "plan the day"),
    );
    rig.write(
        "reminders/fine.md",
        &bg_reminder("5c110004", 1, "skills:\n  - \"focus\"\n", "water"),
    );
    rig.registered(4).await;
    rig.advance_to(1);
    runs_until(&rig, "all four decided", |r| r.decided() == 4).await;
    rig.settle().await;
    let runs = rig
        .handles
        .job_runner
        .send(ollim_actors::scheduling::job_runner::Runs)
        .await
        .unwrap();
    assert_eq!((runs.forks_started, runs.skipped), (1, 3), "{runs:?}");
    // The one job whose skills load ran with them.
    let fine = rig.requests_for("[reminder-bg:5c110004]");
    assert!(
        fine.first()
            .is_some_and(|q| q.mentions("SKILL INSTRUCTIONS:\n\n### focus\nDo one thing.")),
        "the fine job's prompt: {:?}",
        fine.first().map(ModelRequest::latest_user_text)
    );
    for blocked in ["5c110001", "5c110002", "5c110003"] {
        assert!(
            // Its tag nowhere (the others' prompts may name it: the pending updates they peek
            // say it was blocked).
            rig.mock
                .all_requests()
                .iter()
                .all(|r| !r.mentions(&format!(":{blocked}]"))),
            "no model request for the blocked job {blocked}"
        );
    }
    let history = history_until(&rig, "four runs recorded", |lines| lines.len() == 4).await;
    let line = |id: &str| {
        history
            .iter()
            .find(|l| l["job"] == id)
            .unwrap_or_else(|| panic!("no history line for {id}: {history:#?}"))
            .clone()
    };
    assert_eq!(line("5c110004")["outcome"], "ok", "{history:#?}");
    for id in ["5c110001", "5c110002", "5c110003"] {
        assert_eq!(line(id)["outcome"], "skipped", "{history:#?}");
    }
    assert_eq!(
        line("5c110001")["error"],
        "blocked: skill `ghost` not found (skills/ghost/SKILL.md)"
    );
    let broken = line("5c110002")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        broken.starts_with("blocked: skill `broken` does not load: ")
            && broken.contains("does not match its directory"),
        "{broken}"
    );
    // Each blocked routine or reminder is a pending update for the agent, naming job and why.
    let deadline = tokio::time::Instant::now() + crate::rig::LIMIT;
    while pending_updates(&rig).len() < 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            pending_updates(&rig)
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let updates = pending_updates(&rig);
    let expected = [
        "Routine 5c110001 (routines/ghostly.md) was blocked and did not run: skill `ghost` not \
         found (skills/ghost/SKILL.md). Create the skill or fix the job's `skills:` list."
            .to_owned(),
        "Reminder 5c110003 (reminders/in-chat.md) was blocked and did not run: skill `ghost` \
         not found (skills/ghost/SKILL.md). Create the skill or fix the job's `skills:` list."
            .to_owned(),
    ];
    for want in &expected {
        assert!(updates.contains(want), "{want:?} not in {updates:#?}");
    }
    assert!(
        updates.iter().any(|u| u.starts_with(
            "Reminder 5c110002 (reminders/broken.md) was blocked and did not run: skill `broken` does not load: "
        )),
        "{updates:#?}"
    );
    assert_eq!(updates.len(), 3, "{updates:#?}");
}

/// The message the CLI sent for a job whose prompt opened with `/weekly-review`: the CLI must
/// have expanded it as a slash command. Fails loudly when a CLI update stops doing that.
fn expanded_command(q: &ModelRequest, tag: &str) -> String {
    let blocks = crate::rig::first_user_blocks(q);
    let header = blocks
        .iter()
        .find(|b| b.contains("<command-name>/weekly-review</command-name>"))
        .unwrap_or_else(|| {
            panic!(
                "the claude CLI did not expand the leading `/weekly-review` as a slash command \
                 (has its handling of a leading /name in a stream-json user message changed?); \
                 the message's blocks: {blocks:#?}"
            )
        });
    assert!(
        header.starts_with("<command-message>weekly-review</command-message>"),
        "{header}"
    );
    assert!(
        !blocks.iter().any(|b| b.starts_with("/weekly-review")),
        "the command also went as plain text: {blocks:#?}"
    );
    let instructions = blocks
        .iter()
        .find(|b| b.contains("WEEKLY-REVIEW-STEPS: list what got done."))
        .unwrap_or_else(|| panic!("the skill's instructions are not in {blocks:#?}"));
    assert!(
        instructions.contains(tag),
        "the tag and the rest follow as the skill's arguments: {instructions}"
    );
    instructions.clone()
}

#[actix_rt::test]
async fn a_body_opening_with_a_skills_name_is_expanded_by_the_cli() {
    let rig = rig(
        |_req| Reply::Text("reviewed".into()),
        |data| {
            // Claude Code's format: no `name`, the directory names it.
            skill(
                data,
                "weekly-review",
                "---\ndescription: \"Review the week.\"\n---\nWEEKLY-REVIEW-STEPS: list what got done.\n",
            );
        },
    )
    .await;
    rig.write(
        "routines/review.md",
        &bg_routine("5c120001", "1 9 * * *", "", "/weekly-review extra words"),
    );
    rig.write(
        "reminders/review-chat.md",
        &fg_reminder("5c120002", 1, "", "/weekly-review for the team"),
    );
    rig.write(
        "routines/not-a-skill.md",
        &bg_routine("5c120003", "1 9 * * *", "", "/no-such-skill stays text"),
    );
    rig.registered(3).await;
    rig.advance_to(1);
    runs_until(&rig, "all three decided", |r| r.decided() == 3).await;
    rig.until("the three jobs at the model", |r| {
        [
            "[routine-bg:5c120001]",
            "[reminder:5c120002]",
            "[routine-bg:5c120003]",
        ]
        .iter()
        .all(|tag| !r.requests_for(tag).is_empty())
    })
    .await;

    // Background: `/weekly-review` first; the CLI turned it into the skill's instructions with
    // the rest (the body's words, then tag and preamble) as its arguments.
    let bg = &rig.requests_for("[routine-bg:5c120001]")[0];
    let text = expanded_command(bg, "[routine-bg:5c120001]");
    assert!(
        text.contains("\n\nARGUMENTS: extra words\n\n[routine-bg:5c120001] "),
        "{text}"
    );

    // Foreground: the conversation's timestamp header comes after the command, too.
    let fg = &rig.requests_for("[reminder:5c120002]")[0];
    let text = expanded_command(fg, "[reminder:5c120002]");
    assert!(
        text.contains("ARGUMENTS: for the team\n\n[reminder:5c120002]"),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("[2026-03-02 Mon 09:01 AM EST]"),
        "{text}"
    );

    // A leading `/word` that names no skill stays plain text after the tag.
    let plain = &rig.requests_for("[routine-bg:5c120003]")[0];
    let blocks = crate::rig::first_user_blocks(plain);
    assert!(
        blocks.iter().any(|b| b.contains("[routine-bg:5c120003] ")
            && !b.starts_with('/')
            && b.ends_with("/no-such-skill stays text")),
        "{blocks:#?}"
    );
    rig.settle().await;
}
