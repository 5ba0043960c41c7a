//! Today (`/`): the day as a timeline ([`crate::dashboard::timeline`]) and the facts beside it —
//! what fires next, what ran and how, the pings, the budget and the spend so far. Asks the
//! scheduler, the run log, the ping budget, the conversation (quiet hours) and the usage log.

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::cron::CronSchedule;
use ollim_actors::jobs::Job;
use ollim_actors::records::ping_budget::Snapshot;
use ollim_actors::records::runs::History;
use ollim_actors::records::usage::GetReport;
use ollim_actors::scheduling::fork::background::job_name;
use ollim_actors::scheduling::scheduler::{Routines, Upcoming, UpcomingJob};

use super::{dollars, ActorGone};
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::timeline::{budget_curve, Day, Fire, Ping, Run};
use crate::dashboard::Dash;

/// Most fire marks drawn per job (an every-minute routine would draw 1,440).
const MAX_FIRES_PER_JOB: usize = 96;
/// Most history lines looked through for today's runs.
const RUNS_LOOKED_AT: usize = 3000;
/// Quiet hours are sampled this often.
const QUIET_STEP_MINUTES: i64 = 5;

#[derive(Template)]
#[template(path = "dashboard/today.html")]
struct Body {
    facts: Vec<(String, String)>,
    svg: String,
    /// Time, job id, name.
    upcoming: Vec<(String, String, String)>,
}

/// The first instant of local `date` in `tz` (a midnight skipped by DST: the first hour that
/// exists).
fn local_midnight(date: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let naive = date.and_time(NaiveTime::MIN);
    (0..3)
        .find_map(|h| {
            tz.from_local_datetime(&(naive + Duration::hours(h)))
                .earliest()
        })
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_else(|| Utc.from_utc_datetime(&naive))
}

/// A reminder's name for people: its description, else its file name in words.
pub fn reminder_name(job: &UpcomingJob) -> String {
    let description = job.description.trim();
    if !description.is_empty() {
        return description.to_owned();
    }
    std::path::Path::new(&job.rel_path)
        .file_stem()
        .map(|s| s.to_string_lossy().replace('-', " "))
        .unwrap_or_else(|| format!("reminder {}", job.id))
}

/// What Today shows, gathered from the actors.
pub struct Today {
    /// The timeline's contents.
    pub day: Day,
    /// The facts above it.
    pub facts: Vec<(String, String)>,
}

