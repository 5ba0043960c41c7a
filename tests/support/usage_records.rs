//! Known lines for `state/usage.jsonl` and `state/runs.jsonl`, placed on the edges of the
//! `/usage` windows (local midnight today, 6 and 29 days back, and a second before each), and
//! the report lines they must add up to. Shared by the console, command-line and Discord tests.

use std::io::Write as _;
use std::path::Path;

use chrono::{DateTime, Days, Duration, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{json, Value};

/// The zone the test bots run in.
pub const TZ: Tz = chrono_tz::America::New_York;

/// Local midnight `back` days before today.
fn midnight(now: DateTime<Utc>, back: u64) -> DateTime<Tz> {
    let day = now.with_timezone(&TZ).date_naive() - Days::new(back);
    TZ.from_local_datetime(&day.and_hms_opt(0, 0, 0).unwrap())
        .earliest()
        .unwrap()
}

fn append(path: &Path, lines: &[String]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

fn turn(at: DateTime<Tz>, kind: &str, cost: f64, tokens: [u64; 4]) -> String {
    json!({"ts": at.to_rfc3339(), "kind": kind, "session": "known", "cost_usd": cost,
        "input_tokens": tokens[0], "output_tokens": tokens[1],
        "cache_read_tokens": tokens[2], "cache_write_tokens": tokens[3]})
    .to_string()
}

fn run(at: DateTime<Tz>, job: &str, kind: &str, outcome: &str, cost: Option<f64>) -> String {
    let mut v = json!({"run": format!("{job}-{}", at.timestamp()), "job": job, "kind": kind,
        "tag": format!("{kind}-bg"), "name": format!("Job {job}"), "file": format!("{kind}s/{job}.md"),
        "scheduled": at.to_rfc3339(), "started": at.to_rfc3339(), "ended": at.to_rfc3339(),
        "outcome": outcome, "trigger": "schedule"});
    if let Some(c) = cost {
        v["cost_usd"] = json!(c);
        v["turns"] = json!(2);
    }
    v.to_string()
}

/// Appends the known lines (and one corrupt usage line) to the files under `data`.
pub fn write_known(data: &Path, now: DateTime<Utc>) {
    let second = Duration::seconds(1);
    let (m0, m6, m29) = (midnight(now, 0), midnight(now, 6), midnight(now, 29));
    append(
        &data.join("state/usage.jsonl"),
        &[
            turn(m0, "conversation", 0.5, [1000, 100, 10_000, 50]),
            turn(m0 - second, "fork", 0.25, [2000, 200, 0, 0]),
            "{\"ts\": \"broken".to_owned(),
            turn(m6, "conversation", 1.0, [1, 1, 1, 1]),
            turn(m6 - second, "conversation", 2.0, [3, 3, 3, 3]),
            turn(m29 - second, "conversation", 64.0, [9, 9, 9, 9]),
        ],
    );
    append(
        &data.join("state/runs.jsonl"),
        &[
            run(m0, "aaaa1111", "routine", "ok", Some(0.125)),
            run(m0, "aaaa1111", "routine", "missed", None),
            run(m0 - second, "bbbb2222", "reminder", "failed", Some(0.0625)),
            run(m6 - second, "aaaa1111", "routine", "ok", Some(4.0)),
            run(m29 - second, "cccc3333", "routine", "ok", Some(32.0)),
        ],
    );
}

/// Sums of one kind of session in one window: cost, turns, tokens.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sums {
    pub cost: f64,
    pub turns: u64,
    pub tokens: [u64; 4],
}

impl Sums {
    fn add(mut self, cost: f64, tokens: [u64; 4]) -> Sums {
        self.cost += cost;
        self.turns += 1;
        for (t, n) in self.tokens.iter_mut().zip(tokens) {
            *t += n;
        }
        self
    }

    /// `extra` (lines the bot itself wrote today, in file order, before the known ones) first.
    fn from(extra: &[Value], kind: &str) -> Sums {
        extra
            .iter()
            .filter(|l| l["kind"] == kind)
            .fold(Sums::default(), |s, l| {
                s.add(
                    l["cost_usd"].as_f64().unwrap(),
                    [
                        "input_tokens",
                        "output_tokens",
                        "cache_read_tokens",
                        "cache_write_tokens",
                    ]
                    .map(|k| l[k].as_u64().unwrap_or(0)),
                )
            })
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {one}s", thousands(n))
    }
}

fn session_line(label: &str, s: Sums) -> String {
    format!(
        "  {label:<13} ${:.4} · {} · tokens {} in, {} out, {} cache read, {} cache write",
        s.cost,
        plural(s.turns, "turn"),
        thousands(s.tokens[0]),
        thousands(s.tokens[1]),
        thousands(s.tokens[2]),
        thousands(s.tokens[3]),
    )
}

/// The lines of the window of `days` (1, 7 or 30) that the known lines plus `extra` (usage
/// lines the bot wrote today) add up to, as `/usage` and `ollim-bot usage` print them.
pub fn window_lines(now: DateTime<Utc>, days: u32, extra: &[Value]) -> Vec<String> {
    let mut conv = Sums::from(extra, "conversation");
    let mut fork = Sums::from(extra, "fork");
    let (mut jobs, mut runs) = (0.0, 0u64);
    conv = conv.add(0.5, [1000, 100, 10_000, 50]);
    jobs += 0.125;
    runs += 1;
    if days >= 7 {
        fork = fork.add(0.25, [2000, 200, 0, 0]);
        conv = conv.add(1.0, [1, 1, 1, 1]);
        jobs += 0.0625;
        runs += 1;
    }
    if days >= 30 {
        conv = conv.add(2.0, [3, 3, 3, 3]);
        jobs += 4.0;
        runs += 1;
    }
    let title = if days == 1 {
        format!("today (since 00:00, {})", TZ.name())
    } else {
        format!(
            "last {days} days (since {})",
            midnight(now, u64::from(days) - 1).format("%a %Y-%m-%d")
        )
    };
    vec![
        format!("{title}: ${:.4}", conv.cost + fork.cost + jobs),
        session_line("conversation", conv),
        session_line("forks", fork),
        format!("  {:<13} ${jobs:.4} · {}", "jobs", plural(runs, "run")),
    ]
}

/// The warning for the one corrupt usage line.
pub const SKIPPED_WARNING: &str =
    "warning: 1 line of state/usage.jsonl could not be read and is left out.";
