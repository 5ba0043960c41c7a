//! Snooze *(ours, SPEC §16)*: every `[bg]` ping and every foreground reminder's answer carries
//! three buttons — "15 min", "1 hour", "tomorrow 9:00" (on the console `/snooze
//! 15m|1h|tomorrow`). Pressing one writes a reminder with the same prompt and settings for
//! that time and answers "snoozed until 3:45 PM".
//!
//! What a button needs after a restart is on disk: when the ping or the answer goes out, the
//! reminder it would write (its markdown, [`template_for`]) is stored in `state/snoozes.json`
//! through the SessionRecords actor under an id the buttons' custom ids carry
//! (`act:snooze_15m:<id>`). A press ([`press`]) claims the entry (one snooze per message;
//! a second press answers "already snoozed until …"), writes the reminder file, and commits it.
//!
//! Webhook jobs get no snooze buttons: their prompt holds the request's untrusted data, which a
//! reminder's body would turn into instructions.

mod press;

use chrono::{DateTime, Duration, FixedOffset, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

pub use press::press;

use crate::jobs::{reminder, Job, JobId, Reminder};

/// The three snooze buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnoozeChoice {
    /// Fifteen minutes from the press.
    FifteenMinutes,
    /// An hour from the press.
    OneHour,
    /// 9:00 the next local morning.
    TomorrowMorning,
}

/// The hour "tomorrow" snoozes to, local time.
const TOMORROW_AT: u32 = 9;

impl SnoozeChoice {
    /// The buttons, in the order they are shown.
    pub const ALL: [SnoozeChoice; 3] = [
        SnoozeChoice::FifteenMinutes,
        SnoozeChoice::OneHour,
        SnoozeChoice::TomorrowMorning,
    ];

    /// The action part of the custom id (`act:<action>:<snooze id>`).
    pub fn action(self) -> &'static str {
        match self {
            SnoozeChoice::FifteenMinutes => "snooze_15m",
            SnoozeChoice::OneHour => "snooze_1h",
            SnoozeChoice::TomorrowMorning => "snooze_tomorrow",
        }
    }

    /// The choice a custom id's action names.
    pub fn from_action(action: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.action() == action)
    }

    /// The button's label.
    pub fn label(self) -> &'static str {
        match self {
            SnoozeChoice::FifteenMinutes => "15 min",
            SnoozeChoice::OneHour => "1 hour",
            SnoozeChoice::TomorrowMorning => "tomorrow 9:00",
        }
    }

    /// The word `/snooze` takes on the console.
    pub fn word(self) -> &'static str {
        match self {
            SnoozeChoice::FifteenMinutes => "15m",
            SnoozeChoice::OneHour => "1h",
            SnoozeChoice::TomorrowMorning => "tomorrow",
        }
    }

    /// The choice a `/snooze` word names.
    pub fn from_word(word: &str) -> Option<Self> {
        let word = word.trim().to_ascii_lowercase();
        Self::ALL.into_iter().find(|c| c.word() == word)
    }

    /// When a snooze pressed at `now` fires, in the local time of `tz`.
    pub fn until(self, now: DateTime<Utc>, tz: Tz) -> DateTime<FixedOffset> {
        let at = match self {
            SnoozeChoice::FifteenMinutes => now + Duration::minutes(15),
            SnoozeChoice::OneHour => now + Duration::hours(1),
            SnoozeChoice::TomorrowMorning => tomorrow_morning(now, tz),
        };
        at.with_timezone(&tz).fixed_offset()
    }
}

