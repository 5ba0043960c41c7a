//! *(ours, SPEC §21)* A run's reflection read back, for the dashboard's Runs page: the file the
//! [`Reflector`](super::Reflector) wrote for a run is named by the run's job and end
//! ([`render::dir_name`], [`render::file_name`]), so its line in the run history finds it. A
//! reflection is written once and then only read (by `memory search` too); a run without one
//! (a foreground job, `reflect: false`, a miss) finds nothing.

use std::path::PathBuf;

use super::render::{self, TRACE_LABEL};
use crate::base::data_dir::DataDir;
use crate::records::runs::RunRecord;

/// The most characters of a trace shown.
pub const MAX_SHOWN_CHARS: usize = 1_000;

/// A run's reflection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReflection {
    /// Its file, relative to the data directory.
    pub file: String,
    /// Its trace (what the model wrote, or why there is none), cut to [`MAX_SHOWN_CHARS`].
    pub trace: String,
}

/// The reflection of the run `record`, when one was written; a file that cannot be read is
/// logged and counts as none.
pub fn of_run(data_dir: &DataDir, record: &RunRecord) -> Option<RunReflection> {
    let rel: PathBuf = [
        crate::base::data_dir::REFLECTIONS.to_owned(),
        render::dir_name(&record.job.to_string()),
        render::file_name(record.ended, 1),
    ]
    .iter()
    .collect();
    let text = match std::fs::read_to_string(data_dir.root().join(&rel)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(file = %rel.display(), cause = %e, "reflection unreadable");
            return None;
        }
    };
    Some(RunReflection {
        file: rel.display().to_string(),
        trace: trace_of(&text),
    })
}

/// The trace in a reflection file: the paragraph after `**Trace**:`.
fn trace_of(text: &str) -> String {
    let after = match text.find(TRACE_LABEL) {
        Some(at) => &text[at + TRACE_LABEL.len()..],
        None => text,
    };
    let para = after.trim_start().split("\n\n").next().unwrap_or_default();
    para.trim().chars().take(MAX_SHOWN_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;

    use super::*;
    use crate::jobs::JobId;
    use crate::records::runs::{JobKind, Outcome, Trigger};
    use crate::scheduling::reflection::render::{render, Facts, ModelCost, Trace};

    fn record(ended: &str) -> RunRecord {
        let t = DateTime::parse_from_rfc3339(ended).unwrap();
        RunRecord {
            run: "r1".into(),
            job: JobId("a1b2c3d4".into()),
            kind: JobKind::Routine,
            tag: "routine-bg".into(),
            name: "Morning".into(),
            file: "routines/morning.md".into(),
            scheduled: t,
            started: Some(t),
            ended: t,
            outcome: Outcome::Ok,
            pinged: false,
            reported: true,
            cost_usd: Some(0.01),
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
    fn a_runs_reflection_is_found_by_its_job_and_end_with_its_trace() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let run = record("2026-11-28T09:00:05+01:00");
        assert_eq!(of_run(&data, &run), None);
        let facts = Facts {
            record: run.clone(),
            reports: vec![],
            timeout: std::time::Duration::from_secs(60),
        };
        let trace = Trace::Written("It checked the calendar and reported two meetings.".into());
        let cost = ModelCost {
            cost_usd: Some(0.001),
            turns: Some(1),
        };
        let dir = data.reflections().join("a1b2c3d4");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("2026-11-28T08-00-05Z.md"),
            render(&facts, &trace, "haiku", Some(cost)),
        )
        .unwrap();
        let found = of_run(&data, &run).unwrap();
        assert_eq!(found.file, "reflections/a1b2c3d4/2026-11-28T08-00-05Z.md");
        assert_eq!(
            found.trace,
            "It checked the calendar and reported two meetings."
        );
    }
}
