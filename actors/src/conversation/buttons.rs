//! Buttons that keep working after a restart (SPEC §10).
//!
//! When an embed goes out, each button gets a custom id `act:<action>:<data>`; an `agent:`
//! button's prompt is stored in `state/inquiries.json` (7-day TTL) under the id the custom id
//! carries, together with the background session that sent it, if any (through the file's one
//! owner, the [`SessionRecords`] actor). A click (a Discord interaction, or `/button N` on the
//! console) comes back as `PressButton` to the main session, which reads everything it needs
//! from the custom id and the inquiries file — nothing lives only in memory. The click takes the
//! prompt out of the file, so an `agent:` button runs once: a double tap, or a tap on a used or
//! expired button, gets [`USED_OR_EXPIRED`] (Discord also greys the button out). A click whose
//! fork is refused (another fork is open) puts the prompt back, so the button works once that
//! fork has closed (Discord leaves it as it is). Google's buttons
//! (`task_done:`, `task_del:`, `event_del:`) are not the conversation's: the surfaces send them to
//! the Google account.

use actix::prelude::*;

use crate::agent::tools::{ButtonAction, ButtonClick, Embed, Peer, Refusal};
use crate::records::sessions::records::{RegisterInquiry, TakeInquiry};
use crate::records::sessions::{Inquiry, SessionRecords};

/// The custom ids for `embed`'s buttons, registering `agent:` prompts as inquiries. A prompt
/// that cannot be stored gets a `dismiss` button instead (logged); records that have stopped
/// refuse the embed.
pub async fn custom_ids(
    embed: &Embed,
    records: &Addr<SessionRecords>,
    fork_session: Option<&str>,
) -> Result<Vec<String>, Refusal> {
    let mut ids = Vec::with_capacity(embed.buttons.len());
    for button in &embed.buttons {
        let id = match &button.action {
            ButtonAction::Agent(prompt) => {
                let register = RegisterInquiry {
                    prompt: prompt.clone(),
                    fork_session: fork_session.map(str::to_owned),
                };
                match records.send(register).await {
                    Ok(Ok(id)) => button.action.custom_id(Some(&id)),
                    Ok(Err(e)) => {
                        tracing::error!(cause = %e, "could not store a button's prompt");
                        ButtonClick::Dismiss.custom_id()
                    }
                    Err(_) => return Err(Refusal::ActorGone(Peer::SessionRecords)),
                }
            }
            other => other.custom_id(None),
        };
        ids.push(id);
    }
    Ok(ids)
}

/// The answer to a click on an `agent:` button whose prompt is gone (used, or past its 7 days).
pub const USED_OR_EXPIRED: &str =
    "-# this button was already used or has expired (buttons last 7 days) — just ask me instead.";

/// What a click asks the conversation to do.
#[derive(Debug, Clone, PartialEq)]
pub enum ClickPlan {
    /// Run this prompt in the conversation (`[button] …`).
    Prompt(String),
    /// Resume this background session as an interactive fork, opening with this prompt.
    ResumeFork {
        /// The background fork's session.
        session: String,
        /// What the button asked.
        prompt: String,
        /// The inquiry taken, under its id, to put back if the fork is refused.
        taken: (String, Inquiry),
    },
    /// Answer the user with this line and do nothing else.
    Reply(String),
    /// One of the fork-entry buttons.
    Fork(ButtonClick),
    /// *(ours)* A snooze button: write the reminder stored under `id` for `choice`.
    Snooze {
        /// Which of the three.
        choice: crate::records::snooze::SnoozeChoice,
        /// The key in `state/snoozes.json`.
        id: String,
    },
}

