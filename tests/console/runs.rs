//! Background work the owner can see and steer *(ours, SPEC §16; issue 17 item 3)*, through the
//! console binary and the real CLI: the fork limit (later jobs wait in fire order, shown in
//! `/routines`, while the conversation goes on), `/routines` with `/run`, and a job cut off by
//! `kill -9` that runs again once, marked interrupted, after the restart.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::Value;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::home::background_reminder as reminder_in;
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The job (`[reminder-bg:ID]`) whose prompt a request carries as its latest user text.
fn job_of(req: &ModelRequest) -> Option<String> {
    let text = req.latest_user_text();
    let at = text.find("[reminder-bg:")? + "[reminder-bg:".len();
    Some(text[at..].chars().take_while(|c| *c != ']').collect())
}

/// The lines of `state/runs.jsonl`, parsed.
fn runs(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.state("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every history line parses"))
        .collect()
}

/// Waits (bounded) until `done` holds for the history.
async fn until_runs(home: &Home, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let got = runs(home);
        if done(&got) {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {what}: {got:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "never {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn past_the_fork_limit_jobs_wait_in_fire_order_show_in_routines_and_the_owner_is_answered() {
    // Each job's fork answers slowly, so the first two hold both slots for a while.
    // The first job ends well before the second, so the waiting ones start one at a time.
    let mock = MockModelApi::start(|req| {
        if let Some(job) = job_of(req) {
            let parts = if job == "q0000001" { 2 } else { 5 };
            Reply::SlowText {
                chunks: (0..parts).map(|i| format!("part {i} ")).collect(),
                delay: Duration::from_millis(1500),
            }
        } else {
            Reply::Text("here, Sam".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/config bg_fork_limit 2").await;
    bot.expect("bg_fork_limit").await;
    // Due in fire order: two now-ish, the third a second later, the fourth a second after that.
    for (n, (id, secs)) in [
        ("q0000001", 3),
        ("q0000002", 3),
        ("q0000003", 4),
        ("q0000004", 5),
    ]
    .into_iter()
    .enumerate()
    {
        home.write(
            &format!("reminders/job-{n}.md"),
            &reminder_in(secs, id, &format!("background job {n}")),
        );
    }
    let started = || -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for id in mock.agent_requests().iter().filter_map(job_of) {
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        seen
    };
    until("two jobs running", || started().len() >= 2).await;
    let waiting = loop {
        bot.say("/routines").await;
        let running = bot.expect("background: ").await;
        assert!(running.contains("2 of 2 running"), "{running}");
        let waiting = bot.expect("waiting: ").await;
        if waiting.starts_with("waiting: 2 — ") {
            break waiting;
        }
        assert_eq!(started().len(), 2, "a third job started past the limit");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        waiting.find("job 2").unwrap() < waiting.find("job 3").unwrap(),
        "{waiting}"
    );
    // The owner's message is answered while two jobs run and two wait.
    bot.say("are you there?").await;
    bot.expect("here, Sam").await;
    let order = started();
    assert_eq!(
        order.len(),
        2,
        "the waiting jobs had not started: {order:?}"
    );

    let ended = until_runs(&home, "four runs ended", |r| r.len() >= 4).await;
    let order = started();
    assert_eq!(order.len(), 4, "{order:?} {ended:#?}");
    let mut first_two = order[..2].to_vec();
    first_two.sort();
    assert_eq!(first_two, ["q0000001", "q0000002"]);
    assert_eq!(order[2..], ["q0000003", "q0000004"], "fire order");
    for line in runs(&home) {
        assert_eq!(line["outcome"], "ok", "{line}");
        assert_eq!(line["kind"], "reminder", "{line}");
    }
    bot.finish().await;
}

#[tokio::test]
async fn routines_lists_next_time_and_last_outcome_and_run_fires_one_now() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("[routine-bg:r0000001]") {
            Reply::Text("swept".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    home.write(
        "routines/sweep.md",
        "---\nid: \"r0000001\"\ncron: \"0 3 * * *\"\ndescription: \"Inbox sweep\"\nbackground: true\n---\nsweep the inbox\n",
    );
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/routines").await;
    let row = bot.expect("r0000001").await;
    assert!(row.contains("Inbox sweep  [0 3 * * *]"), "{row}");
    assert!(row.contains("next ") && row.contains("03:00"), "{row}");
    assert!(row.contains("no runs yet"), "{row}");
    bot.say("/run r0000001").await;
    bot.expect("r0000001").await;
    let got = until_runs(&home, "the manual run ended", |r| !r.is_empty()).await;
    assert_eq!(got[0]["trigger"], "manual");
    assert_eq!(got[0]["outcome"], "ok");
    bot.say("/pause r0000001").await;
    bot.expect("paused Inbox sweep").await;
    bot.say("/routines").await;
    let row = bot.expect("r0000001").await;
    assert!(row.contains("paused · last ok"), "{row}");
    bot.finish().await;
}

#[tokio::test]
async fn a_job_cut_off_by_kill_9_runs_again_once_marked_interrupted() {
    let first_prompt = Arc::new(Mutex::new(None::<String>));
    let kept = Arc::clone(&first_prompt);
    let mock = MockModelApi::start(move |req| {
        let text = req.latest_user_text();
        if text.contains("[interrupted:") {
            Reply::Text("done after all".into())
        } else if job_of(req).is_some() {
            kept.lock().get_or_insert(text);
            // Long enough that the kill lands mid-job.
            Reply::SlowText {
                chunks: vec!["working".into(); 20],
                delay: Duration::from_secs(3),
            }
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let home = Home::new();
    home.write(
        "reminders/oven.md",
        &reminder_in(2, "k0000001", "check the oven"),
    );
    let bot = Bot::start(&home, &mock).await;
    until("the job's first model request", || {
        first_prompt.lock().is_some()
    })
    .await;
    assert!(
        !home.data.join("reminders/oven.md").exists(),
        "the file goes when the job fires"
    );
    let open = std::fs::read_to_string(home.state("runs_open.json")).unwrap();
    assert!(open.contains("k0000001"), "{open}");
    bot.crash().await;

    let mut bot = Bot::start(&home, &mock).await;
    let got = until_runs(&home, "the re-run ended", |r| r.len() >= 2).await;
    assert_eq!(got[0]["outcome"], "interrupted", "{got:#?}");
    assert_eq!(got[1]["outcome"], "ok", "{got:#?}");
    assert_eq!(got[1]["trigger"], "rerun", "{got:#?}");
    let reruns: Vec<String> = mock
        .agent_requests()
        .iter()
        .filter(|r| job_of(r).is_some())
        .map(|r| {
            r.messages()
                .first()
                .map(Value::to_string)
                .unwrap_or_default()
        })
        .filter(|t| t.contains("[interrupted: started at"))
        .collect();
    assert!(!reruns.is_empty(), "the re-run is marked interrupted");
    assert!(reruns.iter().all(|t| t.contains("check the oven")));
    bot.say("/ping-budget").await;
    bot.expect("budget").await;
    bot.finish().await;
    let open: Value =
        serde_json::from_str(&std::fs::read_to_string(home.state("runs_open.json")).unwrap())
            .expect("runs_open.json parses");
    assert!(!open.to_string().contains("k0000001"), "{open}");
    assert_eq!(runs(&home).len(), 2, "run once again, not twice");
}
