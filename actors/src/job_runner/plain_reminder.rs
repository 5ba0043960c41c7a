//! A reminder delivered without a model *(ours, SPEC §19, issue 28)*: when the model may not be
//! woken (the spend cap is reached), or the reminder's last attempt failed without a ping or a
//! report, the owner still gets what they asked to be reminded of, as a
//! plain DM `⏰ <description, else the first line of its message>`.

use crate::jobs::Reminder;

/// The plain DM for `reminder`: `⏰` and its description, else its message's first non-empty
/// line.
pub fn plain_reminder_text(reminder: &Reminder) -> String {
    let description = reminder.settings.description.trim();
    let text = if description.is_empty() {
        reminder
            .message
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("reminder")
    } else {
        description
    };
    format!("⏰ {text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::reminder;

    #[test]
    fn the_description_else_the_first_line() {
        let file = "---\nid: \"a1b2c3d4\"\nrun-at: \"2026-03-02T09:00:00-05:00\"\ndescription: \"visa form\"\n---\nIs the visa form in?\nCheck the portal.\n";
        let r = reminder::parse(file).unwrap();
        assert_eq!(plain_reminder_text(&r), "⏰ visa form");
        let r = reminder::parse(&file.replace("description: \"visa form\"\n", "")).unwrap();
        assert_eq!(plain_reminder_text(&r), "⏰ Is the visa form in?");
    }
}
