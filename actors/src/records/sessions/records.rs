//! The SessionRecords actor: the one writer of `state/session_history.jsonl`,
//! `state/inquiries.json` (SPEC §2, §6, §10) and *(ours, §16)* `state/snoozes.json`, so appends and read-modify-write cycles of each
//! file happen one at a time in one place.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`RecordSession`] | the main session (created, cleared, swapped), background forks (bg_fork, isolated_bg) | — (a failed write is logged) |
//! | [`NoteSavedId`] | the main session after saving its id (created or compacted) | — |
//! | [`LineageStart`] | the main session's `/compact` report | when the session lineage began |
//! | [`RegisterInquiry`] | whoever sends an embed with `agent:` buttons | the inquiry's id |
//! | [`TakeInquiry`] | the main session, on a button click | the stored prompt, if live (taken: a button runs once) |
//! | [`ReturnInquiry`] | the main session, when a click's fork was refused | — (the prompt is back) |
//! | [`InquiryLive`] | Discord, deciding whether to grey a clicked button | whether the prompt is still there |
//! | [`RegisterSnooze`] | background forks (a ping), the main session (a reminder's answer) | the snooze's id |
//! | [`ClaimSnooze`] | a snooze button's press | the reminder to write, or why not ([`Claim`]) |
//! | [`ReleaseSnooze`] | a press whose reminder could not be written | — |

use actix::prelude::*;
use chrono::{DateTime, FixedOffset};
use chrono_tz::Tz;

use super::{Claim, Error, EventKind, IdChange, Inquiries, Inquiry, SessionHistory, Snoozes};
use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;

/// Appends one lifecycle event, stamped now.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct RecordSession {
    /// What happened.
    pub kind: EventKind,
    /// The session it happened to.
    pub session_id: String,
    /// The session it came from, if any.
    pub parent: Option<String>,
}

/// Logs what a save of the main session id meant (`created`, `compacted`, or nothing).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct NoteSavedId {
    /// The id saved.
    pub session_id: String,
    /// What the save changed.
    pub change: IdChange,
}

/// Asks when the current session lineage began (the latest `created` event).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<Option<DateTime<FixedOffset>>, Error>")]
pub struct LineageStart;

/// Stores an `agent:` button's prompt; answered with its new id.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<String, Error>")]
pub struct RegisterInquiry {
    /// What the agent is asked when the button is clicked.
    pub prompt: String,
    /// The fork session that sent the button, to resume on click.
    pub fork_session: Option<String>,
}

/// Takes the live prompt stored under `id` out of the file: an `agent:` button runs once, and a
/// second click (a double tap) finds nothing. Clicks are handled one at a time here, so two
/// clicks never both find the prompt.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Option<Inquiry>, Error>")]
pub struct TakeInquiry {
    /// The inquiry's id, from the button's custom id.
    pub id: String,
}

/// Puts back the prompt a [`TakeInquiry`] took when the click was refused (a fork button pressed
/// while a fork is open), so the button works once that fork has closed.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct ReturnInquiry {
    /// The inquiry's id.
    pub id: String,
    /// What was taken.
    pub inquiry: Inquiry,
}

/// Asks whether the prompt stored under `id` is still there (live and not taken).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<bool, Error>")]
pub struct InquiryLive {
    /// The inquiry's id.
    pub id: String,
}

/// Stores what a message's snooze buttons write (a reminder's markdown); answered with its id.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<String, Error>")]
pub struct RegisterSnooze {
    /// The reminder to write, as markdown (its time is set on press).
    pub reminder: String,
}

/// A snooze button was pressed: claims the entry for a snooze until `until` (the first press
/// wins).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Claim, Error>")]
pub struct ClaimSnooze {
    /// The snooze's id, from the custom id.
    pub id: String,
    /// When the reminder will fire.
    pub until: DateTime<FixedOffset>,
}

/// Undoes a claim whose reminder could not be written; answered with whether the undoing was
/// saved.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct ReleaseSnooze {
    /// The snooze's id.
    pub id: String,
}

/// The actor.
pub struct SessionRecords {
    history: SessionHistory,
    inquiries: Inquiries,
    snoozes: Snoozes,
}

impl SessionRecords {
    /// The records of `data_dir`, stamped by `clock` in `zone`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        Self {
            history: SessionHistory::in_data_dir(data_dir, clock.clone(), zone),
            inquiries: Inquiries::in_data_dir(data_dir, clock.clone()),
            snoozes: Snoozes::in_data_dir(data_dir, clock),
        }
    }
}

impl Actor for SessionRecords {
    type Context = Context<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        tracing::info!(actor = "session_records", "session records started");
    }
}

