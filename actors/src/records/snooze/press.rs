//! A snooze button pressed (a Discord click, or `/snooze` on the console): claim the message's
//! stored snooze through its owner, write the reminder, commit it, and say until when.

use actix::Addr;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{answer, snoozed, when, SnoozeChoice};
use crate::base::data_dir::DataDir;
use crate::jobs::store;
use crate::records::sessions::records::{ClaimSnooze, ReleaseSnooze};
use crate::records::sessions::{Claim, SessionRecords};

/// Snoozes the message whose snooze is stored under `id` by `choice`, pressed at `now`; the
/// answer is the line for the user.
pub async fn press(
    choice: SnoozeChoice,
    id: String,
    records: &Addr<SessionRecords>,
    data: &DataDir,
    now: DateTime<Utc>,
    tz: Tz,
) -> String {
    let until = choice.until(now, tz);
    let claim = ClaimSnooze {
        id: id.clone(),
        until,
    };
    let stored = match records.send(claim).await {
        Ok(Ok(Claim::Claimed(stored))) => stored,
        Ok(Ok(Claim::Already(at))) => {
            return format!("already snoozed until {}.", when(at, now, tz));
        }
        Ok(Ok(Claim::Expired)) => return "this button has expired.".to_owned(),
        Ok(Err(e)) => {
            tracing::error!(cause = %e, "could not claim the snooze");
            return format!("-# couldn't snooze that: {e} — nothing changed.");
        }
        Err(_) => {
            tracing::error!("the session records have stopped; nothing snoozed");
            return "-# couldn't snooze that — try again.".to_owned();
        }
    };
    let reminder = match snoozed(&stored, until) {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(snooze = %id, cause = %e, "a stored snooze does not parse");
            let undone = release(records, id).await;
            return format!("-# couldn't snooze that: what it would write is damaged{undone}");
        }
    };
    let dir = data.clone();
    let new_id = reminder.id.clone();
    let written = tokio::task::spawn_blocking(move || {
        let path = store::write(&dir.reminders(), &reminder)?;
        dir.commit(&path, &format!("add reminder {} (snoozed)", reminder.id));
        Ok::<_, store::Error>(path)
    })
    .await;
    match written {
        Ok(Ok(path)) => {
            tracing::info!(snooze = %id, reminder = %new_id, file = %path.display(), until = %until, "snoozed");
            answer(until, now, tz)
        }
        Ok(Err(e)) => {
            tracing::error!(snooze = %id, cause = %e, "could not write the snoozed reminder");
            let undone = release(records, id).await;
            format!("-# couldn't snooze that: {e}{undone}")
        }
        Err(e) => {
            tracing::error!(snooze = %id, cause = %e, "writing the snoozed reminder panicked");
            let undone = release(records, id).await;
            format!("-# couldn't snooze that: writing the reminder failed ({e}){undone}")
        }
    }
}

/// Gives the claim of snooze `id` back, so its buttons can be pressed again; the end of the
/// answer: nothing changed, or that the buttons stay used (and why).
async fn release(records: &Addr<SessionRecords>, id: String) -> String {
    match records.send(ReleaseSnooze { id }).await {
        Ok(Ok(())) => " — nothing changed.".to_owned(),
        Ok(Err(e)) => format!(" — and its buttons could not be freed again ({e})."),
        Err(_) => " — and its buttons could not be freed again (the session records have stopped)."
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use actix::{Actor, Addr};
    use chrono::{DateTime, TimeZone};

    use super::*;
    use crate::base::clock::ManualClock;
    use crate::jobs::{reminder, store, Job, JobSettings, Reminder, Routine};
    use crate::records::sessions::records::RegisterSnooze;

    const TZ: Tz = chrono_tz::America::New_York;

    /// A data directory, 3:30 PM in New York, and the session records over them.
    fn set_up() -> (
        tempfile::TempDir,
        DataDir,
        ManualClock,
        Addr<SessionRecords>,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        data.ensure().unwrap();
        let now = TZ
            .with_ymd_and_hms(2026, 3, 2, 15, 30, 0)
            .unwrap()
            .with_timezone(&Utc);
        let clock = ManualClock::new(now);
        let records = SessionRecords::in_data_dir(&data, clock.shared(), TZ).start();
        (tmp, data, clock, records)
    }

    /// Registers snooze buttons for `job`'s message sent `now`; their id.
    async fn register(records: &Addr<SessionRecords>, job: &Job, now: DateTime<Utc>) -> String {
        let template = super::super::template_for(job, now, TZ).unwrap();
        records
            .send(RegisterSnooze {
                reminder: super::super::stored_form(&template),
            })
            .await
            .unwrap()
            .unwrap()
    }

    #[actix_rt::test]
    async fn a_press_writes_the_reminder_once_and_survives_a_restart() {
        let (_tmp, data, clock, records) = set_up();
        let now = clock.shared().now();
        let settings = JobSettings {
            background: true,
            description: "water".into(),
            ..JobSettings::default()
        };
        let job = Job::Routine(Routine::new("drink water", "0 * * * *", settings.clone()));
        let id = register(&records, &job, now).await;
        // A new process: nothing in memory.
        let records = SessionRecords::in_data_dir(&data, clock.shared(), TZ).start();
        let said = press(
            SnoozeChoice::FifteenMinutes,
            id.clone(),
            &records,
            &data,
            now,
            TZ,
        )
        .await;
        assert_eq!(said, "snoozed until 3:45 PM");
        let again = press(SnoozeChoice::OneHour, id, &records, &data, now, TZ).await;
        assert_eq!(again, "already snoozed until 3:45 PM.");
        let written = store::load_dir::<Reminder>(&data.reminders())
            .unwrap()
            .items;
        assert_eq!(written.len(), 1, "one reminder");
        let (_, r) = &written[0];
        assert_eq!(r.message, "drink water");
        assert_eq!(r.settings, settings);
        assert_eq!(r.run_at_raw, "2026-03-02T15:45:00-05:00");
        assert!(
            !reminder::to_markdown(r).contains("background:"),
            "a background reminder leaves out the default"
        );
        let expired = press(
            SnoozeChoice::OneHour,
            "ffffffff".into(),
            &records,
            &data,
            now,
            TZ,
        )
        .await;
        assert_eq!(expired, "this button has expired.");
    }

    #[actix_rt::test]
    async fn a_reminder_that_cannot_be_written_says_why_and_leaves_the_buttons_usable() {
        let (_tmp, data, clock, records) = set_up();
        let now = clock.shared().now();
        let job = Job::Routine(Routine::new("stretch", "0 * * * *", JobSettings::default()));
        let id = register(&records, &job, now).await;
        // The reminders' directory cannot be made: a plain file holds its name.
        let _ = std::fs::remove_dir_all(data.reminders());
        std::fs::write(data.reminders(), "").unwrap();
        let refused = press(SnoozeChoice::OneHour, id.clone(), &records, &data, now, TZ).await;
        assert!(
            refused.starts_with("-# couldn't snooze that: ")
                && refused.contains(&data.reminders().display().to_string())
                && refused.ends_with(" — nothing changed."),
            "{refused}"
        );
        std::fs::remove_file(data.reminders()).unwrap();
        let said = press(SnoozeChoice::OneHour, id, &records, &data, now, TZ).await;
        assert_eq!(said, "snoozed until 4:30 PM", "the buttons work again");
    }
}
