//! A fork never overwrites history (SPEC §6): the agent's `save_context` does not promote the
//! fork, it asks the user with a yellow confirmation embed (Confirm / Report Instead /
//! Dismiss), and only Confirm saves. Both the request and the click are refused when saving
//! would lose something: the main session moved on since the fork started (its saved session
//! id changed, or it sent a line to its process), background updates arrived since then, or the fork was
//! resumed from a background fork's message. The exit tools also wait until the user has said
//! something in the fork. The "Save Context" button of the "Forked Session" embed is the
//! owner's own choice and saves directly ([`super::ForkButton::Save`]).

use actix::prelude::*;

use super::fork_role::{MarkExit, Role};
use super::MainSession;
use crate::agent::tools::{
    Button, ButtonAction, ButtonClick, ButtonStyle, Embed, EmbedColor, Peer, Refusal,
};
use crate::conversation::surface::{ExitAction, SurfaceEvent};
use crate::records::pending_updates::{Peek, PendingUpdate};

/// The title of the confirmation embed.
pub const SAVE_CONFIRM_TITLE: &str = "Save this fork to the main conversation?";

/// What the main session looked like when its fork started.
pub(super) struct ForkBase {
    /// The saved main session id then.
    main_id: Option<String>,
    /// The lines the main session had sent to its process then.
    turns: u64,
    /// The pending updates then (filled in once the queue answers).
    pending: Vec<PendingUpdate>,
}

impl ForkBase {
    pub(super) fn new(main_id: Option<String>, turns: u64) -> Self {
        Self {
            main_id,
            turns,
            pending: Vec::new(),
        }
    }

    /// The main session has moved on since: its saved id is no longer `main_id`, or it has
    /// sent lines to its process (`turns` in all now).
    fn diverged(&self, main_id: &Option<String>, turns: u64) -> bool {
        *main_id != self.main_id || turns != self.turns
    }
}

/// Fork → main session: would saving the fork now lose anything?
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub(super) struct CheckSave;

/// The agent's `save_context`: check, then show the confirmation embed.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub struct AskToSave;

/// The confirmation embed's Confirm button: check again, then save.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub struct ConfirmSave;

/// The agent's exit tools ask first: refused until the user has said something in the fork, unless an idle nudge came first.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<(), Refusal>")]
pub struct MayExit;

impl MainSession {
    /// Main session: remembers what it looks like as a fork starts, the pending updates once
    /// the queue answers.
    pub(super) fn note_fork_base(&mut self, main_id: Option<String>, ctx: &mut Context<Self>) {
        self.forks.base = Some(ForkBase::new(main_id, self.forks.turns_sent));
        let pending = self.pending.clone();
        ctx.wait(
            async move { pending.send(Peek).await }
                .into_actor(self)
                .map(|peeked, act, _| {
                    let updates = peeked.unwrap_or_else(|e| {
                        tracing::error!(cause = %e, "the pending-updates queue has stopped; a save of this fork will be refused");
                        Vec::new()
                    });
                    if let Some(base) = &mut act.forks.base {
                        base.pending = updates;
                    }
                }),
        );
    }

    /// Fork: the checks this fork can make itself; the parent to ask for the rest.
    fn own_save_checks(&self) -> Result<Addr<MainSession>, Refusal> {
        let Role::Fork(state) = &self.forks.role else {
            return Err(Refusal::NotInInteractiveFork);
        };
        if state.resumed {
            return Err(Refusal::SaveResumedFork);
        }
        if state.user_turns == 0 {
            return Err(Refusal::ExitBeforeUserTurn);
        }
        Ok(state.parent.clone())
    }

    /// Fork: every check, the parent's included.
    fn save_checks(&self) -> ResponseActFuture<Self, Result<(), Refusal>> {
        let parent = match self.own_save_checks() {
            Ok(parent) => parent,
            Err(refusal) => return Box::pin(fut::ready(Err(refusal))),
        };
        Box::pin(
            async move {
                parent
                    .send(CheckSave)
                    .await
                    .map_err(|_| Refusal::ActorGone(Peer::MainSession))?
            }
            .into_actor(self),
        )
    }
}

