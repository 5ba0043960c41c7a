//! The budget path of one background fork with its peers in-process (a stand-in main session,
//! the real ping budget, session records and run log) and a manual clock: one ping decided at
//! a time and the snooze a ping carries here; quiet hours, repeated texts
//! and which output marks the run in `tool_actions_quiet_tests.rs`.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use actix::prelude::*;
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use tokio::sync::oneshot;

use super::super::background::{BackgroundConfig, BackgroundFork, BackgroundJob, BackgroundPeers};
use super::*;
use crate::agent::tools::{Embed, EmbedColor};
use crate::base::clock::{Clock, ManualClock, SharedClock};
use crate::base::data_dir::DataDir;
use crate::claude::brain::idle::IdleLauncher;
use crate::jobs::{JobSettings, Routine};
use crate::records::pending_updates::PendingUpdates;
use crate::records::ping_budget::{PingBudget, Snapshot};
use crate::records::quiet_hours::{QuietHours, QuietNow};
use crate::records::runs::{JobKind, Open, OpenRun, RunLog, RunTicket, Trigger};
use crate::records::sessions::SessionRecords;

#[path = "tool_actions_quiet_tests.rs"]
mod quiet;

const TZ: Tz = chrono_tz::America::New_York;

/// 2026-03-02 09:00 in New York.
fn nine_am() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
}

/// Stands in for the main session: quiet hours from its window and the clock; the first
/// `IsBusy` (when scripted) says so to the test and answers `first` only once released, the
/// others answer "not busy" at once.
struct Main {
    quiet: Option<QuietHours>,
    clock: SharedClock,
    first: bool,
    asked: Option<oneshot::Sender<()>>,
    release: Option<oneshot::Receiver<()>>,
}

impl Main {
    fn idle(quiet: Option<QuietHours>, clock: SharedClock) -> Self {
        Main {
            quiet,
            clock,
            first: false,
            asked: None,
            release: None,
        }
    }
}

impl Actor for Main {
    type Context = Context<Self>;
}

impl Handler<IsBusy> for Main {
    type Result = ResponseFuture<bool>;
    fn handle(&mut self, _msg: IsBusy, _ctx: &mut Self::Context) -> Self::Result {
        let (Some(asked), Some(release)) = (self.asked.take(), self.release.take()) else {
            return Box::pin(async { false });
        };
        let _ = asked.send(());
        let first = self.first;
        Box::pin(async move {
            let _ = release.await;
            first
        })
    }
}

impl Handler<QuietHoursNow> for Main {
    type Result = MessageResult<QuietHoursNow>;
    fn handle(&mut self, _msg: QuietHoursNow, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(QuietNow::at(self.quiet, self.clock.now(), TZ))
    }
}

/// Keeps what it is shown.
#[derive(Default)]
struct Screen(Vec<SurfaceEvent>);

impl Actor for Screen {
    type Context = Context<Self>;
}

impl Handler<SurfaceEvent> for Screen {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        self.0.push(ev);
    }
}

#[derive(Message)]
#[rtype(result = "Vec<SurfaceEvent>")]
struct Shown;

impl Handler<Shown> for Screen {
    type Result = MessageResult<Shown>;
    fn handle(&mut self, _msg: Shown, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.0.clone())
    }
}

