//! Prompt tags and the markers after them (SPEC §9): `[routine-bg:a1b2c3d4]`, the
//! `[late: …]` marker of a job that fires late and *(ours)* the `[interrupted: …]` marker of a
//! run cut off by a restart.

use std::fmt;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::agent::prompts::forward::clock_time;
use crate::jobs::Job;

/// What kind of prompt a tag announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// A routine in the main session.
    Routine,
    /// A routine in a background fork.
    RoutineBg,
    /// A reminder in the main session.
    Reminder,
    /// A reminder in a background fork.
    ReminderBg,
    /// A webhook job (always background).
    Webhook,
}

/// A prompt tag such as `[routine-bg:a1b2c3d4]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<'a> {
    /// The kind of prompt.
    pub kind: TagKind,
    /// The job or webhook id.
    pub id: &'a str,
}

impl fmt::Display for Tag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            TagKind::Routine => "routine",
            TagKind::RoutineBg => "routine-bg",
            TagKind::Reminder => "reminder",
            TagKind::ReminderBg => "reminder-bg",
            TagKind::Webhook => "webhook",
        };
        write!(f, "[{kind}:{}]", self.id)
    }
}

/// The tag for a job, background or not.
pub fn tag_for(job: &Job) -> Tag<'_> {
    let background = job.settings().background;
    let kind = match (job, background) {
        (Job::Routine(_), false) => TagKind::Routine,
        (Job::Routine(_), true) => TagKind::RoutineBg,
        (Job::Reminder(_), false) => TagKind::Reminder,
        (Job::Reminder(_), true) => TagKind::ReminderBg,
        (Job::Webhook(_), _) => TagKind::Webhook,
    };
    Tag {
        kind,
        id: job.id().as_str(),
    }
}

/// The marker for a reminder that fires late: `[late: was scheduled for 2:30 PM, running now]`.
pub fn late_marker(scheduled_for: DateTime<Utc>, tz: Tz) -> String {
    format!(
        "[late: was scheduled for {}, running now]",
        clock_time(scheduled_for, tz)
    )
}

/// The marker for a run cut off by a restart and run again *(ours)*:
/// `[interrupted: started at 2:30 PM and cut off by a restart, running again]`.
pub fn interrupted_marker(started: DateTime<Utc>, tz: Tz) -> String {
    format!(
        "[interrupted: started at {} and cut off by a restart, running again]",
        clock_time(started, tz)
    )
}

/// `prompt` with `marker` after its leading tag (`[routine-bg:x] [late: …] …`).
pub(crate) fn after_tag(prompt: String, marker: Option<&str>) -> String {
    let Some(marker) = marker else { return prompt };
    match prompt.find(']') {
        Some(end) if prompt.starts_with('[') => {
            let (tag, rest) = prompt.split_at(end + 1);
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            format!("{tag} {marker} {rest}")
        }
        _ => format!("{marker} {prompt}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::prompts::test_jobs::*;

    #[test]
    fn tags_name_kind_and_id() {
        let cases = [
            (TagKind::Routine, "[routine:a1]"),
            (TagKind::RoutineBg, "[routine-bg:a1]"),
            (TagKind::Reminder, "[reminder:a1]"),
            (TagKind::ReminderBg, "[reminder-bg:a1]"),
            (TagKind::Webhook, "[webhook:a1]"),
        ];
        for (kind, expected) in cases {
            assert_eq!(Tag { kind, id: "a1" }.to_string(), expected);
        }
        let fg = Job::Routine(routine("r1", settings(false)));
        assert_eq!(tag_for(&fg).to_string(), "[routine:r1]");
        let bg_rem = Job::Reminder(reminder("m1", 0, 0, settings(true)));
        assert_eq!(tag_for(&bg_rem).to_string(), "[reminder-bg:m1]");
    }

    #[test]
    fn a_marker_goes_after_the_tag_or_first() {
        assert_eq!(
            after_tag("[routine-bg:a1] Go.".into(), Some("[late: x]")),
            "[routine-bg:a1] [late: x] Go."
        );
        assert_eq!(after_tag("Go.".into(), Some("[late: x]")), "[late: x] Go.");
        assert_eq!(
            after_tag("[routine:a1] Go.".into(), None),
            "[routine:a1] Go."
        );
    }
}