/// Nothing is kept in memory: a restart reads the files afresh.
impl Supervised for SessionRecords {}

impl Handler<RecordSession> for SessionRecords {
    type Result = ();
    fn handle(&mut self, msg: RecordSession, _ctx: &mut Self::Context) {
        if let Err(e) = self
            .history
            .append(msg.kind, &msg.session_id, msg.parent.as_deref())
        {
            tracing::warn!(cause = %e, "could not write the session history");
        }
    }
}

impl Handler<NoteSavedId> for SessionRecords {
    type Result = ();
    fn handle(&mut self, msg: NoteSavedId, _ctx: &mut Self::Context) {
        if let Err(e) = self.history.note_saved(&msg.session_id, &msg.change) {
            tracing::warn!(cause = %e, "could not write the session history");
        }
    }
}

impl Handler<LineageStart> for SessionRecords {
    type Result = Result<Option<DateTime<FixedOffset>>, Error>;
    fn handle(&mut self, _msg: LineageStart, _ctx: &mut Self::Context) -> Self::Result {
        self.history.lineage_start()
    }
}

impl Handler<RegisterInquiry> for SessionRecords {
    type Result = Result<String, Error>;
    fn handle(&mut self, msg: RegisterInquiry, _ctx: &mut Self::Context) -> Self::Result {
        self.inquiries
            .register(&msg.prompt, msg.fork_session.as_deref())
    }
}

impl Handler<TakeInquiry> for SessionRecords {
    type Result = Result<Option<Inquiry>, Error>;
    fn handle(&mut self, msg: TakeInquiry, _ctx: &mut Self::Context) -> Self::Result {
        self.inquiries.pop(&msg.id)
    }
}

impl Handler<ReturnInquiry> for SessionRecords {
    type Result = Result<(), Error>;
    fn handle(&mut self, msg: ReturnInquiry, _ctx: &mut Self::Context) -> Self::Result {
        self.inquiries.put_back(&msg.id, msg.inquiry)
    }
}

impl Handler<InquiryLive> for SessionRecords {
    type Result = Result<bool, Error>;
    fn handle(&mut self, msg: InquiryLive, _ctx: &mut Self::Context) -> Self::Result {
        Ok(self.inquiries.peek(&msg.id)?.is_some())
    }
}

impl Handler<RegisterSnooze> for SessionRecords {
    type Result = Result<String, Error>;
    fn handle(&mut self, msg: RegisterSnooze, _ctx: &mut Self::Context) -> Self::Result {
        self.snoozes.register(&msg.reminder)
    }
}

impl Handler<ClaimSnooze> for SessionRecords {
    type Result = Result<Claim, Error>;
    fn handle(&mut self, msg: ClaimSnooze, _ctx: &mut Self::Context) -> Self::Result {
        self.snoozes.claim(&msg.id, msg.until)
    }
}

impl Handler<ReleaseSnooze> for SessionRecords {
    type Result = Result<(), Error>;
    fn handle(&mut self, msg: ReleaseSnooze, _ctx: &mut Self::Context) -> Self::Result {
        let released = self.snoozes.release(&msg.id);
        if let Err(e) = &released {
            tracing::warn!(cause = %e, "could not release a snooze");
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::base::clock::{Clock, ManualClock};

    #[actix_rt::test]
    async fn events_and_inquiries_go_through_one_owner_and_survive_it() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 2, 24, 17, 0, 0).unwrap());
        let zone = chrono_tz::America::Los_Angeles;
        let records = SessionRecords::in_data_dir(&data, clock.shared(), zone).start();
        records.do_send(RecordSession {
            kind: EventKind::Created,
            session_id: "s1".into(),
            parent: None,
        });
        let id = records
            .send(RegisterInquiry {
                prompt: "draft it".into(),
                fork_session: Some("f1".into()),
            })
            .await
            .unwrap()
            .unwrap();
        let start = records.send(LineageStart).await.unwrap().unwrap();
        assert_eq!(start.map(|s| s.with_timezone(&Utc)), Some(clock.now()));
        // A new owner (a restarted bot) reads what the first one wrote.
        let again = SessionRecords::in_data_dir(&data, clock.shared(), zone).start();
        let found = again
            .send(TakeInquiry { id: id.clone() })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            found.map(|i| (i.prompt, i.fork_session_id)),
            Some(("draft it".to_owned(), Some("f1".to_owned())))
        );
        let second = again.send(TakeInquiry { id }).await.unwrap().unwrap();
        assert_eq!(second, None, "a button's prompt is taken once");
    }
}
