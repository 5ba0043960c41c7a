//! Spend (`/spend`): what unattended work spent today and this month against the caps
//! (`spend_daily_usd`, `spend_monthly_usd`, SPEC §19) — the run log's own sum, the one the job
//! runner checks before each job ([`SpendSoFar`]) — each of the last 30 days (the usage log's
//! [`GetDaily`], drawn as bars against the daily cap), and each job's share (the `/usage`
//! report's per-job figures, [`GetReport`]). The caps are the conversation's settings
//! ([`RuntimeSettings`]); they change with `/config`, not here.

use actix_web::{web, HttpResponse};
use askama::Template;
use ollim_actors::base::usd;
use ollim_actors::conversation::main_session::quiet::RuntimeSettings;
use ollim_actors::records::runtime_config::RuntimeConfig;
use ollim_actors::records::spend::{Caps, SpendSoFar};
use ollim_actors::records::usage::render::{usd as usd4, SUBSCRIPTION_NOTE};
use ollim_actors::records::usage::{DaySpend, GetDaily, GetReport};

use super::ActorGone;
use crate::dashboard::guard::Session;
use crate::dashboard::layout::{self, Page};
use crate::dashboard::Dash;

/// How many days the page shows.
pub const DAYS: u32 = 30;

struct DayRow {
    date: String,
    jobs: String,
    conversation: String,
    total: String,
    over: bool,
}

struct JobRow {
    job: String,
    name: String,
    kind: &'static str,
    today: String,
    month: String,
    runs: u64,
}

#[derive(Template)]
#[template(path = "dashboard/spend.html")]
struct Body {
    facts: Vec<(String, String)>,
    notice: Option<String>,
    chart: String,
    days: Vec<DayRow>,
    jobs: Vec<JobRow>,
    run_caps: String,
    note: &'static str,
}

fn cap_text(cents: Option<u64>) -> String {
    cents.map(usd::shown).unwrap_or_else(|| "no cap".to_owned())
}