/// The pings' texts among `events`.
fn pings(events: &[SurfaceEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            SurfaceEvent::Ping { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Everything a fork talks to, shared by the forks of one test.
struct Setup {
    _tmp: tempfile::TempDir,
    data: DataDir,
    clock: ManualClock,
    screen: Addr<Screen>,
    budget: Addr<PingBudget>,
    records: Addr<SessionRecords>,
    pending: Addr<PendingUpdates>,
    runs: Addr<RunLog>,
}

impl Setup {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        data.ensure().unwrap();
        let clock = ManualClock::new(nine_am());
        Setup {
            screen: Screen::default().start(),
            budget: PingBudget::in_data_dir(&data, clock.shared(), TZ).start(),
            records: SessionRecords::in_data_dir(&data, clock.shared(), TZ).start(),
            pending: PendingUpdates::in_data_dir(&data, clock.shared(), TZ).start(),
            runs: RunLog::in_data_dir(&data, clock.shared(), TZ).start(),
            _tmp: tmp,
            data,
            clock,
        }
    }

    /// A fork of routine `id` talking to `main`.
    fn fork(&self, id: &str, main: Main) -> Addr<BackgroundFork> {
        self.fork_in_run(id, main, None)
    }

    /// A fork of routine `id` talking to `main`, in an open run of the run log; the run's id.
    async fn fork_with_run(&self, id: &str, main: Main) -> (Addr<BackgroundFork>, String) {
        let run = format!("run-of-{id}-{}", self.clock.now().timestamp());
        let at = self.clock.now().with_timezone(&TZ).fixed_offset();
        let entry = OpenRun {
            run: run.clone(),
            boot: String::new(),
            job: JobId(id.into()),
            kind: JobKind::Routine,
            tag: "routine-bg".into(),
            name: "check-in".into(),
            file: "routines/check-in.md".into(),
            scheduled: at,
            started: at,
            late_since: None,
            trigger: Trigger::Schedule,
            attempt: 1,
            retry: 0,
            pinged: false,
            followed_up: false,
            reports: Vec::new(),
            reminder: None,
            payload: None,
        };
        self.runs.send(Open(entry)).await.unwrap().unwrap();
        let ticket = RunTicket {
            run: run.clone(),
            log: self.runs.clone(),
        };
        (self.fork_in_run(id, main, Some(ticket)), run)
    }

    /// Whether the open run `run` is marked as pinged, as saved in `state/runs_open.json`.
    fn pinged(&self, run: &str) -> bool {
        let path = self
            .data
            .state_file(crate::records::runs::open_file::FILE_NAME);
        let file = crate::records::runs::open_file::load(&path)
            .unwrap()
            .unwrap();
        let entry = file.open.iter().find(|o| o.run == run).unwrap();
        entry.pinged
    }

    fn fork_in_run(&self, id: &str, main: Main, run: Option<RunTicket>) -> Addr<BackgroundFork> {
        let main = main.start();
        let config = BackgroundConfig {
            data_dir: self.data.clone(),
            tz: TZ,
            clock: self.clock.shared(),
            launcher: Arc::new(IdleLauncher),
            binary: "claude".into(),
            system_prompt: String::new(),
            timeout: StdDuration::from_secs(3600),
            cli_env: Default::default(),
        };
        let peers = BackgroundPeers {
            surface: self.screen.clone().recipient(),
            pending: self.pending.clone(),
            budget: self.budget.clone(),
            busy: main.clone().recipient(),
            quiet: main.recipient(),
            records: self.records.clone(),
        };
        let job = BackgroundJob {
            limits: Default::default(),
            job: Job::Routine(Routine {
                id: JobId(id.into()),
                message: "check in".into(),
                cron: "0 9 * * *".into(),
                settings: JobSettings {
                    background: true,
                    ..JobSettings::default()
                },
                paused: false,
                catch_up: Default::default(),
                session: Default::default(),
            }),
            prompt: format!("[routine-bg:{id}] check in"),
            rel_path: "routines/check-in.md".into(),
            run,
            rules: crate::agent::tools::BackgroundRules::default(),
        };
        let (done, _ended) = oneshot::channel();
        BackgroundFork::new(config, peers, job, None, done).start()
    }

    async fn tokens(&self) -> u32 {
        self.budget.send(Snapshot).await.unwrap().whole_tokens
    }

    async fn shown(&self) -> Vec<SurfaceEvent> {
        self.screen.send(Shown).await.unwrap()
    }
}

fn ping(text: &str, critical: bool) -> ToolAction {
    ToolAction::Ping {
        message: text.to_owned(),
        critical,
    }
}

/// Two pings sent to one fork back to back, the first one's busy check answered `busy`
/// only after both are in the fork's mailbox; the results of both and the pings shown.
async fn two_pings(busy: bool) -> (Result<(), Refusal>, Result<(), Refusal>, Vec<String>) {
    let setup = Setup::new();
    let (asked_tx, asked) = oneshot::channel();
    let (release, release_rx) = oneshot::channel();
    let main = Main {
        first: busy,
        asked: Some(asked_tx),
        release: Some(release_rx),
        ..Main::idle(None, setup.clock.shared())
    };
    let fork = setup.fork("a1b2c3d4", main);
    let first = actix_rt::spawn(fork.send(ping("[bg] one", false)));
    let second = actix_rt::spawn(fork.send(ping("[bg] two", false)));
    asked.await.unwrap();
    release.send(()).unwrap();
    let first = first.await.unwrap().unwrap();
    let second = second.await.unwrap().unwrap();
    (first, second, pings(&setup.shown().await))
}

#[actix_rt::test]
async fn a_ping_refused_as_busy_spends_nothing_so_the_next_one_is_decided_afresh() {
    let (first, second, shown) = two_pings(true).await;
    assert_eq!(first, Err(Refusal::UserBusy));
    assert_eq!(second, Ok(()));
    assert_eq!(shown, vec!["[bg] two".to_owned()]);
}

#[actix_rt::test]
async fn a_ping_sent_while_the_first_is_being_decided_waits_and_is_then_refused() {
    let (first, second, shown) = two_pings(false).await;
    assert_eq!(first, Ok(()));
    assert_eq!(second, Err(Refusal::AlreadyPinged));
    assert_eq!(shown, vec!["[bg] one".to_owned()]);
}

#[actix_rt::test]
async fn a_ping_carries_a_snooze_that_writes_its_routine_as_a_reminder() {
    let setup = Setup::new();
    let fork = setup.fork("a1b2c3d4", Main::idle(None, setup.clock.shared()));
    fork.send(ping("[bg] time to stretch", false))
        .await
        .unwrap()
        .unwrap();
    let shown = setup.shown().await;
    let Some(SurfaceEvent::Ping {
        snooze: Some(snooze),
        ..
    }) = shown.first()
    else {
        panic!("a ping with a snooze: {shown:?}");
    };
    let said = crate::records::snooze::press(
        crate::records::snooze::SnoozeChoice::OneHour,
        snooze.clone(),
        &setup.records,
        &setup.data,
        setup.clock.now(),
        TZ,
    )
    .await;
    assert_eq!(said, "snoozed until 10:00 AM");
    let written = crate::jobs::store::load_dir::<crate::jobs::Reminder>(&setup.data.reminders())
        .unwrap()
        .items;
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].1.message, "check in");
    assert!(written[0].1.settings.background);
}
