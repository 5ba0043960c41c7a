//! Missed routine times, pausing and run now, with a manual clock (SPEC §16; failure alerts in
//! `failure_alerts`):
//! the supervisor's actors behind a recording recipient, and "a restart" as a new actix system
//! on the same data directory (the old one's actors are gone with it, as after a crash).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration as StdDuration, SystemTime};

use actix::prelude::*;
use chrono::{DateTime, Duration, TimeZone, Utc};
use ollim_actors::base::clock::ManualClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::{GetHandles, Handles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{History, Outcome, RunRecord, Trigger};
use ollim_actors::scheduling::scheduler::{FireDue, RunNow, RunNowOutcome, SetPaused, Upcoming};

pub(crate) const TZ: chrono_tz::Tz = chrono_tz::America::New_York;

/// Keeps every fired job; each turn "completes" at once.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<FireJob>>>);

impl Actor for Recorder {
    type Context = Context<Self>;
}

impl Handler<FireJob> for Recorder {
    type Result = MessageResult<FireJob>;
    fn handle(&mut self, msg: FireJob, _ctx: &mut Self::Context) -> Self::Result {
        self.0.lock().unwrap().push(msg);
        MessageResult(JobTurnEnd::bare(JobTurnOutcome::Completed, None))
    }
}

/// `h:m` in New York on 2026-03-02 (EST, UTC-5).
pub(crate) fn ny(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, h + 5, m, 0).unwrap()
}

fn routine_text(id: &str, cron: &str, extra: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"{cron}\"\n{extra}---\ncheck the inbox\n")
}

/// Writes a routine whose file was last changed a day before `at`.
fn write_routine(data: &DataDir, id: &str, cron: &str, extra: &str, at: DateTime<Utc>) {
    let path = data.routines().join(format!("{id}.md"));
    std::fs::write(&path, routine_text(id, cron, extra)).unwrap();
    age(&path, at - Duration::days(1));
}

fn age(path: &Path, to: DateTime<Utc>) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::from(to)).unwrap();
}

/// One start of the bot: the supervisor on `data`, jobs to `recorder`.
async fn start(data: &DataDir, clock: &ManualClock, recorder: &Recorder) -> Handles {
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz: TZ,
            clock: clock.shared(),
            watch_jobs: true,
            google: None,
        },
        JobSink::Recipient {
            jobs: recorder.clone().start().recipient(),
            busy: None,
        },
    );
    supervisor.send(GetHandles).await.unwrap()
}

/// Runs one start of the bot to completion in its own actix system.
pub(crate) fn phase<F: std::future::Future<Output = ()>>(f: impl FnOnce() -> F) {
    actix::System::new().block_on(f());
}

async fn history(h: &Handles) -> Vec<RunRecord> {
    h.run_log
        .send(History {
            job: None,
            kind: None,
            limit: 1000,
        })
        .await
        .unwrap()
}

