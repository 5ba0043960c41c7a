//! The docs MCP server (SPEC §17): the conversation's CLI is given `OLLIM_DOCS_MCP_URL` as the
//! `docs` HTTP server — here a local listener stands in for docs.ollim.ai and records that the
//! CLI came to it — and a server that does not answer MCP leaves the conversation working.

use std::sync::Arc;

use parking_lot::Mutex;
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::bot::{Bot, Home, LIMIT};
use crate::support::mock_model_api::{MockModelApi, Reply};

#[tokio::test]
async fn the_conversation_is_given_the_docs_server_and_works_without_it_answering() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = vec![0u8; 4096];
            let n = stream.read(&mut buf).await.unwrap_or(0);
            let text = String::from_utf8_lossy(&buf[..n]).to_string();
            kept.lock()
                .push(text.lines().next().unwrap_or_default().to_owned());
            // No answer: the connection closes.
        }
    });
    let mock = MockModelApi::start(|_| Reply::Text("still fine".into()))
        .await
        .unwrap();
    let home = Home::new();
    let mut bot = Bot::start_with(&home, &mock, &[("OLLIM_DOCS_MCP_URL", url.as_str())]).await;
    bot.say("hello").await;
    bot.expect("still fine").await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    while seen.lock().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let first = seen.lock().first().cloned().unwrap_or_default();
    assert!(
        first.ends_with(" /mcp HTTP/1.1"),
        "the CLI came to the docs server: {first:?}"
    );
    bot.finish().await;
}
