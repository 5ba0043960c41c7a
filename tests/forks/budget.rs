//! Pings from background forks and the budget path: own count, busy, budget (SPEC §7).

use std::time::Duration as StdDuration;

use ollim_actors::conversation::main_session::Say;
use ollim_actors::records::pending_updates::Peek;
use ollim_actors::records::ping_budget::{Configure, Snapshot, TryUse};
use serde_json::json;

use crate::rig::{bg_reminder, bg_routine, call, rig, tool_result_text};
use crate::support::mock_model_api::Reply;

const FREELY: &str = "update-main-session: \"freely\"\n";

#[actix_rt::test]
async fn background_ping_reaches_the_surface_and_spends_one_token() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("done".into())
            } else if req.latest_user_text().contains("[routine-bg:aaaa0001]") {
                call(
                    "mcp__discord__ping_user",
                    json!({"message": "time to stretch"}),
                )
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "routines/stretch.md",
        // 09:01 in New York, one minute after the start instant.
        &bg_routine("aaaa0001", "1 9 * * *", FREELY, "nudge me to stretch"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the ping", |r| !r.screen.pings().is_empty())
        .await;
    assert_eq!(rig.screen.pings(), vec!["[bg] time to stretch".to_owned()]);
    let snap = rig.handles.ping_budget.send(Snapshot).await.unwrap();
    assert_eq!((snap.whole_tokens, snap.daily_used), (4, 1));
    rig.until("the tool result", |r| {
        r.requests_for("[routine-bg:aaaa0001]")
            .iter()
            .any(|q| tool_result_text(q).contains("Message sent."))
    })
    .await;
}

#[actix_rt::test]
async fn exhausted_budget_refuses_and_sends_nothing() {
    let rig = rig(
        |req| {
            if !req.tool_results().is_empty() {
                Reply::Text("ok".into())
            } else if req.latest_user_text().contains("[reminder-bg:bbbb0001]") {
                call(
                    "mcp__discord__ping_user",
                    json!({"message": "should not arrive"}),
                )
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    for _ in 0..5 {
        rig.handles.ping_budget.send(TryUse).await.unwrap();
    }
    rig.write(
        "reminders/x.md",
        &bg_reminder("bbbb0001", 1, FREELY, "try to ping"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the refusal", |r| {
        r.requests_for("[reminder-bg:bbbb0001]").iter().any(|q| {
            tool_result_text(q).contains("Budget exhausted (0 remaining). Use report_updates")
        })
    })
    .await;
    rig.settle().await;
    assert!(rig.screen.pings().is_empty(), "{:?}", rig.screen.pings());
}

#[actix_rt::test]
async fn while_the_user_is_mid_turn_only_critical_pings_go_through() {
    let rig = rig(
        |req| {
            let text = req.latest_user_text();
            if !req.tool_results().is_empty() {
                Reply::Text("ok".into())
            } else if text.contains("[reminder-bg:cccc0001]") {
                call("mcp__discord__ping_user", json!({"message": "not urgent"}))
            } else if text.contains("[reminder-bg:cccc0002]") {
                call(
                    "mcp__discord__ping_user",
                    json!({"message": "take your meds", "critical": true}),
                )
            } else {
                Reply::SlowText {
                    chunks: (0..60).map(|i| format!("word{i} ")).collect(),
                    delay: StdDuration::from_millis(300),
                }
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "reminders/a.md",
        &bg_reminder("cccc0001", 1, FREELY, "routine nudge"),
    );
    rig.write(
        "reminders/b.md",
        &bg_reminder("cccc0002", 1, FREELY, "medication"),
    );
    rig.registered(2).await;
    let main = rig.handles.main_session.clone().unwrap();
    main.do_send(Say {
        text: "tell me a long story".into(),
        images: vec![],
    });
    rig.until("the main answer streaming", |r| {
        r.screen.events().iter().any(|e| {
            matches!(
                e,
                ollim_actors::conversation::surface::SurfaceEvent::TextDelta(_)
            )
        })
    })
    .await;
    rig.advance_to(1);
    rig.until("both tool results", |r| {
        let a = r.requests_for("[reminder-bg:cccc0001]").iter().any(|q| {
            tool_result_text(q).contains("User is mid-conversation. Use `report_updates` instead")
        });
        let b = r
            .requests_for("[reminder-bg:cccc0002]")
            .iter()
            .any(|q| tool_result_text(q).contains("Message sent."));
        a && b
    })
    .await;
    assert_eq!(rig.screen.pings(), vec!["[bg] take your meds".to_owned()]);
    let snap = rig.handles.ping_budget.send(Snapshot).await.unwrap();
    assert_eq!(
        (snap.whole_tokens, snap.critical_used, snap.daily_used),
        (5, 1, 0)
    );
}

#[actix_rt::test]
async fn a_second_ping_in_one_fork_is_refused() {
    let rig = rig(
        |req| {
            let results = tool_result_text(req);
            if results.contains("Already sent") {
                Reply::Text("fine".into())
            } else if results.contains("Message sent.") {
                call("mcp__discord__ping_user", json!({"message": "second"}))
            } else if req.latest_user_text().contains("[reminder-bg:dddd0001]") {
                call("mcp__discord__ping_user", json!({"message": "first"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.write(
        "reminders/x.md",
        &bg_reminder("dddd0001", 1, FREELY, "ping twice"),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.until("the second refusal", |r| {
        r.requests_for("[reminder-bg:dddd0001]").iter().any(|q| {
            tool_result_text(q).contains(
                "Already sent 1 ping this session. Use report_updates for additional findings.",
            )
        })
    })
    .await;
    assert_eq!(rig.screen.pings(), vec!["[bg] first".to_owned()]);
}

#[actix_rt::test]
async fn twenty_jobs_at_once_with_three_tokens_deliver_exactly_three_pings() {
    let rig = rig(
        |req| {
            let results = tool_result_text(req);
            let text = req.latest_user_text();
            if results.contains("Update reported") {
                Reply::Text("done".into())
            } else if !results.is_empty() {
                // Ping answered (sent or refused): report what was found.
                let id = req
                    .messages()
                    .iter()
                    .find_map(|m| {
                        let s = m.to_string();
                        s.find("[reminder-bg:")
                            .map(|i| s[i + 13..i + 21].to_owned())
                    })
                    .unwrap_or_default();
                call(
                    "mcp__discord__report_updates",
                    json!({"message": format!("report from {id}")}),
                )
            } else if text.contains("[reminder-bg:") {
                call("mcp__discord__ping_user", json!({"message": "heads up"}))
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.handles
        .ping_budget
        .send(Configure {
            capacity: Some(3),
            refill_rate: None,
        })
        .await
        .unwrap();
    // Not about reflections: twenty of them, one after another, would only slow the test.
    let extra = format!("{FREELY}reflect: false\n");
    for i in 0..20 {
        let id = format!("e000{i:04}");
        rig.write(
            &format!("reminders/job-{i}.md"),
            &bg_reminder(&id, 1, &extra, &format!("job {i}")),
        );
    }
    rig.registered(20).await;
    rig.advance_to(1);
    rig.until("all twenty reports", |r| {
        let done = r
            .mock
            .agent_requests()
            .iter()
            .filter(|q| tool_result_text(q).contains("Update reported"))
            .count();
        done >= 20
    })
    .await;
    rig.settle().await;
    assert_eq!(rig.screen.pings().len(), 3, "{:?}", rig.screen.pings());
    let updates = rig.handles.pending_updates.send(Peek).await.unwrap();
    assert_eq!(updates.len(), 10);
    assert_eq!(
        updates[0].message,
        "(11 earlier update(s) omitted — cap reached)"
    );
    let reports: std::collections::HashSet<_> =
        updates[1..].iter().map(|u| u.message.clone()).collect();
    assert_eq!(reports.len(), 9, "nine distinct reports kept: {updates:?}");
    assert!(reports.iter().all(|m| m.starts_with("report from e000")));
}
