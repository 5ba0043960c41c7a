//! `/routines` as text for the console and as embed pages for Discord.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{Board, RoutineClick};
use crate::base::ellipsis::cut;
use crate::jobs::{Job, JobId};
use crate::scheduling::fork::background::job_name;
use crate::scheduling::job_runner::ActiveJob;
use crate::scheduling::scheduler::RoutineEntry;

/// Routines per Discord message: one row of buttons each, and a message holds five rows.
pub const ROUTINES_PER_PAGE: usize = 5;
/// Longest routine name on a button.
const LABEL_NAME_CHARS: usize = 40;

/// One Discord message of the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The embed's title.
    pub title: String,
    /// The embed's description (what runs and waits).
    pub description: String,
    /// One field per routine: name, value.
    pub fields: Vec<(String, String)>,
    /// One row of buttons per routine, in the fields' order.
    pub rows: Vec<Vec<PageButton>>,
    /// The routines on this page, in the fields' order (to find a clicked one's page again).
    pub routines: Vec<JobId>,
}

/// A button on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageButton {
    /// Its text.
    pub label: String,
    /// Its persistent custom id.
    pub custom_id: String,
    /// Drawn as the main action (Run now) rather than a secondary one.
    pub primary: bool,
}

/// `08:30` today, `Tue 08:30` within a week, else the date.
fn when(at: DateTime<Utc>, now: DateTime<Utc>, tz: Tz) -> String {
    let (at_local, now_local) = (at.with_timezone(&tz), now.with_timezone(&tz));
    if at_local.date_naive() == now_local.date_naive() {
        at_local.format("%H:%M").to_string()
    } else if (at - now).num_days().abs() < 6 {
        at_local.format("%a %H:%M").to_string()
    } else {
        at_local.format("%Y-%m-%d %H:%M").to_string()
    }
}

impl Board {
    fn name(entry: &RoutineEntry) -> String {
        let name = job_name(&Job::Routine(entry.routine.clone()), &entry.rel_path);
        cut(&name, 80)
    }

    /// `next Tue 08:30 · last ok (Mon 08:30)`, or `paused · …`.
    fn status(&self, entry: &RoutineEntry, tz: Tz) -> String {
        let next = if entry.routine.paused {
            "paused".to_owned()
        } else {
            match entry.next {
                Some(at) => format!("next {}", when(at, self.now, tz)),
                None => "never fires again".to_owned(),
            }
        };
        let last = match self.last.get(&entry.routine.id) {
            Some(r) => format!(
                "last {} ({})",
                r.outcome.as_str(),
                when(r.ended.with_timezone(&Utc), self.now, tz)
            ),
            None => "no runs yet".to_owned(),
        };
        format!("{next} · {last}")
    }