/// Waits (bounded) until the history holds `n` lines.
async fn lines(h: &Handles, n: usize) -> Vec<RunRecord> {
    for _ in 0..250 {
        let got = history(h).await;
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    panic!("the history never held {n} lines: {:#?}", history(h).await);
}

fn summary(lines: &[RunRecord]) -> Vec<(String, &'static str)> {
    lines
        .iter()
        .map(|r| {
            let at = r.scheduled.with_timezone(&TZ).format("%H:%M").to_string();
            (at, r.outcome.as_str())
        })
        .collect()
}

pub(crate) fn fresh() -> (tempfile::TempDir, DataDir) {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().unwrap();
    (tmp, data)
}

#[test]
fn a_routine_missed_while_the_bot_was_down_runs_once_late_after_the_restart() {
    let (_tmp, data) = fresh();
    let clock = ManualClock::new(ny(9, 0));
    write_routine(&data, "hourly01", "0 * * * *", "", ny(9, 0));
    let recorder = Recorder::default();
    phase(|| async {
        let h = start(&data, &clock, &recorder).await;
        clock.set(ny(10, 0));
        h.scheduler.send(FireDue).await.unwrap();
        let got = lines(&h, 1).await;
        assert_eq!(summary(&got), [("10:00".to_owned(), "ok")]);
    });
    // Down from 10:00 to 13:30: 11:00, 12:00 and 13:00 passed unseen.
    clock.set(ny(13, 30));
    phase(|| async {
        let h = start(&data, &clock, &recorder).await;
        h.scheduler.send(FireDue).await.unwrap();
        assert_eq!(
            recorder.0.lock().unwrap().len(),
            1,
            "nothing before the start delay"
        );
        clock.set(ny(13, 30) + Duration::seconds(2));
        h.scheduler.send(FireDue).await.unwrap();
        let got = lines(&h, 5).await;
        assert_eq!(
            summary(&got),
            [
                ("10:00".to_owned(), "ok"),
                ("11:00".to_owned(), "missed"),
                ("12:00".to_owned(), "missed"),
                ("13:00".to_owned(), "caught-up"),
                ("13:00".to_owned(), "ok"),
            ],
            "{got:#?}"
        );
        assert!(got[4].late_since.is_some());
        let fired = recorder.0.lock().unwrap().clone();
        assert_eq!(fired.len(), 2, "several missed times run once");
        assert!(
            fired[1]
                .prompt
                .starts_with("[routine:hourly01] [late: was scheduled for 1:00 PM, running now] "),
            "{}",
            fired[1].prompt
        );
        // And on it goes at its normal times.
        clock.set(ny(14, 0));
        h.scheduler.send(FireDue).await.unwrap();
        assert_eq!(summary(&lines(&h, 6).await)[5], ("14:00".to_owned(), "ok"));
    });
}

#[test]
fn the_first_start_with_a_history_catches_nothing_up_and_an_edit_resets_the_baseline() {
    let (_tmp, data) = fresh();
    let clock = ManualClock::new(ny(9, 30));
    // A routine an older version ran at 9:00: no history yet, so no catch-up at this start.
    write_routine(&data, "ninedaily", "0 9 * * *", "", ny(9, 0));
    let recorder = Recorder::default();
    phase(|| async {
        let h = start(&data, &clock, &recorder).await;
        clock.set(ny(9, 31));
        h.scheduler.send(FireDue).await.unwrap();
        assert!(history(&h).await.is_empty());
    });
    assert!(recorder.0.lock().unwrap().is_empty());
    // Next day, down over 9:00; the file was edited at 9:10 (after the time): not caught up.
    clock.set(ny(9, 30) + Duration::days(1));
    age(
        &data.routines().join("ninedaily.md"),
        ny(9, 10) + Duration::days(1),
    );
    phase(|| async {
        let h = start(&data, &clock, &recorder).await;
        clock.set(ny(9, 31) + Duration::days(1));
        h.scheduler.send(FireDue).await.unwrap();
        assert!(history(&h).await.is_empty(), "{:#?}", history(&h).await);
    });
    assert!(recorder.0.lock().unwrap().is_empty());
}

#[actix_rt::test]
async fn after_a_simulated_sleep_a_late_timer_runs_the_routine_once_within_its_window() {
    let (_tmp, data) = fresh();
    let clock = ManualClock::new(ny(9, 0));
    write_routine(&data, "hourly02", "0 * * * *", "", ny(9, 0));
    write_routine(
        &data,
        "tight003",
        "0 * * * *",
        "catch-up: \"20m\"\n",
        ny(9, 0),
    );
    write_routine(&data, "never004", "0 * * * *", "catch-up: none\n", ny(9, 0));
    let recorder = Recorder::default();
    let h = start(&data, &clock, &recorder).await;
    for _ in 0..100 {
        if h.scheduler.send(Upcoming).await.unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    // The machine sleeps from 9:00 to 12:30: the timer wakes late, past 10, 11 and 12.
    clock.set(ny(12, 30));
    h.scheduler.send(FireDue).await.unwrap();
    let got = lines(&h, 10).await;
    let of = |id: &str| {
        let picked: Vec<RunRecord> = got.iter().filter(|r| r.job.0 == id).cloned().collect();
        summary(&picked)
    };
    let hm = |h: &str, o: &'static str| (h.to_owned(), o);
    assert_eq!(
        of("hourly02"),
        [
            hm("10:00", "missed"),
            hm("11:00", "missed"),
            hm("12:00", "caught-up"),
            hm("12:00", "ok")
        ]
    );
    assert_eq!(
        of("tight003"),
        [
            hm("10:00", "missed"),
            hm("11:00", "missed"),
            hm("12:00", "missed")
        ],
        "30 minutes late is past its 20-minute window"
    );
    assert_eq!(
        of("never004"),
        [
            hm("10:00", "missed"),
            hm("11:00", "missed"),
            hm("12:00", "missed")
        ]
    );
    let fired = recorder.0.lock().unwrap().clone();
    assert_eq!(fired.len(), 1, "{fired:#?}");
    assert!(fired[0]
        .prompt
        .contains("[late: was scheduled for 12:00 PM, running now]"));
}

#[actix_rt::test]
async fn a_paused_routine_is_listed_never_fires_and_run_now_still_runs_it() {
    let (_tmp, data) = fresh();
    let clock = ManualClock::new(ny(9, 0));
    write_routine(&data, "paused05", "0 * * * *", "", ny(9, 0));
    let recorder = Recorder::default();
    let h = start(&data, &clock, &recorder).await;
    let id = JobId("paused05".into());
    let mut answer = String::new();
    for _ in 0..100 {
        answer = h
            .scheduler
            .send(SetPaused {
                id: id.clone(),
                paused: true,
            })
            .await
            .unwrap();
        if answer.starts_with("paused") {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    assert_eq!(
        answer,
        "paused paused05 — it stays listed and never fires until resumed."
    );
    let text = std::fs::read_to_string(data.routines().join("paused05.md")).unwrap();
    assert!(
        text.ends_with("paused: true\n---\ncheck the inbox\n"),
        "{text}"
    );
    let upcoming = h.scheduler.send(Upcoming).await.unwrap();
    assert_eq!((upcoming[0].paused, upcoming[0].next), (true, None));
    for hour in 10..13 {
        clock.set(ny(hour, 0));
        h.scheduler.send(FireDue).await.unwrap();
    }
    assert!(
        recorder.0.lock().unwrap().is_empty(),
        "a paused routine never fires"
    );
    let ran = h.scheduler.send(RunNow { id: id.clone() }).await.unwrap();
    assert!(matches!(ran, RunNowOutcome::Ran { .. }), "{ran:?}");
    let got = lines(&h, 1).await;
    assert_eq!(
        (got[0].outcome, got[0].trigger),
        (Outcome::Ok, Trigger::Manual)
    );
    // Resumed at 12:10, it next fires at 13:00; the paused hours are not caught up.
    clock.set(ny(12, 10));
    h.scheduler
        .send(SetPaused { id, paused: false })
        .await
        .unwrap();
    let upcoming = h.scheduler.send(Upcoming).await.unwrap();
    assert_eq!(
        (upcoming[0].paused, upcoming[0].next),
        (false, Some(ny(13, 0)))
    );
    let text = std::fs::read_to_string(data.routines().join("paused05.md")).unwrap();
    assert_eq!(
        text,
        routine_text("paused05", "0 * * * *", ""),
        "resume restores the file"
    );
}
