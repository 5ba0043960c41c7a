//! The GoogleAccount actor: the bot's side of Google. It owns the `/google-auth` flow in
//! progress (at most one; a new one replaces it), presses the Google buttons (`task_done:`,
//! `task_del:`, `event_del:`, on the calendar or list a button names; see [`GoogleClick`]),
//! and watches for the `google_auth_revoked` marker — left by any
//! process that met `invalid_grant`, often the agent's own `ollim-bot tasks …` — to tell the
//! owner once.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`StartConsent`] | `/google-auth` on a surface | [`ConsentStart`]: the sentence to show |
//! | [`PasteRedirect`] | a surface, for a line that is a loopback redirect URL | [`PasteOutcome`] |
//! | [`PressGoogleButton`] | a surface, for a Google button (a delete asks first: [`super::confirm`]) | the ephemeral answer |
//! | [`AskDelete`] | the control socket, for the agent's `tasks delete` / `cal delete` | the question's label, or why none was asked |
//!
//! The flow's end ("google connected." / "google auth failed: …") and the revoked notice go to
//! the surface as [`SurfaceEvent::Notice`]s.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use actix::prelude::*;

use super::access::Api;
pub use super::click::GoogleClick;
use super::client_file::ClientFile;
pub use super::confirm::AskDelete;
use super::confirm::{DeleteTarget, Question};
use super::consent::{self, Failure, Redirect};
use super::token_file::Token;
use super::{how_to_create_client_file, REVOKED_NOTICE};
use crate::base::clock::SharedClock;
use crate::conversation::surface::SurfaceEvent;
use crate::records::pending_updates::Append;

/// How often the revoked marker is looked for.
const MARKER_CHECK: Duration = Duration::from_secs(2);

/// `/google-auth`.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ConsentStart")]
pub struct StartConsent;

/// What `/google-auth` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentStart {
    /// No client file: how to make one.
    NoClientFile(String),
    /// A usable grant is there.
    AlreadyConnected,
    /// The flow runs: open this URL.
    Started {
        /// The consent URL.
        url: String,
    },
    /// The flow could not start.
    Failed(String),
}

impl fmt::Display for ConsentStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsentStart::NoClientFile(how) => f.write_str(how),
            ConsentStart::AlreadyConnected => f.write_str("google already connected."),
            ConsentStart::Started { url } => write!(
                f,
                "click to connect google:\n{url}\n-# on another device? paste the redirect url here · 5 min timeout"
            ),
            ConsentStart::Failed(why) => write!(f, "google auth failed: {why}"),
        }
    }
}

/// A line the user typed or DMed that may be a pasted redirect URL.
#[derive(Debug, Clone, Message)]
#[rtype(result = "PasteOutcome")]
pub struct PasteRedirect {
    /// The line.
    pub text: String,
}

/// What became of a pasted line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasteOutcome {
    /// Not a redirect URL: it belongs to the conversation.
    NotARedirect,
    /// Handed to the flow; its end is announced.
    Taken,
    /// A redirect URL, but no flow is waiting.
    NoFlow,
    /// A redirect URL from another flow (wrong `state`): refused; the flow keeps waiting.
    Refused,
}

impl fmt::Display for PasteOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PasteOutcome::NotARedirect => "",
            PasteOutcome::Taken => "-# got it — connecting google...",
            PasteOutcome::NoFlow => "-# no google sign-in is waiting — use /google-auth first.",
            PasteOutcome::Refused => "google auth refused: that redirect url is not from the sign-in in progress (its state does not match).",
        })
    }
}

/// A Google button was pressed; answered with the ephemeral reply.
#[derive(Debug, Clone, Message)]
#[rtype(result = "String")]
pub struct PressGoogleButton(pub GoogleClick);

/// The flow in progress.
struct Flow {
    state: String,
    paste: tokio::sync::mpsc::UnboundedSender<Redirect>,
    handle: SpawnHandle,
    generation: u64,
}

/// The actor.
pub struct GoogleAccount {
    pub(super) api: Api,
    pub(super) clock: SharedClock,
    pub(super) surface: Recipient<SurfaceEvent>,
    pub(super) updates: Recipient<Append>,
    /// Delete questions waiting for the owner, by token.
    pub(super) questions: HashMap<String, Question>,
    flow: Option<Flow>,
    generation: u64,
    span: tracing::Span,
}

impl GoogleAccount {
    /// The account over `api`; notices go to `surface`, button updates to `updates`.
    pub fn new(
        api: Api,
        clock: SharedClock,
        surface: Recipient<SurfaceEvent>,
        updates: Recipient<Append>,
    ) -> Self {
        GoogleAccount {
            api,
            clock,
            surface,
            updates,
            questions: HashMap::new(),
            flow: None,
            generation: 0,
            span: tracing::info_span!("actor", actor = "google_account"),
        }
    }