    fn jobs(&self, jobs: &[ActiveJob], tz: Tz) -> String {
        jobs.iter()
            .map(|j| format!("{} (since {})", j.name, when(j.since, self.now, tz)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What runs and what waits, one line each.
    fn activity_lines(&self, tz: Tz) -> String {
        let a = &self.activity;
        let background: Vec<ActiveJob> =
            a.running.iter().filter(|j| j.background).cloned().collect();
        let foreground: Vec<ActiveJob> = a
            .running
            .iter()
            .filter(|j| !j.background)
            .cloned()
            .collect();
        let mut lines = vec![if background.is_empty() {
            format!("background: none running (at most {} at once)", a.limit)
        } else {
            format!(
                "background: {} of {} running — {}",
                background.len(),
                a.limit,
                self.jobs(&background, tz)
            )
        }];
        if !foreground.is_empty() {
            lines.push(format!(
                "in the conversation: {}",
                self.jobs(&foreground, tz)
            ));
        }
        lines.push(if a.waiting.is_empty() {
            "waiting: none".to_owned()
        } else {
            format!(
                "waiting: {} — {}",
                a.waiting.len(),
                self.jobs(&a.waiting, tz)
            )
        });
        lines.join("\n")
    }

    /// The console's rendering.
    pub fn text(&self, tz: Tz) -> String {
        let mut out = Vec::new();
        if self.routines.is_empty() {
            out.push("no routines".to_owned());
        } else {
            out.push(format!("routines ({}):", self.routines.len()));
            for entry in &self.routines {
                out.push(format!(
                    "  {}  {}  [{}]{}  {}",
                    entry.routine.id,
                    Self::name(entry),
                    entry.routine.cron,
                    persistent_mark(entry),
                    self.status(entry, tz)
                ));
            }
        }
        out.push(self.activity_lines(tz));
        if !self.routines.is_empty() {
            out.push("-# /run ID runs one now · /pause ID · /resume ID".to_owned());
        }
        out.join("\n")
    }

    /// Discord's rendering: pages of at most [`ROUTINES_PER_PAGE`] routines, each with its row
    /// of buttons; one page without buttons when there are no routines.
    pub fn pages(&self, tz: Tz) -> Vec<Page> {
        let description = self.activity_lines(tz);
        if self.routines.is_empty() {
            return vec![Page {
                title: "Routines".to_owned(),
                description: format!("no routines\n{description}"),
                fields: Vec::new(),
                rows: Vec::new(),
                routines: Vec::new(),
            }];
        }
        let chunks: Vec<&[RoutineEntry]> = self.routines.chunks(ROUTINES_PER_PAGE).collect();
        let total = chunks.len();
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| Page {
                title: if total == 1 {
                    "Routines".to_owned()
                } else {
                    format!("Routines ({}/{total})", i + 1)
                },
                description: description.clone(),
                fields: chunk
                    .iter()
                    .map(|e| {
                        let kind = if e.routine.settings.background {
                            "background"
                        } else {
                            "in the conversation"
                        };
                        (
                            format!("{} · {}", Self::name(e), e.routine.id),
                            format!(
                                "{}\n`{}` · {kind}{}",
                                self.status(e, tz),
                                e.routine.cron,
                                persistent_mark(e)
                            ),
                        )
                    })
                    .collect(),
                rows: chunk.iter().map(buttons).collect(),
                routines: chunk.iter().map(|e| e.routine.id.clone()).collect(),
            })
            .collect()
    }
}

/// `  [persistent]` after a routine that runs in its own session (SPEC §18), else nothing.
fn persistent_mark(entry: &RoutineEntry) -> &'static str {
    match entry.routine.session {
        crate::jobs::session_mode::SessionMode::Persistent => "  [persistent]",
        crate::jobs::session_mode::SessionMode::Fork => "",
    }
}

fn buttons(entry: &RoutineEntry) -> Vec<PageButton> {
    let id = entry.routine.id.clone();
    let name = cut(&Board::name(entry), LABEL_NAME_CHARS);
    let toggle = if entry.routine.paused {
        PageButton {
            label: format!("Resume: {name}"),
            custom_id: RoutineClick::Resume(id.clone()).custom_id(),
            primary: false,
        }
    } else {
        PageButton {
            label: format!("Pause: {name}"),
            custom_id: RoutineClick::Pause(id.clone()).custom_id(),
            primary: false,
        }
    };
    vec![
        PageButton {
            label: format!("Run now: {name}"),
            custom_id: RoutineClick::Run(id).custom_id(),
            primary: true,
        },
        toggle,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{JobSettings, Routine};
    use crate::scheduling::job_runner::ActivityReport;
    use chrono::TimeZone;

    fn entry(
        id: &str,
        description: &str,
        paused: bool,
        next: Option<DateTime<Utc>>,
    ) -> RoutineEntry {
        RoutineEntry {
            routine: Routine {
                id: JobId(id.into()),
                message: "do it".into(),
                cron: "30 8 * * *".into(),
                settings: JobSettings {
                    description: description.into(),
                    background: true,
                    ..JobSettings::default()
                },
                paused,
                catch_up: Default::default(),
                session: Default::default(),
            },
            rel_path: format!("routines/{id}.md"),
            next,
        }
    }

    #[test]
    fn the_board_shows_next_last_paused_running_and_waiting() {
        let tz = chrono_tz::UTC;
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let job = |name: &str, bg: bool| ActiveJob {
            job: JobId(name.into()),
            name: name.into(),
            file: String::new(),
            background: bg,
            since: now,
        };
        let board = Board {
            routines: vec![
                entry(
                    "a1",
                    "Morning",
                    false,
                    Some(now + chrono::Duration::minutes(30)),
                ),
                entry("b2", "Review", true, None),
            ],
            last: Default::default(),
            activity: ActivityReport {
                limit: 3,
                running: vec![job("sweep", true), job("standup", false)],
                waiting: vec![job("digest", true)],
            },
            now,
        };
        let text = board.text(tz);
        assert!(
            text.contains("a1  Morning  [30 8 * * *]  next 08:30 · no runs yet"),
            "{text}"
        );
        assert!(
            text.contains("b2  Review  [30 8 * * *]  paused · no runs yet"),
            "{text}"
        );
        assert!(
            text.contains("background: 1 of 3 running — sweep (since 08:00)"),
            "{text}"
        );
        assert!(
            text.contains("in the conversation: standup (since 08:00)"),
            "{text}"
        );
        assert!(text.contains("waiting: 1 — digest (since 08:00)"), "{text}");
        let pages = board.pages(tz);
        assert_eq!(pages.len(), 1);
        let ids: Vec<Vec<&str>> = pages[0]
            .rows
            .iter()
            .map(|r| r.iter().map(|b| b.custom_id.as_str()).collect())
            .collect();
        assert_eq!(
            ids,
            [
                ["act:routine_run:a1", "act:routine_pause:a1"],
                ["act:routine_run:b2", "act:routine_resume:b2"]
            ]
        );
        assert_eq!(pages[0].rows[1][1].label, "Resume: Review");
    }

    #[test]
    fn a_persistent_routine_is_marked_on_both_surfaces() {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let mut review = entry("c3", "Review", false, None);
        review.routine.session = crate::jobs::session_mode::SessionMode::Persistent;
        let board = Board {
            routines: vec![review, entry("d4", "Plain", false, None)],
            last: Default::default(),
            activity: ActivityReport::default(),
            now,
        };
        let text = board.text(chrono_tz::UTC);
        assert!(
            text.contains("c3  Review  [30 8 * * *]  [persistent]  never fires again"),
            "{text}"
        );
        assert!(text.contains("d4  Plain  [30 8 * * *]  never"), "{text}");
        let fields = &board.pages(chrono_tz::UTC)[0].fields;
        assert!(
            fields[0].1.ends_with("· background  [persistent]"),
            "{fields:?}"
        );
        assert!(fields[1].1.ends_with("· background"), "{fields:?}");
    }

    #[test]
    fn many_routines_make_pages_of_five() {
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let board = Board {
            routines: (0..12)
                .map(|i| entry(&format!("r{i}"), "x", false, None))
                .collect(),
            last: Default::default(),
            activity: ActivityReport::default(),
            now,
        };
        let pages = board.pages(chrono_tz::UTC);
        assert_eq!(
            pages.iter().map(|p| p.rows.len()).collect::<Vec<_>>(),
            [5, 5, 2]
        );
        assert_eq!(pages[2].title, "Routines (3/3)");
    }
}
