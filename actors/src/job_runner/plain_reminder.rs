//! The plain reminder *(ours)*: when a reminder's run could not reach the owner — its last
//! attempt failed without a ping or a report — the owner still gets the reminder itself, as a
//! DM `⏰ <its description, else the first line of its message>`.

use crate::jobs::Reminder;

/// `⏰ <description, else the first line of the message>`.
pub fn plain_reminder_text(reminder: &Reminder) -> String {
    let description = reminder.settings.description.trim();
    let what = if description.is_empty() {
        reminder
            .message
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("reminder")
    } else {
        description
    };
    format!("⏰ {what}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::JobSettings;

    #[test]
    fn the_description_else_the_first_line_of_the_message() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-03-02T09:00:00-05:00").unwrap();
        let mut r = Reminder::new(
            "\n  take the bins out  \nthey go at 7",
            at,
            JobSettings::default(),
        );
        assert_eq!(plain_reminder_text(&r), "⏰ take the bins out");
        r.settings.description = "bins".into();
        assert_eq!(plain_reminder_text(&r), "⏰ bins");
    }
}
