//! Rendering what the conversation sends to the terminal: text streams in place, everything
//! else gets a line of its own. The renderer is the console's surface actor, so it also owns
//! what the input loop answers: the open approval question ([`AnswerApproval`]), the last
//! embed's buttons ([`LastButtons`]) and *(ours)* the newest snooze ([`LastSnooze`]).

use std::io::Write;

use actix::prelude::*;

use ollim_actors::agent::permissions::{
    cancelled_text, denied_line, failed_label, prompt_text, ApprovalAnswer, ApprovalRequest, Asker,
};
use ollim_actors::conversation::main_session::ExitAction;
use ollim_actors::conversation::surface::{update_queued_line, SurfaceEvent};
use tokio::sync::oneshot;

/// Writes the DM channel to stdout.
#[derive(Default)]
pub struct ConsoleOut {
    /// Where the answer to the open approval question goes, if one is open, with whether its
    /// turn still waits and the call's label.
    approval: Option<(oneshot::Sender<ApprovalAnswer>, Asker, String)>,
    /// The custom ids of the last embed's buttons, for `/button N`.
    buttons: Vec<String>,
    /// The newest `[bg]` ping's or reminder answer's snooze, for `/snooze`.
    snooze: Option<String>,
    /// Text of the current answer has been printed without its final newline.
    mid_line: bool,
    /// Something of the current answer has streamed.
    streamed: bool,
    /// Labels of the current answer's calls shown denied (their failed result says nothing new).
    denied: Vec<String>,
    /// *(`ollim-bot chat`)* The conversation is shown the `chat` way.
    chat: Option<crate::chat::ChatPrinter>,
    /// Answers shown so far (the shutdown drain compares it with the count when a line went).
    replies: u64,
}

impl ConsoleOut {
    /// A renderer showing the conversation the `chat` way (`[tool]`, `[embed]`, `you> `).
    pub fn chat() -> Self {
        Self {
            chat: Some(crate::chat::ChatPrinter::default()),
            ..Self::default()
        }
    }
}

/// *(`ollim-bot chat`)* Prints the `you> ` prompt (nothing on the console).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Prompt;

impl Handler<Prompt> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, _msg: Prompt, _ctx: &mut Self::Context) {
        if let Some(printer) = &mut self.chat {
            printer.prompt();
        }
    }
}

/// A plain line from the console itself (command replies).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Line(pub String);

/// The user typed an answer to an approval question; answered `true` when one was open (the
/// line is used up), `false` when none was (the line is an ordinary message).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct AnswerApproval(pub ApprovalAnswer);

/// Asks for the newest snooze (a `[bg]` ping's or a reminder's answer's), for `/snooze`.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Option<String>")]
pub struct LastSnooze;

/// The hint under a message that can be snoozed.
const SNOOZE_HINT: &str = "-# snooze with /snooze 15m, /snooze 1h or /snooze tomorrow";

/// Asks for the custom ids of the last embed's buttons, for `/button N`.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<String>")]
pub struct LastButtons;

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
        if let Some(printer) = &mut self.chat {
            printer.show(ollim_actors::bot::control_socket::ChatEvent::Notice(
                text.to_owned(),
            ));
            return;
        }
        if self.mid_line {
            write("\n");
            self.mid_line = false;
        }
        write(&format!("{text}\n"));
    }
}

