//! Running a job's condition gate *(ours, SPEC §16)* before anything else of the run: the
//! command (`jobs::gate::Gate`, already checked) runs without a shell in the data directory,
//! with the bot's environment (its own directory first on `PATH`, so `ollim-bot …` is found),
//! no input, at most [`GATE_TIMEOUT`], and its output kept up to [`GATE_OUTPUT_CAP`] bytes.
//!
//! - exit 0: the gate is open; the job runs with the output under `GATE OUTPUT:`;
//! - any other exit (or a signal): closed; the run is skipped (the runner reports it);
//! - it cannot start (no such program, not executable) or runs past the limit: the gate failed,
//!   and so does the run — a broken gate must not read as "nothing to do".

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::{RunError, RunJob, RunOutcome, Skip, SkipReason};
use crate::base::data_dir::DataDir;
use crate::jobs::gate::Gate;

/// Longest a gate may run.
pub const GATE_TIMEOUT: Duration = Duration::from_secs(30);
/// Most bytes of the gate's output kept for the prompt.
pub const GATE_OUTPUT_CAP: usize = 4096;
/// Appended to output that was cut.
const CUT: &str = "\n[...truncated]";

/// What a gate said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateVerdict {
    /// Exit 0: run the job; what it printed.
    Open(String),
    /// Another exit: skip this run.
    Closed(Closed),
    /// It could not decide.
    Failed(GateFailure),
}

/// A gate that said no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    /// Its exit code (`None`: ended by a signal).
    pub code: Option<i32>,
    /// The first non-empty line it wrote to stderr, if any.
    pub said: Option<String>,
}

/// Why a gate could not decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateFailure {
    /// The program could not be started.
    #[error("gate `{gate}` could not start: {cause}")]
    CouldNotStart {
        /// The gate as written.
        gate: String,
        /// Why.
        cause: String,
    },
    /// It ran past the limit and was killed.
    #[error("gate `{gate}` did not finish within {secs} s and was stopped")]
    TimedOut {
        /// The gate as written.
        gate: String,
        /// The limit in seconds.
        secs: u64,
    },
    /// Waiting for it failed.
    #[error("gate `{gate}` could not be waited for: {cause}")]
    Lost {
        /// The gate as written.
        gate: String,
        /// Why.
        cause: String,
    },
}

/// Runs `gate` in `cwd`, within `timeout`, keeping at most `cap` bytes of its output.
pub async fn run_gate(gate: &Gate, cwd: &Path, timeout: Duration, cap: usize) -> GateVerdict {
    let spawned = Command::new(gate.program())
        .args(gate.args())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return GateVerdict::Failed(GateFailure::CouldNotStart {
                gate: gate.to_string(),
                cause: e.to_string(),
            })
        }
    };
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let finished = tokio::time::timeout(timeout, async {
        let (out, err) = tokio::join!(read_capped(stdout, cap), read_capped(stderr, cap));
        (out, err, child.wait().await)
    })
    .await;
    let Ok(((out, cut), (err, _), status)) = finished else {
        // Dropping the future dropped the child: kill_on_drop ends it.
        return GateVerdict::Failed(GateFailure::TimedOut {
            gate: gate.to_string(),
            secs: timeout.as_secs(),
        });
    };
    match status {
        Ok(status) if status.success() => GateVerdict::Open(output_text(&out, cut)),
        Ok(status) => GateVerdict::Closed(Closed {
            code: status.code(),
            said: String::from_utf8_lossy(&err)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_owned),
        }),
        Err(e) => GateVerdict::Failed(GateFailure::Lost {
            gate: gate.to_string(),
            cause: e.to_string(),
        }),
    }
}

