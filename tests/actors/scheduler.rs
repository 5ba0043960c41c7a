//! The Scheduler actor with a manual clock and a recording recipient (behind the real job
//! runner, which builds the prompts): files written, edited and removed while it runs,
//! reminders firing on time and being deleted, overdue reminders marked late, background
//! prompts carrying the preamble, and the supervisor restarting it. "Nothing fired" is asserted
//! only after the scheduler has answered [`FireDue`] for the clock's now.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use actix::prelude::*;
use chrono::{DateTime, Duration, TimeZone, Utc};
use ollim_actors::base::clock::ManualClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::{
    Child, GetHandles, Handles, JobSink, RestartChild, Supervisor, SupervisorConfig,
};
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::scheduling::scheduler::{FireDue, Upcoming, UpcomingJob};

/// Keeps every fired job it receives.
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

impl Recorder {
    fn fired(&self) -> Vec<FireJob> {
        self.0.lock().unwrap().clone()
    }
}

struct Rig {
    _tmp: tempfile::TempDir,
    data: DataDir,
    clock: ManualClock,
    recorder: Recorder,
    handles: Handles,
    supervisor: Addr<Supervisor>,
}

fn start_instant() -> DateTime<Utc> {
    // 2026-03-02 14:00 UTC = 09:00 in New York (EST).
    Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
}

async fn rig_with(prepare: impl FnOnce(&DataDir)) -> Rig {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().unwrap();
    prepare(&data);
    let clock = ManualClock::new(start_instant());
    let recorder = Recorder::default();
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz: chrono_tz::America::New_York,
            clock: clock.shared(),
            watch_jobs: true,
            google: None,
        },
        JobSink::Recipient {
            jobs: recorder.clone().start().recipient(),
            busy: None,
        },
    );
    let handles = supervisor.send(GetHandles).await.unwrap();
    Rig {
        _tmp: tmp,
        data,
        clock,
        recorder,
        handles,
        supervisor,
    }
}

async fn rig() -> Rig {
    rig_with(|_| {}).await
}

impl Rig {
    async fn upcoming(&self) -> Vec<UpcomingJob> {
        self.handles.scheduler.send(Upcoming).await.unwrap()
    }

