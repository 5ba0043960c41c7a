//! Control-protocol bookkeeping for one process (protocol reference §5, §7, §8): the serialized
//! writer, outbound requests waiting for their answers (ids `req_<n>_<8 hex>`, timeout, failed
//! together when the process exits), and inbound requests from the CLI, each answered by its own
//! task that a `control_cancel_request` aborts without answering.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::host::{HookCall, HookEvent, PermissionRequest};
use super::protocol::{control_error_line, control_request_line, control_success_line};
use super::{mcp, Error, Handlers};

type Reply = Result<Value, Error>;

struct Pending {
    subtype: String,
    reply: oneshot::Sender<Reply>,
}

#[derive(Default)]
struct PendingTable {
    /// Set once stdout reached EOF: nothing can be answered any more.
    closed: bool,
    waiting: HashMap<String, Pending>,
}

/// The control state of one process, shared by its reader task, its handler tasks and its driver.
pub struct Control {
    label: String,
    writer: Mutex<Option<mpsc::UnboundedSender<String>>>,
    pending: Mutex<PendingTable>,
    inbound: Mutex<HashMap<String, AbortHandle>>,
    hook_routes: Mutex<HashMap<String, HookEvent>>,
    counter: AtomicU64,
    timeout: Duration,
    handlers: Handlers,
    mcp_server: String,
}

impl Control {
    /// State for a process whose stdin lines go to `writer`.
    pub fn new(
        label: String,
        writer: mpsc::UnboundedSender<String>,
        handlers: Handlers,
        mcp_server: String,
        timeout: Duration,
    ) -> Arc<Self> {
        Arc::new(Self {
            label,
            writer: Mutex::new(Some(writer)),
            pending: Mutex::new(PendingTable::default()),
            inbound: Mutex::new(HashMap::new()),
            hook_routes: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
            timeout,
            handlers,
            mcp_server,
        })
    }

    /// Queues one line for stdin; fails once stdin is closed.
    pub fn write(&self, line: String, what: &str) -> Result<(), Error> {
        let writer = self.writer.lock();
        match writer.as_ref() {
            Some(tx) if tx.send(line).is_ok() => Ok(()),
            _ => Err(Error::Exited {
                subtype: what.to_owned(),
            }),
        }
    }

    /// Closes stdin (after the lines already queued): the CLI finishes its turn and exits.
    pub fn close_stdin(&self) {
        self.writer.lock().take();
    }

    /// Remembers which event each hook callback id belongs to.
    pub fn set_hook_routes(&self, routes: HashMap<String, HookEvent>) {
        *self.hook_routes.lock() = routes;
    }

