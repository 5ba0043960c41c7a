//! The sentences the agent tools answer with (SPEC §7, §10): refusals, which the model reads as
//! ordinary (non-error) results and which also serve the session actors for the checks they
//! make (per-fork ping count, busy, budget), and confirmations. The texts are the original's,
//! word for word: models and prompts depend on them.

use std::borrow::Cow;
use std::fmt;

/// Why a tool did not act. Display is the exact sentence the model reads; every refusal
/// sentence of the tools (and of `/fork`) is written here and nowhere else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A background fork already sent its one non-critical ping (checked by the fork).
    AlreadyPinged,
    /// The user is mid-conversation (checked by the fork, asking the main session).
    UserBusy,
    /// No ping token left (checked by the fork, asking the ping budget).
    BudgetExhausted,
    /// The job has `allow-ping: false`; overrides `critical`.
    PingingDisabled,
    /// `ping_user` outside a background fork.
    PingOutsideBackground,
    /// `follow_up_chain` on the last link of a chain.
    ChainLimitReached,
    /// `follow_up_chain` where no chain reminder is running.
    NoReminderContext,
    /// `follow_up_chain` could not write the next reminder; carries the cause.
    FollowUpNotScheduled(String),
    /// `save_context` in a background fork.
    SaveContextInBackground,
    /// `save_context` or `exit_fork` in the main session.
    NotInInteractiveFork,
    /// `report_updates` or `follow_up_chain` in a background job with `update-main-session: blocked`.
    ReportingDisabled,
    /// `report_updates` in the main session.
    NotInFork,
    /// `enter_fork` in a background fork.
    EnterForkInBackground,
    /// `enter_fork` inside an interactive fork (no nesting).
    AlreadyInFork,
    /// `/fork` (or `enter_fork`) while the main session already has an interactive fork open.
    ForkAlreadyOpen,
    /// `exit_fork` in a background fork.
    ExitForkInBackground,
    /// `save_context` (or its Confirm button) after the main session moved on since the fork
    /// started: saving would overwrite those turns.
    SaveMainDiverged,
    /// `save_context` (or its Confirm button) after background updates arrived since the fork
    /// started: saving would drop them.
    SaveNewUpdates,
    /// `save_context` in a fork resumed from a background fork's message.
    SaveResumedFork,
    /// An exit tool of an interactive fork before the user has said anything in it.
    ExitBeforeUserTurn,
    /// A tool this session is not offered (a background job's allowed set does not name it).
    NotOffered(String),
    /// `add_reminder` with neither `delay_minutes` nor `run_at`.
    ReminderTimeMissing,
    /// `add_reminder` with both `delay_minutes` and `run_at`.
    ReminderTimeTwice,
    /// `add_reminder`'s `run_at` is not a date-time; carries what was given.
    ReminderTimeUnreadable(String),
    /// `add_reminder`'s time has passed; carries the time.
    ReminderTimePassed(String),
    /// `add_reminder` refused by the reminder rules; carries the rule's words.
    ReminderRefused(String),
    /// `add_reminder` could not write its file; carries the cause.
    ReminderNotSaved(String),
    /// `cancel_reminder` with an id no pending reminder has.
    ReminderNotFound(String),
    /// `cancel_reminder` with something that is not an id; carries why.
    ReminderIdInvalid(String),
    /// `cancel_reminder` or `list_reminders` could not read or remove the files; carries why.
    RemindersUnreadable(String),
    /// `send_file`: nothing at that path.
    FileMissing(String),
    /// `send_file`: a directory or other non-file.
    FileNotRegular(String),
    /// `send_file`: over Discord's limit; carries the size in MB, one decimal.
    FileTooLarge(String),
    /// `send_file` from a background fork, for a file outside the data directory.
    FileOutsideDataDir,
    /// `send_file`: the file could not be read; carries the cause.
    FileUnreadable(String),
    /// An actor the tool needed has stopped (its mailbox is closed): the tool did nothing.
    ActorGone(Peer),
    /// *(ours)* A non-critical ping or embed during quiet hours (checked by the fork, asking the
    /// main session); carries when they end, as the user reads it (`8:00 AM`).
    QuietHours {
        /// When quiet hours end.
        until: String,
    },
    /// *(ours)* The same text (whitespace and case folded) was sent by the same job within the
    /// last 24 hours (checked by the ping budget); carries when, as the user reads it
    /// (`9:00 AM`, `9:00 PM yesterday`).
    AlreadySentThis {
        /// When the earlier one went out.
        sent_at: String,
    },
}

