//! The saved session (SPEC §5): the id of the session the conversation works in, saved after
//! every turn so a restart resumes it, and what the next start or save has to know about it —
//! a fresh session made because the saved one could not be resumed, a cleared session to
//! start afresh, the memory the running process read (`memory_reload`).

use crate::agent::memory::Stamp;
use crate::base::data_dir::DataDir;
use crate::base::state_file::NotSaved;
use crate::conversation::surface::SurfaceEvent;
use crate::records::sessions::records::{NoteSavedId, RecordSession};
use crate::records::sessions::{EventKind, IdChange, MainSessionFile};

use super::turn::TurnKind;
use super::MainSession;

/// The session this conversation works in and its bookkeeping.
pub(super) struct SavedSession {
    /// The session id (a fork's arrives with its first turn).
    pub(super) id: Option<String>,
    /// Where the main session's id is saved.
    pub(super) file: MainSessionFile,
    /// The process runs a session created because the saved one could not be resumed.
    pub(super) fresh_after_failed_resume: bool,
    /// `context.md` as the running process read it (`memory_reload`).
    pub(super) memory_at_launch: Option<Stamp>,
    /// The next start begins the just-cleared session afresh (`memory_reload`).
    pub(super) cleared_restart: bool,
}

impl SavedSession {
    /// The session saved in `data_dir`, if any (none when it cannot be read).
    pub(super) fn load(data_dir: &DataDir) -> Self {
        let file = MainSessionFile::in_data_dir(data_dir);
        let id = file.load().unwrap_or_else(|e| {
            tracing::error!(cause = %e, "could not read the saved session id; starting fresh");
            None
        });
        Self {
            id,
            file,
            fresh_after_failed_resume: false,
            memory_at_launch: None,
            cleared_restart: false,
        }
    }

    /// The id in the file now (a fork's save compares it; none when it cannot be read).
    pub(super) fn read_file(&self) -> Option<String> {
        self.file.load().unwrap_or_else(|e| {
            tracing::error!(cause = %e, "could not read the saved session id");
            None
        })
    }

    /// A turn's result names `id` (empty: none): true when that is a new session id, which is
    /// the session's now.
    pub(super) fn note_result_id(&mut self, id: &str) -> bool {
        if id.is_empty() || self.id.as_deref() == Some(id) {
            return false;
        }
        self.id = Some(id.to_owned());
        true
    }

    /// The session a result belongs to: the one it names, else this one.
    pub(super) fn id_of(&self, result_id: &str) -> String {
        if result_id.is_empty() {
            self.id.clone().unwrap_or_default()
        } else {
            result_id.to_owned()
        }
    }

    /// A process has started, having read the memory of `data_dir` as it is now.
    pub(super) fn launched(&mut self, data_dir: &DataDir) {
        self.memory_at_launch = crate::agent::memory::stamp(data_dir);
    }

    /// The process started the new session `id`: after a saved one that could not be resumed,
    /// if there was one.
    pub(super) fn started_fresh(&mut self, id: String) {
        self.fresh_after_failed_resume = self.id.is_some();
        self.id = Some(id);
    }

    /// `context.md` is no longer what the running process read.
    pub(super) fn memory_changed(&self, data_dir: &DataDir) -> bool {
        crate::agent::memory::stamp(data_dir) != self.memory_at_launch
    }

    /// Makes `id` the session, saved first: when it cannot be written nothing changes, so the
    /// session in memory stays the one on disk. Returns the session it replaced.
    pub(super) fn adopt(&mut self, id: &str) -> Result<Option<String>, NotSaved> {
        if let Err(e) = self.file.save(id) {
            tracing::error!(cause = %e, "could not save the adopted session id; the main session stays as it was");
            return Err(NotSaved {
                file: self.file.path().to_path_buf(),
                cause: e.cause(),
            });
        }
        Ok(self.id.replace(id.to_owned()))
    }
}

impl MainSession {
    /// Saves the session id after a turn and records what the change means in the history.
    pub(super) fn persist_session_id(&mut self, kind: TurnKind) {
        let Some(id) = self.saved.id.clone() else {
            return;
        };
        let change = match self.saved.file.save(&id) {
            Ok(change) => change,
            Err(e) => {
                tracing::error!(cause = %e, "could not save the main session id");
                if kind == TurnKind::Clear {
                    // The CLI has cleared already; what is not true is that it lasts.
                    self.show(SurfaceEvent::Notice(format!(
                        "-# couldn't save {}: {} — the conversation is cleared for now, but a \
                         restart would bring the old one back.",
                        self.saved.file.path().display(),
                        e.cause()
                    )));
                }
                return;
            }
        };
        let record = |kind, parent: Option<&String>| RecordSession {
            kind,
            session_id: id.clone(),
            parent: parent.cloned(),
        };
        match (&change, kind) {
            (IdChange::Replaced { previous }, TurnKind::Clear) => self
                .records
                .do_send(record(EventKind::Cleared, Some(previous))),
            (IdChange::Replaced { .. }, _) if self.saved.fresh_after_failed_resume => {
                self.saved.fresh_after_failed_resume = false;
                self.records.do_send(record(EventKind::Created, None));
            }
            _ => self.records.do_send(NoteSavedId {
                session_id: id.clone(),
                change,
            }),
        }
    }
}
