//! What the plan shows others: the forward schedule's items for a job's preamble and the
//! upcoming list (`/routines`, the CLI), the broken files. Read-only views of [`Plan`].

use chrono::{DateTime, Utc};

use super::{rel, BrokenFile, Plan, GRACE, HORIZON};
use crate::agent::prompts::forward::ScheduledItem;
use crate::jobs::Job;
use crate::scheduling::scheduler::UpcomingJob;

impl Plan {
    /// Background jobs around `now` for the forward schedule: routines' fires from the grace
    /// window up to the horizon, and pending reminders.
    pub fn forward_items(&self, now: DateTime<Utc>) -> Vec<ScheduledItem> {
        let mut items = Vec::new();
        for (path, routine) in self.routines.items() {
            if !routine.settings.background || routine.paused || self.is_shadowed(path) {
                continue;
            }
            let Some(timer) = self.timers.get(&routine.id) else {
                continue;
            };
            for fire_at in timer
                .schedule
                .fires_within(now - GRACE, now + HORIZON, self.tz)
            {
                items.push(ScheduledItem {
                    fire_at,
                    job: Job::Routine(routine.clone()),
                    rel_path: rel(&self.root, path),
                });
            }
        }
        for (path, reminder) in self.reminders.items() {
            if !reminder.settings.background || self.is_shadowed(path) {
                continue;
            }
            items.push(ScheduledItem {
                fire_at: reminder.run_at.with_timezone(&Utc),
                job: Job::Reminder(reminder.clone()),
                rel_path: rel(&self.root, path),
            });
        }
        items
    }

    /// Every registered job with its next fire time, soonest first.
    pub fn upcoming(&self) -> Vec<UpcomingJob> {
        let mut v: Vec<UpcomingJob> = self
            .routines
            .items()
            .filter(|(p, _)| !self.is_shadowed(p))
            .filter_map(|(path, r)| {
                let t = self.timers.get(&r.id)?;
                Some(UpcomingJob {
                    id: r.id.clone(),
                    next: t.next.map(|at| self.routine_due(at)),
                    background: r.settings.background,
                    rel_path: rel(&self.root, path),
                    paused: r.paused,
                    description: r.settings.description.clone(),
                })
            })
            .chain(
                self.reminders
                    .items()
                    .filter(|(p, r)| !self.fired.contains(&r.id) && !self.is_shadowed(p))
                    .map(|(path, r)| UpcomingJob {
                        id: r.id.clone(),
                        next: Some(self.reminder_due(r)),
                        background: r.settings.background,
                        rel_path: rel(&self.root, path),
                        paused: false,
                        description: r.settings.description.clone(),
                    }),
            )
            .collect();
        v.sort_by(|a, b| a.next.cmp(&b.next).then(a.id.cmp(&b.id)));
        v
    }

    /// Every job file that is not registered because it is broken: it does not load, or (a
    /// routine) its cron cannot be registered; by file name.
    pub fn broken(&self) -> Vec<BrokenFile> {
        let mut out: Vec<BrokenFile> = self
            .routines
            .broken()
            .chain(self.reminders.broken())
            .map(|(p, reason)| (p, reason.to_owned()))
            .chain(self.bad_cron.iter().map(|(p, r)| (p.as_path(), r.clone())))
            .map(|(path, reason)| BrokenFile {
                path: path.to_path_buf(),
                rel_path: rel(&self.root, path),
                reason,
            })
            .collect();
        out.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        out
    }
}