/// The actors a tool call may need, named for [`Refusal::ActorGone`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// The main session (busy checks, `enter_fork`).
    MainSession,
    /// The interactive fork whose exit was being marked.
    InteractiveFork,
    /// The background fork that received the call.
    BackgroundFork,
    /// The pending-updates queue (`report_updates`).
    PendingUpdates,
    /// The ping budget (a non-critical ping).
    PingBudget,
    /// The session records (an embed's `agent:` buttons).
    SessionRecords,
}

impl Refusal {
    /// The sentence the model reads.
    pub fn text(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Refusal::AlreadyPinged => {
                "Already sent 1 ping this session. Use report_updates for additional findings."
            }
            Refusal::UserBusy => {
                "User is mid-conversation. Use `report_updates` instead, or set `critical=True` for time-sensitive alerts."
            }
            Refusal::BudgetExhausted => {
                "Budget exhausted (0 remaining). Use report_updates to pass findings to the main session instead."
            }
            Refusal::PingingDisabled => "Pinging is disabled for this background task.",
            Refusal::PingOutsideBackground => {
                "Error: ping_user is only available in background forks"
            }
            Refusal::ChainLimitReached => {
                "Error: follow-up limit reached — this was the last check. If the task still needs attention, ping the user now."
            }
            Refusal::NoReminderContext => "Error: no active reminder context",
            Refusal::FollowUpNotScheduled(cause) => {
                return Cow::Owned(format!("Error scheduling follow-up: {cause}"))
            }
            Refusal::SaveContextInBackground => {
                "Error: save_context is not available in background forks. Use report_updates instead."
            }
            Refusal::NotInInteractiveFork => "Error: not in an interactive fork",
            Refusal::ReportingDisabled => {
                "Reporting to main session is disabled for this background task."
            }
            Refusal::NotInFork => "Error: not in a forked session",
            Refusal::EnterForkInBackground => {
                "Error: enter_fork is not available in background forks."
            }
            Refusal::AlreadyInFork => {
                "Error: already in an interactive fork. Use report_updates, exit_fork, or save_context to end it first."
            }
            Refusal::ForkAlreadyOpen => "already in a fork — end it first (save, report or exit).",
            Refusal::ExitForkInBackground => {
                "Error: background forks end automatically. Use report_updates to pass findings to the main session."
            }
            Refusal::SaveMainDiverged => {
                "Error: save_context refused — the main session has moved on since this fork started, and saving would overwrite it. Use report_updates to pass your findings instead."
            }
            Refusal::SaveNewUpdates => {
                "Error: save_context refused — new background updates arrived since this fork started, and saving would lose them. Use report_updates to pass your findings instead."
            }
            Refusal::SaveResumedFork => {
                "Error: save_context is not available in a resumed fork — the main session has moved on since this fork ran. Use report_updates to pass your findings instead."
            }
            Refusal::ExitBeforeUserTurn => {
                "Error: the user has not said anything in this fork yet. Wait for their reply before ending the fork."
            }
            Refusal::NotOffered(tool) => {
                return Cow::Owned(format!("Error: this session is not offered {tool}"))
            }
            Refusal::ReminderTimeMissing => {
                "Error: say when — give delay_minutes or run_at (one of the two)."
            }
            Refusal::ReminderTimeTwice => "Error: give delay_minutes or run_at, not both.",
            Refusal::ReminderTimeUnreadable(raw) => {
                return Cow::Owned(format!(
                    "Error: run_at must look like 2026-03-02T15:30 (the user's local time) or carry an offset (2026-03-02T15:30:00+01:00); got {raw}"
                ))
            }
            Refusal::ReminderTimePassed(at) => {
                return Cow::Owned(format!(
                    "Error: that time has already passed, so nothing was scheduled: {at}"
                ))
            }
            Refusal::ReminderRefused(why) => {
                return Cow::Owned(format!("Error: reminder not scheduled: {why}"))
            }
            Refusal::ReminderNotSaved(cause) => {
                return Cow::Owned(format!("Error: the reminder could not be saved: {cause}"))
            }
            Refusal::ReminderNotFound(id) => {
                return Cow::Owned(format!("Error: no pending reminder has the id {id}"))
            }
            Refusal::ReminderIdInvalid(why) => {
                return Cow::Owned(format!("Error: not a reminder id: {why}"))
            }
            Refusal::RemindersUnreadable(why) => {
                return Cow::Owned(format!("Error: the reminders could not be read: {why}"))
            }
            Refusal::FileMissing(path) => {
                return Cow::Owned(format!("Error: there is no file at {path}"))
            }
            Refusal::FileNotRegular(path) => {
                return Cow::Owned(format!("Error: not a regular file, so not sent: {path}"))
            }
            Refusal::FileTooLarge(megabytes) => {
                return Cow::Owned(format!(
                    "Error: Discord takes files up to 25 MB; this one is too large to send: {megabytes} MB"
                ))
            }
            Refusal::FileOutsideDataDir => {
                "Error: background tasks may send only files inside the data directory."
            }
            Refusal::FileUnreadable(cause) => {
                return Cow::Owned(format!("Error: the file could not be read: {cause}"))
            }
            Refusal::ActorGone(peer) => peer.gone_text(),
            Refusal::QuietHours { until } => {
                return Cow::Owned(format!(
                    "Quiet hours until {until}: nothing was sent. Use report_updates to pass findings to the main session instead; set critical=True only if the user would be devastated to miss this before then."
                ))
            }
            Refusal::AlreadySentThis { sent_at } => {
                return Cow::Owned(format!(
                    "Already sent this at {sent_at} (the same message within the last 24 hours), so nothing was sent. Use report_updates for anything new instead of repeating it."
                ))
            }
        })
    }
}

