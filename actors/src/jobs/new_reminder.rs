//! A new reminder from what someone asked for, validated once for everyone who makes one — the
//! command line (`ollim-bot reminder add`) and the agent's `add_reminder` tool — and saved as a
//! new file of its own (created exclusively: two adds at once never share or replace a file).

use std::path::PathBuf;

use chrono::{DateTime, Duration, FixedOffset, Utc};
use chrono_tz::Tz;

use super::reminder::format_run_at;
use super::{store, BadId, JobId, JobSettings, Reminder};
use crate::base::data_dir::DataDir;

/// Longest delay accepted: ten years, far beyond any reminder, small enough for date maths.
pub const MAX_DELAY_MINUTES: i64 = 10 * 366 * 24 * 60;

/// When the reminder fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// This many minutes from now.
    InMinutes(i64),
    /// At this instant.
    At(DateTime<FixedOffset>),
}

/// A reminder someone asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReminder {
    /// The prompt the agent receives when it fires.
    pub message: String,
    /// When it fires.
    pub when: When,
    /// How many follow-ups `follow_up_chain` may add (0 = none).
    pub max_chain: u32,
    /// This link's depth in its chain (0 for a new reminder).
    pub chain_depth: u32,
    /// The chain root's id, for a follow-up; a new chain root names itself.
    pub chain_parent: Option<String>,
    /// Everything else.
    pub settings: JobSettings,
}

/// Why a reminder was refused; nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// A negative delay.
    #[error("the delay must be zero or more minutes (got {0})")]
    NegativeDelay(i64),
    /// A delay beyond [`MAX_DELAY_MINUTES`].
    #[error("a delay of {0} minutes is too far ahead (at most {MAX_DELAY_MINUTES})")]
    DelayTooFar(i64),
    /// A time that has already passed.
    #[error("{0} has already passed")]
    Passed(String),
    /// A time further ahead than [`MAX_DELAY_MINUTES`].
    #[error("{0} is too far ahead")]
    TooFarAhead(String),
    /// A chain depth above the chain's length.
    #[error("chain depth {depth} is above max chain {max}")]
    DepthAboveMax {
        /// The depth asked for.
        depth: u32,
        /// The chain's length.
        max: u32,
    },
    /// The message is empty once trimmed.
    #[error("the message must not be empty")]
    EmptyMessage,
    /// A chain parent that is not a valid id.
    #[error("chain parent: {0}")]
    ChainParent(BadId),
}

/// Why adding failed.
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    /// The request was refused.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// The file could not be written.
    #[error("saving the reminder: {0}")]
    Store(#[from] store::Error),
}

impl NewReminder {
    /// A plain reminder with every default but the message and the time.
    pub fn new(message: impl Into<String>, when: When, settings: JobSettings) -> Self {
        Self {
            message: message.into(),
            when,
            max_chain: 0,
            chain_depth: 0,
            chain_parent: None,
            settings,
        }
    }

    /// The reminder, validated against `now` (times in `tz`), with a fresh id.
    pub fn build(self, tz: Tz, now: DateTime<Utc>) -> Result<Reminder, Invalid> {
        let (run_at, run_at_raw) = match self.when {
            When::InMinutes(minutes) if minutes < 0 => return Err(Invalid::NegativeDelay(minutes)),
            When::InMinutes(minutes) if minutes > MAX_DELAY_MINUTES => {
                return Err(Invalid::DelayTooFar(minutes))
            }
            When::InMinutes(minutes) => {
                let at = (now + Duration::minutes(minutes))
                    .with_timezone(&tz)
                    .fixed_offset();
                // The original's `isoformat()` of "now + delay", microseconds and all.
                (at, at.format("%Y-%m-%dT%H:%M:%S%.6f%:z").to_string())
            }
            When::At(at) => {
                let shown = at.format("%Y-%m-%d %H:%M %:z").to_string();
                if at <= now {
                    return Err(Invalid::Passed(shown));
                }
                if at > now + Duration::minutes(MAX_DELAY_MINUTES) {
                    return Err(Invalid::TooFarAhead(shown));
                }
                (at, format_run_at(at))
            }
        };
        if self.chain_depth > self.max_chain {
            return Err(Invalid::DepthAboveMax {
                depth: self.chain_depth,
                max: self.max_chain,
            });
        }
        let message = self.message.trim();
        if message.is_empty() {
            return Err(Invalid::EmptyMessage);
        }
        let id = JobId::random();
        let chain_parent = match self.chain_parent.filter(|p| !p.trim().is_empty()) {
            Some(parent) => Some(JobId::parse(&parent).map_err(Invalid::ChainParent)?.0),
            None => (self.max_chain > 0).then(|| id.0.clone()),
        };
        Ok(Reminder {
            id,
            message: message.to_owned(),
            run_at,
            run_at_raw,
            chain_depth: self.chain_depth,
            max_chain: self.max_chain,
            chain_parent,
            settings: self.settings,
            background_as_read: None,
        })
    }