    /// Sends a control request and waits for its answer (the inner `response`, `{}` when absent).
    pub async fn request(&self, request: Value) -> Result<Value, Error> {
        let subtype = request["subtype"].as_str().unwrap_or("unknown").to_owned();
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        let random = uuid::Uuid::new_v4();
        let b = random.as_bytes();
        let tag = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let request_id = format!("req_{n}_{tag:08x}");
        let (tx, rx) = oneshot::channel();
        {
            let mut table = self.pending.lock();
            if table.closed {
                return Err(Error::Exited { subtype });
            }
            let pending = Pending {
                subtype: subtype.clone(),
                reply: tx,
            };
            table.waiting.insert(request_id.clone(), pending);
        }
        let sent =
            control_request_line(&request_id, &request).and_then(|line| self.write(line, &subtype));
        if let Err(err) = sent {
            self.pending.lock().waiting.remove(&request_id);
            return Err(err);
        }
        tracing::debug!(label = %self.label, %request_id, %subtype, "control request sent");
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_dropped)) => Err(Error::Exited { subtype }),
            Err(_elapsed) => {
                self.pending.lock().waiting.remove(&request_id);
                Err(Error::ControlTimeout {
                    subtype,
                    request_id,
                })
            }
        }
    }

    /// Routes a `control_response` frame to the request waiting for it.
    pub fn on_response(&self, response: &Value) {
        let Some(request_id) = response.get("request_id").and_then(Value::as_str) else {
            tracing::warn!(label = %self.label, "control response without request id");
            return;
        };
        let Some(pending) = self.pending.lock().waiting.remove(request_id) else {
            tracing::debug!(label = %self.label, %request_id, "late or unknown control response");
            return;
        };
        let reply = if response.get("subtype").and_then(Value::as_str) == Some("error") {
            Err(Error::ControlRefused {
                subtype: pending.subtype,
                message: response["error"]
                    .as_str()
                    .unwrap_or("unknown error")
                    .to_owned(),
                code: response["error_code"].as_str().map(str::to_owned),
            })
        } else {
            Ok(response
                .get("response")
                .cloned()
                .unwrap_or_else(|| json!({})))
        };
        // The asker may have timed out and gone; nothing to do then.
        let _ = pending.reply.send(reply);
    }

    /// Starts answering an inbound `control_request` in its own task.
    pub fn on_request(self: &Arc<Self>, request_id: String, request: Value) {
        let mut inbound = self.inbound.lock();
        let control = Arc::clone(self);
        let id = request_id.clone();
        let task = tokio::spawn(async move {
            let answer = control.answer(&request).await;
            // Only answer while still registered: a cancelled request gets no answer.
            if control.inbound.lock().remove(&id).is_none() {
                return;
            }
            let line = match answer {
                Ok(response) => control_success_line(&id, response),
                Err(message) => control_error_line(&id, &message),
            };
            let written = line.and_then(|line| control.write(line, "control response"));
            match written {
                Ok(()) => {}
                // The process closed (a quit, a restart, an idle release) while the answer was
                // being worked out: nobody is left to read it.
                Err(err @ Error::Exited { .. }) => {
                    tracing::debug!(label = %control.label, request_id = %id, cause = %err, "control answer dropped: the process has exited");
                }
                Err(err) => {
                    tracing::warn!(label = %control.label, request_id = %id, cause = %err, "control answer not sent");
                }
            }
        });
        inbound.insert(request_id, task.abort_handle());
    }

    /// Handles `control_cancel_request`: abort the handler and send nothing.
    pub fn on_cancel(&self, request_id: &str) {
        if let Some(task) = self.inbound.lock().remove(request_id) {
            tracing::debug!(label = %self.label, %request_id, "inbound request cancelled");
            task.abort();
        }
    }

    /// The process is gone: fail every waiting request and stop every handler.
    pub fn fail_all(&self) {
        let waiting: Vec<Pending> = {
            let mut table = self.pending.lock();
            table.closed = true;
            table.waiting.drain().map(|(_, p)| p).collect()
        };
        for pending in waiting {
            let _ = pending.reply.send(Err(Error::Exited {
                subtype: pending.subtype,
            }));
        }
        for (_, task) in self.inbound.lock().drain() {
            task.abort();
        }
        self.close_stdin();
    }

    async fn answer(&self, request: &Value) -> Result<Value, String> {
        let subtype = request["subtype"].as_str().unwrap_or("");
        match subtype {
            "can_use_tool" => {
                let prompt = PermissionRequest {
                    tool_name: request["tool_name"].as_str().unwrap_or("").to_owned(),
                    input: request.get("input").cloned().unwrap_or_else(|| json!({})),
                    tool_use_id: request["tool_use_id"].as_str().map(str::to_owned),
                    raw: request.clone(),
                };
                Ok(self.handlers.host.can_use_tool(prompt).await.to_response())
            }
            "hook_callback" => {
                let callback_id = request["callback_id"].as_str().unwrap_or("").to_owned();
                let event = self.hook_routes.lock().get(&callback_id).copied();
                let Some(event) = event else {
                    return Err(format!("no hook callback registered as {callback_id}"));
                };
                let input = request.get("input").cloned().unwrap_or_else(|| json!({}));
                let call = HookCall {
                    event,
                    callback_id,
                    input,
                };
                Ok(self.handlers.host.hook(call).await)
            }
            "mcp_message" => {
                let server = request["server_name"].as_str().unwrap_or("");
                let message = request.get("message").cloned().unwrap_or(Value::Null);
                let tools = self.handlers.tools.as_ref();
                Ok(mcp::answer(server, &self.mcp_server, &message, tools).await)
            }
            other => Err(format!("Unsupported control request subtype: {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::host::{Host, PermissionDecision};
    use crate::brain::mcp::NoTools;
    use crate::brain::BoxFuture;

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

    fn control(
        timeout: Duration,
        wait: Duration,
    ) -> (Arc<Control>, mpsc::UnboundedReceiver<String>) {
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
        control.on_response(
            &json!({"subtype":"success","request_id":id,"response":{"still_queued":[]}}),
        );
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
        control.on_response(&json!({"subtype":"error","request_id":id,"error":"bad mode","error_code":"invalid_mode"}));
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
}
