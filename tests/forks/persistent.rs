//! `session: persistent` routines (SPEC §18) through the real CLI: each fire resumes the
//! routine's own session instead of forking the conversation, a session whose last run went
//! past 60 % of the window is compacted before the next fire, a fire while the previous run
//! still holds the session is skipped, and deleting the routine's file removes its session.

use std::time::Duration as StdDuration;

use ollim_actors::conversation::main_session::Say;
use ollim_actors::conversation::surface::SurfaceEvent;

use crate::rig::{bg_routine, rig, Rig, LIMIT};
use crate::support::mock_model_api::{ModelRequest, Reply};

const TAG: &str = "[routine-bg:abcd0001]";
/// Said in the conversation only.
const CONVERSATION_WORD: &str = "PELICAN";
/// Said in the routine's first fire only.
const FIRST_FIRE_WORD: &str = "TANGERINE";
/// The summary the compaction answers with.
const SUMMARY: &str = "SUMMARY-OF-THE-REVIEWS";
/// The CLI's compaction prompt.
const COMPACTION: &str = "CRITICAL: Respond with TEXT ONLY";

fn is_compaction(req: &ModelRequest) -> bool {
    req.latest_user_text().contains(COMPACTION)
}

/// How many of the request's messages carry the routine's tag: one per fire it remembers.
fn fires_seen(req: &ModelRequest) -> usize {
    req.messages()
        .iter()
        .filter(|m| m["role"] == "user" && m.to_string().contains(TAG))
        .count()
}

async fn finished(rig: &Rig, n: u64) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let runs = rig
            .handles
            .job_runner
            .send(ollim_actors::scheduling::job_runner::Runs)
            .await
            .unwrap();
        if runs.forks_finished >= n && runs.idle() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {n} forks: {runs:?}"
        );
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

fn session_file(rig: &Rig) -> std::path::PathBuf {
    rig.data.state().join("routine_sessions/abcd0001")
}

#[actix_rt::test]
async fn a_persistent_routine_remembers_its_own_fires_compacts_past_the_threshold_and_goes_with_its_file(
) {
    let rig = rig(
        |req| {
            if is_compaction(req) {
                Reply::Text(format!(
                    "<analysis>two reviews</analysis>\n<summary>{SUMMARY}: two reviews done</summary>"
                ))
            } else if req.latest_user_text().contains("09:04 AM") {
                // Long enough for the next fire time to come while it runs.
                Reply::SlowText {
                    chunks: vec!["a slow".into(), " review".into()],
                    delay: StdDuration::from_millis(1500),
                }
            } else if req.latest_user_text().contains(TAG) {
                match fires_seen(req) {
                    1 => Reply::Text(format!("first review: {FIRST_FIRE_WORD}")),
                    _ => Reply::Text("another review".into()),
                }
            } else {
                Reply::Text("noted".into())
            }
        },
        |_| {},
    )
    .await;
    // The conversation exists (a routine without `session` would fork it) and holds a word.
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: format!("remember the word {CONVERSATION_WORD}"),
        images: vec![],
    });
    rig.until("the conversation's answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "noted"))
    })
    .await;
    rig.write(
        "routines/review.md",
        &bg_routine(
            "abcd0001",
            "1,2,3,4,5 9 * * *",
            "model: \"haiku\"\nreflect: false\nsession: \"persistent\"\n",
            "weekly review",
        ),
    );
    rig.registered(1).await;

    rig.advance_to(1);
    finished(&rig, 1).await;
    let saved =
        std::fs::read_to_string(session_file(&rig)).expect("the first fire saved its session");
    assert!(!saved.trim().is_empty());
    let first = rig.requests_for(TAG);
    assert!(
        first.iter().all(|r| !r.mentions(CONVERSATION_WORD)),
        "the first fire starts empty, not from the conversation"
    );
    let prompt = first[0].latest_user_text();
    assert!(
        prompt.contains(ollim_actors::agent::prompts::job::PERSISTENT_SESSION.trim_end()),
        "the agent is told where it is: {prompt}"
    );

    // The second fire's run ends at 65 % of haiku's 200k window (below the CLI's own
    // auto-compaction).
    rig.mock.report_input_tokens(130_000);
    rig.advance_to(2);
    finished(&rig, 2).await;
    rig.mock.report_input_tokens(0);
    let second = rig
        .requests_for(TAG)
        .into_iter()
        .find(|r| fires_seen(r) == 2)
        .expect("the second fire resumed the first one's session");
    assert!(
        second.mentions(FIRST_FIRE_WORD),
        "the first fire's answer is there"
    );
    assert!(
        !second.mentions(CONVERSATION_WORD),
        "the conversation is not: {:?}",
        second.messages()
    );
    assert!(
        !rig.requests_for(TAG).iter().any(is_compaction),
        "nothing compacted below the threshold"
    );

    rig.advance_to(3);
    finished(&rig, 3).await;
    let requests = rig.requests_for(TAG);
    let compaction = requests
        .iter()
        .position(is_compaction)
        .expect("the session was compacted");
    let third = requests
        .iter()
        .position(|r| r.latest_user_text().contains("09:03 AM"))
        .expect("the third fire reached the model");
    assert!(compaction < third, "the compaction came first");
    assert!(
        requests[third].mentions(SUMMARY),
        "the third fire runs in the compacted session"
    );
    assert_eq!(
        requests.iter().filter(|r| is_compaction(r)).count(),
        1,
        "compacted once"
    );

    // A fire while the previous run still holds the session is skipped, not run beside it.
    rig.advance_to(4);
    rig.until("the fourth fire at the model", |r| {
        r.requests_for(TAG)
            .iter()
            .any(|q| q.latest_user_text().contains("09:04 AM"))
    })
    .await;
    rig.advance_to(5);
    finished(&rig, 4).await;
    let runs = rig
        .handles
        .job_runner
        .send(ollim_actors::scheduling::job_runner::Runs)
        .await
        .unwrap();
    assert_eq!((runs.forks_started, runs.skipped), (4, 1), "{runs:?}");
    assert!(!rig
        .requests_for(TAG)
        .iter()
        .any(|q| q.latest_user_text().contains("09:05 AM")));

    // Deleted by hand: the scheduler notices and the session goes too.
    std::fs::remove_file(rig.data.root().join("routines/review.md")).unwrap();
    rig.until("the session file removed", |r| !session_file(r).exists())
        .await;
}
