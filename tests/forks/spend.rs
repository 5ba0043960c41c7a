//! Spend caps through the real CLI (SPEC §19): over the day's cap a due background routine wakes
//! no model and is recorded `skipped` (`spend limit`), a due reminder arrives as a plain `⏰`
//! message and its chain stops, the owner is told once, the owner's own message is still
//! answered, and after local midnight jobs run again; within it, a runaway run is stopped by its
//! `max-turns` or its `max-cost` and recorded `over-budget`, with the usual failure alert.

use ollim_actors::conversation::main_session::Say;
use ollim_actors::conversation::surface::SurfaceEvent;
use serde_json::Value;

use crate::rig::{bg_reminder, bg_routine, call, is_reflection, rig, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// The run history's lines for `job`.
fn runs_of(rig: &Rig, job: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(rig.data.state_file("runs.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["job"] == job)
        .collect()
}

/// $20 spent at 8:00 this morning (New York), past the default $10.00 cap.
const SPENT: &str = r#"{"run":"seed","job":"feedf00d","kind":"routine","tag":"routine-bg","name":"earlier","file":"routines/earlier.md","scheduled":"2026-03-02T08:00:00-05:00","started":"2026-03-02T08:00:00-05:00","ended":"2026-03-02T08:00:00-05:00","outcome":"ok","cost_usd":20.0,"turns":3}"#;

const PAUSED: &str = "background work is paused until midnight: spent $20.00 of $10.00 today (`/config spend_daily_usd` to change)";

#[actix_rt::test]
async fn over_the_days_cap_jobs_wake_no_model_until_midnight_but_the_owner_is_answered() {
    let rig = rig(
        |req: &ModelRequest| {
            if req.latest_user_text().contains("how are you") {
                Reply::Text("fine, thanks".into())
            } else {
                Reply::Text("done".into())
            }
        },
        |data| {
            std::fs::write(data.state_file("runs.jsonl"), format!("{SPENT}\n")).unwrap();
        },
    )
    .await;
    rig.write(
        "routines/digest.md",
        &bg_routine("d1d1d1d1", "1 9 * * *", "", "write the digest"),
    );
    let chain = "max-chain: 2\nchain-parent: \"c2c2c2c2\"\ndescription: \"visa form\"\n";
    rig.write(
        "reminders/visa.md",
        &bg_reminder("c2c2c2c2", 1, chain, "is the visa form in?"),
    );
    rig.registered(2).await;
    rig.advance_to(1);
    rig.until("both jobs held back", |r| {
        runs_of(r, "d1d1d1d1").len() == 1 && runs_of(r, "c2c2c2c2").len() == 1
    })
    .await;
    for job in ["d1d1d1d1", "c2c2c2c2"] {
        let line = &runs_of(&rig, job)[0];
        assert_eq!(line["outcome"], "skipped", "{line}");
        assert_eq!(line["error"], "spend limit", "{line}");
    }
    rig.until("the plain reminder", |r| {
        r.screen.pings().contains(&"⏰ visa form".to_owned())
    })
    .await;
    assert!(
        rig.mock
            .agent_requests()
            .iter()
            .all(|q| !q.mentions("[routine-bg:") && !q.mentions("[reminder-bg:")),
        "a model was woken"
    );
    let left = std::fs::read_dir(rig.data.reminders()).unwrap().count();
    assert_eq!(left, 0, "the chain stopped: no follow-up was written");
    // The owner's own message is never refused for spend.
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "how are you".into(),
        images: vec![],
    });
    rig.until("the answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t.contains("fine, thanks")))
    })
    .await;
    let paused: Vec<String> = rig
        .screen
        .notices()
        .into_iter()
        .filter(|n| n.starts_with("background work is paused"))
        .collect();
    assert_eq!(paused, vec![PAUSED.to_owned()], "told exactly once");
    // After local midnight the day starts over: the routine's next time runs it.
    rig.advance_to(24 * 60 + 1);
    rig.until("the routine running the next day", |r| {
        !r.requests_for("[routine-bg:d1d1d1d1]").is_empty()
    })
    .await;
    let prompt = rig.requests_for("[routine-bg:d1d1d1d1]")[0].latest_user_text();
    assert!(prompt.contains("spend today: $0.00 of $10.00"), "{prompt}");
}

