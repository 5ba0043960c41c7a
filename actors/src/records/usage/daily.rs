//! *(ours, SPEC §19, §21)* What each of the last days cost, one local day at a time: the
//! dashboard's Spend page sets each day's jobs against the daily cap. The figures are the same
//! sums as the `/usage` report's ([`super::report`]) — the conversation's and the interactive
//! forks' turns from `state/usage.jsonl`, the jobs' runs from `state/runs.jsonl` — cut at each
//! local midnight instead of added up over a window.

use actix::prelude::*;
use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;

use super::file;
use super::record::{UsageKind, UsageRecord};
use super::report::{ReportError, MAX_DAYS};
use super::UsageLog;
use crate::base::local_days::midnight;
use crate::records::runs::{history_file, RunRecord};

/// Asks for the last `days` local days (today included), newest first, read from
/// `state/usage.jsonl` and `state/runs.jsonl` now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<Vec<DaySpend>, ReportError>")]
pub struct GetDaily {
    /// How many days (1 to 400).
    pub days: u32,
}

/// What one local day cost, in US dollars as the CLI reported them.
#[derive(Debug, Clone, PartialEq)]
pub struct DaySpend {
    /// The day, in the configured zone.
    pub date: NaiveDate,
    /// The main conversation's turns.
    pub conversation_usd: f64,
    /// Interactive forks' turns.
    pub forks_usd: f64,
    /// Every job's runs (what the daily cap counts).
    pub jobs_usd: f64,
    /// Runs of jobs that ended that day with a cost.
    pub job_runs: u64,
}

impl DaySpend {
    /// Conversation, forks and jobs together.
    pub fn total_usd(&self) -> f64 {
        self.conversation_usd + self.forks_usd + self.jobs_usd
    }
}

/// The last `days` days ending at `now`'s day, newest first.
pub fn by_day(
    usage: &[UsageRecord],
    runs: &[RunRecord],
    now: DateTime<Utc>,
    tz: Tz,
    days: u32,
) -> Vec<DaySpend> {
    let today = now.with_timezone(&tz).date_naive();
    let mut out: Vec<DaySpend> = (0..days.clamp(1, MAX_DAYS))
        .filter_map(|back| today.checked_sub_days(Days::new(u64::from(back))))
        .map(|date| DaySpend {
            date,
            conversation_usd: 0.0,
            forks_usd: 0.0,
            jobs_usd: 0.0,
            job_runs: 0,
        })
        .collect();
    let Some(oldest) = out.last().map(|d| d.date) else {
        return out;
    };
    let since = midnight(tz, oldest).with_timezone(&Utc);
    // Day `d` is `out[today - d]`; anything after today (a clock set back) is left out.
    let slot = |at: DateTime<Utc>| -> Option<usize> {
        let date = at.with_timezone(&tz).date_naive();
        let back = today.signed_duration_since(date).num_days();
        usize::try_from(back).ok()
    };
    for r in usage.iter().filter(|r| r.ts >= since) {
        let Some(day) = slot(r.ts.with_timezone(&Utc)).and_then(|i| out.get_mut(i)) else {
            continue;
        };
        match r.kind {
            UsageKind::Conversation => day.conversation_usd += r.cost_usd,
            UsageKind::Fork => day.forks_usd += r.cost_usd,
        }
    }
    for r in runs.iter().filter(|r| r.ended >= since) {
        let Some(cost) = r.cost_usd.filter(|c| c.is_finite() && *c > 0.0) else {
            continue;
        };
        let Some(day) = slot(r.ended.with_timezone(&Utc)).and_then(|i| out.get_mut(i)) else {
            continue;
        };
        day.jobs_usd += cost;
        day.job_runs += 1;
    }
    out
}

