//! Foundation and actor-core figures: job files, cron, the forward schedule, the ping budget's
//! decision rate, registration latency and fire lateness, on local files in a temporary directory.

use std::time::{Duration as StdDuration, Instant};

use actix::prelude::*;
use chrono::{Duration, Utc};
use chrono_tz::Tz;
use ollim_actors::agent::prompts::forward::build_forward_schedule;
use ollim_actors::agent::prompts::preamble::BudgetFacts;
use ollim_actors::base::clock::{ManualClock, SystemClock};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::{GetHandles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::jobs::{store, JobId, JobSettings, Reminder, Routine};
use ollim_actors::records::ping_budget::{Configure, PingBudget, TryUse};
use ollim_actors::scheduling::scheduler::cron::CronSchedule;
use ollim_actors::scheduling::scheduler::plan::Plan;
use ollim_actors::scheduling::scheduler::Upcoming;

const TZ: Tz = chrono_tz::America::New_York;

pub fn ms(d: StdDuration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

pub fn percentile(sorted: &[StdDuration], p: f64) -> StdDuration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn cron_exprs(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 5 {
            0 => format!("{} {} * * *", i % 60, i % 24),
            1 => format!("*/{} * * * 1-5", 5 + i % 10),
            2 => format!("0 {} {} * *", i % 24, 1 + i % 28),
            3 => format!("30 8 {} * MON,FRI", 1 + i % 28),
            _ => format!("{} 9-17/2 * JAN-JUN 0,6", i % 60),
        })
        .collect()
}

/// A plain reminder due at `at`.
fn reminder_at(
    id: JobId,
    message: String,
    at: chrono::DateTime<Utc>,
    background: bool,
) -> Reminder {
    let at = at.with_timezone(&TZ).fixed_offset();
    Reminder {
        id,
        message,
        run_at: at,
        run_at_raw: at.format("%Y-%m-%dT%H:%M:%S%.6f%:z").to_string(),
        chain_depth: 0,
        max_chain: 0,
        chain_parent: None,
        settings: JobSettings {
            background,
            ..JobSettings::default()
        },
        background_as_read: None,
    }
}

fn write_jobs(data: &DataDir, n: usize) {
    let now = Utc::now();
    let exprs = cron_exprs(n);
    for (i, cron) in exprs.iter().enumerate() {
        let settings = JobSettings {
            background: i % 2 == 0,
            description: format!("routine number {i}"),
            ..JobSettings::default()
        };
        let r = Routine {
            id: JobId::random(),
            message: format!("routine {i}: check something useful"),
            cron: cron.clone(),
            settings,
            paused: false,
            catch_up: Default::default(),
            session: Default::default(),
        };
        store::write(&data.routines(), &r).expect("write routine");
        let m = reminder_at(
            JobId::random(),
            format!("reminder {i}: follow up on a thing"),
            now + Duration::minutes(10 + i as i64),
            i % 3 == 0,
        );
        store::write(&data.reminders(), &m).expect("write reminder");
    }
}

pub fn bench_files_and_cron() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    write_jobs(&data, 1000);

    let t = Instant::now();
    let routines = store::load_dir::<Routine>(&data.routines()).expect("load");
    let reminders = store::load_dir::<Reminder>(&data.reminders()).expect("load");
    let load = t.elapsed();
    println!(
        "load 1,000 routine + 1,000 reminder files: {} ({} + {} parsed)",
        ms(load),
        routines.items.len(),
        reminders.items.len()
    );

    let now = Utc::now();
    let mut plan = Plan::new(&data, TZ, now);
    let t = Instant::now();
    plan.refresh(now);
    println!(
        "scheduler first registration of the same 2,000 files: {}",
        ms(t.elapsed())
    );
    let t = Instant::now();
    plan.refresh(now);
    println!(
        "scheduler re-scan with nothing changed: {}",
        ms(t.elapsed())
    );
    // What every fire costs: a fired reminder's file goes, and the next refresh notices.
    let fired = std::fs::read_dir(data.reminders())
        .expect("reminders")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("a reminder file");
    std::fs::remove_file(&fired).expect("remove");
    let t = Instant::now();
    plan.refresh(now);
    let by_events = t.elapsed();
    plan.list_next();
    let t = Instant::now();
    plan.refresh(now);
    println!(
        "scheduler re-read after a reminder fired (one file deleted): {} from file events, {} listing both directories",
        ms(by_events),
        ms(t.elapsed())
    );

    let exprs = cron_exprs(1000);
    let t = Instant::now();
    let schedules: Vec<CronSchedule> = exprs
        .iter()
        .map(|e| CronSchedule::parse(e).expect("valid cron"))
        .collect();
    let parse = t.elapsed();
    let t = Instant::now();
    let fired = schedules
        .iter()
        .filter_map(|s| s.next_after(now, TZ))
        .count();
    println!(
        "next fire time of 1,000 cron expressions: {} (parse: {}; {fired} have a next time)",
        ms(t.elapsed()),
        ms(parse)
    );

    let t = Instant::now();
    let items = plan.forward_items(now);
    let schedule = build_forward_schedule(&items, None, now);
    let text = schedule.render(
        TZ,
        &BudgetFacts {
            available: 3,
            capacity: 5,
            refill_minutes: 90,
            next_refill_in_minutes: Some(42),
        },
    );
    println!(
        "forward schedule for 1,000 routines + 1,000 reminders: {} ({} candidate fires, {} lines)",
        ms(t.elapsed()),
        items.len(),
        text.lines().count()
    );
}

