use super::*;
use crate::claude::brain::host::{Host, PermissionDecision};
use crate::claude::brain::mcp::NoTools;
use crate::claude::brain::BoxFuture;

/// Allows everything after a wait, so cancellation can be tested.
struct SlowAllow(Duration);

impl Host for SlowAllow {
    fn can_use_tool(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            PermissionDecision::Allow {
                updated_input: request.input,
            }
        })
    }
}

fn control(timeout: Duration, wait: Duration) -> (Arc<Control>, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handlers = Handlers {
        host: Arc::new(SlowAllow(wait)),
        tools: Arc::new(NoTools),
    };
    (
        Control::new("test".into(), tx, handlers, "discord".into(), timeout),
        rx,
    )
}

async fn next_line(rx: &mut mpsc::UnboundedReceiver<String>) -> Value {
    let line = rx.recv().await.unwrap_or_default();
    serde_json::from_str(&line).unwrap_or(Value::Null)
}

#[tokio::test]
async fn response_is_routed_by_request_id() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::ZERO);
    let asker = tokio::spawn({
        let control = Arc::clone(&control);
        async move { control.request(json!({"subtype":"interrupt"})).await }
    });
    let sent = next_line(&mut rx).await;
    let id = sent["request_id"].as_str().unwrap_or_default().to_owned();
    assert!(
        id.starts_with("req_1_") && id.len() == "req_1_".len() + 8,
        "{id}"
    );
    control.on_response(&json!({"subtype":"success","request_id":"other","response":{}}));
    control
        .on_response(&json!({"subtype":"success","request_id":id,"response":{"still_queued":[]}}));
    assert_eq!(
        asker.await.ok().and_then(Result::ok),
        Some(json!({"still_queued":[]}))
    );
}

#[tokio::test]
async fn error_response_is_a_refusal_with_code() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::ZERO);
    let asker = tokio::spawn({
        let control = Arc::clone(&control);
        async move {
            control
                .request(json!({"subtype":"set_permission_mode","mode":"x"}))
                .await
        }
    });
    let id = next_line(&mut rx).await["request_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    control.on_response(
        &json!({"subtype":"error","request_id":id,"error":"bad mode","error_code":"invalid_mode"}),
    );
    match asker.await {
        Ok(Err(Error::ControlRefused {
            subtype,
            message,
            code,
        })) => {
            assert_eq!(
                (subtype.as_str(), message.as_str()),
                ("set_permission_mode", "bad mode")
            );
            assert_eq!(code.as_deref(), Some("invalid_mode"));
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn unanswered_request_times_out_and_is_forgotten() {
    let (control, _rx) = control(Duration::from_millis(20), Duration::ZERO);
    let err = control.request(json!({"subtype":"interrupt"})).await;
    assert!(matches!(err, Err(Error::ControlTimeout { .. })), "{err:?}");
    assert!(control.pending.lock().waiting.is_empty());
}

#[tokio::test]
async fn exit_fails_waiting_and_later_requests() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::ZERO);
    let asker = tokio::spawn({
        let control = Arc::clone(&control);
        async move { control.request(json!({"subtype":"initialize"})).await }
    });
    next_line(&mut rx).await;
    control.fail_all();
    assert!(matches!(asker.await, Ok(Err(Error::Exited { .. }))));
    let later = control.request(json!({"subtype":"interrupt"})).await;
    assert!(matches!(later, Err(Error::Exited { .. })));
}

#[tokio::test]
async fn inbound_permission_prompt_is_answered_with_echoed_input() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::ZERO);
    control.on_request(
        "cli-1".into(),
        json!({"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}),
    );
    let answer = next_line(&mut rx).await;
    assert_eq!(answer["response"]["request_id"], "cli-1");
    assert_eq!(
        answer["response"]["response"],
        json!({"behavior":"allow","updatedInput":{"command":"ls"}})
    );
}

#[tokio::test]
async fn cancelled_inbound_request_is_never_answered() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::from_millis(50));
    control.on_request(
        "cli-2".into(),
        json!({"subtype":"can_use_tool","tool_name":"Bash","input":{}}),
    );
    control.on_cancel("cli-2");
    control.on_request("cli-3".into(), json!({"subtype":"no_such_thing"}));
    let answer = next_line(&mut rx).await;
    assert_eq!(answer["response"]["request_id"], "cli-3");
    assert_eq!(answer["response"]["subtype"], "error");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(rx.try_recv().is_err(), "cancelled request was answered");
}

#[tokio::test]
async fn hook_callback_for_unregistered_id_is_an_error() {
    let (control, mut rx) = control(Duration::from_secs(5), Duration::ZERO);
    control.set_hook_routes(HashMap::from([("hook_0".to_owned(), HookEvent::Stop)]));
    control.on_request(
        "h1".into(),
        json!({"subtype":"hook_callback","callback_id":"hook_0","input":{}}),
    );
    let answer = next_line(&mut rx).await;
    assert_eq!(answer["response"]["response"], json!({}));
    control.on_request(
        "h2".into(),
        json!({"subtype":"hook_callback","callback_id":"hook_7","input":{}}),
    );
    assert_eq!(next_line(&mut rx).await["response"]["subtype"], "error");
}
