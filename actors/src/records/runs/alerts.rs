//! Failure alerts *(ours, SPEC §16)*, decided from a job's run history alone, so they survive
//! restarts without state of their own.
//!
//! After `failure_alert_after` failed or timed-out runs of one job in a row the owner gets one
//! alert naming the job, the count and the last error; the run that caused it is marked
//! `alerted`. Further failures stay quiet until `failure_alert_cooldown` has passed since the
//! job's last alert, then alert again with the count so far. The first success after a streak
//! that alerted says the job is working again. Misses, skips and interruptions neither count
//! nor break a streak. The per-run "couldn't complete." line is separate and always sent.

use chrono::{DateTime, Duration, Utc};

use super::record::{Outcome, RunRecord};

/// The rules in force (from `/config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlertRules {
    /// Failed runs in a row before an alert.
    pub after: u64,
    /// Quiet time after an alert.
    pub cooldown: Duration,
}

impl Default for AlertRules {
    fn default() -> Self {
        AlertRules {
            after: 2,
            cooldown: Duration::hours(6),
        }
    }
}

/// What to tell the owner about a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alert {
    /// It keeps failing.
    Failing {
        /// Its name.
        name: String,
        /// Its file.
        file: String,
        /// Failed runs in a row.
        count: u64,
        /// The last run's error.
        last_error: String,
    },
    /// It succeeded after a streak the owner was alerted about.
    Recovered {
        /// Its name.
        name: String,
    },
}

impl Alert {
    /// The message for the owner.
    pub fn text(&self) -> String {
        match self {
            Alert::Failing {
                name,
                file,
                count,
                last_error,
            } => {
                let times = if *count == 1 {
                    "once".to_owned()
                } else {
                    format!("{count} times in a row")
                };
                format!("⚠️ {name} ({file}) has failed {times}. last error: {last_error}")
            }
            Alert::Recovered { name } => format!("{name} is working again."),
        }
    }
}

/// Decides the alert for `new`, the run just ended, given the same job's earlier records
/// (oldest first). Sets `new.alerted` when it alerts about a failure.
pub fn decide(
    earlier: &[&RunRecord],
    new: &mut RunRecord,
    rules: AlertRules,
    now: DateTime<Utc>,
) -> Option<Alert> {
    // The failures in a row just before `new`, newest first, ignoring neutral lines.
    let streak: Vec<&RunRecord> = earlier
        .iter()
        .rev()
        .copied()
        .filter(|r| counts(r.outcome))
        .take_while(|r| r.outcome.is_failure())
        .collect();
    match new.outcome {
        Outcome::Ok => streak.iter().any(|r| r.alerted).then(|| Alert::Recovered {
            name: new.name.clone(),
        }),
        o if o.is_failure() => {
            let count = streak.len() as u64 + 1;
            if count < rules.after.max(1) {
                return None;
            }
            let last_alert = earlier
                .iter()
                .rev()
                .find(|r| r.alerted)
                .map(|r| r.ended.with_timezone(&Utc));
            if last_alert.is_some_and(|at| now - at < rules.cooldown) {
                return None;
            }
            new.alerted = true;
            Some(Alert::Failing {
                name: new.name.clone(),
                file: new.file.clone(),
                count,
                last_error: new
                    .error
                    .clone()
                    .unwrap_or_else(|| new.outcome.as_str().to_owned()),
            })
        }
        _ => None,
    }
}

/// Whether a line takes part in a streak (a run that completed or failed).
fn counts(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Ok) || outcome.is_failure()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::JobId;
    use crate::records::runs::record::{JobKind, Trigger};

    fn run(outcome: Outcome, minutes: i64, alerted: bool) -> RunRecord {
        let at = (base() + Duration::minutes(minutes)).fixed_offset();
        RunRecord {
            run: format!("r{minutes}"),
            job: JobId("j".into()),
            kind: JobKind::Routine,
            tag: "routine-bg".into(),
            name: "inbox sweep".into(),
            file: "routines/inbox.md".into(),
            scheduled: at,
            started: Some(at),
            ended: at,
            outcome,
            pinged: false,
            reported: false,
            cost_usd: None,
            turns: None,
            error: outcome.is_failure().then(|| "api error 500".to_owned()),
            late_since: None,
            trigger: Trigger::Schedule,
            alerted,
            count: None,
            session: None,
        }
    }

    fn base() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    /// Runs `outcomes` one hour apart, returning the alerts in order.
    fn replay(outcomes: &[Outcome], rules: AlertRules) -> Vec<Option<String>> {
        let mut history: Vec<RunRecord> = Vec::new();
        let mut alerts = Vec::new();
        for (i, o) in outcomes.iter().enumerate() {
            let minutes = i as i64 * 60;
            let mut new = run(*o, minutes, false);
            let earlier: Vec<&RunRecord> = history.iter().collect();
            let now = base() + Duration::minutes(minutes);
            alerts.push(decide(&earlier, &mut new, rules, now).map(|a| a.text()));
            history.push(new);
        }
        alerts
    }

    #[test]
    fn the_second_failure_in_a_row_alerts_once_then_quiet_until_the_cooldown() {
        use Outcome::*;
        let rules = AlertRules {
            after: 2,
            cooldown: Duration::hours(6),
        };
        let alerts = replay(
            &[
                Failed, TimedOut, Failed, Failed, Failed, Failed, Failed, Failed, Failed,
            ],
            rules,
        );
        assert_eq!(alerts[0], None);
        assert_eq!(
            alerts[1].as_deref(),
            Some("⚠️ inbox sweep (routines/inbox.md) has failed 2 times in a row. last error: api error 500")
        );
        assert!(alerts[2..7].iter().all(Option::is_none), "{alerts:?}");
        // Six hours after the alert at hour 1: hour 7 alerts again with the count so far.
        assert_eq!(
            alerts[7].as_deref(),
            Some("⚠️ inbox sweep (routines/inbox.md) has failed 8 times in a row. last error: api error 500")
        );
        assert_eq!(alerts[8], None);
    }

    #[test]
    fn a_single_failure_reads_once() {
        let alert = Alert::Failing {
            name: "inbox sweep".into(),
            file: "routines/inbox.md".into(),
            count: 1,
            last_error: "api error 500".into(),
        };
        assert_eq!(
            alert.text(),
            "⚠️ inbox sweep (routines/inbox.md) has failed once. last error: api error 500"
        );
    }

    #[test]
    fn a_success_after_an_alerted_streak_says_working_again_and_only_then() {
        use Outcome::*;
        let rules = AlertRules::default();
        let alerts = replay(
            &[Failed, Failed, Skipped, Missed, Ok, Ok, Failed, Ok],
            rules,
        );
        assert!(alerts[1].is_some());
        assert_eq!(alerts[4].as_deref(), Some("inbox sweep is working again."));
        assert_eq!(alerts[5], None, "no streak before it");
        assert_eq!(alerts[7], None, "one failure never alerted");
    }

    #[test]
    fn neutral_lines_do_not_break_a_streak() {
        use Outcome::*;
        let alerts = replay(
            &[Failed, Interrupted, Skipped, Failed],
            AlertRules::default(),
        );
        assert!(alerts[3].is_some(), "{alerts:?}");
        let one = replay(
            &[Failed],
            AlertRules {
                after: 1,
                cooldown: Duration::zero(),
            },
        );
        assert!(one[0].is_some());
    }
}
