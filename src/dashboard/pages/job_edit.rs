//! Creating and editing a job (`/jobs/new`, `/jobs/<id>/edit`): the whole file, frontmatter and
//! prompt, in one text box. Check shows what the loader's validator says and the next five fire
//! times; Save hands the text to the scheduler ([`WriteJobFile`]), which writes it only when
//! the validator passes it — a refused text leaves the file as it was.

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::cron::CronSchedule;
use ollim_actors::jobs::validate::{self, Kind};
use ollim_actors::jobs::{reminder, routine, JobId};
use ollim_actors::scheduling::scheduler::{ReadJobFile, WriteJobFile};
use serde::Deserialize;

use super::jobs::when;
use super::ActorGone;
use crate::dashboard::guard::{Refusal, Session};
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

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

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Routine => "routine",
        Kind::Reminder => "reminder",
    }
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
