//! Today's 24 hours as one SVG, drawn here (no script, no outside asset): quiet hours shaded,
//! the fire times of routines and reminders, past runs coloured by outcome, pings, the ping
//! budget's tokens through the day, and a line at now.
//!
//! Markup the browser tests rely on: `<svg id="timeline">`, one `<g class="fire"
//! data-job="<id>">` per fire time and one `<g class="run outcome-<outcome>" data-job="<id>">`
//! per run.

use std::fmt::Write as _;

use chrono::{DateTime, Timelike, Utc};
use chrono_tz::Tz;

/// Drawing width in SVG units (the page scales it).
const WIDTH: f64 = 960.0;
/// Left margin (the lane labels).
const LEFT: f64 = 70.0;
/// Right margin.
const RIGHT: f64 = 10.0;
/// Lanes: top edge and height.
const AXIS_Y: f64 = 18.0;
const FIRE_Y: f64 = 30.0;
const RUN_Y: f64 = 70.0;
const PING_Y: f64 = 110.0;
const BUDGET_Y: f64 = 140.0;
const LANE_H: f64 = 32.0;
const HEIGHT: f64 = 190.0;

/// A job's fire time.
#[derive(Debug, Clone)]
pub struct Fire {
    /// The job's id.
    pub job: String,
    /// Its name for people.
    pub name: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A run from the history.
#[derive(Debug, Clone)]
pub struct Run {
    /// The job's id.
    pub job: String,
    /// Its name for people.
    pub name: String,
    /// When it started (or was due, for a miss).
    pub start: DateTime<Utc>,
    /// When it ended.
    pub end: DateTime<Utc>,
    /// The outcome's word (`ok`, `failed`, …).
    pub outcome: &'static str,
}

/// A ping the owner got.
#[derive(Debug, Clone)]
pub struct Ping {
    /// The job that sent it.
    pub job: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// Everything drawn.
#[derive(Debug, Clone)]
pub struct Day {
    /// Local midnight starting the day.
    pub start: DateTime<Utc>,
    /// The next local midnight.
    pub end: DateTime<Utc>,
    /// Now.
    pub now: DateTime<Utc>,
    /// The zone the hours are read in.
    pub tz: Tz,
    /// Fire times within the day.
    pub fires: Vec<Fire>,
    /// Runs that ended within the day.
    pub runs: Vec<Run>,
    /// Pings within the day.
    pub pings: Vec<Ping>,
    /// Quiet stretches within the day.
    pub quiet: Vec<(DateTime<Utc>, DateTime<Utc>)>,
    /// The budget's tokens at instants through the day, in order.
    pub budget: Vec<(DateTime<Utc>, f64)>,
    /// The bucket's capacity.
    pub capacity: u32,
}

/// Escapes text for SVG/HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

impl Day {
    fn x(&self, at: DateTime<Utc>) -> f64 {
        let span = (self.end - self.start).num_seconds().max(1) as f64;
        let off = (at - self.start).num_seconds().clamp(0, span as i64) as f64;
        LEFT + off / span * (WIDTH - LEFT - RIGHT)
    }

    fn hm(&self, at: DateTime<Utc>) -> String {
        at.with_timezone(&self.tz).format("%H:%M").to_string()
    }