impl Peer {
    /// What the model reads when this actor has stopped.
    fn gone_text(self) -> &'static str {
        match self {
            Peer::MainSession => "Error: the conversation is not running",
            Peer::InteractiveFork => "Error: the fork has already ended",
            Peer::BackgroundFork => "Error: this background task has ended",
            Peer::PendingUpdates => "Error: the update could not be stored",
            Peer::PingBudget => "Error: the ping budget is not running, so nothing was sent",
            Peer::SessionRecords => "Error: the buttons could not be stored, so nothing was sent",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl From<Refusal> for String {
    fn from(refusal: Refusal) -> Self {
        refusal.text().into_owned()
    }
}

/// The ping budget's refusal, in the words the model reads.
impl From<crate::records::ping_budget::Refusal> for Refusal {
    fn from(refusal: crate::records::ping_budget::Refusal) -> Self {
        match refusal {
            crate::records::ping_budget::Refusal::BudgetExhausted => Refusal::BudgetExhausted,
            crate::records::ping_budget::Refusal::AlreadySent { at, yesterday } => {
                let time = crate::records::quiet_hours::clock_time(at);
                Refusal::AlreadySentThis {
                    sent_at: if yesterday {
                        format!("{time} yesterday")
                    } else {
                        time
                    },
                }
            }
        }
    }
}

/// What a tool that acted tells the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// `ping_user` sent its message.
    MessageSent,
    /// `discord_embed` sent its embed.
    EmbedSent,
    /// `follow_up_chain` scheduled the next check this many minutes ahead.
    FollowUpScheduled(u32),
    /// `save_context` asked the user to confirm the save.
    SaveConfirmationAsked,
    /// `report_updates` from a background fork queued its summary.
    ReportedFromBackground,
    /// `report_updates` from an interactive fork queued its summary and ends the fork.
    ReportedFromFork,
    /// `enter_fork` asked for a fork.
    EnteringFork,
    /// `exit_fork` marked the fork for discarding.
    ForkDiscarded,
    /// `send_file` handed the file to the DM.
    FileSent,
    /// `cancel_reminder` removed the reminder with this id.
    ReminderCancelled(String),
}

impl fmt::Display for Confirmation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Confirmation::MessageSent => f.write_str("Message sent."),
            Confirmation::EmbedSent => f.write_str("Embed sent."),
            Confirmation::FollowUpScheduled(minutes) => {
                let s = if *minutes == 1 { "" } else { "s" };
                write!(f, "Follow-up scheduled in {minutes} minute{s}")
            }
            Confirmation::SaveConfirmationAsked => f.write_str(
                "Save confirmation sent to the user. The fork becomes the main session only if they click Confirm; until then it stays open — carry on with the conversation.",
            ),
            Confirmation::ReportedFromBackground => {
                f.write_str("Update reported -- summary will appear in main session.")
            }
            Confirmation::ReportedFromFork => f.write_str(
                "Update reported. Fork will be discarded after you finish responding — further tool calls delay the exit.",
            ),
            Confirmation::EnteringFork => f.write_str("Entering fork — interrupting current turn."),
            Confirmation::ForkDiscarded => f.write_str(
                "Fork will be discarded after you finish responding — further tool calls delay the exit.",
            ),
            Confirmation::FileSent => f.write_str("File sent."),
            Confirmation::ReminderCancelled(id) => write!(f, "cancelled {id}"),
        }
    }
}

#[cfg(test)]
#[path = "replies_tests.rs"]
mod tests;
