//! The simulated year's jobs: 2,000 routines over a few dozen cron expressions chosen for the
//! hard days (DST changes, Feb 29, month ends, the Vixie day rule, steps and names), and 5,000
//! reminders at seeded times, some inside the DST gap and overlap written with either offset.
//! Written to disk with the product's own writers (`routine::to_markdown`,
//! `reminder::to_markdown`) under numbered names.
//!
//! The volume is chosen so the run stays well under a minute: every jump of the clock costs the
//! scheduler a look at all 7,000 files, so the jobs share instants (most routines fire monthly,
//! quarterly or yearly, forty to an expression; the reminders share 600 seeded instants) and
//! only the DST crons fire daily or hourly.

use chrono::{DateTime, Duration, FixedOffset, TimeZone, Utc};
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::jobs::{reminder, routine, JobId, JobSettings, Reminder, Routine};

/// The DST facts of a zone in 2028 (local wall-clock times), for reminders set inside them.
pub struct DstDays {
    /// Spring-forward: the skipped hour (year, month, day, hour).
    pub gap: (i32, u32, u32, u32),
    /// Fall-back: the repeated hour (year, month, day, hour).
    pub overlap: (i32, u32, u32, u32),
    /// Standard and daylight offsets, seconds east of UTC.
    pub standard: i32,
    pub daylight: i32,
}

/// Hand-picked expressions, with how many routines use each.
const CRONS: &[(&str, usize)] = &[
    // DST: the skipped hour, the repeated hour, hourly through both changes (on Sundays,
    // the days clocks change, and through the change weeks).
    ("0 2 * * *", 3),
    ("30 2 * * *", 3),
    ("30 1 * * *", 3),
    ("59 1 * 3,10,11 0", 1),
    ("0 3 * 3,10,11 0", 1),
    ("15 2 * * 0", 4),
    ("0,30 1-3 * 3,10,11 SUN", 2),
    ("*/30 0-4 * 3,10,11 0", 2),
    ("45 0-4 8-14 3 *", 1),
    ("15 0-4 1-7 11 *", 1),
    ("45 0-4 25-31 3 *", 1),
    ("15 0-4 25-31 10 *", 1),
    // Month ends and Feb 29.
    ("0 9 29 * *", 40),
    ("0 9 30 * *", 40),
    ("0 9 31 * *", 40),
    ("0 0 29 2 *", 20),
    ("59 23 28 2 *", 10),
    ("30 23 28-31 * *", 10),
    ("0 12 31 12 *", 20),
    ("0 7 1 * *", 40),
    ("0 0 1 1 *", 20),
    // Never: no such day.
    ("0 0 30 2 *", 5),
    ("0 0 31 4,6,9,11 *", 5),
    // Weekdays, names, 7 = Sunday, ranges ending on SUN, steps on weekdays.
    ("0 8 * 2 1-5", 3),
    ("0 10 * 4 mon,wed,fri", 3),
    ("30 18 * 5 6,0", 3),
    ("0 9 * * 7", 5),
    ("0 21 * 6 FRI-SUN", 3),
    ("0 6 * 7 */2", 2),
    ("0 12 * 8 1-5/2", 2),
    ("7,37 11 * 9 3", 3),
    // Both day fields restricted (either matches); `*`-led weekday (both must).
    ("0 9 13 * 5", 20),
    ("30 6 1,15 * mon", 10),
    ("0 12 1-7 * */7", 10),
    // Steps on stars, ranges and single starts; month names and steps.
    ("*/15 9-17/4 1-3 1,6 *", 1),
    ("5/20 6 * 9 2", 2),
    ("0 */6 1,15 * *", 5),
    ("0 0-23/8 1-5 feb-aug/2 *", 1),
    ("10 4 1-3 jan-mar *", 2),
    ("20 3 */10 * *", 10),
    ("1 0 1 jan,jul *", 10),
    ("0 22 * 12 *", 2),
];

/// Routines in all.
pub const ROUTINES: usize = 2_000;
/// Reminders in all.
pub const REMINDERS: usize = 5_000;
/// The distinct seeded instants the reminders are spread over.
const REMINDER_INSTANTS: usize = 600;