    /// The SVG element.
    pub fn svg(&self) -> String {
        let mut s = String::with_capacity(4096 + 200 * (self.fires.len() + self.runs.len()));
        let _ = write!(
            s,
            "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
             role=\"img\" aria-labelledby=\"timeline-title\"><title id=\"timeline-title\">{}</title>",
            self.start.with_timezone(&self.tz).format("Today, %a %-d %b %Y")
        );
        for (from, to) in &self.quiet {
            let (x0, x1) = (self.x(*from), self.x(*to));
            let _ = write!(
                s,
                "<rect class=\"quiet\" x=\"{x0:.1}\" y=\"{AXIS_Y}\" width=\"{:.1}\" height=\"{:.1}\" \
                 fill=\"#e9ecf3\"><title>quiet hours {}–{}</title></rect>",
                (x1 - x0).max(0.0),
                HEIGHT - AXIS_Y,
                self.hm(*from),
                self.hm(*to)
            );
        }
        self.axis(&mut s);
        // Past and coming fire times in two groups, so each mark carries only its place (a day
        // of frequent routines draws thousands).
        for (past, class, fill) in [(true, "past", "#9db7d3"), (false, "coming", "#2f6fad")] {
            let _ = write!(
                s,
                "<g class=\"fires {class}\" fill=\"{fill}\" stroke=\"#2f6fad\">"
            );
            for fire in self.fires.iter().filter(|f| (f.at <= self.now) == past) {
                let _ = write!(
                    s,
                    "<g class=\"fire\" data-job=\"{}\"><title>{} · {}</title><path d=\"M{:.1} {}l-5-9h10zv{}\"/></g>",
                    escape(&fire.job),
                    escape(&fire.name),
                    self.hm(fire.at),
                    self.x(fire.at),
                    FIRE_Y + 12.0,
                    LANE_H - 12.0
                );
            }
            s.push_str("</g>");
        }
        for run in &self.runs {
            let (x0, x1) = (self.x(run.start), self.x(run.end));
            let _ = write!(
                s,
                "<g class=\"run outcome-{}\" data-job=\"{}\"><title>{} · {} {}</title><rect x=\"{x0:.1}\" \
                 y=\"{}\" width=\"{:.1}\" height=\"{}\" rx=\"2\" fill=\"{}\"/></g>",
                run.outcome,
                escape(&run.job),
                escape(&run.name),
                self.hm(run.start),
                run.outcome,
                RUN_Y + 4.0,
                (x1 - x0).max(3.0),
                LANE_H - 8.0,
                outcome_colour(run.outcome)
            );
        }
        for ping in &self.pings {
            let _ = write!(
                s,
                "<g class=\"ping\" data-job=\"{}\"><title>ping · {}</title><circle cx=\"{:.1}\" cy=\"{}\" r=\"5\" \
                 fill=\"#8e44ad\"/></g>",
                escape(&ping.job),
                self.hm(ping.at),
                self.x(ping.at),
                PING_Y + LANE_H / 2.0 - 4.0
            );
        }
        self.budget_line(&mut s);
        let now = self.x(self.now);
        let _ = write!(
            s,
            "<line class=\"now\" x1=\"{now:.1}\" y1=\"{AXIS_Y}\" x2=\"{now:.1}\" y2=\"{HEIGHT}\" \
             stroke=\"#c0392b\" stroke-width=\"2\"><title>now {}</title></line></svg>",
            self.hm(self.now)
        );
        s
    }

    fn axis(&self, s: &mut String) {
        for (label, y) in [
            ("fires", FIRE_Y),
            ("runs", RUN_Y),
            ("pings", PING_Y),
            ("budget", BUDGET_Y),
        ] {
            let _ = write!(
                s,
                "<text x=\"4\" y=\"{:.1}\" font-size=\"12\" fill=\"#5f6b73\">{label}</text>",
                y + LANE_H / 2.0 + 4.0
            );
        }
        // One tick each local hour that exists today (DST days have 23 or 25).
        let mut at = self.start;
        while at < self.end {
            let local = at.with_timezone(&self.tz);
            let x = self.x(at);
            let hour = local.hour();
            let _ = write!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{AXIS_Y}\" x2=\"{x:.1}\" y2=\"{HEIGHT}\" stroke=\"#d8dde1\" \
                 stroke-width=\"{}\"/>",
                if hour.is_multiple_of(6) { 1.0 } else { 0.5 }
            );
            if hour.is_multiple_of(3) {
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"12\" font-size=\"11\" fill=\"#5f6b73\">{hour:02}</text>",
                    x - 6.0
                );
            }
            at += chrono::Duration::hours(1);
        }
    }

    fn budget_line(&self, s: &mut String) {
        if self.budget.is_empty() || self.capacity == 0 {
            return;
        }
        let y = |tokens: f64| {
            BUDGET_Y + LANE_H - (tokens / self.capacity as f64).clamp(0.0, 1.0) * LANE_H
        };
        let mut points = String::new();
        for (at, tokens) in &self.budget {
            let _ = write!(points, "{:.1},{:.1} ", self.x(*at), y(*tokens));
        }
        let _ = write!(
            s,
            "<g class=\"budget\"><title>ping budget: up to {} tokens</title><line x1=\"{LEFT}\" y1=\"{:.1}\" \
             x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#d8dde1\" stroke-dasharray=\"4 3\"/><polyline points=\"{}\" \
             fill=\"none\" stroke=\"#d08a00\" stroke-width=\"2\"/></g>",
            self.capacity,
            y(self.capacity as f64),
            WIDTH - RIGHT,
            y(self.capacity as f64),
            points.trim_end()
        );
    }
}

