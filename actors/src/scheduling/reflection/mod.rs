//! Reflections (SPEC §17; the original's "structural reflections" of 2026-04-09): after a
//! background fork's run ends — completed, failed or timed out — a job with `reflect: true`
//! (the default) gets a short execution trace in the data directory,
//! `reflections/<item-id>/<YYYY-MM-DDTHH-MM-SSZ>.md` (UTC, the run's end), committed like the
//! other markdown the bot writes. Foreground runs get none: they ran in the conversation.
//!
//! The facts come from the run's line in the run history and are written by us
//! ([`render`]): status, whether it filed a report (and the report), whether it pinged, errors,
//! start, duration, cost and turns. Only the **Trace** — 1-3 sentences on what the task was
//! meant to do and what its status shows happened — is the model's: an isolated Haiku turn
//! ([`model`]) is given the job's description and prompt and the pre-filled file, and writes
//! the file with its one tool, `Write` scoped to `reflections/**/*.md`. We then read its trace
//! back and write the file again from our facts, so a miscopied field never survives; when the
//! model fails, times out (60 s) or writes nothing, the file still gets our facts and a note
//! saying why there is no trace. The reflection's own cost is the file's last line.
//!
//! The [`Reflector`] actor runs one reflection at a time. Its model is a CLI process like a
//! fork's, so it counts against `bg_fork_limit`: the job runner closes the run and frees the
//! fork's slot first (the next job in line starts then), and asks for the reflection only once
//! a slot is free again and no job waits for one; the reflection holds that slot until it is
//! written (the job runner's queue). Failures are logged, never told to
//! the owner. Reflections are kept (the docs prune nothing); `memory search` is to read them (SPEC §18),
//! and the dashboard's Runs page shows each run's ([`lookup`]).

pub mod lookup;
pub mod model;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, FixedOffset};

use crate::base::data_dir::DataDir;
use crate::jobs::Job;
use crate::records::runs::RunRecord;
pub use model::{MODEL, TAG_PREFIX, TOOL, WRITE_RULE};
pub use render::{Facts, ModelCost, Trace};

/// How long the reflection model may take.
pub const MODEL_TIMEOUT: Duration = Duration::from_secs(60);

/// What the job runner keeps of a job whose fork it starts, for the reflection after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The job's `description`.
    pub description: String,
    /// The job's own prompt (its file's body; a webhook's template).
    pub prompt: String,
    /// The time limit its fork runs under.
    pub timeout: Duration,
}

impl Subject {
    /// The subject of `job`'s reflection, or `None` when it says `reflect: false`.
    pub fn of(job: &Job, timeout: Duration) -> Option<Self> {
        let settings = job.settings();
        settings.reflect.then(|| Subject {
            description: settings.description.clone(),
            prompt: job.message().to_owned(),
            timeout,
        })
    }
}

/// What the reflector needs.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// The data directory (the model's working directory; reflections go inside it).
    pub data_dir: DataDir,
    /// The `claude` executable.
    pub binary: PathBuf,
    /// Extra environment for the model's process (the background forks').
    pub cli_env: BTreeMap<String, String>,
    /// The model's time limit ([`MODEL_TIMEOUT`]).
    pub timeout: Duration,
}

/// Writes reflections, one at a time.
pub struct Reflector {
    config: ReflectorConfig,
}

impl Reflector {
    /// A reflector writing into `config.data_dir`.
    pub fn new(config: ReflectorConfig) -> Self {
        Self { config }
    }
}

impl Actor for Reflector {
    type Context = Context<Self>;
}

/// Reflect on a run that has closed: its line in the run history and the reports it filed.
/// Answered once the file is written and committed.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Reflected")]
pub struct Reflect {
    /// The job.
    pub subject: Subject,
    /// The run's line.
    pub record: RunRecord,
    /// The texts it reported, in order.
    pub reports: Vec<String>,
}

