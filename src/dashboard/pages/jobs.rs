//! Jobs (`/jobs`): every routine and reminder with its schedule in words, next fire and last
//! outcome; Run now, Pause and Resume through the scheduler's messages (the same ones the
//! Discord buttons and the control socket send). Creating and editing a job is
//! [`super::job_edit`].

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::{Job, JobId};
use ollim_actors::records::runs::LatestRuns;
use ollim_actors::scheduling::fork::background::job_name;
use ollim_actors::scheduling::routines_view::{press, RoutineClick};
use ollim_actors::scheduling::scheduler::{Routines, Upcoming};
use serde::Deserialize;

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::schedule_words;
use crate::dashboard::Dash;

/// One row of the table.
struct Row {
    id: String,
    name: String,
    kind: &'static str,
    is_routine: bool,
    paused: bool,
    schedule: String,
    next: String,
    last: String,
}

#[derive(Template)]
#[template(path = "dashboard/jobs.html")]
struct ListBody {
    rows: Vec<Row>,
    csrf: String,
}

/// A fire time as the Jobs pages show it: `Tue 2026-05-05 09:00`.
pub fn when(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz)
        .format("%a %Y-%m-%d %H:%M")
        .to_string()
}

/// The table's rows: routines first (by file), then reminders (soonest first).
async fn rows(dash: &Dash) -> Result<Vec<Row>, ActorGone> {
    let tz = dash.tz;
    let h = &dash.handles;
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
    let last = h
        .run_log
        .send(LatestRuns)
        .await
        .map_err(|_| ActorGone("run log"))?;
    let last_of = |id: &JobId| match last.get(id) {
        Some(r) => format!(
            "{} ({})",
            r.outcome.as_str(),
            r.ended.with_timezone(&tz).format("%a %H:%M")
        ),
        None => "no runs yet".to_owned(),
    };
    let mut out: Vec<Row> = routines
        .iter()
        .map(|entry| {
            let r = &entry.routine;
            Row {
                id: r.id.to_string(),
                name: job_name(&Job::Routine(r.clone()), &entry.rel_path),
                kind: "routine",
                is_routine: true,
                paused: r.paused,
                schedule: schedule_words::describe(&r.cron),
                next: if r.paused {
                    "paused".to_owned()
                } else {
                    entry
                        .next
                        .map(|at| when(at, tz))
                        .unwrap_or_else(|| "never".to_owned())
                },
                last: last_of(&r.id),
            }
        })
        .collect();
    let mut reminders: Vec<_> = upcoming
        .iter()
        .filter(|j| j.rel_path.starts_with("reminders/"))
        .collect();
    reminders.sort_by_key(|j| j.next);
    out.extend(reminders.into_iter().map(|j| {
        Row {
            id: j.id.to_string(),
            name: super::today::reminder_name(j),
            kind: "reminder",
            is_routine: false,
            paused: false,
            schedule: "once".to_owned(),
            next: j
                .next
                .map(|at| when(at, tz))
                .unwrap_or_else(|| "never".to_owned()),
            last: last_of(&j.id),
        }
    }));
    Ok(out)
}

async fn list_page(dash: &Dash, session: &Session, notes: Vec<String>) -> Result<Page, ActorGone> {
    let body = ListBody {
        rows: rows(dash).await?,
        csrf: session.csrf.clone(),
    };
    Ok(Page {
        name: "jobs",
        title: "Jobs",
        notes,
        body: layout::render(&body),
        refresh: 0,
    })
}

/// `GET /jobs`.
pub async fn list(session: Session, dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    Ok(list_page(&dash, &session, Vec::new()).await?.respond())
}

/// A button's form: just the CSRF token.
#[derive(Debug, Deserialize)]
pub struct ButtonForm {
    #[serde(default)]
    csrf: String,
}

/// Carries out a routine button exactly as Discord's does, then shows the list with its answer.
async fn button(
    session: Session,
    dash: web::Data<Dash>,
    id: String,
    form: ButtonForm,
    make: fn(JobId) -> RoutineClick,
) -> Result<HttpResponse, actix_web::Error> {
    session.check(&form.csrf)?;
    let note = match JobId::parse(&id) {
        Ok(id) => press(make(id), &dash.handles.scheduler).await,
        Err(e) => e.to_string(),
    };
    Ok(list_page(&dash, &session, vec![note]).await?.respond())
}

/// `POST /jobs/<id>/run`.
pub async fn run(
    session: Session,
    dash: web::Data<Dash>,
    id: web::Path<String>,
    form: web::Form<ButtonForm>,
) -> Result<HttpResponse, actix_web::Error> {
    button(
        session,
        dash,
        id.into_inner(),
        form.into_inner(),
        RoutineClick::Run,
    )
    .await
}

/// `POST /jobs/<id>/pause`: `paused: true` in its file.
pub async fn pause(
    session: Session,
    dash: web::Data<Dash>,
    id: web::Path<String>,
    form: web::Form<ButtonForm>,
) -> Result<HttpResponse, actix_web::Error> {
    button(
        session,
        dash,
        id.into_inner(),
        form.into_inner(),
        RoutineClick::Pause,
    )
    .await
}

/// `POST /jobs/<id>/resume`.
pub async fn resume(
    session: Session,
    dash: web::Data<Dash>,
    id: web::Path<String>,
    form: web::Form<ButtonForm>,
) -> Result<HttpResponse, actix_web::Error> {
    button(
        session,
        dash,
        id.into_inner(),
        form.into_inner(),
        RoutineClick::Resume,
    )
    .await
}
