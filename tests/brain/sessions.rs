//! Sessions across processes: resume, fork, a chosen id, an unknown id.

use ollim_actors::claude::brain::{BrainEvent, Error, SessionStart, UserMessage};

use crate::harness::{until_result, Harness};
use crate::support::mock_model_api::Reply;

fn answer_by_question() -> impl Fn(&crate::support::mock_model_api::ModelRequest) -> Reply {
    |request| {
        Reply::Text(format!(
            "answer to: {}",
            request.latest_user_text().lines().last().unwrap_or("")
        ))
    }
}

#[tokio::test]
async fn resume_in_a_new_process_sees_the_earlier_messages() {
    let harness = Harness::new(answer_by_question()).await;
    let (first, mut events, _) = harness.start(harness.options()).await;
    first
        .send_user(&UserMessage::text("remember the word PLUM-93"))
        .expect("sent");
    let (_, result) = until_result(&mut events).await;
    let session = result.session_id;
    first.shutdown().await;

    let mut options = harness.options();
    options.session = SessionStart::Resume(session.clone());
    let (second, mut events, _) = harness.start(options).await;
    second
        .send_user(&UserMessage::text("what was the word?"))
        .expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.session_id, session, "resume keeps the session id");
    let last = harness
        .mock
        .agent_requests()
        .pop()
        .expect("a request after resume");
    assert!(
        last.mentions("PLUM-93"),
        "earlier user message is in the history"
    );
    assert!(
        last.mentions("answer to:"),
        "earlier answer is in the history"
    );
    second.shutdown().await;
}

#[tokio::test]
async fn fork_session_gets_a_new_id_and_keeps_the_history() {
    let harness = Harness::new(answer_by_question()).await;
    let (main, mut events, _) = harness.start(harness.options()).await;
    main.send_user(&UserMessage::text("the secret is KIWI-12"))
        .expect("sent");
    let (_, result) = until_result(&mut events).await;
    let main_session = result.session_id;

    let mut options = harness.options();
    options.session = SessionStart::Fork(main_session.clone());
    let (fork, mut fork_events, _) = harness.start(options).await;
    fork.send_user(&UserMessage::text("in the fork"))
        .expect("sent");
    let (_, fork_result) = until_result(&mut fork_events).await;
    assert!(!fork_result.session_id.is_empty());
    assert_ne!(
        fork_result.session_id, main_session,
        "a fork is a new session"
    );
    let last = harness
        .mock
        .agent_requests()
        .pop()
        .expect("the fork's request");
    assert!(
        last.mentions("KIWI-12"),
        "the fork starts from the main history"
    );

    // The main process keeps its own session while the fork lives.
    main.send_user(&UserMessage::text("back in main"))
        .expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.session_id, main_session);
    fork.shutdown().await;
    main.shutdown().await;
}

#[tokio::test]
async fn chosen_session_id_is_the_one_reported() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let id = "5f0c4a52-8e0b-4c1e-9a8e-1b2c3d4e5f60".to_owned();
    let mut options = harness.options();
    options.session = SessionStart::NewWithId(id.clone());
    let (process, mut events, _) = harness.start(options).await;
    process.send_user(&UserMessage::text("hi")).expect("sent");
    let (_, result) = until_result(&mut events).await;
    assert_eq!(result.session_id, id);
    process.shutdown().await;
}

#[tokio::test]
async fn resuming_an_unknown_session_fails_to_start_with_the_cli_reason() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let mut options = harness.options();
    options.session = SessionStart::Resume("0b7d2c61-0000-4000-8000-000000000000".into());
    let started =
        ollim_actors::claude::brain::ClaudeProcess::start(&options, harness.handlers()).await;
    match started {
        Err(Error::StartFailed { code, detail, .. }) => {
            assert_eq!(code, Some(1));
            assert!(detail.contains("No conversation found"), "{detail}");
        }
        Err(other) => panic!("expected StartFailed, got {other}"),
        Ok(_) => panic!("an unknown session must not start"),
    }
}

#[tokio::test]
async fn clear_resets_the_conversation_under_a_new_session_id() {
    let harness = Harness::new(|_| Reply::Text("ok".into())).await;
    let (process, mut events, _) = harness.start(harness.options()).await;
    process
        .send_user(&UserMessage::text("remember MANGO-55"))
        .expect("sent");
    let (_, first) = until_result(&mut events).await;
    process
        .send_user(&UserMessage::text("/clear"))
        .expect("sent");
    let (seen, cleared) = until_result(&mut events).await;
    let old = seen.iter().find_map(|e| match e {
        BrainEvent::ConversationReset { old_session_id, .. } => Some(old_session_id.clone()),
        _ => None,
    });
    // 2.1.330 and later announce the clear; 2.1.197 only starts the new session (its `init`).
    let release = crate::support::cli_release::under_test();
    if release.reports_resets_and_budgets() {
        let old = old.expect("a conversation_reset event");
        assert_eq!(old.as_deref(), Some(first.session_id.as_str()));
    } else {
        assert_eq!(
            old, None,
            "{release} announces a clear now: update `releases`"
        );
        let init = seen.iter().find_map(|e| match e {
            BrainEvent::Init { session_id, .. } => Some(session_id.clone()),
            _ => None,
        });
        assert_eq!(init.as_deref(), Some(cleared.session_id.as_str()));
    }
    assert_ne!(
        cleared.session_id, first.session_id,
        "/clear moves to a new session"
    );
    process
        .send_user(&UserMessage::text("after"))
        .expect("sent");
    let (seen, after) = until_result(&mut events).await;
    assert_eq!(
        after.session_id, cleared.session_id,
        "the new session sticks"
    );
    let init = seen.iter().find_map(|e| match e {
        BrainEvent::Init { session_id, .. } => Some(session_id.clone()),
        _ => None,
    });
    assert_eq!(init.as_deref(), Some(cleared.session_id.as_str()));
    assert!(
        !harness
            .mock
            .agent_requests()
            .pop()
            .is_some_and(|r| r.mentions("MANGO-55")),
        "history is gone after /clear"
    );
    process.shutdown().await;
}
