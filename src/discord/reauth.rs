//! Signing Claude Code in again while the bot runs (the original's UX audit #2): a turn that
//! fails because the CLI is not signed in (`SurfaceEvent::SignInLost`) starts the same DM
//! sign-in as the start does ([`super::sign_in`]: "claude login required — …" with the link,
//! the code the owner sends passed to the flow). Once per loss: while a sign-in runs, later
//! failures start nothing, and the owner's DMs go to it, not to the conversation. With
//! `ANTHROPIC_API_KEY` set the flow cannot help (the key is what is refused), so nothing starts.

use std::path::PathBuf;
use std::sync::Arc;

use actix::prelude::*;
use ollim_actors::claude::brain::auth::API_KEY_VAR;
use serenity::all::{ChannelId, Http};
use tokio::sync::mpsc;

use super::sign_in::{self, OwnerLine, RELAY_DEPTH};

/// The actor: the sign-in in progress, if any.
pub struct Reauth {
    binary: PathBuf,
    http: Arc<Http>,
    channel: ChannelId,
    /// Where the owner's lines go while a sign-in runs.
    flow: Option<mpsc::Sender<OwnerLine>>,
}

impl Reauth {
    /// Signs the CLI at `binary` in through the owner's DM `channel` when asked.
    pub fn new(binary: PathBuf, http: Arc<Http>, channel: ChannelId) -> Self {
        Reauth {
            binary,
            http,
            channel,
            flow: None,
        }
    }
}

impl Actor for Reauth {
    type Context = Context<Self>;
}

/// A turn failed because the CLI is not signed in.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct SignInLost;

/// The owner wrote in the DM; answered `true` when a sign-in took the line (it is not for the
/// conversation).
#[derive(Debug, Clone, Message)]
#[rtype(result = "bool")]
pub struct OwnerWrote(pub OwnerLine);

impl Handler<SignInLost> for Reauth {
    type Result = ();
    fn handle(&mut self, _msg: SignInLost, ctx: &mut Self::Context) {
        if self.flow.is_some() {
            tracing::debug!("a sign-in is already under way");
            return;
        }
        if std::env::var_os(API_KEY_VAR).is_some_and(|v| !v.is_empty()) {
            tracing::warn!("the api key was refused; a sign-in from the DM cannot replace it");
            return;
        }
        tracing::info!("claude's sign-in was lost; signing in again through the DM");
        let (tx, mut lines) = mpsc::channel(RELAY_DEPTH);
        self.flow = Some(tx);
        let (binary, http, channel) = (self.binary.clone(), self.http.clone(), self.channel);
        ctx.spawn(
            async move {
                let dm = sign_in::Dm {
                    http: &http,
                    channel,
                };
                sign_in::sign_in(
                    &binary,
                    &dm,
                    &mut lines,
                    "signed in again — send that again.",
                )
                .await
            }
            .into_actor(self)
            .map(|signed_in, act, _ctx| {
                act.flow = None;
                if let Err(e) = signed_in {
                    tracing::warn!(cause = %format!("{e:#}"), "signing in again failed");
                }
            }),
        );
    }
}

impl Handler<OwnerWrote> for Reauth {
    type Result = bool;
    fn handle(&mut self, OwnerWrote(line): OwnerWrote, _ctx: &mut Self::Context) -> bool {
        let Some(flow) = &self.flow else {
            return false;
        };
        if flow.try_send(line).is_err() {
            tracing::warn!("the sign-in is not taking lines; one was dropped");
        }
        true
    }
}