/// A small seeded generator (xorshift), so every run writes the same jobs.
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Seeded(seed.max(1))
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The cron expressions of all [`ROUTINES`] routines, in order: the hand-picked ones, then
/// monthly, quarterly and yearly ones at spread-out minutes, hours and days.
pub fn routine_crons() -> Vec<String> {
    let mut crons: Vec<String> = CRONS
        .iter()
        .flat_map(|(expr, n)| std::iter::repeat_n(expr.to_string(), *n))
        .collect();
    let mut i = 0usize;
    while crons.len() < ROUTINES {
        let (minute, hour, day) = ((i * 7) % 60, (i * 5 + 3) % 24, 1 + (i * 11) % 31);
        let expr = match i % 3 {
            0 => format!("{minute} {hour} {day} * *"),
            1 => format!("{minute} {hour} {day} 1,4,7,10 *"),
            _ => format!("{minute} {hour} {day} {} *", 1 + i % 12),
        };
        let room = ROUTINES - crons.len();
        crons.extend(std::iter::repeat_n(expr, room.min(40)));
        i += 1;
    }
    crons
}

/// Writes the routines (every 50th in the background) and returns them.
pub fn write_routines(data: &DataDir) -> Vec<Routine> {
    routine_crons()
        .into_iter()
        .enumerate()
        .map(|(n, cron)| {
            let settings = JobSettings {
                background: n % 50 == 0,
                ..JobSettings::default()
            };
            let routine = Routine {
                id: JobId(format!("{n:08x}")),
                ..Routine::new(format!("routine {n}: {cron}"), cron, settings)
            };
            let path = data.routines().join(format!("routine-{n:04}.md"));
            std::fs::write(&path, routine::to_markdown(&routine)).expect("write a routine");
            routine
        })
        .collect()
}

/// Writes the reminders and returns them: spread over `(start, end]` at seeded instants
/// (whole minutes, odd seconds, a fraction of a second), written with the zone's offset, `Z`
/// or a far one; plus every minute-ish of the DST gap and overlap with both offsets, and a few
/// set after `end` (they must still be waiting at the end).
pub fn write_reminders(
    data: &DataDir,
    tz: chrono_tz::Tz,
    dst: &DstDays,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Vec<Reminder> {
    let mut rng = Seeded::new(0x5eed_2028);
    let span = (end - start).num_seconds() as u64;
    let mut times: Vec<DateTime<FixedOffset>> = Vec::with_capacity(REMINDERS);
    for (y, m, d, h) in [dst.gap, dst.overlap] {
        for minute in [0, 1, 15, 30, 45, 59] {
            for offset in [dst.standard, dst.daylight] {
                let at = FixedOffset::east_opt(offset)
                    .and_then(|o| o.with_ymd_and_hms(y, m, d, h, minute, 0).single())
                    .expect("a wall time with a fixed offset");
                times.push(at);
            }
        }
    }
    for _ in 0..3 {
        let after = end + Duration::seconds(1 + rng.below(86_400) as i64);
        times.push(after.fixed_offset());
    }
    // Reminders share instants, a few to each (a real year has many at 9:00 sharp): one jump
    // of the clock fires several.
    let mut pool = Vec::with_capacity(REMINDER_INSTANTS);
    while pool.len() < REMINDER_INSTANTS {
        let at = start + Duration::seconds(1 + rng.below(span - 1) as i64);
        let at = match rng.below(4) {
            0 => at,
            1 => at - Duration::seconds(at.timestamp() % 60),
            2 => at - Duration::seconds(at.timestamp() % 3600),
            _ => at + Duration::milliseconds(250),
        };
        if at > start && at <= end {
            pool.push(at);
        }
    }
    while times.len() < REMINDERS {
        let at = pool[rng.below(pool.len() as u64) as usize];
        let written = match rng.below(10) {
            0 => at.fixed_offset(),
            1 => at.with_timezone(&FixedOffset::east_opt(5 * 3600 + 1800).expect("+05:30")),
            _ => at.with_timezone(&tz).fixed_offset(),
        };
        times.push(written);
    }
    times
        .into_iter()
        .enumerate()
        .map(|(n, run_at)| {
            let settings = JobSettings {
                background: n % 10 == 0,
                ..JobSettings::default()
            };
            let reminder = Reminder {
                id: JobId(format!("e{n:07x}")),
                ..Reminder::new(format!("reminder {n}"), run_at, settings)
            };
            let path = data.reminders().join(format!("reminder-{n:04}.md"));
            std::fs::write(&path, reminder::to_markdown(&reminder)).expect("write a reminder");
            reminder
        })
        .collect()
}
