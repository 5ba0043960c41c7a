//! The forward schedule: which background jobs fire around now, for the preamble (SPEC §9).
//!
//! The caller computes fire times (the cron worker knows how); this module applies the window
//! rules, and its `render` part writes the lines. Only background jobs appear. Items that fired up to
//! [`GRACE_MINUTES`] ago are kept and marked `[just fired]`; forward items are taken from the
//! next [`BASE_WINDOW_HOURS`], widened to reach at least [`MIN_FORWARD`] of them, never past
//! [`MAX_WINDOW_HOURS`]. Building sorts once, so thousands of jobs cost `n log n`.

use std::fmt;

use chrono::{DateTime, Duration, Utc};

use crate::jobs::Job;

mod render;

pub use render::{clock_time, refills_within};

/// How far back a fire still counts as "just fired".
pub const GRACE_MINUTES: i64 = 15;
/// The window looked at first.
pub const BASE_WINDOW_HOURS: i64 = 3;
/// The window widens until it holds at least this many forward items.
pub const MIN_FORWARD: usize = 3;
/// The window never reaches further than this.
pub const MAX_WINDOW_HOURS: i64 = 12;
/// A message quoted in place of a missing description is cut at this many characters…
pub const TRUNCATE_CHARS: usize = 60;
/// …and ends with this.
pub const TRUNCATED_MARK: &str = "...";

/// Text shown instead of the list when nothing is scheduled.
pub const EMPTY_TEXT: &str = "No more bg tasks today.";

/// One fire of a job, as computed by the caller.
///
/// For a routine pass its most recent fire (if within the grace period) and its next fire;
/// for a reminder its `run-at`. Foreground jobs and times outside the window are ignored here.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledItem {
    /// When it fires (or fired).
    pub fire_at: DateTime<Utc>,
    /// The job that fires.
    pub job: Job,
    /// The job file's real path relative to the data dir, like `routines/morning-review.md`.
    pub rel_path: String,
}

/// Why an entry is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryMark {
    /// The job this prompt is for.
    ThisTask,
    /// Another job that fired within the grace period.
    JustFired,
}

impl fmt::Display for EntryMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EntryMark::ThisTask => "this task",
            EntryMark::JustFired => "just fired",
        })
    }
}

/// One line of the forward schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleEntry {
    /// When it fires.
    pub fire_at: DateTime<Utc>,
    /// A routine's description or `Routine`; `Chain reminder (2/4)` or `Reminder`.
    pub label: String,
    /// The description, else the message with line breaks as spaces, cut at
    /// [`TRUNCATE_CHARS`] plus [`TRUNCATED_MARK`].
    pub description: String,
    /// The job file's relative path.
    pub rel_path: String,
    /// The job may not ping (`allow-ping: false`).
    pub silent: bool,
    /// `[this task]` / `[just fired]`, if any.
    pub mark: Option<EntryMark>,
}

/// The selected entries around `now`, sorted by time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardSchedule {
    /// When the schedule was built.
    pub now: DateTime<Utc>,
    /// Entries in time order: recent ones first, then forward ones.
    pub entries: Vec<ScheduleEntry>,
}

/// Selects the entries for a prompt fired at `now` for the job `current` (none for webhooks).
pub fn build_forward_schedule(
    items: &[ScheduledItem],
    current: Option<&str>,
    now: DateTime<Utc>,
) -> ForwardSchedule {
    let grace_start = now - Duration::minutes(GRACE_MINUTES);
    let base_cutoff = now + Duration::hours(BASE_WINDOW_HOURS);
    let max_cutoff = now + Duration::hours(MAX_WINDOW_HOURS);

    let mut candidates: Vec<&ScheduledItem> = items
        .iter()
        .filter(|item| item.job.settings().background)
        .filter(|item| item.fire_at >= grace_start && item.fire_at <= max_cutoff)
        .collect();
    candidates.sort_by_key(|item| item.fire_at);

    let first_forward = candidates.partition_point(|item| item.fire_at <= now);
    let (recent, forward) = candidates.split_at(first_forward);
    let in_base = forward.partition_point(|item| item.fire_at <= base_cutoff);

    let shown_forward = if forward.len() < MIN_FORWARD {
        forward
    } else if in_base >= MIN_FORWARD {
        &forward[..in_base]
    } else {
        &forward[..MIN_FORWARD]
    };

    let entries = recent
        .iter()
        .chain(shown_forward)
        .map(|item| entry_for(item, current, now))
        .collect();
    ForwardSchedule { now, entries }
}

fn entry_for(item: &ScheduledItem, current: Option<&str>, now: DateTime<Utc>) -> ScheduleEntry {
    let settings = item.job.settings();
    let mark = if current == Some(item.job.id().as_str()) {
        Some(EntryMark::ThisTask)
    } else if item.fire_at <= now {
        Some(EntryMark::JustFired)
    } else {
        None
    };
    let description = if settings.description.is_empty() {
        one_line_cut(item.job.message())
    } else {
        settings.description.clone()
    };
    ScheduleEntry {
        fire_at: item.fire_at,
        label: label_for(&item.job),
        description,
        rel_path: item.rel_path.clone(),
        silent: !settings.allow_ping,
        mark,
    }
}