#[derive(Default)]
struct Lateness(Vec<StdDuration>);

impl Actor for Lateness {
    type Context = Context<Self>;
}

impl Handler<FireJob> for Lateness {
    type Result = MessageResult<FireJob>;
    fn handle(&mut self, msg: FireJob, _ctx: &mut Self::Context) -> Self::Result {
        let late = (Utc::now() - msg.due_at).to_std().unwrap_or_default();
        self.0.push(late);
        MessageResult(JobTurnEnd::bare(JobTurnOutcome::Completed, None))
    }
}

#[derive(Message)]
#[rtype(result = "Vec<StdDuration>")]
struct Take;

impl Handler<Take> for Lateness {
    type Result = MessageResult<Take>;
    fn handle(&mut self, _: Take, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(std::mem::take(&mut self.0))
    }
}

pub async fn bench_scheduler() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().expect("data dir");
    let recorder = Lateness::default().start();
    let sup = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz: TZ,
            clock: SystemClock::shared(),
            watch_jobs: true,
            google: None,
        },
        JobSink::Recipient {
            jobs: recorder.clone().recipient(),
            busy: None,
        },
    );
    let handles = sup.send(GetHandles).await.expect("handles");

    // File written → registered, one file at a time.
    let mut reg = Vec::new();
    for i in 0..20 {
        let r = reminder_at(
            JobId(format!("feed{i:04}")),
            format!("registration probe {i}"),
            Utc::now() + Duration::hours(1),
            false,
        );
        let t = Instant::now();
        store::write(&data.reminders(), &r).expect("write");
        loop {
            let up = handles.scheduler.send(Upcoming).await.expect("upcoming");
            if up.iter().any(|j| j.id == r.id) {
                break;
            }
            tokio::time::sleep(StdDuration::from_millis(1)).await;
        }
        reg.push(t.elapsed());
    }
    reg.sort();
    println!(
        "file written → registered (20 files): p50 {}, max {}",
        ms(percentile(&reg, 0.5)),
        ms(*reg.last().expect("samples"))
    );
    for f in std::fs::read_dir(data.reminders()).expect("dir").flatten() {
        let _ = std::fs::remove_file(f.path());
    }

    // Fire lateness: 150 reminders due over the next ~3 seconds.
    let base = Utc::now() + Duration::milliseconds(1500);
    for i in 0..150 {
        let r = reminder_at(
            JobId(format!("late{i:04}")),
            format!("lateness probe {i}"),
            base + Duration::milliseconds(i * 20),
            false,
        );
        store::write(&data.reminders(), &r).expect("write");
    }
    tokio::time::sleep(StdDuration::from_secs(6)).await;
    let mut late = recorder.send(Take).await.expect("take");
    late.sort();
    if late.is_empty() {
        println!("fire lateness: no job fired (unexpected)");
    } else {
        println!(
            "fire lateness over {} jobs: p50 {}, p99 {}",
            late.len(),
            ms(percentile(&late, 0.5)),
            ms(percentile(&late, 0.99))
        );
    }
}

pub async fn bench_try_use() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let clock = ManualClock::new(Utc::now());
    let budget = PingBudget::new(tmp.path().join("ping_budget.json"), clock.shared(), TZ).start();
    let n = 20_000;
    // Exhaust it first: refused decisions are pure reads.
    for _ in 0..5 {
        let _ = budget.send(TryUse).await;
    }
    let t = Instant::now();
    for _ in 0..n {
        let _ = budget.send(TryUse).await.expect("decision");
    }
    let refused = n as f64 / t.elapsed().as_secs_f64();
    let _ = budget
        .send(Configure {
            capacity: Some(1_000_000),
            refill_rate: Some(1),
        })
        .await;
    clock.advance(Duration::days(10_000));
    let m = 500;
    let t = Instant::now();
    for _ in 0..m {
        let _ = budget.send(TryUse).await.expect("decision");
    }
    let allowed = m as f64 / t.elapsed().as_secs_f64();
    println!(
        "try_use decisions per second: {refused:.0} refused (no write), {allowed:.0} allowed (each persisted with fsync)"
    );
}