/// Reads a click's custom id into what to do.
pub async fn plan(custom_id: &str, records: &Addr<SessionRecords>) -> ClickPlan {
    match ButtonClick::parse(custom_id) {
        None => ClickPlan::Reply("that button is not one of mine.".into()),
        Some(ButtonClick::Dismiss) => ClickPlan::Reply("dismissed.".into()),
        // The surfaces hand these to the Google account (`google::account::PressGoogleButton`).
        Some(
            ButtonClick::TaskDone(_)
            | ButtonClick::TaskDel(_)
            | ButtonClick::EventDel(_)
            | ButtonClick::DeleteYes(_)
            | ButtonClick::DeleteKeep(_),
        ) => ClickPlan::Reply(
            "-# google buttons are answered by the google account, not the conversation.".into(),
        ),
        Some(
            c @ (ButtonClick::ForkSave
            | ButtonClick::ForkReport
            | ButtonClick::ForkExit
            | ButtonClick::ForkConfirmSave),
        ) => ClickPlan::Fork(c),
        Some(ButtonClick::Snooze { choice, id }) => ClickPlan::Snooze { choice, id },
        Some(ButtonClick::Agent { inquiry_id }) => {
            let id = inquiry_id.clone();
            let taken = match records.send(TakeInquiry { id: inquiry_id }).await {
                Ok(taken) => taken,
                Err(e) => {
                    tracing::error!(cause = %e, "the session records have stopped");
                    return ClickPlan::Reply(
                        "-# couldn't read that button's request — try again.".into(),
                    );
                }
            };
            match taken {
                Ok(Some(inq)) => match inq.fork_session_id.clone() {
                    Some(session) => ClickPlan::ResumeFork {
                        session,
                        prompt: inq.prompt.clone(),
                        taken: (id, inq),
                    },
                    None => ClickPlan::Prompt(inq.prompt),
                },
                Ok(None) => ClickPlan::Reply(USED_OR_EXPIRED.into()),
                Err(e) => {
                    tracing::error!(cause = %e, "could not read the inquiries");
                    ClickPlan::Reply("-# couldn't read that button's request — try again.".into())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tools::{Button, ButtonStyle, EmbedColor};
    use crate::base::clock::ManualClock;
    use crate::base::data_dir::DataDir;

    #[actix_rt::test]
    async fn agent_buttons_survive_a_restart_through_the_inquiries_file() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let clock = ManualClock::new(chrono::Utc::now());
        let zone = chrono_tz::UTC;
        let records = SessionRecords::in_data_dir(&data, clock.shared(), zone).start();
        let embed = Embed {
            title: "Plan".into(),
            description: None,
            color: EmbedColor::Blue,
            fields: vec![],
            buttons: vec![
                Button {
                    label: "Draft it".into(),
                    style: ButtonStyle::Primary,
                    action: ButtonAction::Agent("draft the email to Jo".into()),
                },
                Button {
                    label: "Later".into(),
                    style: ButtonStyle::Secondary,
                    action: ButtonAction::Dismiss,
                },
            ],
            footer: Some("bg".into()),
        };
        let ids = custom_ids(&embed, &records, Some("sess-1")).await.unwrap();
        assert!(ids[0].starts_with("act:agent:"), "{ids:?}");
        // A new process (nothing in memory) reads the click from disk alone.
        let later = ManualClock::new(chrono::Utc::now());
        let records = SessionRecords::in_data_dir(&data, later.shared(), zone).start();
        let ClickPlan::ResumeFork {
            session,
            prompt,
            taken: (taken_id, taken),
        } = plan(&ids[0], &records).await
        else {
            panic!("a fork's button resumes it");
        };
        assert_eq!(
            (session.as_str(), prompt.as_str()),
            ("sess-1", "draft the email to Jo")
        );
        assert_eq!(ids[0], format!("act:agent:{taken_id}"));
        assert_eq!(taken.fork_session_id.as_deref(), Some("sess-1"));
        assert_eq!(
            plan(&ids[1], &records).await,
            ClickPlan::Reply("dismissed.".into())
        );
        assert_eq!(
            plan(&ids[0], &records).await,
            ClickPlan::Reply(USED_OR_EXPIRED.into()),
            "a second click finds the prompt used"
        );
        assert_eq!(
            plan("act:agent:ffffffff", &records).await,
            ClickPlan::Reply(USED_OR_EXPIRED.into())
        );
    }
}
