//! Failure alerts with a manual clock (SPEC §16): the run log counts failed runs of one job in
//! a row, alerts once, keeps quiet for the cooldown, says when the job works again, and keeps
//! its counts across a restart.

use actix::prelude::*;
use chrono::{DateTime, Duration, Utc};
use ollim_actors::base::clock::ManualClock;
use ollim_actors::jobs::JobId;
use ollim_actors::records::runs::{
    AlertRules, Close, JobKind, Open, OpenRun, Outcome, RunEnd, RunLog, Trigger,
};

use crate::catch_up::{fresh, ny, phase, TZ};

fn failing_run(run: &str, at: DateTime<Utc>) -> OpenRun {
    let at = at.with_timezone(&TZ).fixed_offset();
    OpenRun {
        run: run.into(),
        boot: String::new(),
        job: JobId("sweep001".into()),
        kind: JobKind::Routine,
        tag: "routine-bg".into(),
        name: "inbox sweep".into(),
        file: "routines/sweep.md".into(),
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
    }
}

/// Opens and closes one run of the sweep at `at` with `outcome`; the alert text, if any.
async fn one_run(
    log: &Addr<RunLog>,
    clock: &ManualClock,
    n: u32,
    outcome: Outcome,
) -> Option<String> {
    let at = ny(9, 0) + Duration::hours(i64::from(n));
    clock.set(at);
    let run = format!("run{n}");
    log.send(Open(failing_run(&run, at)))
        .await
        .unwrap()
        .unwrap();
    let error = (outcome != Outcome::Ok).then(|| format!("api error on run {n}"));
    let closed = log
        .send(Close {
            run,
            end: RunEnd::bare(outcome, error),
            rules: AlertRules {
                after: 2,
                cooldown: Duration::hours(6),
            },
            successor: None,
        })
        .await
        .unwrap()
        .unwrap();
    closed.alert.map(|a| a.text())
}

#[test]
fn failure_alerts_count_runs_in_a_row_keep_quiet_for_the_cooldown_and_survive_a_restart() {
    let (_tmp, data) = fresh();
    let clock = ManualClock::new(ny(9, 0));
    phase(|| async {
        let log = RunLog::in_data_dir(&data, clock.shared(), TZ).start();
        assert_eq!(one_run(&log, &clock, 0, Outcome::Failed).await, None);
        assert_eq!(
            one_run(&log, &clock, 1, Outcome::TimedOut).await.as_deref(),
            Some("⚠️ inbox sweep (routines/sweep.md) has failed 2 times in a row. last error: api error on run 1")
        );
        assert_eq!(
            one_run(&log, &clock, 2, Outcome::Failed).await,
            None,
            "quiet"
        );
    });
    // A restart in the middle of the cooldown: the history remembers the alert.
    phase(|| async {
        let log = RunLog::in_data_dir(&data, clock.shared(), TZ).start();
        for n in 3..7 {
            assert_eq!(
                one_run(&log, &clock, n, Outcome::Failed).await,
                None,
                "run {n}"
            );
        }
        // Six hours after the alert at run 1 (10:00): 16:00 alerts again with the count.
        assert_eq!(
            one_run(&log, &clock, 7, Outcome::Failed).await.as_deref(),
            Some("⚠️ inbox sweep (routines/sweep.md) has failed 8 times in a row. last error: api error on run 7")
        );
        assert_eq!(
            one_run(&log, &clock, 8, Outcome::Ok).await.as_deref(),
            Some("inbox sweep is working again.")
        );
        assert_eq!(one_run(&log, &clock, 9, Outcome::Ok).await, None);
    });
}
