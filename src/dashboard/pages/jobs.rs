//! Jobs (`/jobs`): every routine and reminder with its schedule in words, next fire and last
//! outcome; Run now, Pause and Resume through the scheduler's messages (the same ones the
//! Discord buttons and the control socket send); create and edit a job's whole file, checked by
//! the loader's validator, with its next five fire times shown before saving.

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::cron::CronSchedule;
use ollim_actors::jobs::validate::{self, Kind};
use ollim_actors::jobs::{reminder, routine, Job, JobId};
use ollim_actors::records::runs::LatestRuns;
use ollim_actors::scheduling::fork::background::job_name;
use ollim_actors::scheduling::routines_view::{press, RoutineClick};
use ollim_actors::scheduling::scheduler::{ReadJobFile, Routines, Upcoming, WriteJobFile};
use serde::Deserialize;

use super::ActorGone;
use crate::dashboard::guard::{Refusal, Session};
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

#[derive(Template)]
#[template(path = "dashboard/job_edit.html")]
struct EditBody {
    action: String,
    kind: &'static str,
    path: Option<String>,
    text: String,
    csrf: String,
    errors: Vec<String>,
    warnings: Vec<String>,
    fires: Vec<String>,
}

fn when(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz)
        .format("%a %Y-%m-%d %H:%M")
        .to_string()
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Routine => "routine",
        Kind::Reminder => "reminder",
    }
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

/// `?kind=reminder` (routine when absent).
#[derive(Debug, Deserialize)]
pub struct KindQuery {
    #[serde(default)]
    kind: String,
}

fn kind_of(word: &str) -> Kind {
    if word == "reminder" {
        Kind::Reminder
    } else {
        Kind::Routine
    }
}

/// The next five fire times of a job file's text (as of `now`), or why there are none.
pub fn next_fires(
    kind: Kind,
    text: &str,
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<Vec<String>, String> {
    match kind {
        Kind::Routine => {
            let r = routine::parse(text).map_err(|e| e.to_string())?;
            let schedule = CronSchedule::parse(&r.cron).map_err(|e| e.to_string())?;
            Ok(schedule
                .upcoming(now, tz)
                .take(5)
                .map(|at| when(at, tz))
                .collect())
        }
        Kind::Reminder => {
            let r = reminder::parse(text).map_err(|e| e.to_string())?;
            Ok(vec![when(r.run_at.with_timezone(&Utc), tz)])
        }
    }
}

fn template_for(kind: Kind) -> String {
    match kind {
        Kind::Routine => "---\nid: my-routine\ncron: \"0 9 * * 1-5\"\ndescription: Morning check-in\nbackground: true\n---\nLook at today's calendar and tasks; tell me the one thing to start with.\n".to_owned(),
        Kind::Reminder => format!(
            "---\nid: my-reminder\nrun-at: \"{}\"\ndescription: A nudge\n---\nRemind me to stretch.\n",
            (Utc::now() + chrono::Duration::hours(1)).format("%Y-%m-%dT%H:%M:00Z")
        ),
    }
}

struct EditView {
    action: String,
    kind: Kind,
    path: Option<String>,
    text: String,
    errors: Vec<String>,
    notes: Vec<String>,
    check: bool,
}

fn edit_page(dash: &Dash, session: &Session, view: EditView) -> Page {
    let EditView {
        action,
        kind,
        path,
        text,
        mut errors,
        notes,
        check,
    } = view;
    let mut warnings = Vec::new();
    let mut fires = Vec::new();
    if check {
        let verdict = validate::check(kind, &text);
        if let Some(problem) = verdict.problem {
            if !errors.contains(&problem) {
                errors.push(problem);
            }
        }
        warnings = verdict.warnings;
        if errors.is_empty() {
            match next_fires(kind, &text, Utc::now(), dash.tz) {
                Ok(f) => fires = f,
                Err(e) => errors.push(e),
            }
        }
    }
    let editing = path.is_some();
    Page {
        name: "jobs",
        title: if editing { "Edit job" } else { "New job" },
        notes,
        body: layout::render(&EditBody {
            action,
            kind: kind_word(kind),
            path,
            text,
            csrf: session.csrf.clone(),
            errors,
            warnings,
            fires,
        }),
        refresh: 0,
    }
}

/// `GET /jobs/new[?kind=reminder]`.
pub async fn new_form(
    session: Session,
    dash: web::Data<Dash>,
    q: web::Query<KindQuery>,
) -> HttpResponse {
    let kind = kind_of(&q.kind);
    edit_page(
        &dash,
        &session,
        EditView {
            action: "/jobs/new".to_owned(),
            kind,
            path: None,
            text: template_for(kind),
            errors: Vec::new(),
            notes: Vec::new(),
            check: false,
        },
    )
    .respond()
}

/// `GET /jobs/<id>/edit[?kind=reminder]`.
pub async fn edit_form(
    session: Session,
    dash: web::Data<Dash>,
    id: web::Path<String>,
    q: web::Query<KindQuery>,
) -> Result<HttpResponse, actix_web::Error> {
    let kind = kind_of(&q.kind);
    let id = JobId::parse(&id).map_err(actix_web::error::ErrorNotFound)?;
    let file = dash
        .handles
        .scheduler
        .send(ReadJobFile {
            kind,
            id: id.clone(),
        })
        .await
        .map_err(|_| ActorGone("scheduler"))?
        .map_err(actix_web::error::ErrorNotFound)?;
    Ok(edit_page(
        &dash,
        &session,
        EditView {
            action: format!("/jobs/{id}/edit"),
            kind,
            path: Some(file.rel_path),
            text: file.text,
            errors: Vec::new(),
            notes: Vec::new(),
            check: true,
        },
    )
    .respond())
}

/// The edit form as posted.
#[derive(Debug, Deserialize)]
pub struct EditForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    action: String,
}

