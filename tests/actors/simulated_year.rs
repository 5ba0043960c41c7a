//! A simulated year (issue 28): the real scheduler and job runner, started by the supervisor
//! with a manual clock, run 400 days (December 2027 to January 2029: both 2028 DST changes,
//! Feb 29, every month end) in America/Los_Angeles and in Europe/Berlin, with 2,000 routines
//! and 5,000 reminders on disk ([`jobs`]). The fired jobs go to a recording recipient — no model
//! is asked. Every fire (job id, due time, the clock when it fired) must equal what the
//! independent [`oracle`] finds by stepping each minute of the span through the local wall
//! clock: nothing fires twice, early, late or not at all.
//!
//! The clock jumps from one expected instant to the next and the scheduler is asked to fire
//! what is due ([`FireDue`], answered once the runner has everything); a fire the oracle did not
//! expect is still caught, at the next jump, by its due time. Memory stays flat: the scheduler's
//! registered jobs shrink by exactly the reminders fired, the run history in memory keeps only
//! its 30 days, and the process's resident size at day 400 is within a bound of day 100's.
//!
//! The data directory sits on `/dev/shm` when there is one: the run log syncs every write, and
//! tens of thousands of syncs to a real disk would take minutes. It has no git repository, so
//! a fired reminder's deletion starts no `git` process.

#[path = "simulated_year/jobs.rs"]
mod jobs;
#[path = "simulated_year/oracle.rs"]
mod oracle;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use actix::prelude::*;
use chrono::{DateTime, Duration, TimeZone, Utc};
use chrono_tz::Tz;
use ollim_actors::base::clock::ManualClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::{GetHandles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::records::runs::History;
use ollim_actors::scheduling::job_runner::Runs;
use ollim_actors::scheduling::scheduler::{FireDue, Upcoming};

use jobs::DstDays;
use oracle::{Cron, Minutes};

/// One fire: job id, due time, the clock when it fired.
type Fire = (String, DateTime<Utc>, DateTime<Utc>);

/// Keeps every fired job, and answers at once as a finished turn.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Fire>>>);

impl Actor for Recorder {
    type Context = Context<Self>;
}

impl Handler<FireJob> for Recorder {
    type Result = MessageResult<FireJob>;
    fn handle(&mut self, msg: FireJob, _ctx: &mut Self::Context) -> Self::Result {
        let fire = (msg.job.id().to_string(), msg.due_at, msg.fired_at);
        self.0.lock().unwrap().push(fire);
        MessageResult(JobTurnEnd::bare(JobTurnOutcome::Completed, None))
    }
}

impl Recorder {
    fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// The process's resident memory, in bytes.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("resident pages in statm");
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * u64::try_from(page).unwrap_or(4096)
}

/// Day 0 of the simulation: 2027-12-01 08:00:30 UTC, half a minute past a whole minute so the
/// start itself is never a fire time.
fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2027, 12, 1, 8, 0, 30).unwrap()
}

const DAYS: i64 = 400;
/// The resident size may grow this much between day 100 and day 400 (allocator slack; a leak
/// of one prompt or run record per fire is far more).
const RSS_SLACK: u64 = 24 << 20;