impl Handler<SurfaceEvent> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, ctx: &mut Self::Context) {
        if matches!(ev, SurfaceEvent::Reply(_)) {
            self.replies += 1;
        }
        if matches!(&ev, SurfaceEvent::Notice(t) if t == ollim_actors::conversation::main_session::FIRST_GREETING)
        {
            // The console's stand-in for the greeting's "Get started" button (SPEC §17).
            ctx.notify(Line(
                ollim_actors::bot::onboarding::CONSOLE_SETUP_HINT.to_owned(),
            ));
        }
        if let Some(printer) = &mut self.chat {
            let reply = matches!(ev, SurfaceEvent::Reply(_));
            if let Some(shown) = ollim_actors::bot::control_socket::chat_event(&ev) {
                printer.show(shown);
            }
            if reply {
                printer.prompt();
            }
            return;
        }
        match ev {
            SurfaceEvent::Status(s)
            | SurfaceEvent::ToolUse(s)
            | SurfaceEvent::SubagentActivity(s) => {
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
                self.denied.clear();
            }
            SurfaceEvent::Notice(s) | SurfaceEvent::Error(s) => self.own_line(&s),
            SurfaceEvent::UpdateQueued { job, waiting } => {
                self.own_line(&update_queued_line(&job, waiting))
            }
            SurfaceEvent::Denied { label, reason } => {
                self.own_line(&denied_line(&label, &reason));
                self.denied.push(label);
            }
            SurfaceEvent::ToolFailed(label) => match self.denied.iter().position(|l| *l == label) {
                Some(i) => {
                    self.denied.remove(i);
                }
                None => self.own_line(&format!("-# *{}*", failed_label(&label))),
            },
            SurfaceEvent::Ping { text, snooze, .. } => match snooze {
                Some(id) => {
                    self.own_line(&format!("{text}\n{SNOOZE_HINT}"));
                    self.snooze = Some(id);
                }
                None => self.own_line(&text),
            },
            SurfaceEvent::SnoozeButtons(id) => {
                self.own_line(SNOOZE_HINT);
                self.snooze = Some(id);
            }
            SurfaceEvent::Embed {
                embed, button_ids, ..
            } => {
                let mut text = embed.to_plain_text();
                if !button_ids.is_empty() {
                    text.push_str("\n-# press a button with /button N");
                }
                self.buttons = button_ids;
                self.own_line(&text);
            }
            SurfaceEvent::File { file, .. } => {
                let mut text = String::new();
                if let Some(caption) = &file.caption {
                    text.push_str(caption);
                    text.push('\n');
                }
                text.push_str(&file_line(&file.path));
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
                    ExitAction::NothingToSave => {
                        "── Fork Ended — discarded ──\nfork discarded (no session to save)"
                            .to_owned()
                    }
                    ExitAction::NotSaved(not_saved) => {
                        format!("── Fork Ended — not saved ──\nfork discarded: {not_saved}")
                    }
                };
                self.own_line(&line);
            }
            // The console cannot reply to a message, so it never waits for one to settle.
            SurfaceEvent::BackgroundEnded { .. } => {}
            // The error before it told how to sign in from a shell: the console is one.
            SurfaceEvent::InteractiveForkSession(_) | SurfaceEvent::SignInLost => {}
        }
    }
}

/// Asks how many answers have been shown so far.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "u64")]
pub struct Replies;

impl Handler<Replies> for ConsoleOut {
    type Result = u64;
    fn handle(&mut self, _msg: Replies, _ctx: &mut Self::Context) -> u64 {
        self.replies
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
        self.approval = Some((tx, req.asker.clone(), req.label.clone()));
        Box::pin(async move { rx.await.unwrap_or(ApprovalAnswer::Deny) })
    }
}

impl Handler<AnswerApproval> for ConsoleOut {
    type Result = bool;
    fn handle(&mut self, AnswerApproval(answer): AnswerApproval, _ctx: &mut Self::Context) -> bool {
        match self.approval.take() {
            // The turn that asked has ended (interrupted, its CLI gone): nothing runs.
            Some((_, asker, label)) if asker.gone() => {
                self.own_line(&cancelled_text(&label));
                true
            }
            Some((reply, _, _)) => {
                let _ = reply.send(answer);
                true
            }
            None => false,
        }
    }
}

impl Handler<LastSnooze> for ConsoleOut {
    type Result = MessageResult<LastSnooze>;
    fn handle(&mut self, _msg: LastSnooze, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.snooze.clone())
    }
}

impl Handler<LastButtons> for ConsoleOut {
    type Result = MessageResult<LastButtons>;
    fn handle(&mut self, _msg: LastButtons, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.buttons.clone())
    }
}

/// How the console shows a file the agent sent: its path (the terminal cannot attach it).
pub fn file_line(path: &std::path::Path) -> String {
    format!("-# file: {}", path.display())
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
