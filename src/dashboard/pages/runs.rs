//! Runs (`/runs`, `?job=<id>` for one job's): the run history as the run log keeps it (30 days)
//! — when, which job, how it ended, how long it took, what it cost and how many model turns,
//! its reflection's trace — newest first. A background run whose CLI session still has a
//! transcript links to it (`/runs/<run>/transcript`), read as `ollim-bot history transcript`
//! reads it, from the run's start on.

use std::collections::HashSet;

use actix_web::{web, HttpResponse};
use askama::Template;
use chrono::{DateTime, FixedOffset, Utc};
use chrono_tz::Tz;
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{History, LatestRuns, Outcome, RunRecord, Trigger};
use ollim_actors::records::usage::render::usd;
use ollim_actors::scheduling::reflection::lookup;
use serde::Deserialize;

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

/// Most rows shown.
pub const MAX_ROWS: usize = 200;

/// One row of the table.
struct Row {
    run: String,
    job: String,
    name: String,
    kind: &'static str,
    when: String,
    outcome: &'static str,
    /// `ok`, `bad` or `other`, for its colour.
    class: &'static str,
    trigger: &'static str,
    duration: String,
    cost: String,
    turns: String,
    error: Option<String>,
    reflection: Option<String>,
    transcript: bool,
}

#[derive(Template)]
#[template(path = "dashboard/runs.html")]
struct Body {
    rows: Vec<Row>,
    /// Id and name of every job in the history, for the filter.
    jobs: Vec<(String, String)>,
    selected: String,
    total: usize,
}

#[derive(Template)]
#[template(path = "dashboard/run_transcript.html")]
struct TranscriptBody {
    run: String,
    job: String,
    name: String,
    heading: String,
    lines: Vec<String>,
}

/// `?job=<id>`.
#[derive(Debug, Deserialize)]
pub struct RunsQuery {
    #[serde(default)]
    job: String,
}

fn local(at: DateTime<FixedOffset>, tz: Tz) -> String {
    at.with_timezone(&tz)
        .format("%a %Y-%m-%d %H:%M")
        .to_string()
}

/// `42s`, `3m 08s`, `1h 02m`.
pub fn duration(record: &RunRecord) -> String {
    let Some(started) = record.started else {
        return "—".to_owned();
    };
    let secs = (record.ended - started).num_seconds().max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {:02}s", s / 60, s % 60),
        s => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

fn outcome_class(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "ok",
        o if o.is_failure() => "bad",
        _ => "other",
    }
}

fn kind_word(record: &RunRecord) -> &'static str {
    use ollim_actors::records::runs::JobKind;
    match record.kind {
        JobKind::Routine => "routine",
        JobKind::Reminder => "reminder",
        JobKind::Webhook => "webhook",
    }
}