    /// Tells the owner once per marker, removing it.
    fn report_revoked(&mut self) {
        let marker = &self.api.paths().revoked_marker;
        if !marker.exists() {
            return;
        }
        match std::fs::remove_file(marker) {
            Ok(()) => {
                tracing::warn!("google grant revoked; telling the owner");
                self.surface
                    .do_send(SurfaceEvent::Notice(REVOKED_NOTICE.to_owned()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::error!(cause = %e, "could not remove the google_auth_revoked marker")
            }
        }
    }

    fn connected(&self) -> bool {
        match Token::read(&self.api.paths().token) {
            Ok(Some(t)) => !t.needs_refresh(self.clock.now()) || t.can_refresh(),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(cause = %e, "token.json is unreadable; a new sign-in will replace it");
                false
            }
        }
    }

    fn flow_ended(&mut self, generation: u64, result: Result<(), Failure>) {
        if self
            .flow
            .as_ref()
            .is_some_and(|f| f.generation == generation)
        {
            self.flow = None;
        }
        let text = match result {
            Ok(()) => "google connected.".to_owned(),
            Err(Failure::Cancelled) => return,
            Err(e) => {
                tracing::warn!(cause = %e, "google auth failed");
                format!("google auth failed: {e}")
            }
        };
        self.surface.do_send(SurfaceEvent::Notice(text));
    }
}

impl Actor for GoogleAccount {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let _enter = self.span.clone().entered();
        tracing::info!("google account started");
        self.report_revoked();
        ctx.run_interval(MARKER_CHECK, |act, _| act.report_revoked());
    }
}

impl Supervised for GoogleAccount {
    fn restarting(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "google_account", "actor restarting");
        self.flow = None;
    }
}

impl Handler<StartConsent> for GoogleAccount {
    type Result = MessageResult<StartConsent>;
    fn handle(&mut self, _msg: StartConsent, ctx: &mut Self::Context) -> Self::Result {
        let _enter = self.span.clone().entered();
        if self.connected() {
            return MessageResult(ConsentStart::AlreadyConnected);
        }
        let paths = self.api.paths().clone();
        let client = match ClientFile::read(&paths.credentials) {
            Ok(Some(c)) => c,
            Ok(None) => {
                return MessageResult(ConsentStart::NoClientFile(how_to_create_client_file(
                    &paths.credentials,
                )))
            }
            Err(e) => return MessageResult(ConsentStart::Failed(e.to_string())),
        };
        let (started, waiting) = match consent::start(client) {
            Ok(s) => s,
            Err(why) => return MessageResult(ConsentStart::Failed(why)),
        };
        if let Some(old) = self.flow.take() {
            tracing::info!("a new google sign-in replaces the one in progress");
            ctx.cancel_future(old.handle);
        }
        self.generation += 1;
        let generation = self.generation;
        let finish = waiting.finish(self.api.http().clone(), paths, consent::TIMEOUT);
        let handle = ctx.spawn(
            finish
                .into_actor(self)
                .map(move |result, act, _| act.flow_ended(generation, result)),
        );
        tracing::info!("google sign-in started");
        self.flow = Some(Flow {
            state: started.state,
            paste: started.paste,
            handle,
            generation,
        });
        MessageResult(ConsentStart::Started { url: started.url })
    }
}

impl Handler<PasteRedirect> for GoogleAccount {
    type Result = MessageResult<PasteRedirect>;
    fn handle(&mut self, msg: PasteRedirect, _ctx: &mut Self::Context) -> Self::Result {
        let _enter = self.span.clone().entered();
        let Some(redirect) = Redirect::from_pasted(&msg.text) else {
            return MessageResult(PasteOutcome::NotARedirect);
        };
        let Some(flow) = &self.flow else {
            return MessageResult(PasteOutcome::NoFlow);
        };
        if !redirect.answers(&flow.state) {
            tracing::warn!("google auth: refused a pasted redirect whose state is not this flow's");
            return MessageResult(PasteOutcome::Refused);
        }
        MessageResult(match flow.paste.send(redirect) {
            Ok(()) => PasteOutcome::Taken,
            Err(_) => PasteOutcome::NoFlow,
        })
    }
}

impl Handler<PressGoogleButton> for GoogleAccount {
    type Result = ResponseActFuture<Self, String>;
    fn handle(
        &mut self,
        PressGoogleButton(click): PressGoogleButton,
        _ctx: &mut Self::Context,
    ) -> Self::Result {
        let _enter = self.span.clone().entered();
        tracing::info!(?click, "google button pressed");
        let asked = |answer: Result<String, String>| match answer {
            Ok(label) => format!("-# asked below: delete {label}?"),
            Err(why) => format!("failed: {why}"),
        };
        let click = match click {
            GoogleClick::TaskDel { list, id } => {
                let ask = self.ask_owner(DeleteTarget::Task { list, id });
                return Box::pin(ask.map(move |answer, _, _| asked(answer)));
            }
            GoogleClick::EventDel { calendar, id } => {
                let ask = self.ask_owner(DeleteTarget::Event { calendar, id });
                return Box::pin(ask.map(move |answer, _, _| asked(answer)));
            }
            GoogleClick::ConfirmDelete(token) => return self.answer_question(&token, true),
            GoogleClick::KeepDelete(token) => return self.answer_question(&token, false),
            other => other,
        };
        let (api, updates, now) = (self.api.clone(), self.updates.clone(), self.clock.now());
        Box::pin(
            async move {
            match click.run(&api, now).await {
                Ok((reply, update)) => {
                    if let Err(e) = updates.send(Append { message: update }).await {
                        tracing::error!(cause = %e, "the pending-updates queue did not take the button's update");
                    }
                    reply
                }
                Err(e) => {
                    tracing::warn!(cause = %e, "a google button failed");
                    format!("failed: {}", e.reason())
                }
            }
        }
            .into_actor(self),
        )
    }
}
