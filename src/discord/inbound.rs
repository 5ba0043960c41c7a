//! What arrives from Discord besides slash commands (SPEC §5, §10–12): the owner's DMs (👀,
//! images, other files kept in `downloads/`, replies that quote or resume a background fork), reactions that answer approval
//! prompts, and clicks on persistent `act:` buttons (Google's go to the Google account). A pasted
//! Google redirect URL finishes `/google-auth` and never reaches the conversation. Everyone but
//! the owner, and anything outside DMs, is ignored; so are the bot's own messages, which Discord
//! echoes back.

use std::time::Duration;

use ollim_actors::agent::permissions::{cancelled_text, ApprovalAnswer};
use ollim_actors::agent::tools::ButtonClick;
use ollim_actors::conversation::main_session::PressButton;
use ollim_actors::conversation::main_session::{ResumeFromReply, Say};
use ollim_actors::google::account::{GoogleClick, PasteRedirect, PressGoogleButton};
use ollim_actors::google::consent::looks_like_redirect;
use ollim_actors::records::sessions::records::InquiryLive;
use ollim_actors::records::sessions::ForkLookup;
use ollim_actors::scheduling::routines_view::{self, RoutineClick};
use serenity::all::{
    ComponentInteraction, Context, CreateInteractionResponse, CreateInteractionResponseFollowup,
    EditMessage, FullEvent, Interaction, Message, Reaction, ReactionType,
};

use super::approvals::Closed;
use super::attachments;
use super::data::{Data, Error};
use super::delivery::ACK_EMOJI;
use super::outbox::{AnswerApproval, BeginTurn, LookupForkMessage, Post, Typing, UntilSettled};
use super::quote;
use super::reauth::OwnerWrote;
use super::sign_in::OwnerLine;

/// Shown when the replied-to message came from a fork whose session can no longer be resumed
/// (replies resume one for 7 days): what happened, and where the reply goes instead.
pub const EXPIRED_FORK: &str =
    "-# the fork that sent this message has expired (replies resume one for 7 days) — \
     your reply goes to the main conversation, with that message quoted.";
/// Starts the line telling the owner an attached file was not kept (the reason follows).
pub const NOT_SAVED: &str = "-# not saved: ";
/// Shown when a reply to a background message arrives while a fork runs.
pub const ALREADY_IN_FORK: &str = "-# already in a fork — reply added as context instead.";

/// poise's event hook.
pub async fn on_event(ctx: &Context, event: &FullEvent, data: &Data) -> Result<(), Error> {
    match event {
        FullEvent::Message { new_message } => on_message(ctx, new_message, data).await,
        FullEvent::ReactionAdd { add_reaction } => on_reaction(ctx, add_reaction, data).await,
        FullEvent::InteractionCreate {
            interaction: Interaction::Component(click),
        } => on_button(ctx, click, data).await,
        _ => {}
    }
    Ok(())
}