    /// Waits (real time, bounded) until `pred` holds for the registered jobs.
    async fn until_registered(&self, what: &str, pred: impl Fn(&[UpcomingJob]) -> bool) {
        for _ in 0..100 {
            if pred(&self.upcoming().await) {
                return;
            }
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
        panic!("scheduler never saw {what}: {:?}", self.upcoming().await);
    }

    /// Moves the clock and waits until the scheduler has fired whatever that made due and the
    /// recorder has received it.
    async fn advance_to(&self, at: DateTime<Utc>) {
        self.clock.set(at);
        self.settle().await;
    }

    /// Waits for the scheduler to say that everything due at the clock's now has gone out.
    async fn settle(&self) {
        self.handles.scheduler.send(FireDue).await.unwrap();
    }

    async fn until_fired(&self, n: usize) -> Vec<FireJob> {
        for _ in 0..100 {
            let f = self.recorder.fired();
            if f.len() >= n {
                return f;
            }
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
        panic!("expected {n} fired jobs, got {:?}", self.recorder.fired());
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.data.root().join(rel);
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn reminder_text(id: &str, run_at: &str, extra: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\nrun-at: \"{run_at}\"\n{extra}---\n{body}\n")
}

fn routine_text(id: &str, cron: &str, extra: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"{cron}\"\n{extra}---\n{body}\n")
}

fn exists(p: &Path) -> bool {
    p.exists()
}

#[actix_rt::test]
async fn reminder_written_while_running_fires_on_time_and_its_file_is_deleted() {
    let rig = rig().await;
    // 09:30 New York = 14:30 UTC.
    let path = rig.write(
        "reminders/stretch.md",
        &reminder_text(
            "aa11bb22",
            "2026-03-02T09:30:00-05:00",
            "background: false\n",
            "stand up and stretch",
        ),
    );
    rig.until_registered("the new reminder", |u| {
        u.iter().any(|j| j.id.0 == "aa11bb22")
    })
    .await;
    rig.advance_to(start_instant() + Duration::minutes(29))
        .await;
    assert!(rig.recorder.fired().is_empty(), "fired a minute early");
    rig.advance_to(start_instant() + Duration::minutes(30))
        .await;
    let fired = rig.until_fired(1).await;
    assert_eq!(fired.len(), 1);
    let job = &fired[0];
    assert_eq!(job.prompt, "[reminder:aa11bb22]\n\nstand up and stretch");
    assert!(
        job.prompt.starts_with("[reminder:aa11bb22]"),
        "{}",
        job.prompt
    );
    assert!(
        job.prompt.ends_with("stand up and stretch"),
        "{}",
        job.prompt
    );
    assert!(!job.late);
    assert_eq!(job.rel_path, "reminders/stretch.md");
    assert_eq!(job.due_at, start_instant() + Duration::minutes(30));
    for _ in 0..50 {
        if !exists(&path) {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    assert!(!exists(&path), "fired reminder file should be deleted");
    rig.advance_to(start_instant() + Duration::hours(2)).await;
    assert_eq!(rig.recorder.fired().len(), 1, "a reminder fires once");
}

#[actix_rt::test]
async fn removed_routine_never_fires() {
    let rig = rig().await;
    let path = rig.write(
        "routines/water.md",
        &routine_text("cc33dd44", "0 10 * * *", "", "drink water"),
    );
    rig.until_registered("the routine", |u| u.iter().any(|j| j.id.0 == "cc33dd44"))
        .await;
    std::fs::remove_file(&path).unwrap();
    rig.until_registered("the removal", |u| u.is_empty()).await;
    rig.advance_to(start_instant() + Duration::hours(2)).await;
    assert!(
        rig.recorder.fired().is_empty(),
        "{:?}",
        rig.recorder.fired()
    );
}

#[actix_rt::test]
async fn routine_fires_at_each_cron_time_and_an_edit_moves_it() {
    let rig = rig().await;
    rig.write(
        "routines/water.md",
        &routine_text("cc33dd44", "0 10 * * *", "", "drink water"),
    );
    rig.until_registered("the routine", |u| u.iter().any(|j| j.id.0 == "cc33dd44"))
        .await;
    // 10:00 New York = 15:00 UTC.
    rig.advance_to(start_instant() + Duration::hours(1)).await;
    let fired = rig.until_fired(1).await;
    assert!(fired[0].prompt.starts_with("[routine:cc33dd44]"));
    assert_eq!(fired[0].due_at, start_instant() + Duration::hours(1));
    // Edit: now 11:30 daily. It must not fire at the old time tomorrow.
    rig.write(
        "routines/water.md",
        &routine_text("cc33dd44", "30 11 * * *", "", "drink water"),
    );
    let next_expected = start_instant() + Duration::minutes(150);
    rig.until_registered("the edit", |u| {
        u.first().and_then(|j| j.next) == Some(next_expected)
    })
    .await;
    rig.advance_to(next_expected).await;
    let fired = rig.until_fired(2).await;
    assert_eq!(fired[1].due_at, next_expected);
}

#[actix_rt::test]
async fn overdue_reminder_fires_shortly_after_start_marked_late() {
    let rig = rig_with(|data| {
        std::fs::write(
            data.reminders().join("missed.md"),
            reminder_text(
                "ee55ff66",
                "2026-03-02T08:30:00-05:00",
                "",
                "call the pharmacy",
            ),
        )
        .unwrap();
    })
    .await;
    rig.settle().await;
    assert!(
        rig.recorder.fired().is_empty(),
        "overdue reminders wait for the start delay"
    );
    rig.advance_to(start_instant() + Duration::seconds(2)).await;
    let fired = rig.until_fired(1).await;
    assert!(fired[0].late);
    assert!(
        fired[0]
            .prompt
            .contains("[late: was scheduled for 8:30 AM, running now]"),
        "{}",
        fired[0].prompt
    );
}

#[actix_rt::test]
async fn background_routine_prompt_carries_budget_and_forward_schedule() {
    let rig = rig().await;
    rig.write(
        "routines/inbox.md",
        &routine_text(
            "0a0b0c0d",
            "15 9 * * *",
            "background: true\n",
            "triage the inbox",
        ),
    );
    rig.write(
        "reminders/later.md",
        &reminder_text(
            "1a1b1c1d",
            "2026-03-02T10:00:00-05:00",
            "background: true\ndescription: \"check on laundry\"\n",
            "laundry?",
        ),
    );
    rig.until_registered("both jobs", |u| u.len() == 2).await;
    rig.advance_to(start_instant() + Duration::minutes(15))
        .await;
    let fired = rig.until_fired(1).await;
    let p = &fired[0].prompt;
    assert!(p.starts_with("[routine-bg:0a0b0c0d]"), "{p}");
    assert!(p.contains("budget: 5/5"), "{p}");
    assert!(p.contains("Upcoming bg tasks (next"), "{p}");
    assert!(p.contains("(routines/inbox.md) [this task]"), "{p}");
    assert!(
        p.contains("\"check on laundry\" (reminders/later.md)"),
        "{p}"
    );
    assert!(p.ends_with("triage the inbox"), "{p}");
}

#[actix_rt::test]
async fn a_broken_file_is_skipped_and_the_others_still_fire() {
    let rig = rig().await;
    rig.write("reminders/broken.md", "---\nid: [unclosed\n---\nbody\n");
    rig.write(
        "reminders/ok.md",
        &reminder_text("12345678", "2026-03-02T09:05:00-05:00", "", "the good one"),
    );
    rig.until_registered("the good reminder", |u| u.len() == 1)
        .await;
    rig.advance_to(start_instant() + Duration::minutes(5)).await;
    let fired = rig.until_fired(1).await;
    assert!(fired[0].prompt.ends_with("the good one"));
    assert!(
        rig.data.reminders().join("broken.md").exists(),
        "a bad file is never deleted"
    );
}

#[actix_rt::test]
async fn restarted_scheduler_keeps_its_address_and_still_fires() {
    let rig = rig().await;
    rig.write(
        "reminders/after.md",
        &reminder_text(
            "9f9f9f9f",
            "2026-03-02T09:10:00-05:00",
            "",
            "after the restart",
        ),
    );
    rig.until_registered("the reminder", |u| u.len() == 1).await;
    rig.supervisor.do_send(RestartChild {
        child: Child::Scheduler,
        cause: "test".into(),
    });
    rig.settle().await;
    rig.until_registered("the reminder after restart", |u| u.len() == 1)
        .await;
    rig.advance_to(start_instant() + Duration::minutes(10))
        .await;
    let fired = rig.until_fired(1).await;
    assert_eq!(fired.len(), 1);
}