impl Handler<CheckSave> for MainSession {
    type Result = ResponseActFuture<Self, Result<(), Refusal>>;
    fn handle(&mut self, _: CheckSave, _ctx: &mut Self::Context) -> Self::Result {
        let Some(base) = &self.forks.base else {
            return Box::pin(fut::ready(Err(Refusal::ActorGone(Peer::InteractiveFork))));
        };
        let main_id = self.saved.read_file();
        if base.diverged(&main_id, self.forks.turns_sent) {
            return Box::pin(fut::ready(Err(Refusal::SaveMainDiverged)));
        }
        let before = base.pending.clone();
        let pending = self.pending.clone();
        Box::pin(
            async move {
                let now = pending
                    .send(Peek)
                    .await
                    .map_err(|_| Refusal::ActorGone(Peer::PendingUpdates))?;
                if now.iter().any(|u| !before.contains(u)) {
                    return Err(Refusal::SaveNewUpdates);
                }
                Ok(())
            }
            .into_actor(self),
        )
    }
}

impl Handler<AskToSave> for MainSession {
    type Result = ResponseActFuture<Self, Result<(), Refusal>>;
    fn handle(&mut self, _: AskToSave, _ctx: &mut Self::Context) -> Self::Result {
        Box::pin(self.save_checks().map(|checked, act, _| {
            checked?;
            act.show(confirmation());
            Ok(())
        }))
    }
}

impl Handler<ConfirmSave> for MainSession {
    type Result = ResponseActFuture<Self, Result<(), Refusal>>;
    fn handle(&mut self, _: ConfirmSave, _ctx: &mut Self::Context) -> Self::Result {
        Box::pin(self.save_checks().map(|checked, act, ctx| {
            checked?;
            <Self as Handler<MarkExit>>::handle(act, MarkExit(ExitAction::Save), ctx);
            Ok(())
        }))
    }
}

impl Handler<MayExit> for MainSession {
    type Result = Result<(), Refusal>;
    fn handle(&mut self, _: MayExit, _ctx: &mut Self::Context) -> Self::Result {
        match &self.forks.role {
            // An idle nudge asks the agent to wrap up: the fork may end then, said or not.
            Role::Fork(state) if state.user_turns == 0 && state.nudges == 0 => {
                Err(Refusal::ExitBeforeUserTurn)
            }
            _ => Ok(()),
        }
    }
}

/// What the user reads when their Confirm click is refused.
pub fn refused_save_line(refusal: &Refusal) -> String {
    let why = match refusal {
        Refusal::SaveMainDiverged => "the main conversation has moved on since this fork started",
        Refusal::SaveNewUpdates => "background updates arrived since this fork started",
        Refusal::SaveResumedFork => "this fork was resumed, and the main conversation has moved on",
        Refusal::ExitBeforeUserTurn => "nothing has been said in this fork yet",
        _ => "this fork is no longer open",
    };
    format!("-# not saved: {why} — use Report instead.")
}

/// The yellow confirmation embed: Confirm (green) saves, Report Instead (blurple) asks the
/// agent for a summary, Dismiss (grey) removes it and the fork carries on.
fn confirmation() -> SurfaceEvent {
    let button = |label: &str, style| Button {
        label: label.into(),
        style,
        action: ButtonAction::Dismiss,
    };
    let embed = Embed {
        title: SAVE_CONFIRM_TITLE.into(),
        description: Some(
            "The fork's whole conversation would become the main session. Confirm to save it, \
             Report Instead to keep only a summary, or Dismiss to carry on in the fork."
                .into(),
        ),
        color: EmbedColor::Yellow,
        fields: Vec::new(),
        buttons: vec![
            button("Confirm", ButtonStyle::Success),
            button("Report Instead", ButtonStyle::Primary),
            button("Dismiss", ButtonStyle::Secondary),
        ],
        footer: Some("fork".into()),
    };
    let button_ids = vec![
        ButtonClick::ForkConfirmSave.custom_id(),
        ButtonClick::ForkReport.custom_id(),
        ButtonClick::Dismiss.custom_id(),
    ];
    SurfaceEvent::Embed {
        embed,
        button_ids,
        fork_session: None,
    }
}