/// The colour of a run's outcome.
fn outcome_colour(outcome: &str) -> &'static str {
    match outcome {
        "ok" | "caught-up" => "#2e8540",
        "failed" | "timed-out" | "over-budget" | "interrupted" => "#c0392b",
        _ => "#d08a00",
    }
}

/// The budget's tokens through `[start, end]`: from now forward, one token each refill period
/// up to the capacity; back from now, the same walked backwards with each ping given back (the
/// bucket keeps no history, so the past is reconstructed).
pub fn budget_curve(
    available: f64,
    capacity: u32,
    refill_minutes: u32,
    now: DateTime<Utc>,
    pings: &[DateTime<Utc>],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, f64)> {
    let cap = capacity as f64;
    let per_second = if refill_minutes == 0 {
        0.0
    } else {
        1.0 / (refill_minutes as f64 * 60.0)
    };
    let mut past = vec![(now, available)];
    let mut level = available;
    let mut at = now;
    let mut earlier: Vec<DateTime<Utc>> = pings
        .iter()
        .copied()
        .filter(|p| *p <= now && *p >= start)
        .collect();
    earlier.sort_unstable_by(|a, b| b.cmp(a));
    for ping in earlier.into_iter().chain(std::iter::once(start)) {
        level = (level - (at - ping).num_seconds() as f64 * per_second).max(0.0);
        past.push((ping, level));
        if ping > start {
            level = (level + 1.0).min(cap);
            past.push((ping, level));
        }
        at = ping;
    }
    past.reverse();
    let mut curve = past;
    // Forward: refill to the capacity, then flat.
    let to_full = if per_second > 0.0 {
        ((cap - available).max(0.0) / per_second) as i64
    } else {
        i64::MAX / 4
    };
    let full_at = now + chrono::Duration::seconds(to_full.min((end - now).num_seconds().max(0)));
    if full_at > now {
        let level = (available + (full_at - now).num_seconds() as f64 * per_second).min(cap);
        curve.push((full_at, level));
    }
    if end > full_at {
        let level = curve.last().map(|p| p.1).unwrap_or(available);
        curve.push((end, level));
    }
    curve
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 4, h, m, 0).unwrap()
    }

    fn day() -> Day {
        Day {
            start: at(0, 0),
            end: at(0, 0) + chrono::Duration::days(1),
            now: at(12, 0),
            tz: Tz::UTC,
            fires: vec![Fire {
                job: "morning".into(),
                name: "Morning <check>".into(),
                at: at(8, 30),
            }],
            runs: vec![Run {
                job: "morning".into(),
                name: "Morning".into(),
                start: at(8, 30),
                end: at(8, 32),
                outcome: "failed",
            }],
            pings: vec![],
            quiet: vec![(at(0, 0), at(7, 0))],
            budget: vec![(at(0, 0), 5.0), (at(24 - 1, 0), 5.0)],
            capacity: 5,
        }
    }

    #[test]
    fn marks_carry_the_job_and_the_outcome_and_text_is_escaped() {
        let svg = day().svg();
        assert!(svg.starts_with("<svg id=\"timeline\""));
        assert!(svg.contains("<g class=\"fire\" data-job=\"morning\">"));
        assert!(svg.contains("<g class=\"run outcome-failed\" data-job=\"morning\">"));
        assert!(svg.contains("Morning &lt;check&gt; · 08:30"));
        assert!(svg.contains("class=\"quiet\""));
        assert!(!svg.contains("style="), "the CSP forbids inline style");
    }

    #[test]
    fn the_budget_refills_forward_and_gives_pings_back_going_backward() {
        // 2 of 5 now at 12:00, 60 min per token, one ping at 11:00.
        let curve = budget_curve(2.0, 5, 60, at(12, 0), &[at(11, 0)], at(0, 0), at(23, 59));
        let level_at = |t: DateTime<Utc>| curve.iter().rev().find(|p| p.0 <= t).map(|p| p.1);
        // Full (5) three hours after now.
        assert_eq!(level_at(at(15, 0)), Some(5.0));
        assert_eq!(curve.last().map(|p| p.1), Some(5.0));
        // At the 11:00 ping: 1 just after it (an hour's refill before now), 2 just before.
        let at_ping: Vec<f64> = curve
            .iter()
            .filter(|p| p.0 == at(11, 0))
            .map(|p| p.1)
            .collect();
        assert_eq!(at_ping, vec![2.0, 1.0]);
        assert!(curve.windows(2).all(|w| w[0].0 <= w[1].0), "in order");
        assert!(curve.iter().all(|p| (0.0..=5.0).contains(&p.1)));
    }
}
