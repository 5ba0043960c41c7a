//! Rendering what the conversation sends to the terminal: text streams in place, everything
//! else gets a line of its own.

use std::io::Write;

use actix::prelude::*;
use std::sync::Arc;

use ollim_actors::main_session::ExitAction;
use ollim_actors::permissions::{prompt_text, struck_through, ApprovalAnswer, ApprovalRequest};
use ollim_actors::surface::SurfaceEvent;
use parking_lot::Mutex;
use tokio::sync::oneshot;

/// Where the answer to an open approval question goes; the input loop fills it.
pub type PendingApproval = Arc<Mutex<Option<oneshot::Sender<ApprovalAnswer>>>>;

/// Writes the DM channel to stdout.
#[derive(Default)]
pub struct ConsoleOut {
    /// The open approval question, if any.
    pub approval: PendingApproval,
    /// The custom ids of the last embed's buttons, for `/button N`.
    pub buttons: Arc<Mutex<Vec<String>>>,
    /// Text of the current answer has been printed without its final newline.
    mid_line: bool,
    /// Something of the current answer has streamed.
    streamed: bool,
}

/// A plain line from the console itself (command replies).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Line(pub String);

impl Actor for ConsoleOut {
    type Context = Context<Self>;
}

fn write(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not an error worth dying for.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

impl ConsoleOut {
    fn own_line(&mut self, text: &str) {
        if self.mid_line {
            write("\n");
            self.mid_line = false;
        }
        write(&format!("{text}\n"));
    }
}

impl Handler<SurfaceEvent> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        match ev {
            SurfaceEvent::Status(s) | SurfaceEvent::ToolUse(s) => {
                if !self.streamed {
                    self.own_line(&format!("-# *{s}*"));
                }
            }
            SurfaceEvent::TextDelta(t) => {
                write(&t);
                self.streamed = true;
                self.mid_line = !t.ends_with('\n');
            }
            SurfaceEvent::Reply(text) => {
                if self.streamed {
                    if self.mid_line {
                        write("\n");
                    }
                } else {
                    write(&format!("{text}\n"));
                }
                self.mid_line = false;
                self.streamed = false;
            }
            SurfaceEvent::Notice(s) | SurfaceEvent::Error(s) => self.own_line(&s),
            SurfaceEvent::Denied(label) => self.own_line(&struck_through(&label)),
            SurfaceEvent::Ping { text, .. } => self.own_line(&text),
            SurfaceEvent::Embed {
                embed, button_ids, ..
            } => {
                let mut text = embed.to_plain_text();
                if !button_ids.is_empty() {
                    text.push_str("\n-# press a button with /button N");
                }
                *self.buttons.lock() = button_ids;
                self.own_line(&text);
            }
            SurfaceEvent::ForkStarted { topic } => {
                let about = topic.map(|t| format!(": {t}")).unwrap_or_default();
                self.own_line(&format!(
                    "── Forked Session{about} ──\n-# /save keeps it as the conversation · /report queues a summary · /exit-fork discards it"
                ));
            }
            SurfaceEvent::ForkEnded(action) => {
                let line = match action {
                    ExitAction::Save => "── Fork Ended — saved to main ──".to_owned(),
                    ExitAction::Report(summary) => {
                        format!("── Fork Ended — summary queued ──\n{summary}")
                    }
                    ExitAction::Discard => "── Fork Ended — discarded ──".to_owned(),
                };
                self.own_line(&line);
            }
        }
    }
}

impl Handler<Line> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, Line(text): Line, _ctx: &mut Self::Context) {
        self.own_line(&text);
    }
}

impl Handler<ApprovalRequest> for ConsoleOut {
    type Result = ResponseFuture<ApprovalAnswer>;
    fn handle(&mut self, req: ApprovalRequest, _ctx: &mut Self::Context) -> Self::Result {
        self.own_line(&format!(
            "{}\n-# answer y (allow), n (deny) or a (allow for this session)",
            prompt_text(&req)
        ));
        let (tx, rx) = oneshot::channel();
        *self.approval.lock() = Some(tx);
        Box::pin(async move { rx.await.unwrap_or(ApprovalAnswer::Deny) })
    }
}

/// Reads an answer to an approval question: y/n/a or the emoji.
pub fn approval_answer(line: &str) -> Option<ApprovalAnswer> {
    match line.trim().to_lowercase().as_str() {
        "y" | "yes" => Some(ApprovalAnswer::Allow),
        "n" | "no" => Some(ApprovalAnswer::Deny),
        "a" | "always" => Some(ApprovalAnswer::AllowForSession),
        other => ApprovalAnswer::from_emoji(other),
    }
}
