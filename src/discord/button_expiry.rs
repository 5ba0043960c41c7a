//! `state/agent_buttons.json` *(ours, issue 37)*: which messages in the DM channel carry
//! `agent:` buttons, and when they were posted, so the buttons are greyed out once their 7 days
//! ([`TTL`]) are over, without waiting for a tap (SPEC §10). The [`Outbox`](super::outbox::Outbox)
//! is the file's one writer: the delivery task reports each such message it posts, and the
//! outbox, on start and every [`SWEEP`], takes the expired ones out of the file and has the
//! delivery task edit them. A JSON object from message id to Unix seconds; a file that does not
//! parse is set aside (by [`state_file`]) and read as empty.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::base::state_file;
use ollim_actors::records::sessions::TTL;

/// Name of the file inside `state/`.
pub const FILE_NAME: &str = "agent_buttons.json";

/// How often the outbox looks for expired buttons (besides on start).
pub const SWEEP: Duration = Duration::from_secs(15 * 60);

/// The messages carrying `agent:` buttons that are not greyed out yet.
pub struct ButtonMessages {
    path: PathBuf,
}

impl ButtonMessages {
    /// `state/agent_buttons.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir) -> Self {
        Self {
            path: data_dir.state_file(FILE_NAME),
        }
    }

    fn load(&self) -> Result<BTreeMap<u64, i64>, state_file::Error> {
        Ok(state_file::load_json(&self.path, BTreeMap::new)?.into_value())
    }

    /// Notes that `message_id` was posted with `agent:` buttons at `now`.
    pub fn record(&self, message_id: u64, now: DateTime<Utc>) -> Result<(), state_file::Error> {
        let mut posted = self.load()?;
        posted.insert(message_id, now.timestamp());
        state_file::save_json(&self.path, &posted)
    }

    /// Takes the messages whose buttons have expired at `now` out of the file.
    pub fn take_expired(&self, now: DateTime<Utc>) -> Result<Vec<u64>, state_file::Error> {
        let mut posted = self.load()?;
        let cutoff = (now - TTL).timestamp();
        let expired: Vec<u64> = posted
            .iter()
            .filter(|(_, at)| **at <= cutoff)
            .map(|(id, _)| *id)
            .collect();
        if !expired.is_empty() {
            posted.retain(|_, at| *at > cutoff);
            state_file::save_json(&self.path, &posted)?;
        }
        Ok(expired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_taken_once_their_seven_days_are_over() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let buttons = ButtonMessages::in_data_dir(&data);
        let start = Utc::now();
        buttons.record(1, start).unwrap();
        buttons
            .record(2, start + chrono::Duration::days(1))
            .unwrap();
        assert!(buttons
            .take_expired(start + chrono::Duration::days(6))
            .unwrap()
            .is_empty());
        assert_eq!(buttons.take_expired(start + TTL).unwrap(), [1]);
        assert!(
            buttons.take_expired(start + TTL).unwrap().is_empty(),
            "taken once"
        );
        assert_eq!(
            buttons
                .take_expired(start + TTL + chrono::Duration::days(1))
                .unwrap(),
            [2]
        );
    }
}
