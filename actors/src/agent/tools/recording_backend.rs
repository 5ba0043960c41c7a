//! Test support: a [`ToolBackend`] that records every request and can be told to refuse, so the
//! tool tests can see exactly what reached the session actor.

use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use crate::claude::brain::mcp::{ToolCall, ToolHandler, ToolOutput};
use crate::claude::brain::BoxFuture;

use super::{ChainPosition, DiscordTools, Embed, Refusal, SessionKind, ToolBackend, Workspace};

/// A workspace on `root` in New York, its clock at 2026-03-02 14:00 UTC (09:00 there).
pub fn workspace(root: &std::path::Path) -> Workspace {
    use chrono::TimeZone;
    Workspace {
        data_dir: crate::base::data_dir::DataDir::new(root),
        tz: chrono_tz::America::New_York,
        clock: crate::base::clock::ManualClock::new(
            chrono::Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap(),
        )
        .shared(),
    }
}

/// One request the backend received.
#[derive(Debug, Clone, PartialEq)]
pub enum BackendCall {
    Ping {
        message: String,
        critical: bool,
    },
    Embed {
        embed: Embed,
        critical: bool,
    },
    Report(String),
    FollowUp(u32),
    SaveContext,
    EnterFork {
        topic: Option<String>,
        idle_timeout: u32,
    },
    ExitFork,
    SendFile(crate::agent::tools::SentFile),
}

/// Records requests; answers `Err(refusal)` to every one when a refusal is set, and reports the
/// foreground chain it is given.
#[derive(Default)]
pub struct Recording {
    calls: Mutex<Vec<BackendCall>>,
    refusal: Mutex<Option<Refusal>>,
    chain: Mutex<Option<ChainPosition>>,
    /// What `report` answers as the reason its update is held in memory only.
    unsaved: Mutex<Option<String>>,
}

impl Recording {
    /// A server of `kind` over a fresh recording backend, its file tools acting on a data
    /// directory that does not exist (tests of those tools use [`Recording::tools_in`]).
    pub fn tools(kind: SessionKind) -> (DiscordTools, Arc<Recording>) {
        Self::tools_in(
            kind,
            workspace(std::path::Path::new("/nonexistent-ollim-data")),
        )
    }

    /// A server of `kind` over a fresh recording backend, acting on `place`.
    pub fn tools_in(kind: SessionKind, place: Workspace) -> (DiscordTools, Arc<Recording>) {
        let backend = Arc::new(Recording::default());
        (DiscordTools::new(kind, place, backend.clone()), backend)
    }

    /// Makes every later request answer `Err(reason)`.
    pub fn refuse_with(&self, reason: Refusal) {
        *self.refusal.lock() = Some(reason);
    }

    /// Reports `chain` as the main session's foreground chain from now on.
    pub fn set_foreground_chain(&self, chain: Option<ChainPosition>) {
        *self.chain.lock() = chain;
    }

    /// What was received so far.
    pub fn calls(&self) -> Vec<BackendCall> {
        self.calls.lock().clone()
    }

    /// Makes `report` answer that its update could not be written, for `why`.
    pub fn unsaved_because(&self, why: &str) {
        *self.unsaved.lock() = Some(why.to_owned());
    }

    fn answer(&self, call: BackendCall) -> BoxFuture<'_, Result<(), Refusal>> {
        self.calls.lock().push(call);
        let refusal = self.refusal.lock().clone();
        Box::pin(async move { refusal.map_or(Ok(()), Err) })
    }
}

impl ToolBackend for Recording {
    fn ping(&self, message: String, critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::Ping { message, critical })
    }

    fn embed(&self, embed: Embed, critical: bool) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::Embed { embed, critical })
    }

    fn report(&self, message: String) -> BoxFuture<'_, Result<Option<String>, Refusal>> {
        let answer = self.answer(BackendCall::Report(message));
        let unsaved = self.unsaved.lock().clone();
        Box::pin(async move { answer.await.map(|()| unsaved) })
    }

    fn follow_up(&self, minutes_from_now: u32) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::FollowUp(minutes_from_now))
    }

    fn save_context(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::SaveContext)
    }

    fn enter_fork(
        &self,
        topic: Option<String>,
        idle_timeout_minutes: u32,
    ) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::EnterFork {
            topic,
            idle_timeout: idle_timeout_minutes,
        })
    }

    fn exit_fork(&self) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::ExitFork)
    }

    fn send_file(&self, file: crate::agent::tools::SentFile) -> BoxFuture<'_, Result<(), Refusal>> {
        self.answer(BackendCall::SendFile(file))
    }

    fn foreground_chain(&self) -> BoxFuture<'_, Option<ChainPosition>> {
        let chain = *self.chain.lock();
        Box::pin(async move { chain })
    }
}

/// Calls `name` with `arguments` on `tools`, as the MCP server would.
pub async fn call(tools: &DiscordTools, name: &str, arguments: Value) -> ToolOutput {
    tools
        .call(ToolCall {
            name: name.to_owned(),
            arguments,
            tool_use_id: None,
        })
        .await
}