impl Handler<GetDaily> for UsageLog {
    type Result = Result<Vec<DaySpend>, ReportError>;
    fn handle(&mut self, msg: GetDaily, _ctx: &mut Self::Context) -> Self::Result {
        if !(1..=MAX_DAYS).contains(&msg.days) {
            return Err(ReportError::BadDays(msg.days.to_string()));
        }
        let usage = file::read(&self.data_dir.state_file(file::FILE_NAME))?;
        let runs = history_file::read(&self.data_dir.state_file(history_file::FILE_NAME))?;
        Ok(by_day(
            &usage.records,
            &runs.records,
            self.clock.now(),
            self.zone,
            msg.days,
        ))
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, FixedOffset, TimeZone};

    use super::*;
    use crate::jobs::JobId;
    use crate::records::runs::{JobKind, Outcome, Trigger};

    const TZ: Tz = chrono_tz::Europe::Berlin;

    fn t(ts: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(ts).unwrap()
    }

    fn turn(ts: &str, kind: UsageKind, cost: f64) -> UsageRecord {
        UsageRecord {
            ts: t(ts),
            kind,
            session: "s".into(),
            model: None,
            cost_usd: cost,
            total_cost_usd: None,
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        }
    }

    fn run(ended: &str, cost: Option<f64>) -> RunRecord {
        RunRecord {
            run: ended.into(),
            job: JobId("a1b2c3d4".into()),
            kind: JobKind::Routine,
            tag: "routine-bg".into(),
            name: "Morning".into(),
            file: "routines/morning.md".into(),
            scheduled: t(ended),
            started: Some(t(ended)),
            ended: t(ended),
            outcome: Outcome::Ok,
            pinged: false,
            reported: false,
            cost_usd: cost,
            turns: Some(2),
            error: None,
            late_since: None,
            trigger: Trigger::Schedule,
            alerted: false,
            count: None,
            session: None,
        }
    }

    #[test]
    fn each_local_day_gets_its_own_turns_and_runs_newest_first() {
        // 2026-11-28 10:00 in Berlin.
        let now = TZ
            .with_ymd_and_hms(2026, 11, 28, 10, 0, 0)
            .unwrap()
            .with_timezone(&Utc);
        let usage = [
            turn("2026-11-28T09:00:00+01:00", UsageKind::Conversation, 0.5),
            turn("2026-11-28T09:30:00+01:00", UsageKind::Fork, 0.25),
            // 23:30 UTC on the 26th is 00:30 on the 27th in Berlin.
            turn("2026-11-26T23:30:00+00:00", UsageKind::Conversation, 1.0),
            // Before the three days asked for.
            turn("2026-11-25T12:00:00+01:00", UsageKind::Conversation, 9.0),
        ];
        let runs = [
            run("2026-11-28T08:00:00+01:00", Some(0.125)),
            run("2026-11-28T08:30:00+01:00", None),
            run("2026-11-26T08:00:00+01:00", Some(2.0)),
        ];
        let days = by_day(&usage, &runs, now, TZ, 3);
        let dates: Vec<String> = days.iter().map(|d| d.date.to_string()).collect();
        assert_eq!(dates, ["2026-11-28", "2026-11-27", "2026-11-26"]);
        assert_eq!(
            (
                days[0].conversation_usd,
                days[0].forks_usd,
                days[0].jobs_usd
            ),
            (0.5, 0.25, 0.125)
        );
        assert_eq!(days[0].job_runs, 1, "a run without a cost is not counted");
        assert_eq!(days[0].total_usd(), 0.875);
        assert_eq!(days[1].conversation_usd, 1.0, "counted in the local day");
        assert_eq!((days[2].jobs_usd, days[2].conversation_usd), (2.0, 0.0));
    }

    #[test]
    fn a_number_of_days_is_bounded() {
        let now = Utc::now();
        assert_eq!(by_day(&[], &[], now, TZ, 0).len(), 1);
        assert_eq!(by_day(&[], &[], now, TZ, 10_000).len(), MAX_DAYS as usize);
    }
}
