//! Requests from someone who holds the secret but not good intentions: a body trickled to keep
//! the connection forever, and ids that try to leave `webhooks/`.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::{Hooks, Verdict, CI_SPEC, SECRET};

/// Far beyond the server's body limit; only here so a server that never answers fails the test
/// instead of hanging it.
const GIVE_UP: Duration = Duration::from_secs(60);

#[actix_rt::test]
async fn a_body_trickled_byte_by_byte_is_cut_off_with_408() {
    let hooks = Hooks::start(&[("ci.md", CI_SPEC)], Verdict::Safe).await;
    let stream = TcpStream::connect(hooks.addr).await.unwrap();
    let _ = stream.set_nodelay(true);
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST /hook/ci HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nAuthorization: Bearer {SECRET}\r\n\r\n",
        hooks.addr
    );
    writer.write_all(head.as_bytes()).await.unwrap();
    // One byte every half second: 4096 bytes would take over half an hour.
    let trickle = actix_rt::spawn(async move {
        let mut sent = 0usize;
        while writer.write_all(b" ").await.is_ok() && sent < 4096 {
            sent += 1;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        sent
    });
    let mut raw = Vec::new();
    tokio::time::timeout(GIVE_UP, reader.read_to_end(&mut raw))
        .await
        .expect("the server answers and closes the connection")
        .expect("read the answer");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("did not arrive within 10 seconds"), "{text}");
    trickle.abort();
    assert!(hooks.recorder.jobs().is_empty());
    let (status, _) = hooks.post("ci", r#"{"repo": "r", "status": "ok"}"#).await;
    assert_eq!(status, 202, "the server still serves others");
    hooks.stop().await;
}

#[actix_rt::test]
async fn ids_that_try_to_leave_the_webhooks_directory_are_not_found() {
    let escaping = CI_SPEC.replace("id: \"ci\"", "id: \"../../x\"");
    let hooks = Hooks::start(&[("ci.md", CI_SPEC), ("x.md", &escaping)], Verdict::Safe).await;
    let good = r#"{"repo": "r", "status": "ok"}"#;
    for id in ["..%2F..%2Fx", "%2E%2E%2F%2E%2E%2Fx", "..", "a%00b"] {
        let (status, body) = hooks.post(id, good).await;
        assert_eq!(status, 404, "{id}: {body}");
        assert_eq!(body, json!({"error": "webhook not found"}), "{id}");
    }
    assert_eq!(hooks.post("ci", good).await.0, 202);
    assert_eq!(hooks.recorder.until(1).await.len(), 1);
    hooks.stop().await;
}