#[actix_rt::test]
async fn over_the_cap_in_quiet_hours_a_background_reminder_waits_for_the_next_message() {
    let rig = rig(
        |_: &ModelRequest| Reply::Text("done".into()),
        |data| {
            std::fs::write(data.state_file("runs.jsonl"), format!("{SPENT}\n")).unwrap();
            std::fs::write(
                data.state_file("config.json"),
                r#"{"quiet_hours": "08:00-10:00"}"#,
            )
            .unwrap();
        },
    )
    .await;
    rig.write(
        "reminders/visa.md",
        &bg_reminder("c3c3c3c3", 1, "description: \"visa form\"\n", "is it in?"),
    );
    // The same reminder run in the conversation is delivered at once, as it would have run.
    let in_conversation = bg_reminder("c4c4c4c4", 1, "description: \"stretch\"\n", "stretch")
        .replace("background: true", "background: false");
    rig.write("reminders/stretch.md", &in_conversation);
    rig.registered(2).await;
    rig.advance_to(1);
    let held = "⏰ visa form (a reminder that came during quiet hours, which last until 10:00 AM; tell the owner)";
    rig.until("the plain DM and the held reminder", |r| {
        let pending = std::fs::read_to_string(r.data.state_file("pending_updates.json"));
        r.screen.pings().contains(&"⏰ stretch".to_owned())
            && pending.is_ok_and(|p| p.contains(held))
    })
    .await;
    assert_eq!(
        rig.screen.pings(),
        ["⏰ stretch"],
        "the background one waits"
    );
    for job in ["c3c3c3c3", "c4c4c4c4"] {
        assert_eq!(runs_of(&rig, job)[0]["error"], "spend limit");
    }
}

/// A model that never stops calling a harmless tool.
fn runaway(req: &ModelRequest) -> Reply {
    if is_reflection(req) {
        return Reply::Text("Done.".into());
    }
    call("Glob", serde_json::json!({"pattern": "*.md"}))
}

#[actix_rt::test]
async fn a_runaway_run_is_stopped_by_its_max_turns_and_by_its_max_cost() {
    let rig = rig(runaway, |data| {
        std::fs::write(
            data.state_file("config.json"),
            r#"{"failure_alert_after": 1}"#,
        )
        .unwrap();
    })
    .await;
    rig.write(
        "routines/loop.md",
        &bg_routine("e1e1e1e1", "1 9 * * *", "max-turns: 3\n", "loop"),
    );
    rig.write(
        "routines/pricey.md",
        &bg_routine("e2e2e2e2", "2 9 * * *", "max-cost: 0.50\n", "spend"),
    );
    rig.registered(2).await;
    rig.advance_to(1);
    rig.until("the turn-bound run recorded", |r| {
        !runs_of(r, "e1e1e1e1").is_empty()
    })
    .await;
    let line = &runs_of(&rig, "e1e1e1e1")[0];
    assert_eq!(line["outcome"], "over-budget", "{line}");
    assert_eq!(
        line["error"], "Reached maximum number of turns (3)",
        "{line}"
    );
    assert_eq!(rig.requests_for("[routine-bg:e1e1e1e1]").len(), 3);
    // Each call now reads a million tokens: dollars a call.
    rig.mock.report_input_tokens(1_000_000);
    rig.advance_to(2);
    rig.until("the cost-bound run recorded", |r| {
        !runs_of(r, "e2e2e2e2").is_empty()
    })
    .await;
    let line = &runs_of(&rig, "e2e2e2e2")[0];
    assert_eq!(line["outcome"], "over-budget", "{line}");
    assert_eq!(line["error"], "Reached maximum budget ($0.5)", "{line}");
    assert_eq!(rig.requests_for("[routine-bg:e2e2e2e2]").len(), 1);
    rig.until("both failure alerts", |r| {
        r.screen
            .notices()
            .iter()
            .filter(|n| n.starts_with("⚠️"))
            .count()
            == 2
    })
    .await;
    let alerts: Vec<String> = rig
        .screen
        .notices()
        .into_iter()
        .filter(|n| n.starts_with("⚠️"))
        .collect();
    assert!(
        alerts[0].ends_with("has failed once. last error: Reached maximum number of turns (3)"),
        "{alerts:?}"
    );
}