async fn simulate(tz: Tz, dst: DstDays) {
    let begun = std::time::Instant::now();
    let start = start();
    let end = start + Duration::days(DAYS);
    let tmp = match std::path::Path::new("/dev/shm").is_dir() {
        true => tempfile::tempdir_in("/dev/shm").unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().unwrap();
    let _ = std::fs::remove_dir_all(data.root().join(".git"));
    let routines = jobs::write_routines(&data);
    let reminders = jobs::write_reminders(&data, tz, &dst, start, end);

    // The oracle, grouped by expression.
    let minutes = Minutes::step(start, end, tz);
    assert_eq!(minutes.repeated(), 60, "one repeated hour in {tz}");
    assert_eq!(minutes.skipped(), 60, "one skipped hour in {tz}");
    let mut by_cron: HashMap<&str, Vec<DateTime<Utc>>> = HashMap::new();
    let mut expected: Vec<(String, DateTime<Utc>)> = Vec::new();
    for r in &routines {
        let fires = by_cron
            .entry(r.cron.as_str())
            .or_insert_with(|| minutes.fires(&Cron::parse(&r.cron)));
        expected.extend(fires.iter().map(|at| (r.id.to_string(), *at)));
    }
    let mut waiting_at_end = 0;
    for m in &reminders {
        let at = m.run_at.with_timezone(&Utc);
        if at <= end {
            expected.push((m.id.to_string(), at));
        } else {
            waiting_at_end += 1;
        }
    }
    expected.sort();
    let steps: BTreeSet<DateTime<Utc>> = expected.iter().map(|(_, at)| *at).collect();
    let oracle_done = begun.elapsed();

    let clock = ManualClock::new(start);
    let recorder = Recorder::default();
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz,
            clock: clock.shared(),
            watch_jobs: false,
            google: None,
        },
        JobSink::Recipient {
            jobs: recorder.clone().start().recipient(),
            busy: None,
        },
    );
    let handles = supervisor.send(GetHandles).await.unwrap();
    let scheduler = handles.scheduler.clone();
    scheduler.send(FireDue).await.unwrap();
    let registered = scheduler.send(Upcoming).await.unwrap();
    assert_eq!(registered.len(), routines.len() + reminders.len());

    let day_100 = start + Duration::days(100);
    let mut rss_100 = None;
    for at in &steps {
        if rss_100.is_none() && *at >= day_100 {
            rss_100 = Some(resident_bytes());
        }
        clock.set(*at);
        scheduler.send(FireDue).await.unwrap();
    }
    clock.set(end);
    scheduler.send(FireDue).await.unwrap();

    // Everything the runner handed on reaches the recorder.
    let counts = handles.job_runner.send(Runs).await.unwrap();
    for _ in 0..500 {
        if recorder.count() as u64 >= counts.handed {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(10)).await;
    }
    let mut fired: Vec<Fire> = recorder.0.lock().unwrap().clone();
    fired.sort();
    let late: Vec<&Fire> = fired.iter().filter(|(_, due, at)| due != at).collect();
    assert!(late.is_empty(), "{tz}: fired off their due time: {late:?}");
    let fired: Vec<(String, DateTime<Utc>)> =
        fired.into_iter().map(|(id, due, _)| (id, due)).collect();
    if fired != expected {
        report_difference(tz, &expected, &fired);
    }
    assert_eq!(counts.handed as usize, expected.len(), "{tz}: {counts:?}");

    // Flat memory: the fired reminders are gone from the plan, the run history in memory holds
    // only its last 30 days, and the process did not grow.
    let registered = scheduler.send(Upcoming).await.unwrap();
    assert_eq!(registered.len(), routines.len() + waiting_at_end);
    let history = handles
        .run_log
        .send(History {
            job: None,
            kind: None,
            limit: usize::MAX,
        })
        .await
        .unwrap();
    let month_ago = end - Duration::days(31);
    let oldest = history.first().map(|r| r.ended.with_timezone(&Utc));
    assert!(
        oldest.is_some_and(|at| at >= month_ago),
        "{tz}: the run history kept {} lines back to {oldest:?}",
        history.len()
    );
    let rss_400 = resident_bytes();
    let rss_100 = rss_100.expect("day 100 was stepped");
    assert!(
        rss_400 <= rss_100 + RSS_SLACK,
        "{tz}: resident size grew from {rss_100} at day 100 to {rss_400} at day 400"
    );
    eprintln!(
        "{tz}: {} fires at {} instants, {} crons; oracle {:?}, total {:?}; RSS day 100 {} MiB, day 400 {} MiB",
        expected.len(),
        steps.len(),
        by_cron.len(),
        oracle_done,
        begun.elapsed(),
        rss_100 >> 20,
        rss_400 >> 20
    );
}

/// Fails naming the first fires that differ each way.
fn report_difference(
    tz: Tz,
    expected: &[(String, DateTime<Utc>)],
    fired: &[(String, DateTime<Utc>)],
) -> ! {
    let mut counts: HashMap<&(String, DateTime<Utc>), i64> = HashMap::new();
    for e in expected {
        *counts.entry(e).or_default() += 1;
    }
    for f in fired {
        *counts.entry(f).or_default() -= 1;
    }
    let mut lost: Vec<_> = counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(f, _)| *f)
        .collect();
    let mut extra: Vec<_> = counts
        .iter()
        .filter(|(_, n)| **n < 0)
        .map(|(f, n)| (*f, -n))
        .collect();
    lost.sort();
    extra.sort();
    panic!(
        "{tz}: {} expected, {} fired; {} lost, e.g. {:?}; {} unexpected (or repeated), e.g. {:?}",
        expected.len(),
        fired.len(),
        lost.len(),
        &lost[..lost.len().min(10)],
        extra.len(),
        &extra[..extra.len().min(10)]
    );
}

#[actix_rt::test]
async fn simulated_year_in_los_angeles_fires_exactly_as_the_oracle_says() {
    simulate(
        chrono_tz::America::Los_Angeles,
        DstDays {
            gap: (2028, 3, 12, 2),
            overlap: (2028, 11, 5, 1),
            standard: -8 * 3600,
            daylight: -7 * 3600,
        },
    )
    .await;
}

#[actix_rt::test]
async fn simulated_year_in_berlin_fires_exactly_as_the_oracle_says() {
    simulate(
        chrono_tz::Europe::Berlin,
        DstDays {
            gap: (2028, 3, 26, 2),
            overlap: (2028, 10, 29, 2),
            standard: 3600,
            daylight: 2 * 3600,
        },
    )
    .await;
}
