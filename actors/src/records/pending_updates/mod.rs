//! The PendingUpdates actor (SPEC §8): the one owner of the queue of background updates for the
//! main session and of `state/pending_updates.json`.
//!
//! | message | sent by | answer |
//! | --- | --- | --- |
//! | [`Append`] | `report_updates` in a fork, task buttons | [`Queued`]: the entries now queued, and whether the file holds them |
//! | [`Peek`] | an interactive fork building its next message | the queue, unchanged |
//! | [`Pop`] | the main session building its next message | the queue, which is then empty |
//! | [`Clear`] | `save_context` (the fork becomes the main session) | — |
//!
//! The mailbox serialises every append, so any number of concurrent forks never lose one
//! another's updates, and a pop hands each update out exactly once. The queue lives in memory
//! and every change is written atomically in the original's shape (an array of `{ts, message}`);
//! an emptied queue removes the file, as the original does, and a missing file or `[]` both read
//! as empty. `started()` reads the file, so a new actor on the same file continues where the
//! last one stopped. Formatting for delivery is in [`delivery`]; the cap rule in [`queue`].
//!
//! A write that fails (a full disk) leaves the queue in memory only: [`Queued::unsaved`] says
//! so to whoever appended (`report_updates` tells the agent), and the actor writes the queue
//! again on its next change, every [`RETRY`] until a write works, and when it stops — so an
//! update is lost only if the disk never has room before the process ends.
//!
//! Bounds on load: a file over the cap, or with updates longer than
//! [`queue::MAX_MESSAGE_CHARS`], is bounded in memory by the same rules as an append (logged
//! as a warning), so the next message never carries more than ten short entries. Reading does
//! not write: the file stays as it is until the next change, and that change first moves the
//! oversized file aside to `pending_updates.json.untrimmed-<timestamp>` (logged), so what the
//! bounds left out is never lost.

pub mod delivery;
pub mod queue;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use std::time::Duration;

use actix::{Actor, AsyncContext, Context, Handler, Message, MessageResult, Supervised};
use chrono::SecondsFormat;
use chrono_tz::Tz;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::base::state_file::{self, Loaded};

pub use delivery::{prepend_updates, relative_time, Reader};
pub use queue::{PendingUpdate, CAP, MAX_MESSAGE_CHARS};

/// Name of the queue's file inside `state/`.
pub const FILE_NAME: &str = "pending_updates.json";

/// How often a queue that could not be written is tried again.
pub const RETRY: Duration = Duration::from_secs(60);

/// Queues an update for the main session, stamped now in the configured zone.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Queued")]
pub struct Append {
    /// What happened.
    pub message: String,
}

/// What an [`Append`] left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The entries now queued.
    pub len: usize,
    /// Why the queue is in memory only (its file could not be written), if it is.
    pub unsaved: Option<String>,
}

/// Asks for the queued updates without consuming them.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<PendingUpdate>")]
pub struct Peek;

/// Takes every queued update, leaving the queue empty.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Vec<PendingUpdate>")]
pub struct Pop;

/// Drops every queued update unread.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Clear;

/// The actor owning the queue and its file.
pub struct PendingUpdates {
    /// Where the queue is persisted.
    path: PathBuf,
    /// The source of every timestamp.
    clock: SharedClock,
    /// The zone timestamps are written in.
    zone: Tz,
    /// The queue, oldest first; (re)loaded from disk in `started`.
    queue: Vec<PendingUpdate>,
    /// The file holds more than `queue` (it was bounded on load) and must be kept aside
    /// before it is first replaced.
    untrimmed_on_disk: bool,
    /// Why the file lags the queue in memory (its last write failed), while it does.
    unsaved: Option<String>,
    /// A retry of that write is scheduled.
    retry_armed: bool,
    /// Entered by every handler.
    span: tracing::Span,
}

impl PendingUpdates {
    /// An actor persisting to `path`; it reads the file when started.
    pub fn new(path: impl Into<PathBuf>, clock: SharedClock, zone: Tz) -> Self {
        PendingUpdates {
            path: path.into(),
            clock,
            zone,
            queue: Vec::new(),
            untrimmed_on_disk: false,
            unsaved: None,
            retry_armed: false,
            span: tracing::Span::none(),
        }
    }

    /// An actor persisting to `state/pending_updates.json` in `data_dir`.
    pub fn in_data_dir(data_dir: &DataDir, clock: SharedClock, zone: Tz) -> Self {
        Self::new(data_dir.state_file(FILE_NAME), clock, zone)
    }

    /// The file this actor owns.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Now as ISO 8601 in the configured zone, with its offset (as the original writes it).
    fn now_ts(&self) -> String {
        self.clock
            .now()
            .with_timezone(&self.zone)
            .to_rfc3339_opts(SecondsFormat::Micros, false)
    }