/// What a reflection left.
#[derive(Debug, Clone, PartialEq)]
pub struct Reflected {
    /// The file written (`None` when it could not be).
    pub path: Option<PathBuf>,
    /// It holds the model's trace (not only our facts).
    pub traced: bool,
    /// What the model cost, when known.
    pub cost_usd: Option<f64>,
}

impl Handler<Reflect> for Reflector {
    type Result = AtomicResponse<Self, Reflected>;

    fn handle(&mut self, msg: Reflect, _ctx: &mut Self::Context) -> Self::Result {
        let config = self.config.clone();
        AtomicResponse::new(Box::pin(reflect(config, msg).into_actor(self)))
    }
}

/// One reflection, start to end.
async fn reflect(config: ReflectorConfig, msg: Reflect) -> Reflected {
    let facts = Facts {
        record: msg.record,
        reports: msg.reports,
        timeout: msg.subject.timeout,
    };
    let job = facts.record.job.to_string();
    let nothing = Reflected {
        path: None,
        traced: false,
        cost_usd: None,
    };
    let dir = config.data_dir.reflections().join(render::dir_name(&job));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(%job, dir = %dir.display(), cause = %e, "could not create the reflections directory; no reflection written");
        return nothing;
    }
    let path = free_path(&dir, facts.record.ended);
    let text = model::JobText {
        description: &msg.subject.description,
        prompt: &msg.subject.prompt,
    };
    let prompt = model::prompt(&facts.tag(), &text, &path, &render::template(&facts));
    let call = model::ModelCall {
        binary: config.binary.clone(),
        cwd: config.data_dir.root().to_path_buf(),
        env: config.cli_env.clone(),
        timeout: config.timeout,
    };
    let end = model::run(&call, prompt).await;
    let written = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            tracing::warn!(file = %path.display(), cause = %e, "could not read what the reflection model wrote");
            None
        }
    };
    let trace = match written.as_deref().and_then(render::trace_in) {
        Some(trace) => Trace::Written(trace),
        None => Trace::Missing(end.failure.clone().unwrap_or_else(|| {
            match written {
                Some(_) => "the reflection model left the trace empty",
                None => "the reflection model wrote nothing",
            }
            .to_owned()
        })),
    };
    if let Some(failure) = &end.failure {
        tracing::warn!(%job, cause = %failure, "the reflection model did not finish");
    }
    let file = render::render(&facts, &trace, MODEL, end.cost);
    if let Err(e) = crate::base::state_file::write_atomic(&path, file.as_bytes()) {
        tracing::error!(%job, cause = %e, "could not write the reflection");
        return nothing;
    }
    commit(&config.data_dir, &path).await;
    let traced = matches!(trace, Trace::Written(_));
    let cost_usd = end.cost.and_then(|c| c.cost_usd);
    tracing::info!(%job, file = %path.display(), traced, cost_usd = ?cost_usd, "reflection written");
    Reflected {
        path: Some(path),
        traced,
        cost_usd,
    }
}

/// The first free name in `dir` for a run that ended at `ended`.
fn free_path(dir: &Path, ended: DateTime<FixedOffset>) -> PathBuf {
    (1..=99)
        .map(|attempt| dir.join(render::file_name(ended, attempt)))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| {
            let stem = render::file_name(ended, 1);
            let stem = stem.trim_end_matches(".md");
            let unique = uuid::Uuid::new_v4().simple().to_string();
            dir.join(format!("{stem}-{}.md", &unique[..8]))
        })
}

/// Commits the file (git is a subprocess: off the actor's thread, at background priority).
async fn commit(data: &DataDir, path: &Path) {
    let rel = path
        .strip_prefix(data.root())
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| path.display().to_string());
    let (data, path) = (data.clone(), path.to_path_buf());
    let message = format!("auto: write {rel}");
    if let Err(e) = tokio::task::spawn_blocking(move || data.commit(&path, &message)).await {
        tracing::warn!(cause = %e, "the reflection's commit did not finish");
    }
}