/// 9:00 on the local day after `now` (an hour later should 9:00 not exist that day).
fn tomorrow_morning(now: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    let nine = NaiveTime::from_hms_opt(TOMORROW_AT, 0, 0).unwrap_or(NaiveTime::MIN);
    let day = now.with_timezone(&tz).date_naive() + Duration::days(1);
    tz.from_local_datetime(&day.and_time(nine))
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(day.and_time(nine) + Duration::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(now + Duration::days(1))
}

/// The reminder a snooze of `job` writes, as a template (its id and time are set on press):
/// the same prompt and every setting; a reminder keeps its chain. `None` for webhook jobs.
pub fn template_for(job: &Job, now: DateTime<Utc>, tz: Tz) -> Option<Reminder> {
    let at = now.with_timezone(&tz).fixed_offset();
    match job {
        Job::Routine(r) => Some(Reminder::new(r.message.clone(), at, r.settings.clone())),
        Job::Reminder(r) => Some(r.clone()),
        Job::Webhook(_) => None,
    }
}

/// The template's markdown, as stored for the buttons.
pub fn stored_form(template: &Reminder) -> String {
    reminder::to_markdown(template)
}

/// The reminder to write for a snooze until `at`, from the stored markdown.
pub fn snoozed(
    stored: &str,
    at: DateTime<FixedOffset>,
) -> Result<Reminder, crate::jobs::frontmatter::ParseError> {
    let mut reminder = reminder::parse(stored)?;
    reminder.id = JobId::random();
    reminder.run_at = at;
    reminder.run_at_raw = reminder::format_run_at(at);
    Ok(reminder)
}

/// `snoozed until 3:45 PM`, or `snoozed until tomorrow 9:00 AM` (or a date further out).
pub fn answer(until: DateTime<FixedOffset>, now: DateTime<Utc>, tz: Tz) -> String {
    format!("snoozed until {}", when(until, now, tz))
}

/// `3:45 PM` today, `tomorrow 9:00 AM`, else `Mon 9:00 AM`.
pub fn when(at: DateTime<FixedOffset>, now: DateTime<Utc>, tz: Tz) -> String {
    let time = crate::records::quiet_hours::clock_time(at);
    let today = now.with_timezone(&tz).date_naive();
    let day = at.with_timezone(&tz).date_naive();
    if day == today {
        time
    } else if day == today + Duration::days(1) {
        format!("tomorrow {time}")
    } else {
        format!("{} {time}", at.format("%a %b %-d"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{JobSettings, ModelChoice, Routine, UpdateMode};

    const TZ: Tz = chrono_tz::America::New_York;

    /// 2026-03-02 15:30 in New York.
    fn afternoon() -> DateTime<Utc> {
        TZ.with_ymd_and_hms(2026, 3, 2, 15, 30, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn each_choice_has_its_label_action_and_word() {
        let labels: Vec<_> = SnoozeChoice::ALL.map(SnoozeChoice::label).to_vec();
        assert_eq!(labels, ["15 min", "1 hour", "tomorrow 9:00"]);
        for c in SnoozeChoice::ALL {
            assert_eq!(SnoozeChoice::from_action(c.action()), Some(c));
            assert_eq!(SnoozeChoice::from_word(c.word()), Some(c));
        }
        assert_eq!(SnoozeChoice::from_word("2h"), None);
    }

    #[test]
    fn snoozes_land_fifteen_minutes_an_hour_or_tomorrow_at_nine() {
        let now = afternoon();
        let at = |c: SnoozeChoice| c.until(now, TZ).to_rfc3339();
        assert_eq!(
            at(SnoozeChoice::FifteenMinutes),
            "2026-03-02T15:45:00-05:00"
        );
        assert_eq!(at(SnoozeChoice::OneHour), "2026-03-02T16:30:00-05:00");
        assert_eq!(
            at(SnoozeChoice::TomorrowMorning),
            "2026-03-03T09:00:00-05:00"
        );
        let fifteen = SnoozeChoice::FifteenMinutes.until(now, TZ);
        assert_eq!(answer(fifteen, now, TZ), "snoozed until 3:45 PM");
        let tomorrow = SnoozeChoice::TomorrowMorning.until(now, TZ);
        assert_eq!(answer(tomorrow, now, TZ), "snoozed until tomorrow 9:00 AM");
    }

    #[test]
    fn tomorrow_is_the_next_local_day_across_a_dst_change() {
        // Saturday 2026-03-07 late evening; Sunday the clocks go forward.
        let now = TZ
            .with_ymd_and_hms(2026, 3, 7, 23, 50, 0)
            .unwrap()
            .with_timezone(&Utc);
        let at = SnoozeChoice::TomorrowMorning.until(now, TZ);
        assert_eq!(at.to_rfc3339(), "2026-03-08T09:00:00-04:00");
        let late = SnoozeChoice::OneHour.until(now, TZ);
        assert_eq!(answer(late, now, TZ), "snoozed until tomorrow 12:50 AM");
    }

    #[test]
    fn a_snoozed_routine_becomes_a_reminder_with_its_prompt_and_settings() {
        let settings = JobSettings {
            background: true,
            model: Some(ModelChoice::Haiku),
            update_main_session: UpdateMode::Freely,
            description: "water".into(),
            ..JobSettings::default()
        };
        let routine = Job::Routine(Routine::new("drink water", "0 * * * *", settings.clone()));
        let template = template_for(&routine, afternoon(), TZ).unwrap();
        let stored = stored_form(&template);
        let until = SnoozeChoice::OneHour.until(afternoon(), TZ);
        let written = snoozed(&stored, until).unwrap();
        assert_eq!(written.message, "drink water");
        assert_eq!(written.settings, settings);
        assert_eq!(written.run_at, until);
        assert_eq!(written.run_at_raw, "2026-03-02T16:30:00-05:00");
        assert_ne!(written.id, template.id, "a new reminder, not the old one");
        assert_eq!(written.max_chain, 0);
    }

    #[test]
    fn a_snoozed_chain_reminder_keeps_its_place_in_the_chain() {
        let at = afternoon().with_timezone(&TZ).fixed_offset();
        let root = Reminder::new_chain("is the form in?", at, 2, JobSettings::default());
        let link = root.follow_up(at).unwrap();
        let template = template_for(&Job::Reminder(link.clone()), afternoon(), TZ).unwrap();
        let written = snoozed(&stored_form(&template), at).unwrap();
        assert_eq!(
            (written.chain_depth, written.max_chain, written.chain_parent),
            (1, 2, link.chain_parent)
        );
    }

    #[test]
    fn webhook_jobs_are_not_snoozed() {
        let hook = Job::Webhook(crate::jobs::WebhookJob {
            id: JobId("github-ci".into()),
            message: "CI {status}".into(),
            settings: JobSettings::default(),
        });
        assert_eq!(template_for(&hook, afternoon(), TZ), None);
    }
}