/// Reads all of `pipe`, keeping the first `cap` bytes; whether there was more. Reading on to
/// the end keeps a chatty gate from dying of a closed pipe, which would read as a "no".
async fn read_capped<R: AsyncRead + Unpin>(pipe: Option<R>, cap: usize) -> (Vec<u8>, bool) {
    let Some(mut pipe) = pipe else {
        return (Vec::new(), false);
    };
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut more = false;
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
                more |= n > room;
            }
        }
    }
    (kept, more)
}

/// The output as it goes into the prompt: valid text, trailing newlines dropped, cut marked.
fn output_text(bytes: &[u8], cut: bool) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    if cut {
        format!("{text}{CUT}")
    } else {
        text.to_owned()
    }
}

/// Runs the job's gate, if it has one: `Ok` with its output when the run goes on (`None`
/// without a gate), `Err` with the run's outcome when it stops here.
pub(super) async fn open(data: &DataDir, run: &RunJob) -> Result<Option<String>, RunOutcome> {
    let Some(gate) = &run.job.settings().gate else {
        return Ok(None);
    };
    let job = run.job.id().to_string();
    match run_gate(gate, data.root(), GATE_TIMEOUT, GATE_OUTPUT_CAP).await {
        GateVerdict::Open(output) => {
            tracing::debug!(job = %job, %gate, "gate open");
            Ok(Some(output))
        }
        GateVerdict::Closed(closed) => Err(RunOutcome::Skipped(Skip {
            job,
            why: SkipReason::Gate {
                gate: gate.to_string(),
                closed,
            },
        })),
        GateVerdict::Failed(failure) => {
            Err(RunOutcome::Failed(RunError::GateFailed { job, failure }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(command: &str, timeout: Duration) -> GateVerdict {
        let gate = Gate::parse(command).unwrap();
        run_gate(&gate, &std::env::temp_dir(), timeout, 64).await
    }

    #[tokio::test]
    async fn exit_zero_opens_the_gate_with_its_output() {
        assert_eq!(
            run("echo 3 unread from Jo", GATE_TIMEOUT).await,
            GateVerdict::Open("3 unread from Jo".into())
        );
        // No shell: the quotes group, nothing is expanded.
        assert_eq!(
            run("printf '%s+%s' $HOME '*'", GATE_TIMEOUT).await,
            GateVerdict::Open("$HOME+*".into())
        );
    }

    #[tokio::test]
    async fn another_exit_closes_it_naming_the_code_and_what_it_said() {
        assert_eq!(
            run("false", GATE_TIMEOUT).await,
            GateVerdict::Closed(Closed {
                code: Some(1),
                said: None
            })
        );
        let GateVerdict::Closed(closed) = run("ls /no/such/dir", GATE_TIMEOUT).await else {
            panic!("closed");
        };
        assert_eq!(closed.code, Some(2));
        assert!(closed.said.is_some_and(|s| s.contains("/no/such/dir")));
    }

    #[tokio::test]
    async fn a_gate_that_cannot_start_or_finish_has_failed() {
        let missing = run("no-such-program-here --x", GATE_TIMEOUT).await;
        assert!(
            matches!(&missing, GateVerdict::Failed(GateFailure::CouldNotStart { gate, .. }) if gate == "no-such-program-here --x"),
            "{missing:?}"
        );
        let slow = run("sleep 30", Duration::from_millis(300)).await;
        assert!(
            matches!(slow, GateVerdict::Failed(GateFailure::TimedOut { .. })),
            "{slow:?}"
        );
    }

    #[tokio::test]
    async fn long_output_is_cut_at_the_cap_and_the_exit_still_counts() {
        // 64 bytes kept of ~7 KB; the gate is not killed by a closed pipe.
        let verdict = run("seq 1 2000", GATE_TIMEOUT).await;
        let GateVerdict::Open(text) = verdict else {
            panic!("open: {verdict:?}");
        };
        assert!(text.starts_with("1\n2\n3\n"), "{text}");
        assert!(text.ends_with("\n[...truncated]"), "{text}");
        assert!(text.len() <= 64 + CUT.len());
    }
}