/// Check (`action=check`) or save (`action=save`) a job's text; `editing` names the job edited.
async fn submit(
    session: Session,
    dash: web::Data<Dash>,
    form: EditForm,
    editing: Option<JobId>,
) -> Result<HttpResponse, actix_web::Error> {
    session.check(&form.csrf)?;
    let kind = kind_of(&form.kind);
    // Browsers send CRLF from a textarea; the files are written with LF.
    let text = form.text.replace("\r\n", "\n");
    let action = match &editing {
        Some(id) => format!("/jobs/{id}/edit"),
        None => "/jobs/new".to_owned(),
    };
    let mut view = EditView {
        action,
        kind,
        path: editing
            .as_ref()
            .map(|id| format!("{} {id}", kind_word(kind))),
        text,
        errors: Vec::new(),
        notes: Vec::new(),
        check: true,
    };
    match form.action.as_str() {
        "save" => {
            let answer = dash
                .handles
                .scheduler
                .send(WriteJobFile {
                    kind,
                    editing: editing.clone(),
                    text: view.text.clone(),
                })
                .await
                .map_err(|_| ActorGone("scheduler"))?;
            match answer {
                Ok(saved) => {
                    view.notes
                        .push(format!("saved {} ({})", saved.id, saved.rel_path));
                    view.action = format!("/jobs/{}/edit", saved.id);
                    view.path = Some(saved.rel_path);
                }
                Err(problem) => {
                    view.errors.push(format!("not saved: {problem}"));
                    view.check = false;
                    view.notes
                        .push("not saved; the file is unchanged".to_owned());
                }
            }
        }
        "check" => {}
        other => {
            tracing::warn!(
                action = other,
                "dashboard: an edit form with an unknown action"
            );
            return Err(Refusal::Csrf.into());
        }
    }
    Ok(edit_page(&dash, &session, view).respond())
}

/// `POST /jobs/new`.
pub async fn create(
    session: Session,
    dash: web::Data<Dash>,
    form: web::Form<EditForm>,
) -> Result<HttpResponse, actix_web::Error> {
    submit(session, dash, form.into_inner(), None).await
}

/// `POST /jobs/<id>/edit`.
pub async fn save(
    session: Session,
    dash: web::Data<Dash>,
    id: web::Path<String>,
    form: web::Form<EditForm>,
) -> Result<HttpResponse, actix_web::Error> {
    let id = JobId::parse(&id).map_err(actix_web::error::ErrorNotFound)?;
    submit(session, dash, form.into_inner(), Some(id)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn five_fire_times_for_a_routine_and_the_loaders_words_for_a_bad_cron() {
        let now = Utc.with_ymd_and_hms(2026, 5, 4, 10, 0, 0).unwrap();
        let good = "---\nid: a\ncron: \"0 9 * * *\"\n---\nhi\n";
        let fires = next_fires(Kind::Routine, good, now, Tz::UTC).unwrap();
        assert_eq!(fires.len(), 5);
        assert_eq!(fires[0], "Tue 2026-05-05 09:00");
        let bad = "---\nid: a\ncron: \"0 25 * * *\"\n---\nhi\n";
        assert!(next_fires(Kind::Routine, bad, now, Tz::UTC).is_err());
        let problem = validate::check(Kind::Routine, bad).problem.unwrap();
        assert!(problem.contains("hour"), "{problem}");
    }
}