    /// Writes the queue, or removes the file when the queue is empty. A failure is logged and
    /// kept in `unsaved`: the queue in memory stays authoritative, and it is written again on
    /// the next change, every [`RETRY`] and when the actor stops.
    fn persist(&mut self, ctx: &mut Context<Self>) {
        match self.write() {
            Ok(()) => {
                if self.unsaved.take().is_some() {
                    tracing::info!(queued = self.queue.len(), "pending updates saved again");
                }
            }
            Err(err) => {
                tracing::error!(cause = %err, queued = self.queue.len(), "could not save pending updates; they are held in memory");
                self.unsaved = Some(err.to_string());
                if !std::mem::replace(&mut self.retry_armed, true) {
                    ctx.run_later(RETRY, |act, ctx| {
                        act.retry_armed = false;
                        if act.unsaved.is_some() {
                            let span = act.span.clone();
                            let _entered = span.enter();
                            act.persist(ctx);
                        }
                    });
                }
            }
        }
    }

    /// One write of the queue (see [`PendingUpdates::persist`]).
    fn write(&mut self) -> Result<(), state_file::Error> {
        if std::mem::take(&mut self.untrimmed_on_disk) {
            match state_file::set_aside(&self.path, "untrimmed") {
                Ok(aside) => tracing::warn!(
                    moved_to = %aside.display(),
                    "kept the oversized pending-updates file aside before replacing it"
                ),
                Err(err) => {
                    tracing::error!(cause = %err, "could not keep the oversized pending-updates file aside")
                }
            }
        }
        if self.queue.is_empty() {
            match fs::remove_file(&self.path) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => Err(state_file::Error::Io {
                    action: "removing",
                    path: self.path.clone(),
                    source: err,
                }),
                _ => Ok(()),
            }
        } else {
            state_file::save_json(&self.path, &self.queue)
        }
    }

    fn load(&mut self) {
        self.untrimmed_on_disk = false;
        self.queue = match state_file::load_json(&self.path, Vec::new) {
            Ok(Loaded::Found(queue)) => queue,
            Ok(Loaded::Missing(queue) | Loaded::Corrupt(queue, _)) => queue,
            Err(err) => {
                tracing::error!(cause = %err, "could not read pending updates; starting empty");
                Vec::new()
            }
        };
        let found = self.queue.len();
        let now = self.now_ts();
        let bounded = queue::bound(&mut self.queue, &now);
        if !bounded.nothing() {
            self.untrimmed_on_disk = true;
            tracing::warn!(
                found,
                kept = self.queue.len(),
                dropped = bounded.dropped,
                cut = bounded.cut,
                max_chars = queue::MAX_MESSAGE_CHARS,
                "pending updates file over its bounds; the newest are kept (behind an omission marker) and long ones cut"
            );
        }
    }
}

impl Actor for PendingUpdates {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.span =
            tracing::info_span!("actor", actor = "pending_updates", file = %self.path.display());
        let span = self.span.clone();
        let _entered = span.enter();
        if self.unsaved.is_some() {
            // Restarted with a queue the file never got: memory is what holds it.
            self.retry_armed = false;
            self.persist(ctx);
        } else {
            self.load();
        }
        tracing::info!(queued = self.queue.len(), "started");
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        let span = self.span.clone();
        let _entered = span.enter();
        if self.unsaved.is_some() {
            match self.write() {
                Ok(()) => tracing::info!(
                    queued = self.queue.len(),
                    "pending updates saved as the actor stopped"
                ),
                Err(err) => {
                    tracing::error!(cause = %err, queued = self.queue.len(), "pending updates held in memory are lost: the file still cannot be written")
                }
            }
        }
    }
}

/// After a restart `started` runs again and reloads the file (unless the file lags memory).
impl Supervised for PendingUpdates {}

impl Handler<Append> for PendingUpdates {
    type Result = MessageResult<Append>;

    fn handle(&mut self, msg: Append, ctx: &mut Self::Context) -> Self::Result {
        let span = self.span.clone();
        let _entered = span.enter();
        let ts = self.now_ts();
        let (message, cut) = queue::bound_message(msg.message);
        if cut > 0 {
            tracing::warn!(cut, "pending update too long; its end was cut");
        }
        let update = PendingUpdate {
            ts: ts.clone(),
            message,
        };
        tracing::debug!(message = %update.message, "pending update text");
        let dropped = queue::append_capped(&mut self.queue, update, &ts);
        self.persist(ctx);
        tracing::info!(
            queued = self.queue.len(),
            dropped,
            "pending update appended"
        );
        MessageResult(Queued {
            len: self.queue.len(),
            unsaved: self.unsaved.clone(),
        })
    }
}

impl Handler<Peek> for PendingUpdates {
    type Result = MessageResult<Peek>;

    fn handle(&mut self, _msg: Peek, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.queue.clone())
    }
}

impl Handler<Pop> for PendingUpdates {
    type Result = MessageResult<Pop>;

    fn handle(&mut self, _msg: Pop, ctx: &mut Self::Context) -> Self::Result {
        let span = self.span.clone();
        let _entered = span.enter();
        let taken = std::mem::take(&mut self.queue);
        if !taken.is_empty() {
            self.persist(ctx);
            tracing::info!(count = taken.len(), "pending updates popped");
        }
        MessageResult(taken)
    }
}

impl Handler<Clear> for PendingUpdates {
    type Result = ();

    fn handle(&mut self, _msg: Clear, ctx: &mut Self::Context) {
        let span = self.span.clone();
        let _entered = span.enter();
        let count = self.queue.len();
        self.queue.clear();
        self.persist(ctx);
        tracing::info!(count, "pending updates cleared");
    }
}