    /// Validates, writes the new file into `reminders/` and commits it; the reminder and its
    /// path.
    pub fn add(
        self,
        data: &DataDir,
        tz: Tz,
        now: DateTime<Utc>,
    ) -> Result<(Reminder, PathBuf), AddError> {
        let reminder = self.build(tz, now)?;
        let path = save(data, &reminder)?;
        Ok((reminder, path))
    }
}

/// Writes a built reminder as a new file in `reminders/` and commits it.
pub fn save(data: &DataDir, reminder: &Reminder) -> Result<PathBuf, store::Error> {
    let path = store::write(&data.reminders(), reminder)?;
    data.commit(&path, &format!("add reminder {}", reminder.id));
    Ok(path)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    const TZ: Tz = chrono_tz::America::New_York;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
    }

    fn ask(when: When) -> NewReminder {
        NewReminder::new("stretch", when, JobSettings::default())
    }

    #[test]
    fn a_delay_fires_that_many_minutes_from_now_in_the_zone() {
        let r = ask(When::InMinutes(30)).build(TZ, now()).unwrap();
        assert_eq!(r.run_at_raw, "2026-03-02T09:30:00.000000-05:00");
        assert_eq!(r.run_at, now() + Duration::minutes(30));
        assert_eq!(r.chain_parent, None);
    }

    #[test]
    fn a_time_must_lie_ahead_and_not_absurdly_far() {
        let past = TZ
            .with_ymd_and_hms(2026, 3, 2, 8, 59, 0)
            .unwrap()
            .fixed_offset();
        assert!(matches!(
            ask(When::At(past)).build(TZ, now()),
            Err(Invalid::Passed(_))
        ));
        let far = TZ
            .with_ymd_and_hms(2040, 1, 1, 9, 0, 0)
            .unwrap()
            .fixed_offset();
        assert!(matches!(
            ask(When::At(far)).build(TZ, now()),
            Err(Invalid::TooFarAhead(_))
        ));
        let soon = TZ
            .with_ymd_and_hms(2026, 3, 2, 9, 15, 0)
            .unwrap()
            .fixed_offset();
        let r = ask(When::At(soon)).build(TZ, now()).unwrap();
        assert_eq!(r.run_at_raw, "2026-03-02T09:15:00-05:00");
    }

    #[test]
    fn refusals_in_the_command_lines_order() {
        assert_eq!(
            ask(When::InMinutes(-1)).build(TZ, now()),
            Err(Invalid::NegativeDelay(-1))
        );
        assert_eq!(
            ask(When::InMinutes(MAX_DELAY_MINUTES + 1)).build(TZ, now()),
            Err(Invalid::DelayTooFar(MAX_DELAY_MINUTES + 1))
        );
        let mut deep = ask(When::InMinutes(5));
        deep.chain_depth = 2;
        deep.max_chain = 1;
        assert_eq!(
            deep.build(TZ, now()),
            Err(Invalid::DepthAboveMax { depth: 2, max: 1 })
        );
        let blank = NewReminder::new("  ", When::InMinutes(5), JobSettings::default());
        assert_eq!(blank.build(TZ, now()), Err(Invalid::EmptyMessage));
        let mut bad_parent = ask(When::InMinutes(5));
        bad_parent.chain_parent = Some("../x".into());
        assert!(matches!(
            bad_parent.build(TZ, now()),
            Err(Invalid::ChainParent(_))
        ));
    }

    #[test]
    fn a_chain_root_names_itself_and_adding_writes_a_new_file() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let mut chain = ask(When::InMinutes(10));
        chain.max_chain = 2;
        let (first, path) = chain.clone().add(&data, TZ, now()).unwrap();
        assert_eq!(first.chain_parent.as_deref(), Some(first.id.as_str()));
        let (second, other) = chain.add(&data, TZ, now()).unwrap();
        assert_ne!(path, other);
        assert_ne!(first.id, second.id);
        let loaded = store::load_dir::<Reminder>(&data.reminders()).unwrap();
        assert_eq!(loaded.items.len(), 2);
    }
}