async fn on_message(ctx: &Context, msg: &Message, data: &Data) {
    if msg.author.id == ctx.cache.current_user().id || msg.author.bot {
        return;
    }
    if msg.author.id != data.owner || msg.guild_id.is_some() {
        tracing::debug!(author = %msg.author.id, "ignoring a message from someone other than the owner");
        return;
    }
    if data.sign_in_messages.contains(&msg.id) {
        tracing::debug!("a message sent while signing in; not for the conversation");
        return;
    }
    // A sign-in under way (the CLI's sign-in was lost) takes the owner's lines: the code.
    let line = OwnerLine {
        id: msg.id,
        text: msg.content.trim().to_owned(),
    };
    if let Ok(true) = data.reauth.send(OwnerWrote(line)).await {
        tracing::debug!("a message for the sign-in; not for the conversation");
        return;
    }
    if looks_like_redirect(&msg.content) {
        paste_redirect(&msg.content, data).await;
        return;
    }
    let eyes = ReactionType::Unicode(ACK_EMOJI.to_owned());
    if let Err(e) = msg.react(&ctx.http, eyes).await {
        tracing::debug!(cause = %e, "could not add the acknowledgement");
    }
    let received = attachments::receive(&msg.attachments, &data.data_dir).await;
    for why in &received.not_kept {
        data.outbox.do_send(Post(format!("{NOT_SAVED}{why}")));
    }
    let note = received.note();
    let images = received.images;
    let mut text = msg.content.trim().to_owned();
    if let Some(note) = note {
        text = if text.is_empty() {
            note
        } else {
            format!("{text}\n\n{note}")
        };
    }
    if let Some(replied_id) = msg.message_reference.as_ref().and_then(|r| r.message_id) {
        let lookup = LookupForkMessage {
            message_id: replied_id.get(),
        };
        let lookup = data.outbox.send(lookup).await.unwrap_or_else(|e| {
            tracing::error!(cause = %e, "the outbox has stopped; the reply is quoted instead");
            ForkLookup::Unknown
        });
        let expired = matches!(lookup, ForkLookup::Expired);
        let unrecorded = matches!(lookup, ForkLookup::Unknown);
        match lookup {
            ForkLookup::Live {
                fork_session_id,
                age_secs,
            } => {
                settled(data, &fork_session_id).await;
                let resume = ResumeFromReply {
                    session: fork_session_id.clone(),
                    text: text.clone(),
                    age_secs: Some(age_secs),
                };
                match data.main.send(resume).await {
                    Ok(true) => {
                        tracing::info!(session = %fork_session_id, "reply resumes a background fork");
                        data.outbox.do_send(BeginTurn { ack: Some(msg.id) });
                        return;
                    }
                    Ok(false) => data.outbox.do_send(Post(ALREADY_IN_FORK.to_owned())),
                    Err(e) => tracing::warn!(cause = %e, "the conversation did not answer"),
                }
            }
            ForkLookup::Expired | ForkLookup::Unknown => {}
        }
        let replied = match msg.referenced_message.as_deref() {
            Some(m) => Some(m.clone()),
            None => msg.channel_id.message(&ctx.http, replied_id).await.ok(),
        };
        // No record at all (older than the records keep) still shows by its marks.
        let bot = ctx.cache.current_user().id;
        let from_fork = expired
            || (unrecorded
                && replied
                    .as_ref()
                    .is_some_and(|m| quote::sent_by_a_fork(m, bot)));
        if from_fork {
            data.outbox.do_send(Post(EXPIRED_FORK.to_owned()));
        }
        if let Some(replied) = replied {
            text = quote::with_quote(&replied, &text);
        }
    }
    if text.is_empty() && images.is_empty() {
        tracing::debug!("empty message (no text, no image); nothing to answer");
        return;
    }
    data.outbox.do_send(BeginTurn { ack: Some(msg.id) });
    let named = if text.is_empty() {
        "(an image)".to_owned()
    } else {
        text.clone()
    };
    data.outbox.do_send(super::outbox::OwnerLine(named));
    data.main.do_send(Say { text, images });
}

async fn on_reaction(ctx: &Context, reaction: &Reaction, data: &Data) {
    if reaction.user_id != Some(data.owner) {
        return;
    }
    let ReactionType::Unicode(emoji) = &reaction.emoji else {
        return;
    };
    let Some(answer) = ApprovalAnswer::from_emoji(emoji) else {
        return;
    };
    let ask = AnswerApproval {
        message_id: reaction.message_id.get(),
        answer,
    };
    let text = match data.outbox.send(ask).await {
        Ok(Some(Closed::Answered(label))) => {
            tracing::info!(tool = %label, ?answer, "approval answered");
            answer.outcome_text(&label)
        }
        Ok(Some(Closed::TurnGone(label))) => {
            tracing::info!(tool = %label, ?answer, "approval answered after its turn ended; nothing runs");
            cancelled_text(&label)
        }
        Ok(None) => return,
        Err(e) => {
            tracing::error!(cause = %e, "the outbox has stopped; the reaction answers nothing");
            return;
        }
    };
    let edit = EditMessage::new().content(text);
    if let Err(e) = reaction
        .channel_id
        .edit_message(&ctx.http, reaction.message_id, edit)
        .await
    {
        tracing::debug!(cause = %e, "could not update the approval prompt");
    }
}

