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
#[path = "control_tests.rs"]
mod tests;
