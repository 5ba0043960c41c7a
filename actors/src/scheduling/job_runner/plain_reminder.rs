//! A reminder delivered without a model *(ours, SPEC §19, issue 28)*: when the model may not be
//! woken (the spend cap is reached), or the reminder's last attempt failed without a ping or a
//! report, the owner still gets what they asked to be reminded of, as a
//! plain DM `⏰ <description, else the first line of its message>`.
//!
//! A background reminder keeps to quiet hours as its run would have: inside the window the
//! plain text is not sent but added to the pending updates, which the conversation shows with
//! the owner's next message ([`JobRunner::deliver_plain`]). A reminder that runs in the
//! conversation is delivered at once, as it would have run.

use super::JobRunner;
use crate::conversation::main_session::QuietHoursNow;
use crate::conversation::surface::SurfaceEvent;
use crate::jobs::Reminder;
use crate::records::pending_updates::Append;

impl JobRunner {
    /// Sends `text`, the plain DM of reminder `id`, to the owner — or, for a `background`
    /// reminder inside quiet hours, to the pending updates.
    pub(super) fn deliver_plain(&self, id: &str, background: bool, text: String) {
        let id = id.to_owned();
        let Some(surface) = self.notices() else {
            tracing::warn!(job = %id, %text, "nobody to deliver the plain reminder to");
            return;
        };
        let ping = move |surface: actix::Recipient<SurfaceEvent>, text| {
            surface.do_send(SurfaceEvent::Ping {
                text,
                fork_session: None,
                snooze: None,
            });
        };
        let (true, Some(quiet), Some(pending)) = (background, self.quiet_asker(), self.pending())
        else {
            ping(surface, text);
            return;
        };
        actix::spawn(async move {
            let until = match quiet.send(QuietHoursNow).await {
                Ok(now) => now.until_text(),
                Err(e) => {
                    tracing::warn!(job = %id, cause = %e, "the conversation did not say whether quiet hours hold; the reminder is sent");
                    None
                }
            };
            match until {
                Some(until) => {
                    tracing::info!(job = %id, %until, "quiet hours: the plain reminder waits for the owner's next message");
                    pending.do_send(Append {
                        message: quiet_hours_update(&text, &until),
                    });
                }
                None => ping(surface, text),
            }
        });
    }
}

/// The pending update for a plain reminder held by quiet hours.
pub fn quiet_hours_update(text: &str, until: &str) -> String {
    format!("{text} (a reminder that came during quiet hours, which last until {until}; tell the owner)")
}

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
