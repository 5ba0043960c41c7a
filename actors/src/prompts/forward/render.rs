//! Rendering the forward schedule as preamble lines, with the refill estimate (SPEC §9, §7).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{ForwardSchedule, ScheduleEntry, EMPTY_TEXT};
use crate::prompts::preamble::BudgetFacts;

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

    /// The schedule as preamble lines (each ending in a newline), times shown in `tz`.
    ///
    /// The refill estimate line appears only when at least one refill is expected before the
    /// last forward item.
    pub fn render(&self, tz: Tz, budget: &BudgetFacts) -> String {
        if self.entries.is_empty() {
            return format!("{EMPTY_TEXT}\n");
        }
        let mut out = format!("Upcoming bg tasks (next {}h):\n", self.window_hours);
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
    use crate::prompts::forward::build_forward_schedule;
    use crate::prompts::test_jobs::*;

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
