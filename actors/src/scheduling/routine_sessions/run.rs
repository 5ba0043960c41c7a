//! One fire of a persistent routine, as its background fork sees it: which session it starts
//! (resumed, or new), whether `/compact` goes first, and what is saved when the run ends.

use crate::base::data_dir::DataDir;
use crate::claude::brain::{SessionStart, TurnResult};
use crate::jobs::session_mode::SessionMode;
use crate::jobs::Job;

use super::store::{self, Saved, Usage};

/// Where the fire stands with its compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compaction {
    /// None asked for (yet).
    NotAsked,
    /// `/compact` was sent; the job's prompt waits for its result.
    Running,
    /// Over (done or failed): the job's prompt has gone.
    Over,
}

/// The state of one persistent routine's fire.
#[derive(Debug)]
pub struct PersistentRun {
    data: DataDir,
    routine: String,
    /// What the previous fires left, when the fire resumes it.
    resume: Option<Saved>,
    compaction: Compaction,
    /// The model the CLI reported.
    model: Option<String>,
    /// What the last model call of the job's turn read.
    context_tokens: Option<u64>,
}

impl PersistentRun {
    /// The run of `job` when it is a persistent routine (its saved session read now), else
    /// `None`.
    pub fn for_job(data: &DataDir, job: &Job) -> Option<Self> {
        let Job::Routine(routine) = job else {
            return None;
        };
        if routine.session != SessionMode::Persistent {
            return None;
        }
        let routine = routine.id.as_str().to_owned();
        let resume = store::load(data, &routine);
        Some(Self {
            data: data.clone(),
            routine,
            resume,
            compaction: Compaction::NotAsked,
            model: None,
            context_tokens: None,
        })
    }

    /// The session the CLI starts with: the saved one resumed in place, or a new, empty one.
    pub fn session_start(&self) -> SessionStart {
        match &self.resume {
            Some(saved) => SessionStart::Resume(saved.session_id.clone()),
            None => SessionStart::NewWithId(uuid::Uuid::new_v4().to_string()),
        }
    }

    /// Whether the CLI is asked to resume a saved session.
    pub fn resuming(&self) -> bool {
        self.resume.is_some()
    }

    /// The saved session could not be resumed (its transcript is gone): the fire starts a new
    /// one, which replaces it when the run ends.
    pub fn start_new(&mut self) {
        if let Some(saved) = self.resume.take() {
            tracing::warn!(routine = %self.routine, session = %saved.session_id, "could not resume the routine's session; it starts a new one");
        }
    }

    /// Called once the CLI is up: whether `/compact` goes to the session before the prompt
    /// (its last run ended past the threshold). From then on [`Self::compacting`] holds until
    /// [`Self::compaction_over`].
    pub fn compact_first(&mut self) -> bool {
        let due = self.compaction == Compaction::NotAsked
            && self.resume.as_ref().is_some_and(Saved::compaction_due);
        if due {
            let usage = self.resume.as_ref().and_then(|s| s.usage);
            tracing::info!(routine = %self.routine, ?usage, "the routine's session is past its threshold; compacting it before the fire");
            self.compaction = Compaction::Running;
        }
        due
    }

    /// Whether the session is being compacted (the result that comes is the compaction's).
    pub fn compacting(&self) -> bool {
        self.compaction == Compaction::Running
    }

    /// The compaction's result came: the job's prompt goes next. A failed compaction is logged
    /// and the fire goes on in the session as it is.
    pub fn compaction_over(&mut self, result: &TurnResult) {
        self.compaction = Compaction::Over;
        if result.is_error {
            tracing::warn!(routine = %self.routine, errors = ?result.errors, result = ?result.result, "compacting the routine's session failed; the fire goes on without");
        } else {
            tracing::info!(routine = %self.routine, "the routine's session is compacted");
        }
    }

    /// The model the CLI reported at start.
    pub fn on_model(&mut self, model: Option<&str>) {
        if model.is_some() {
            self.model = model.map(str::to_owned);
        }
    }

    /// A model call of the job's turn read `tokens` of context.
    pub fn on_context(&mut self, tokens: u64) {
        self.context_tokens = Some(tokens);
    }

    /// The job's turn ended with `result`: saves the session to resume next time (with the
    /// context it ended with). A session the CLI did not name is not saved.
    pub fn finish(&self, result: &TurnResult, session_seen: Option<&str>) {
        let session_id = if result.session_id.is_empty() {
            match session_seen {
                Some(id) => id.to_owned(),
                None => {
                    tracing::warn!(routine = %self.routine, "the run named no session; nothing saved");
                    return;
                }
            }
        } else {
            result.session_id.clone()
        };
        let context_tokens = self.context_tokens.unwrap_or_else(|| {
            let u = &result.usage;
            u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
        });
        let saved = Saved {
            session_id,
            usage: Some(Usage {
                context_tokens,
                window: crate::conversation::main_session::window_of(self.model.as_deref()),
            }),
        };
        match store::save(&self.data, &self.routine, &saved) {
            Ok(()) => {
                tracing::info!(routine = %self.routine, session = %saved.session_id, context_tokens, "saved the routine's session")
            }
            Err(e) => {
                tracing::error!(routine = %self.routine, cause = %e, "could not save the routine's session; its next fire starts a new one")
            }
        }
    }
}