/// The last days as bars (jobs dark, the conversation and forks light, stacked), oldest on
/// the left, with the daily cap as a line: SVG drawn here, its colours as attributes (the CSP
/// allows no inline style).
pub fn chart(days: &[DaySpend], cap_cents: Option<u64>) -> String {
    const W: f64 = 600.0;
    const H: f64 = 160.0;
    const TOP: f64 = 14.0;
    let cap = cap_cents.map(|c| c as f64 / 100.0);
    let top = days
        .iter()
        .map(DaySpend::total_usd)
        .chain(cap)
        .fold(0.01_f64, f64::max);
    let scale = (H - TOP) / top;
    let slot = W / days.len().max(1) as f64;
    let mut svg = format!(
        "<svg id=\"spend-chart\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"spend per day, the last {} days\" xmlns=\"http://www.w3.org/2000/svg\">",
        H + 16.0,
        days.len()
    );
    for (i, day) in days.iter().rev().enumerate() {
        let x = i as f64 * slot + 1.0;
        let w = (slot - 2.0).max(1.0);
        let jobs_h = day.jobs_usd.max(0.0) * scale;
        let rest_h = (day.conversation_usd + day.forks_usd).max(0.0) * scale;
        svg.push_str(&format!(
            "<g class=\"day\" data-date=\"{}\"><title>{}: jobs {}, conversation {}</title>\
             <rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{jobs_h:.1}\" fill=\"#2f6fad\"/>\
             <rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{rest_h:.1}\" fill=\"#9dbbd8\"/></g>",
            day.date,
            day.date.format("%a %d %b"),
            usd4(day.jobs_usd),
            usd4(day.conversation_usd + day.forks_usd),
            H - jobs_h,
            H - jobs_h - rest_h,
        ));
    }
    if let Some(cap) = cap {
        let y = H - cap * scale;
        svg.push_str(&format!(
            "<line class=\"cap\" x1=\"0\" x2=\"{W}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>\
             <text x=\"{W}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\" fill=\"#c0392b\">daily cap {}</text>",
            (y - 3.0).max(10.0),
            usd::shown_usd(cap)
        ));
    }
    if let (Some(first), Some(last)) = (days.last(), days.first()) {
        svg.push_str(&format!(
            "<text x=\"0\" y=\"{}\" font-size=\"11\" fill=\"#5f6b73\">{}</text>\
             <text x=\"{W}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" fill=\"#5f6b73\">{}</text>",
            H + 14.0,
            first.date.format("%d %b"),
            H + 14.0,
            last.date.format("%d %b")
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// `GET /spend`.
pub async fn page(_session: Session, dash: web::Data<Dash>) -> Result<HttpResponse, ActorGone> {
    let h = &dash.handles;
    let config = match &h.main_session {
        Some(main) => main
            .send(RuntimeSettings)
            .await
            .map_err(|_| ActorGone("conversation"))?,
        None => RuntimeConfig::default(),
    };
    let caps = Caps::of(&config);
    let spent = h
        .run_log
        .send(SpendSoFar)
        .await
        .map_err(|_| ActorGone("run log"))?;
    let mut notes = Vec::new();
    let days = match h.usage_log.send(GetDaily { days: DAYS }).await {
        Ok(Ok(days)) => days,
        Ok(Err(e)) => {
            notes.push(format!("the daily figures could not be read: {e}"));
            Vec::new()
        }
        Err(_) => return Err(ActorGone("usage log")),
    };
    let report = match h.usage_log.send(GetReport { days: Some(DAYS) }).await {
        Ok(Ok(report)) => Some(report),
        Ok(Err(e)) => {
            notes.push(format!("the per-job figures could not be read: {e}"));
            None
        }
        Err(_) => return Err(ActorGone("usage log")),
    };
    let standing = spent.standing(caps);
    let facts = vec![
        (
            "jobs today".to_owned(),
            format!(
                "{} of {}",
                usd4(spent.today_usd),
                cap_text(caps.daily_cents)
            ),
        ),
        (
            "jobs this month".to_owned(),
            format!(
                "{} of {}",
                usd4(spent.month_usd),
                cap_text(caps.monthly_cents)
            ),
        ),
        (
            "everything today".to_owned(),
            days.first()
                .map(|d| usd4(d.total_usd()))
                .unwrap_or_else(|| "—".to_owned()),
        ),
    ];
    let daily_cap = caps.daily_cents.map(|c| c as f64 / 100.0);
    // The chart shows every day; the table only today and the days that cost something.
    let day_rows = days
        .iter()
        .enumerate()
        .filter(|(i, d)| *i == 0 || d.total_usd() > 0.0)
        .map(|(_, d)| DayRow {
            date: d.date.format("%a %Y-%m-%d").to_string(),
            jobs: usd4(d.jobs_usd),
            conversation: usd4(d.conversation_usd + d.forks_usd),
            total: usd4(d.total_usd()),
            over: daily_cap.is_some_and(|cap| d.jobs_usd >= cap),
        })
        .collect();
    let jobs = report
        .map(|r| {
            let today = r.windows.first();
            let month = r.windows.last();
            month
                .map(|w| {
                    w.jobs
                        .iter()
                        .map(|j| {
                            let today_usd = today
                                .filter(|t| t.days == 1)
                                .and_then(|t| t.jobs.iter().find(|x| x.job == j.job))
                                .map(|x| x.cost_usd)
                                .unwrap_or(0.0);
                            JobRow {
                                job: j.job.to_string(),
                                name: j.name.clone(),
                                kind: match j.kind {
                                    ollim_actors::records::runs::JobKind::Routine => "routine",
                                    ollim_actors::records::runs::JobKind::Reminder => "reminder",
                                    ollim_actors::records::runs::JobKind::Webhook => "webhook",
                                },
                                today: usd4(today_usd),
                                month: usd4(j.cost_usd),
                                runs: j.runs,
                            }
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let body = Body {
        facts,
        notice: standing.notice(),
        chart: chart(&days, caps.daily_cents),
        days: day_rows,
        jobs,
        run_caps: format!(
            "Each run stops at {} or {} model turns unless its file sets max-cost or max-turns.",
            usd::shown(config.job_max_cost_cents),
            config.job_max_turns
        ),
        note: SUBSCRIPTION_NOTE,
    };
    Ok(Page {
        name: "spend",
        title: "Spend",
        notes,
        body: layout::render(&body),
        refresh: 300,
    }
    .respond())
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    fn day(d: u32, jobs: f64, conversation: f64) -> DaySpend {
        DaySpend {
            date: NaiveDate::from_ymd_opt(2026, 11, d).unwrap(),
            conversation_usd: conversation,
            forks_usd: 0.0,
            jobs_usd: jobs,
            job_runs: 1,
        }
    }

    #[test]
    fn the_chart_has_a_bar_per_day_oldest_first_and_the_cap_line() {
        let days = [day(28, 5.0, 1.0), day(27, 0.0, 0.0), day(26, 10.0, 0.0)];
        let svg = chart(&days, Some(1000));
        assert_eq!(svg.matches("<g class=\"day\"").count(), 3);
        let first = svg.find("data-date=\"2026-11-26\"").unwrap();
        let last = svg.find("data-date=\"2026-11-28\"").unwrap();
        assert!(first < last, "oldest on the left");
        assert!(svg.contains("daily cap $10.00"));
        assert!(
            !svg.contains("style="),
            "no inline style: the CSP forbids it"
        );
        assert!(!chart(&days, None).contains("class=\"cap\""));
    }
}
