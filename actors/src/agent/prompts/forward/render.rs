//! Rendering the forward schedule as preamble lines, with the refill estimate (SPEC §9, §7).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{EntryMark, ForwardSchedule, ScheduleEntry, EMPTY_TEXT};
use crate::agent::prompts::preamble::BudgetFacts;

/// A time as the schedule shows it: `9:00 AM` in the configured zone.
pub fn clock_time(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz).format("%-I:%M %p").to_string()
}

/// How many budget tokens come back between now and `minutes` from now.
///
/// Counts whole refills given when the next one is due, and never more than the bucket can
/// still hold.
pub fn refills_within(budget: &BudgetFacts, minutes: f64) -> u32 {
    let room = budget.capacity.saturating_sub(budget.available);
    let Some(next) = budget.next_refill_in_minutes else {
        return 0;
    };
    let since_first = minutes - f64::from(next);
    if room == 0 || since_first < 0.0 {
        return 0;
    }
    let later = if budget.refill_minutes == 0 {
        0
    } else {
        // Float-to-int casts saturate, so a huge span cannot wrap.
        (since_first / f64::from(budget.refill_minutes)).floor() as u32
    };
    later.saturating_add(1).min(room)
}

impl ForwardSchedule {
    /// The last entry that is still ahead of `now`, if any.
    fn last_forward(&self) -> Option<&ScheduleEntry> {
        self.entries.iter().rev().find(|e| e.fire_at > self.now)
    }

    /// The header's span: `next Nh`, N the hours from now to the last entry not marked
    /// "just fired" (rounded half to even, as the original's Python `round` does; at least 1),
    /// or `recent` when every entry just fired.
    fn span(&self) -> String {
        let last = self
            .entries
            .iter()
            .rev()
            .find(|e| e.mark != Some(EntryMark::JustFired));
        match last {
            Some(entry) => {
                let hours = (entry.fire_at - self.now).num_seconds() as f64 / 3600.0;
                // Float-to-int casts saturate: no wrap for any span.
                let n = (hours.round_ties_even() as i64).max(1);
                format!("next {n}h")
            }
            None => "recent".to_owned(),
        }
    }

    /// The schedule as preamble lines (each ending in a newline), times shown in `tz`.
    ///
    /// The refill estimate line appears only when at least one refill is expected before the
    /// last forward item.
    pub fn render(&self, tz: Tz, budget: &BudgetFacts) -> String {
        if self.entries.is_empty() {
            return format!("{EMPTY_TEXT}\n");
        }
        let mut out = format!("Upcoming bg tasks ({}):\n", self.span());
        for entry in &self.entries {
            out.push_str(&format!(
                "- {}: {}{} — \"{}\" ({})",
                clock_time(entry.fire_at, tz),
                entry.label,
                if entry.silent { " (silent)" } else { "" },
                entry.description,
                entry.rel_path,
            ));
            if let Some(mark) = entry.mark {
                out.push_str(&format!(" [{mark}]"));
            }
            out.push('\n');
        }
        if let Some(last) = self.last_forward() {
            let minutes = (last.fire_at - self.now).num_seconds() as f64 / 60.0;
            let refills = refills_within(budget, minutes);
            if refills > 0 {
                let plural = if refills == 1 { "" } else { "s" };
                out.push_str(&format!("~{refills} refill{plural} before last task.\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::prompts::forward::build_forward_schedule;
    use crate::agent::prompts::test_jobs::*;

    #[test]
    fn refill_line_counts_refills_before_last_task() {
        let budget = BudgetFacts {
            available: 2,
            capacity: 5,
            refill_minutes: 90,
            next_refill_in_minutes: Some(30),
        };
        // Refills at +30 and +120 min; the last task is at +180 min.
        let items = [at(60, bg("a")), at(120, bg("b")), at(180, bg("c"))];
        let text = build_forward_schedule(&items, None, now()).render(TZ, &budget);
        assert!(text.ends_with("(routines/c-file.md)\n~2 refills before last task.\n"));

        let items = [at(60, bg("a"))];
        let text = build_forward_schedule(&items, None, now()).render(TZ, &budget);
        assert!(text.ends_with("~1 refill before last task.\n"));

        let items = [at(20, bg("a"))];
        let text = build_forward_schedule(&items, None, now()).render(TZ, &budget);
        assert!(!text.contains("refill"));
    }

    fn header(
        items: &[crate::agent::prompts::forward::ScheduledItem],
        current: Option<&str>,
    ) -> String {
        let text = build_forward_schedule(items, current, now()).render(TZ, &full_budget());
        text.lines().next().unwrap_or_default().to_owned()
    }

    #[test]
    fn header_counts_the_hours_to_the_last_entry_that_did_not_just_fire() {
        assert_eq!(
            header(&[at(60, bg("a")), at(170, bg("b"))], None),
            "Upcoming bg tasks (next 3h):"
        );
        // 2.5 h rounds to even, as Python's `round` does; 3.5 h likewise.
        assert_eq!(
            header(&[at(150, bg("a"))], None),
            "Upcoming bg tasks (next 2h):"
        );
        assert_eq!(
            header(&[at(210, bg("a"))], None),
            "Upcoming bg tasks (next 4h):"
        );
        assert_eq!(
            header(&[at(400, bg("a"))], None),
            "Upcoming bg tasks (next 7h):"
        );
        // Never below 1: a task 20 minutes out, or this task fired just now.
        assert_eq!(
            header(&[at(20, bg("a"))], None),
            "Upcoming bg tasks (next 1h):"
        );
        assert_eq!(
            header(&[at(0, bg("me"))], Some("me")),
            "Upcoming bg tasks (next 1h):"
        );
        // Just-fired entries are listed but do not set the span.
        assert_eq!(
            header(&[at(-5, bg("old")), at(130, bg("a"))], None),
            "Upcoming bg tasks (next 2h):"
        );
    }

    #[test]
    fn header_says_recent_when_every_entry_just_fired() {
        assert_eq!(
            header(&[at(-10, bg("a")), at(-3, bg("b"))], None),
            "Upcoming bg tasks (recent):"
        );
    }

    #[test]
    fn full_bucket_expects_no_refills() {
        let items = [at(60, bg("a")), at(600, bg("b"))];
        let text = build_forward_schedule(&items, None, now()).render(TZ, &full_budget());
        assert!(!text.contains("refill"));
    }

    #[test]
    fn refills_never_exceed_the_room_in_the_bucket() {
        let budget = BudgetFacts {
            available: 4,
            capacity: 5,
            refill_minutes: 90,
            next_refill_in_minutes: Some(10),
        };
        assert_eq!(refills_within(&budget, 700.0), 1);
        assert_eq!(refills_within(&budget, 5.0), 0);
    }
}