async fn on_button(ctx: &Context, click: &ComponentInteraction, data: &Data) {
    let custom_id = click.data.custom_id.clone();
    if click.user.id != data.owner {
        let refuse = CreateInteractionResponse::Message(
            serenity::all::CreateInteractionResponseMessage::new()
                .content("not authorized")
                .ephemeral(true),
        );
        if let Err(e) = click.create_response(&ctx.http, refuse).await {
            tracing::debug!(cause = %e, "could not refuse a button click");
        }
        return;
    }
    // Acknowledge at once: Discord gives an interaction three seconds.
    if let Err(e) = click
        .create_response(&ctx.http, CreateInteractionResponse::Acknowledge)
        .await
    {
        tracing::warn!(cause = %e, "could not acknowledge a button click");
        return;
    }
    tracing::info!(custom_id = %custom_id, "button pressed");
    if matches!(ButtonClick::parse(&custom_id), Some(ButtonClick::Dismiss)) {
        if let Err(e) = click.message.delete(&ctx.http).await {
            tracing::debug!(cause = %e, "could not delete a dismissed message");
        }
        return;
    }
    let reply = if let Some(routine) = RoutineClick::from_custom_id(&custom_id) {
        let reply = routines_view::press(routine.clone(), &data.handles.scheduler).await;
        super::commands::redraw_routines(ctx, click, data, routine.routine()).await;
        reply
    } else if let Some(click) = GoogleClick::from_custom_id(&custom_id) {
        google_button(click, data).await
    } else if let Some(change) =
        ollim_actors::agent::memory::versions::undo_button_change(&custom_id)
    {
        super::commands::memory::press(&data.data_dir, change).await
    } else if custom_id == ollim_actors::bot::onboarding::SETUP_BUTTON_ID {
        super::commands::setup::start(data).await
    } else if matches!(
        ButtonClick::parse(&custom_id),
        Some(ButtonClick::Agent { .. })
    ) {
        agent_button(ctx, click, custom_id, data).await
    } else {
        conversation_button(custom_id, data).await
    };
    if !reply.is_empty() {
        let followup = CreateInteractionResponseFollowup::new()
            .content(reply)
            .ephemeral(true);
        if let Err(e) = click.create_followup(&ctx.http, followup).await {
            tracing::debug!(cause = %e, "could not answer a button click");
        }
    }
}

/// An `agent:` button runs once: its prompt is taken on the click (a second tap finds it used),
/// the button is greyed out on the message, used or expired alike (not when the click was
/// refused and the prompt kept), and a click that started a turn shows "typing…" as a DM does.
async fn agent_button(
    ctx: &Context,
    click: &ComponentInteraction,
    custom_id: String,
    data: &Data,
) -> String {
    let reply = conversation_button(custom_id.clone(), data).await;
    if reply.is_empty() {
        data.outbox.do_send(Typing);
    }
    // A click that was refused (a fork button while a fork is open) kept its prompt: the
    // button stays usable.
    let kept = match ButtonClick::parse(&custom_id) {
        Some(ButtonClick::Agent { inquiry_id }) => matches!(
            data.handles
                .session_records
                .send(InquiryLive { id: inquiry_id })
                .await,
            Ok(Ok(true))
        ),
        _ => false,
    };
    if kept {
        return reply;
    }
    if let Some(rows) = super::render::with_button_disabled(&click.message.components, &custom_id) {
        let edit = EditMessage::new().components(rows);
        if let Err(e) = click
            .channel_id
            .edit_message(&ctx.http, click.message.id, edit)
            .await
        {
            tracing::debug!(cause = %e, "could not grey out a used button");
        }
    }
    reply
}

async fn conversation_button(custom_id: String, data: &Data) -> String {
    match data.main.send(PressButton { custom_id }).await {
        Ok(reply) => reply,
        Err(e) => {
            tracing::warn!(cause = %e, "the conversation did not answer a button");
            "-# couldn't reach the conversation — try again.".to_owned()
        }
    }
}

async fn google_button(click: GoogleClick, data: &Data) -> String {
    let Some(google) = &data.handles.google else {
        return "failed: google is not available in this run.".to_owned();
    };
    google
        .send(PressGoogleButton(click))
        .await
        .unwrap_or_else(|e| format!("failed: the google account did not answer ({e})"))
}

/// A pasted Google redirect URL goes to the Google account; its answer (if any) to the DM.
async fn paste_redirect(text: &str, data: &Data) {
    let reply = match &data.handles.google {
        Some(google) => match google
            .send(PasteRedirect {
                text: text.to_owned(),
            })
            .await
        {
            Ok(outcome) => outcome.to_string(),
            Err(e) => format!("the google account did not answer: {e}"),
        },
        None => "google is not available in this run.".to_owned(),
    };
    if !reply.is_empty() {
        data.outbox.do_send(Post(reply));
    }
}

/// The longest a reply waits for the background fork it answers to end.
const SETTLE_LIMIT: Duration = Duration::from_secs(30);

/// Waits (up to [`SETTLE_LIMIT`]) until the background fork of `session` has ended, when it
/// still runs: its process writes its transcript as it goes, and a session resumed before the
/// message the owner replied to is written there would be missing it.
async fn settled(data: &Data, session: &str) {
    let until = UntilSettled {
        fork_session: session.to_owned(),
    };
    let Ok(Some(ended)) = data.outbox.send(until).await else {
        return;
    };
    tracing::info!(%session, "a reply waits for its background fork to end");
    if tokio::time::timeout(SETTLE_LIMIT, ended).await.is_err() {
        tracing::warn!(%session, "the background fork still runs; its session is resumed as it is");
    }
}