/// Asks the actors for today's facts as of `now`.
pub async fn gather(dash: &Dash, now: DateTime<Utc>) -> Result<Today, ActorGone> {
    let tz = dash.tz;
    let h = &dash.handles;
    let date = now.with_timezone(&tz).date_naive();
    let start = local_midnight(date, tz);
    let end = date
        .succ_opt()
        .map(|d| local_midnight(d, tz))
        .unwrap_or(start + Duration::days(1));
    let routines = h
        .scheduler
        .send(Routines)
        .await
        .map_err(|_| ActorGone("scheduler"))?;
    let upcoming = h
        .scheduler
        .send(Upcoming)
        .await
        .map_err(|_| ActorGone("scheduler"))?;
    let history = h
        .run_log
        .send(History {
            job: None,
            kind: None,
            limit: RUNS_LOOKED_AT,
        })
        .await
        .map_err(|_| ActorGone("run log"))?;
    let budget = h
        .ping_budget
        .send(Snapshot)
        .await
        .map_err(|_| ActorGone("ping budget"))?;
    let quiet_window = match &h.main_session {
        Some(main) => {
            main.send(ollim_actors::conversation::main_session::QuietHoursNow)
                .await
                .map_err(|_| ActorGone("conversation"))?
                .window
        }
        None => None,
    };
    let spent = match h.usage_log.send(GetReport { days: None }).await {
        Ok(Ok(report)) => report
            .windows
            .first()
            .map(|w| dollars(w.total_usd()))
            .unwrap_or_else(|| "unknown".to_owned()),
        Ok(Err(e)) => {
            tracing::warn!(cause = %e, "dashboard: today's spend could not be added up");
            "unknown".to_owned()
        }
        Err(_) => return Err(ActorGone("usage log")),
    };

    let mut fires = Vec::new();
    for entry in &routines {
        if entry.routine.paused {
            continue;
        }
        let Ok(schedule) = CronSchedule::parse(&entry.routine.cron) else {
            continue;
        };
        let name = job_name(&Job::Routine(entry.routine.clone()), &entry.rel_path);
        for at in schedule
            .upcoming(start - Duration::seconds(1), tz)
            .take_while(|at| *at < end)
            .take(MAX_FIRES_PER_JOB)
        {
            fires.push(Fire {
                job: entry.routine.id.to_string(),
                name: name.clone(),
                at,
            });
        }
    }
    for job in &upcoming {
        let is_reminder = job.rel_path.starts_with("reminders/");
        if let (true, Some(at)) = (is_reminder, job.next) {
            if at >= start && at < end {
                fires.push(Fire {
                    job: job.id.to_string(),
                    name: reminder_name(job),
                    at,
                });
            }
        }
    }
    fires.sort_by_key(|f| f.at);

    let mut runs = Vec::new();
    let mut pings = Vec::new();
    for record in &history {
        let ended = record.ended.with_timezone(&Utc);
        if ended < start || ended >= end {
            continue;
        }
        let began = record
            .started
            .unwrap_or(record.scheduled)
            .with_timezone(&Utc);
        runs.push(Run {
            job: record.job.to_string(),
            name: record.name.clone(),
            start: began.max(start),
            end: ended,
            outcome: record.outcome.as_str(),
        });
        if record.pinged {
            pings.push(Ping {
                job: record.job.to_string(),
                at: ended,
            });
        }
    }

    let mut quiet = Vec::new();
    if let Some(window) = quiet_window {
        let mut at = start;
        let mut open: Option<DateTime<Utc>> = None;
        while at < end {
            match (window.contains(at, tz), open) {
                (true, None) => open = Some(at),
                (false, Some(from)) => {
                    quiet.push((from, at));
                    open = None;
                }
                _ => {}
            }
            at += Duration::minutes(QUIET_STEP_MINUTES);
        }
        if let Some(from) = open {
            quiet.push((from, end));
        }
    }

    let ping_times: Vec<DateTime<Utc>> = pings.iter().map(|p| p.at).collect();
    let curve = budget_curve(
        budget.available,
        budget.capacity,
        budget.refill_rate_minutes,
        now,
        &ping_times,
        start,
        end,
    );

    let failed = runs
        .iter()
        .filter(|r| matches!(r.outcome, "failed" | "timed-out" | "over-budget"))
        .count();
    let next = fires.iter().find(|f| f.at > now);
    let facts = vec![
        (
            "now".to_owned(),
            now.with_timezone(&tz).format("%H:%M").to_string(),
        ),
        (
            "next".to_owned(),
            next.map(|f| format!("{} {}", f.at.with_timezone(&tz).format("%H:%M"), f.name))
                .unwrap_or_else(|| "nothing today".to_owned()),
        ),
        (
            "ran today".to_owned(),
            format!("{} ({failed} failed)", runs.len()),
        ),
        ("pings today".to_owned(), budget.daily_used.to_string()),
        (
            "ping budget".to_owned(),
            format!("{}/{}", budget.whole_tokens, budget.capacity),
        ),
        ("spent today".to_owned(), spent),
    ];
    Ok(Today {
        day: Day {
            start,
            end,
            now,
            tz,
            fires,
            runs,
            pings,
            quiet,
            budget: curve,
            capacity: budget.capacity,
        },
        facts,
    })
}

impl Today {
    /// The page's body.
    pub fn body(&self) -> String {
        let tz = self.day.tz;
        let upcoming = self
            .day
            .fires
            .iter()
            .filter(|f| f.at > self.day.now)
            .take(12)
            .map(|f| {
                (
                    f.at.with_timezone(&tz).format("%H:%M").to_string(),
                    f.job.clone(),
                    f.name.clone(),
                )
            })
            .collect();
        layout::render(&Body {
            facts: self.facts.clone(),
            svg: self.day.svg(),
            upcoming,
        })
    }
}

/// `GET /`.
pub async fn page(_session: Session, dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    let today = gather(&dash, Utc::now()).await?;
    Ok(Page {
        name: "today",
        title: "Today",
        body: today.body(),
        refresh: 60,
        ..Page::default()
    }
    .respond())
}
