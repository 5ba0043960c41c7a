//! What the conversation shows the user: typed events sent to whichever surface runs (the
//! console today, Discord later). Surfaces decide how to render them (SPEC §5, §12): a status
//! line that text replaces, streamed text, the final reply, notices and short errors.

use actix::prelude::*;

/// One thing to show in the DM channel.
#[derive(Debug, Clone, PartialEq, Message)]
#[rtype(result = "()")]
pub enum SurfaceEvent {
    /// A transient status line (`Thinking...`, `Auto-compacting...`); replaced by the next status
    /// or by text.
    Status(String),
    /// A tool the agent is calling, as its label (`Write(reminders/foo.md)`): a status line that
    /// surfaces may also keep in the reply.
    ToolUse(String),
    /// What a subagent is doing (`ollim-bot-guide(search for docs) · Read`): the status line's
    /// new label, its timer still counting from when the subagent started.
    SubagentActivity(String),
    /// A tool call that was denied: its label, shown struck through, and *(ours)* why, in words
    /// the owner can act on ([`crate::agent::permissions::denied_line`]).
    Denied {
        /// The call's label (`Bash(rm x)`), as its [`SurfaceEvent::ToolUse`] showed it.
        label: String,
        /// Why ([`crate::agent::permissions::reasons`]).
        reason: String,
    },
    /// A tool call whose result was an error, as its label; shown struck through
    /// ([`crate::agent::permissions::failed_label`]). Surfaces that already showed the call denied keep
    /// that line.
    ToolFailed(String),
    /// A piece of the answer as it streams.
    TextDelta(String),
    /// The turn ended; the whole answer (what was streamed, or the result text).
    Reply(String),
    /// A line from the bot itself (greetings, `-# catching up on background activity...`).
    Notice(String),
    /// A short error for the user; details are in the log.
    Error(String),
    /// A turn failed because the CLI is not signed in (after the `Error` saying so). Surfaces
    /// that can sign it in where the owner is (Discord: the login link in the DM) offer that;
    /// the others have said enough with the error.
    SignInLost,
    /// A background fork's ping (`[bg] …`). Surfaces that have message ids record the one they
    /// create against `fork_session` (`state/fork_messages.json`) so a reply can resume it.
    Ping {
        /// The text, `[bg] ` included.
        text: String,
        /// The background session that sent it.
        fork_session: Option<String>,
        /// *(ours)* The stored snooze its three snooze buttons press (`None`: no buttons).
        snooze: Option<String>,
    },
    /// *(ours)* The answer just shown (a foreground reminder's) gets the three snooze buttons,
    /// pressing the snooze stored under this id.
    SnoozeButtons(String),
    /// An embed from the agent (`discord_embed`), with its buttons' custom ids in order.
    Embed {
        /// The embed.
        embed: crate::agent::tools::Embed,
        /// `act:<action>:<data>` for each button.
        button_ids: Vec<String>,
        /// The background session that sent it, if any.
        fork_session: Option<String>,
    },
    /// A file from the agent (`send_file`): Discord attaches it, the console shows its path.
    File {
        /// The file.
        file: crate::agent::tools::SentFile,
        /// The background session that sent it, if any.
        fork_session: Option<String>,
    },
    /// An interactive fork began (the purple "Forked Session" embed with its three buttons).
    ForkStarted {
        /// What it is about.
        topic: Option<String>,
    },
    /// An interactive fork ended: saved, summary queued, or discarded.
    ForkEnded(ExitAction),
    /// The interactive fork now running has this session id (sent when it becomes known).
    /// Surfaces that have message ids record what they post for it from now on — its answers,
    /// embeds and files, and the "Fork Ended" embed that closes it — against this session
    /// (`state/fork_messages.json`), so a reply to any of them resumes the fork; the "Fork
    /// Ended" embed ends the recording.
    InteractiveForkSession(String),
    /// *(ours)* A background job whose reports are `always` queued one: a short line (posted
    /// without a notification where the surface can) so the owner knows it is waiting
    /// ([`update_queued_line`]).
    UpdateQueued {
        /// The job's name for the owner.
        job: String,
        /// Updates now waiting for the conversation, this one included.
        waiting: usize,
    },
    /// A background fork's process has exited, its transcript complete: a reply to one of its
    /// messages may resume its session now. Nothing is shown.
    BackgroundEnded {
        /// The background session.
        fork_session: String,
    },
}

impl SurfaceEvent {
    /// This event with every text it shows passed through [`crate::base::redaction`] (SPEC §20).
    pub fn redacted(self) -> Self {
        use crate::base::redaction::redact_owned as owned;
        use SurfaceEvent as E;
        match self {
            E::Status(t) => E::Status(owned(t)),
            E::ToolUse(t) => E::ToolUse(owned(t)),
            E::SubagentActivity(t) => E::SubagentActivity(owned(t)),
            E::Denied { label, reason } => E::Denied {
                label: owned(label),
                reason: owned(reason),
            },
            E::ToolFailed(t) => E::ToolFailed(owned(t)),
            E::TextDelta(t) => E::TextDelta(owned(t)),
            E::Reply(t) => E::Reply(owned(t)),
            E::Notice(t) => E::Notice(owned(t)),
            E::Error(t) => E::Error(owned(t)),
            E::Ping {
                text,
                fork_session,
                snooze,
            } => E::Ping {
                text: owned(text),
                fork_session,
                snooze,
            },
            E::Embed {
                mut embed,
                button_ids,
                fork_session,
            } => {
                embed.title = owned(embed.title);
                embed.description = embed.description.map(owned);
                for field in &mut embed.fields {
                    field.name = owned(std::mem::take(&mut field.name));
                    field.value = owned(std::mem::take(&mut field.value));
                }
                for button in &mut embed.buttons {
                    button.label = owned(std::mem::take(&mut button.label));
                }
                E::Embed {
                    embed,
                    button_ids,
                    fork_session,
                }
            }
            E::ForkStarted { topic } => E::ForkStarted {
                topic: topic.map(owned),
            },
            other => other,
        }
    }
}

/// The line for [`SurfaceEvent::UpdateQueued`]: `-# morning checkin left an update — it comes
/// up when you next write.`, with how many wait when more than one does.
pub fn update_queued_line(job: &str, waiting: usize) -> String {
    let more = if waiting > 1 {
        format!(" ({waiting} waiting)")
    } else {
        String::new()
    };
    format!("-# {job} left an update — it comes up when you next write.{more}")
}

/// How an interactive fork ends (SPEC §6): chosen by its tools or the fork buttons, carried out
/// by the main session, and shown by the surfaces as the "Fork Ended" embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitAction {
    /// A summary went to pending updates; the fork is discarded.
    Report(String),
    /// Discarded.
    Discard,
    /// The fork becomes the main session.
    Save,
    /// A save whose fork had no session to save: discarded, main session unchanged.
    NothingToSave,
    /// *(ours, issue 28)* A save whose new session id could not be written (a full disk):
    /// discarded, main session unchanged, and why.
    NotSaved(Box<crate::base::state_file::NotSaved>),
}
