//! Tier 2, the wiring: `ollim-bot console` with both webhook variables set serves
//! `POST /hook/<id>` on 127.0.0.1 and runs an accepted hook as a background fork; end of input
//! still shuts the bot down cleanly with the server running.

use std::time::{Duration, Instant};

use crate::console_bot::{Bot, Home};
use crate::harness::{post, CI_SPEC, SECRET};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn console_serves_webhooks_when_both_variables_are_set() {
    let mock = MockModelApi::start(|_| Reply::Text("Seen it.".into()))
        .await
        .unwrap();
    mock.script_side_calls(|_| Reply::Text(r#"{"safe": true, "flagged": []}"#.into()));
    let home = Home::new();
    std::fs::create_dir_all(home.data.join("webhooks")).unwrap();
    std::fs::write(home.data.join("webhooks/ci.md"), CI_SPEC).unwrap();
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let port_text = port.to_string();
    let bot = Bot::start_with(
        &home,
        &mock,
        &[("WEBHOOK_PORT", &port_text), ("WEBHOOK_SECRET", SECRET)],
    )
    .await;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + Duration::from_secs(60);
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "the webhook server never listened"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let body = br#"{"repo": "ollim-bot", "status": "ok", "note": "green again"}"#;
    let (status, _) = post(addr, "ci", Some(&format!("Bearer {SECRET}")), body).await;
    assert_eq!(status, 202);
    let deadline = Instant::now() + Duration::from_secs(90);
    while !mock
        .agent_requests()
        .iter()
        .any(|r| r.mentions("[webhook:ci]") && r.mentions("- note: green again"))
    {
        assert!(
            Instant::now() < deadline,
            "no webhook fork reached the model"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bot.finish().await;
}