/// The entry label: a routine's description (or `Routine`); chain reminders show their
/// position as `check/total`.
fn label_for(job: &Job) -> String {
    match job {
        Job::Routine(r) if !r.settings.description.is_empty() => r.settings.description.clone(),
        Job::Routine(_) => "Routine".to_owned(),
        Job::Reminder(r) if r.max_chain > 0 => {
            format!("Chain reminder ({}/{})", r.chain_depth + 1, r.max_chain + 1)
        }
        Job::Reminder(_) => "Reminder".to_owned(),
        Job::Webhook(_) => "Webhook".to_owned(),
    }
}

/// `text` with each line break as a space, trimmed, and cut at [`TRUNCATE_CHARS`] characters
/// with [`TRUNCATED_MARK`] after the cut.
fn one_line_cut(text: &str) -> String {
    let flat = text.replace('\n', " ");
    let flat = flat.trim();
    match flat.char_indices().nth(TRUNCATE_CHARS) {
        Some((cut, _)) => format!("{}{TRUNCATED_MARK}", &flat[..cut]),
        None => flat.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::prompts::test_jobs::*;
    use crate::jobs::JobSettings;

    fn ids(schedule: &ForwardSchedule) -> Vec<String> {
        schedule
            .entries
            .iter()
            .map(|e| e.rel_path.split(['/', '-']).nth(1).unwrap_or("").to_owned())
            .collect()
    }

    #[test]
    fn item_fired_ten_minutes_ago_is_marked_just_fired() {
        let schedule = build_forward_schedule(&[at(-10, bg("a"))], None, now());
        assert_eq!(schedule.entries.len(), 1);
        assert_eq!(schedule.entries[0].mark, Some(EntryMark::JustFired));
        assert!(schedule.render(TZ, &full_budget()).contains("8:50 AM"));
        assert!(schedule.render(TZ, &full_budget()).contains("[just fired]"));
    }

    #[test]
    fn item_fired_twenty_minutes_ago_is_left_out() {
        let schedule = build_forward_schedule(&[at(-20, bg("a")), at(30, bg("b"))], None, now());
        assert_eq!(ids(&schedule), ["b"]);
    }

    #[test]
    fn foreground_jobs_are_left_out() {
        let fg = Job::Routine(routine("fg", settings(false)));
        let schedule = build_forward_schedule(&[at(30, fg), at(40, bg("b"))], None, now());
        assert_eq!(ids(&schedule), ["b"]);
    }

    #[test]
    fn base_window_keeps_everything_within_three_hours_and_nothing_after() {
        let items = [
            at(250, bg("e")),
            at(30, bg("a")),
            at(170, bg("d")),
            at(60, bg("b")),
            at(120, bg("c")),
        ];
        let schedule = build_forward_schedule(&items, None, now());
        assert_eq!(ids(&schedule), ["a", "b", "c", "d"]);
    }

    #[test]
    fn window_extends_to_reach_three_forward_items() {
        let items = [
            at(60, bg("a")),
            at(300, bg("b")),
            at(450, bg("c")),
            at(540, bg("d")),
        ];
        let schedule = build_forward_schedule(&items, None, now());
        assert_eq!(ids(&schedule), ["a", "b", "c"]);
    }

    #[test]
    fn window_never_reaches_past_twelve_hours() {
        let items = [
            at(60, bg("a")),
            at(12 * 60 + 1, bg("b")),
            at(13 * 60, bg("c")),
        ];
        let schedule = build_forward_schedule(&items, None, now());
        assert_eq!(ids(&schedule), ["a"]);
    }

    #[test]
    fn recent_items_do_not_count_towards_the_forward_minimum() {
        let items = [
            at(-5, bg("r")),
            at(60, bg("a")),
            at(120, bg("b")),
            at(400, bg("c")),
        ];
        let schedule = build_forward_schedule(&items, None, now());
        assert_eq!(ids(&schedule), ["r", "a", "b", "c"]);
    }

    #[test]
    fn long_message_is_cut_at_sixty_chars_with_three_dots() {
        let mut r = routine("a", settings(true));
        r.message = format!("{}\n{}", "x".repeat(40), "é".repeat(30));
        let schedule = build_forward_schedule(&[at(30, Job::Routine(r))], None, now());
        let expected = format!("{} {}...", "x".repeat(40), "é".repeat(19));
        assert_eq!(schedule.entries[0].description, expected);
        assert_eq!(schedule.entries[0].description.chars().count(), 63);
    }

    #[test]
    fn a_message_keeps_its_spacing_and_only_line_breaks_become_spaces() {
        let mut r = routine("a", settings(true));
        r.message = "\n  Check  the\tinbox\nthen reply \n".to_owned();
        let schedule = build_forward_schedule(&[at(30, Job::Routine(r.clone()))], None, now());
        assert_eq!(
            schedule.entries[0].description,
            "Check  the\tinbox then reply"
        );
        // Exactly 60 characters: kept whole.
        r.message = "y".repeat(60);
        let schedule = build_forward_schedule(&[at(30, Job::Routine(r))], None, now());
        assert_eq!(schedule.entries[0].description, "y".repeat(60));
    }

    #[test]
    fn short_message_is_kept_whole() {
        let schedule = build_forward_schedule(&[at(30, bg("a"))], None, now());
        assert_eq!(schedule.entries[0].description, "message of a");
    }

    #[test]
    fn description_is_shown_instead_of_message() {
        let job = Job::Routine(routine(
            "a",
            JobSettings {
                description: "Check email".to_owned(),
                ..settings(true)
            },
        ));
        let schedule = build_forward_schedule(&[at(30, job)], None, now());
        assert_eq!(schedule.entries[0].description, "Check email");
        // A description is shown as written, however long.
        let long = "d".repeat(80);
        let job = Job::Routine(routine(
            "a",
            JobSettings {
                description: long.clone(),
                ..settings(true)
            },
        ));
        let schedule = build_forward_schedule(&[at(30, job)], None, now());
        assert_eq!(schedule.entries[0].description, long);
    }

    #[test]
    fn entry_line_has_time_label_silent_quote_and_real_path() {
        let job = Job::Routine(routine(
            "e5f6a7b8",
            JobSettings {
                description: "Check email".to_owned(),
                allow_ping: false,
                ..settings(true)
            },
        ));
        let schedule = build_forward_schedule(&[at(30, job)], None, now());
        let text = schedule.render(TZ, &full_budget());
        assert_eq!(
            text.lines().nth(1),
            Some("- 9:30 AM: Check email (silent) — \"Check email\" (routines/e5f6a7b8-file.md)")
        );
        let plain = build_forward_schedule(&[at(30, bg("e5f6a7b8"))], None, now());
        assert_eq!(
            plain.render(TZ, &full_budget()).lines().nth(1),
            Some("- 9:30 AM: Routine — \"message of e5f6a7b8\" (routines/e5f6a7b8-file.md)")
        );
    }

    #[test]
    fn fired_job_is_marked_this_task_even_after_it_fired() {
        let items = [at(0, bg("me")), at(-3, bg("other")), at(30, bg("later"))];
        let schedule = build_forward_schedule(&items, Some("me"), now());
        let marks: Vec<_> = schedule.entries.iter().map(|e| e.mark).collect();
        assert_eq!(
            marks,
            [Some(EntryMark::JustFired), Some(EntryMark::ThisTask), None]
        );
        let text = schedule.render(TZ, &full_budget());
        assert!(text.contains("(routines/me-file.md) [this task]\n"));
        assert!(text.contains("(routines/other-file.md) [just fired]\n"));
        assert!(text.contains("(routines/later-file.md)\n"));
    }

    #[test]
    fn chain_reminder_label_shows_check_of_total() {
        let items = [
            at(30, Job::Reminder(reminder("c", 1, 3, settings(true)))),
            at(40, Job::Reminder(reminder("p", 0, 0, settings(true)))),
        ];
        let schedule = build_forward_schedule(&items, None, now());
        assert_eq!(schedule.entries[0].label, "Chain reminder (2/4)");
        assert_eq!(schedule.entries[1].label, "Reminder");
        assert!(schedule
            .render(TZ, &full_budget())
            .contains("(reminders/c-file.md)"));
    }

    #[test]
    fn empty_schedule_says_no_more_tasks() {
        let items = [at(-30, bg("old")), at(13 * 60, bg("far"))];
        let text = build_forward_schedule(&items, None, now()).render(TZ, &full_budget());
        assert_eq!(text, "No more bg tasks today.\n");
    }

    #[test]
    fn two_thousand_jobs_select_the_nearest_ones() {
        // 1,000 routines and 1,000 reminders spread over the next 20 hours, in reverse order.
        let mut items = Vec::with_capacity(2000);
        for i in (0..1000).rev() {
            items.push(at(i * 72 / 60 + 5, bg(&format!("r{i}"))));
            items.push(at(
                i * 72 / 60 + 6,
                Job::Reminder(reminder(&format!("m{i}"), 0, 0, settings(true))),
            ));
        }
        let schedule = build_forward_schedule(&items, None, now());
        assert!(schedule
            .entries
            .windows(2)
            .all(|w| w[0].fire_at <= w[1].fire_at));
        let last = schedule.entries.last().map(|e| e.fire_at);
        assert_eq!(last, Some(now() + Duration::minutes(180)));
        assert!(schedule.entries.len() > 200);
    }
}