fn row(
    record: RunRecord,
    tz: Tz,
    reflection: Option<String>,
    transcripts: &HashSet<String>,
) -> Row {
    Row {
        when: local(record.scheduled, tz),
        outcome: record.outcome.as_str(),
        class: outcome_class(record.outcome),
        trigger: match record.trigger {
            Trigger::Schedule => "",
            Trigger::Manual => "run now",
            Trigger::Rerun => "re-run",
        },
        duration: duration(&record),
        cost: record.cost_usd.map(usd).unwrap_or_else(|| "—".to_owned()),
        turns: record
            .turns
            .map(|t| t.to_string())
            .unwrap_or_else(|| "—".to_owned()),
        kind: kind_word(&record),
        transcript: record
            .session
            .as_ref()
            .is_some_and(|s| transcripts.contains(s)),
        error: record.error,
        reflection,
        run: record.run,
        job: record.job.to_string(),
        name: record.name,
    }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// `GET /runs[?job=<id>]`.
pub async fn page(
    _session: Session,
    dash: web::Data<Dash>,
    query: web::Query<RunsQuery>,
) -> Result<HttpResponse, ActorGone> {
    let mut notes = Vec::new();
    let job = match query.job.trim() {
        "" => None,
        text => match JobId::parse(text) {
            Ok(id) => Some(id),
            Err(e) => {
                notes.push(format!("showing every job: {e}"));
                None
            }
        },
    };
    let records = dash
        .handles
        .run_log
        .send(History {
            job: job.clone(),
            kind: None,
            limit: MAX_ROWS,
        })
        .await
        .map_err(|_| ActorGone("run log"))?;
    let latest = dash
        .handles
        .run_log
        .send(LatestRuns)
        .await
        .map_err(|_| ActorGone("run log"))?;
    let mut jobs: Vec<(String, String)> = latest
        .into_iter()
        .map(|(id, r)| (id.to_string(), r.name))
        .collect();
    jobs.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    // Reflections and transcripts are files: read off the server's thread.
    let data = dash.data_dir.clone();
    let tz = dash.tz;
    let rows = tokio::task::spawn_blocking(move || {
        let transcripts = if records.iter().any(|r| r.session.is_some()) {
            crate::cli::history::session_ids(data.root(), &env).unwrap_or_else(|e| {
                tracing::warn!(cause = %e, "dashboard: transcripts not listed");
                HashSet::new()
            })
        } else {
            HashSet::new()
        };
        records
            .into_iter()
            .rev()
            .map(|r| {
                let reflection = lookup::of_run(&data, &r).map(|found| found.trace);
                row(r, tz, reflection, &transcripts)
            })
            .collect::<Vec<Row>>()
    })
    .await
    .map_err(|_| ActorGone("runs page's reader"))?;
    if rows.is_empty() {
        notes.push(match &job {
            Some(id) => format!("no runs of {id} in the history (it keeps 30 days)"),
            None => "no runs yet (the history keeps 30 days)".to_owned(),
        });
    }
    let body = Body {
        total: rows.len(),
        rows,
        jobs,
        selected: job.map(|j| j.to_string()).unwrap_or_default(),
    };
    Ok(Page {
        name: "runs",
        title: "Runs",
        notes,
        body: layout::render(&body),
        refresh: 60,
    }
    .respond())
}

/// `GET /runs/<run>/transcript`: the transcript of a background run's CLI session, from the
/// run's start on; 404 when the run or its transcript is not there.
pub async fn transcript(
    _session: Session,
    dash: web::Data<Dash>,
    run: web::Path<String>,
) -> Result<HttpResponse, actix_web::Error> {
    let run = run.into_inner();
    let records = dash
        .handles
        .run_log
        .send(History {
            job: None,
            kind: None,
            limit: usize::MAX,
        })
        .await
        .map_err(|_| ActorGone("run log"))?;
    let Some(record) = records.into_iter().find(|r| r.run == run) else {
        return Err(actix_web::error::ErrorNotFound(
            "no such run in the history",
        ));
    };
    let Some(session) = record.session.clone() else {
        return Err(actix_web::error::ErrorNotFound(
            "this run kept no session (a foreground job, a miss or a skip)",
        ));
    };
    let data = dash.data_dir.clone();
    let tz = dash.tz;
    let since = record.started.map(|s| s.with_timezone(&Utc));
    let read = tokio::task::spawn_blocking(move || {
        crate::cli::history::session_lines(data.root(), &env, &session, since, tz)
    })
    .await
    .map_err(|_| ActorGone("runs page's reader"))?;
    let (heading, lines) = match read {
        Ok(Some(found)) => found,
        Ok(None) => {
            return Err(actix_web::error::ErrorNotFound(
                "the run's transcript is gone (the CLI's history was cleaned up)",
            ))
        }
        Err(e) => {
            tracing::warn!(%run, cause = %e, "dashboard: transcript unreadable");
            return Err(actix_web::error::ErrorInternalServerError(
                "the transcript could not be read; the bot's log says why",
            ));
        }
    };
    let body = TranscriptBody {
        run: record.run,
        job: record.job.to_string(),
        name: record.name,
        heading,
        lines,
    };
    Ok(Page {
        name: "runs",
        title: "Run transcript",
        notes: Vec::new(),
        body: layout::render(&body),
        refresh: 0,
    }
    .respond())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_seconds_minutes_or_hours() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
        let mut r: RunRecord = serde_json::from_str(
            r#"{"run":"r","job":"a1","kind":"routine","tag":"routine-bg","name":"n","file":"f",
            "scheduled":"2026-11-28T09:00:00+01:00","ended":"2026-11-28T09:00:42+01:00","outcome":"ok"}"#,
        )
        .unwrap();
        assert_eq!(duration(&r), "—", "a miss has no start");
        r.started = Some(t("2026-11-28T09:00:00+01:00"));
        assert_eq!(duration(&r), "42s");
        r.ended = t("2026-11-28T09:03:08+01:00");
        assert_eq!(duration(&r), "3m 08s");
        r.ended = t("2026-11-28T10:02:00+01:00");
        assert_eq!(duration(&r), "1h 02m");
    }
}
