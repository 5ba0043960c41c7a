//! `/routines` on Discord *(ours, SPEC §16)*: an embed listing each routine with its next fire
//! time, last outcome and paused state, and a row of buttons per routine. Run now fires the
//! routine through the real CLI (its prompt reaches the model, a run line is written); Pause
//! writes `paused: true` into the routine's file and the clicked message then offers Resume;
//! Resume takes the line out again.

use serde_json::{json, Value};

use crate::bot::{Bot, Home, LIMIT};
use crate::support::fake_discord::{FakeDiscord, Message, DM_CHANNEL_ID, OWNER_ID};
use crate::support::mock_model_api::{MockModelApi, Reply};

const SWEEP: &str = "---\nid: \"r0000001\"\ncron: \"0 3 * * *\"\ndescription: \"Inbox sweep\"\nbackground: true\n---\nsweep the inbox\n";
const REVIEW: &str = "---\nid: \"r0000002\"\ncron: \"0 18 * * 5\"\ndescription: \"Weekly review\"\nbackground: true\npaused: true\n---\nreview the week\n";

/// The message's buttons as (label, custom id, disabled), row by row.
fn buttons(m: &Message) -> Vec<Vec<(String, String)>> {
    m.components
        .as_array()
        .into_iter()
        .flatten()
        .map(|row| {
            row["components"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| {
                    let text = |k: &str| b[k].as_str().unwrap_or_default().to_owned();
                    (text("label"), text("custom_id"))
                })
                .collect()
        })
        .collect()
}

/// The embed field about routine `id`: its value.
fn field(m: &Message, id: &str) -> Option<String> {
    m.embeds[0]["fields"]
        .as_array()?
        .iter()
        .find(|f| f["name"].as_str().is_some_and(|n| n.ends_with(id)))
        .and_then(|f| f["value"].as_str())
        .map(str::to_owned)
}

/// The text of the ephemeral answers to a click.
fn answers(fake: &FakeDiscord, click: u64) -> Option<String> {
    let texts: Vec<String> = fake
        .interaction_responses(click)
        .iter()
        .filter_map(|b| b.get("content").and_then(Value::as_str).map(str::to_owned))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The lines of `state/runs.jsonl`, parsed.
fn runs(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.state("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every history line parses"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routines_embed_lists_them_and_its_buttons_run_pause_and_resume() {
    let mock = MockModelApi::start(|req| {
        if req.latest_user_text().contains("[routine-bg:r0000001]") {
            Reply::Text("swept".into())
        } else {
            Reply::Text("hi".into())
        }
    })
    .await
    .unwrap();
    let fake = FakeDiscord::start().await;
    let home = Home::new();
    home.write("routines/sweep.md", SWEEP);
    home.write("routines/review.md", REVIEW);
    let bot = Bot::start(&home, &mock, &fake).await;

    let asked = fake.slash(OWNER_ID, "routines", json!([])).await;
    let board = fake
        .wait_for("the /routines embed", LIMIT, |f| {
            f.bot_messages(DM_CHANNEL_ID)
                .into_iter()
                .find(|m| m.embeds[0]["title"] == "Routines")
        })
        .await;
    assert!(
        !fake.interaction_responses(asked).is_empty(),
        "answered as the interaction"
    );
    let sweep = field(&board, "r0000001").expect("a field for the sweep");
    assert!(
        sweep.contains("next ") && sweep.contains("03:00"),
        "next fire time in the owner's zone: {sweep}"
    );
    assert!(sweep.contains("no runs yet"), "{sweep}");
    let review = field(&board, "r0000002").expect("a field for the review");
    assert!(review.starts_with("paused · no runs yet"), "{review}");
    assert!(
        board.embeds[0]["fields"]
            .to_string()
            .contains("Inbox sweep"),
        "named by description: {}",
        board.embeds
    );
    let rows = buttons(&board);
    let (sweep_row, review_row) = {
        let row_of = |id: &str| {
            rows.iter()
                .find(|r| r.iter().any(|(_, c)| c.ends_with(id)))
                .cloned()
                .unwrap_or_else(|| panic!("a row of buttons for {id}: {rows:?}"))
        };
        (row_of("r0000001"), row_of("r0000002"))
    };
    let labels = |row: &[(String, String)]| row.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
    assert_eq!(
        labels(&sweep_row),
        ["Run now: Inbox sweep", "Pause: Inbox sweep"]
    );
    assert_eq!(
        labels(&review_row),
        ["Run now: Weekly review", "Resume: Weekly review"]
    );

    // Run now: the routine's prompt reaches the model and its run is recorded as manual.
    let run = fake
        .click_button(OWNER_ID, board.id, "act:routine_run:r0000001")
        .await;
    fake.wait_for("the routine's prompt at the model", LIMIT, |_| {
        mock.agent_requests()
            .into_iter()
            .find(|r| r.latest_user_text().contains("[routine-bg:r0000001]"))
    })
    .await;
    let said = fake
        .wait_for("the answer to Run now", LIMIT, |f| answers(f, run))
        .await;
    assert!(said.contains("Inbox sweep"), "{said}");
    let history = fake
        .wait_for("the manual run's line", LIMIT, |_| {
            Some(runs(&home)).filter(|r| !r.is_empty())
        })
        .await;
    assert_eq!(history[0]["job"], "r0000001", "{history:?}");
    assert_eq!(history[0]["trigger"], "manual", "{history:?}");
    assert_eq!(history[0]["outcome"], "ok", "{history:?}");

    // Pause: `paused: true` in the file, and the same message now offers Resume.
    let pause = fake
        .click_button(OWNER_ID, board.id, "act:routine_pause:r0000001")
        .await;
    let said = fake
        .wait_for("the answer to Pause", LIMIT, |f| answers(f, pause))
        .await;
    assert!(said.contains("paused"), "{said}");
    let file = std::fs::read_to_string(home.data.join("routines/sweep.md")).unwrap();
    assert!(file.contains("\npaused: true\n"), "{file}");
    let redrawn = fake
        .wait_for("the board redrawn with Resume", LIMIT, |f| {
            f.message(board.id).filter(|m| {
                buttons(m)
                    .iter()
                    .flatten()
                    .any(|(_, c)| c == "act:routine_resume:r0000001")
            })
        })
        .await;
    assert!(
        buttons(&redrawn)
            .iter()
            .flatten()
            .any(|(l, _)| l == "Resume: Inbox sweep"),
        "{:?}",
        buttons(&redrawn)
    );
    let sweep = field(&redrawn, "r0000001").expect("the sweep's field");
    assert!(sweep.starts_with("paused · last ok"), "{sweep}");

    // Resume: the line goes (never `paused: false`), and Pause is back.
    fake.click_button(OWNER_ID, board.id, "act:routine_resume:r0000001")
        .await;
    fake.wait_for("the board redrawn with Pause", LIMIT, |f| {
        f.message(board.id).filter(|m| {
            buttons(m)
                .iter()
                .flatten()
                .any(|(_, c)| c == "act:routine_pause:r0000001")
        })
    })
    .await;
    let file = std::fs::read_to_string(home.data.join("routines/sweep.md")).unwrap();
    assert!(!file.contains("paused"), "{file}");
    assert!(bot.stop().await);
}
