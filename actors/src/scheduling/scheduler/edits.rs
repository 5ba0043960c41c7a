//! Routine and reminder files written whole *(ours, SPEC §21: the dashboard's create and
//! edit)*: the text is checked by the same validator that refuses a bad file to the agent
//! ([`crate::jobs::validate`], the loader's own parse and cron reading), and only then written
//! — atomically, and committed like every other change of a job file — after which the
//! scheduler reloads. A refused text leaves the file as it was.

use actix::prelude::*;

use super::Scheduler;
use crate::base::state_file;
use crate::jobs::store::{self, Item};
use crate::jobs::validate::{self, Kind};
use crate::jobs::{reminder, routine, slug, JobId};

/// Asks for a job file's text.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<JobFile, String>")]
pub struct ReadJobFile {
    /// Routine or reminder.
    pub kind: Kind,
    /// Its id.
    pub id: JobId,
}

/// A job file as it is on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFile {
    /// Its path relative to the data directory.
    pub rel_path: String,
    /// Its whole text.
    pub text: String,
}

/// Writes a job file's whole text, once the validator passes it.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<SavedJob, String>")]
pub struct WriteJobFile {
    /// Routine or reminder.
    pub kind: Kind,
    /// The job being edited (its id may not change); `None` for a new one.
    pub editing: Option<JobId>,
    /// The file's text, frontmatter and body.
    pub text: String,
}

/// What a [`WriteJobFile`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedJob {
    /// The job's id.
    pub id: JobId,
    /// Its path relative to the data directory.
    pub rel_path: String,
    /// What the validator warned about (written anyway).
    pub warnings: Vec<String>,
}

impl Scheduler {
    fn job_dir(&self, kind: Kind) -> std::path::PathBuf {
        match kind {
            Kind::Routine => self.config.data_dir.routines(),
            Kind::Reminder => self.config.data_dir.reminders(),
        }
    }

    fn rel(&self, path: &std::path::Path) -> String {
        path.strip_prefix(self.config.data_dir.root())
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

fn noun(kind: Kind) -> &'static str {
    match kind {
        Kind::Routine => "routine",
        Kind::Reminder => "reminder",
    }
}

impl Handler<ReadJobFile> for Scheduler {
    type Result = Result<JobFile, String>;

    fn handle(&mut self, msg: ReadJobFile, _ctx: &mut Self::Context) -> Self::Result {
        let dir = self.job_dir(msg.kind);
        let path = store::find_path(&dir, msg.id.as_str())
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no {} has the id {}", noun(msg.kind), msg.id))?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        Ok(JobFile {
            rel_path: self.rel(&path),
            text,
        })
    }
}

impl Handler<WriteJobFile> for Scheduler {
    type Result = Result<SavedJob, String>;

    fn handle(&mut self, msg: WriteJobFile, ctx: &mut Self::Context) -> Self::Result {
        let WriteJobFile {
            kind,
            editing,
            text,
        } = msg;
        let verdict = validate::check(kind, &text);
        if let Some(problem) = verdict.problem {
            tracing::info!(kind = noun(kind), %problem, "a job file edit was refused");
            return Err(problem);
        }
        let (id, stem) = match kind {
            Kind::Routine => {
                let r = routine::parse(&text).map_err(|e| e.to_string())?;
                (r.id.clone(), r.file_stem())
            }
            Kind::Reminder => {
                let r = reminder::parse(&text).map_err(|e| e.to_string())?;
                (r.id.clone(), r.file_stem())
            }
        };
        let dir = self.job_dir(kind);
        let existing = store::find_path(&dir, id.as_str()).map_err(|e| e.to_string())?;
        let path = match (&editing, existing) {
            (Some(old), _) if *old != id => {
                return Err(format!(
                    "the id cannot change here ({old} → {id}); create a new {} instead",
                    noun(kind)
                ))
            }
            (Some(old), None) => return Err(format!("no {} has the id {old}", noun(kind))),
            (Some(_), Some(path)) => {
                state_file::write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
                path
            }
            (None, Some(_)) => {
                return Err(format!("a {} with the id {id} already exists", noun(kind)))
            }
            (None, None) => {
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("creating {}: {e}", dir.display()))?;
                let names = slug::candidates(&stem).map(|name| dir.join(name));
                state_file::create_new(names, text.as_bytes()).map_err(|e| e.to_string())?
            }
        };
        let verb = if editing.is_some() { "edit" } else { "add" };
        let data = self.config.data_dir.clone();
        let commit = format!("{verb} {} {id} (dashboard)", noun(kind));
        let commit_path = path.clone();
        // git is a subprocess: keep it off the actor's thread.
        std::thread::spawn(move || data.commit(&commit_path, &commit));
        self.reload(ctx);
        tracing::info!(kind = noun(kind), job = %id, "job file written, as asked");
        Ok(SavedJob {
            id,
            rel_path: self.rel(&path),
            warnings: verdict.warnings,
        })
    }
}
