//! One bot per test: a fresh data directory and HOME, the supervisor with a main session, a
//! recording surface, a manual clock, and the mock model API.

use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use actix::prelude::*;
use chrono::{DateTime, Duration, TimeZone, Utc};
use ollim_actors::agent::permissions::ApprovalRequest;
use ollim_actors::base::clock::ManualClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::supervisor::{GetHandles, Handles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::claude::brain::ClaudeLauncher;
use ollim_actors::conversation::main_session::MainSessionConfig;
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::records::runtime_config::ConfigStore;
use ollim_actors::scheduling::job_runner::Runs;
use ollim_actors::scheduling::scheduler::Upcoming;
use serde_json::Value;

use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// Longest wait for anything.
pub const LIMIT: StdDuration = StdDuration::from_secs(90);

/// Keeps everything the surface is sent.
#[derive(Clone, Default)]
pub struct Screen(pub Arc<Mutex<Vec<SurfaceEvent>>>);

impl Actor for Screen {
    type Context = Context<Self>;
}

impl Handler<SurfaceEvent> for Screen {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _ctx: &mut Self::Context) {
        self.0.lock().unwrap().push(ev);
    }
}

impl Screen {
    pub fn events(&self) -> Vec<SurfaceEvent> {
        self.0.lock().unwrap().clone()
    }

    pub fn pings(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                SurfaceEvent::Ping { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    }

    pub fn notices(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                SurfaceEvent::Notice(t) | SurfaceEvent::Error(t) => Some(t),
                _ => None,
            })
            .collect()
    }
}

pub struct Rig {
    _tmp: tempfile::TempDir,
    pub data: DataDir,
    pub clock: ManualClock,
    pub screen: Screen,
    pub handles: Handles,
    pub mock: MockModelApi,
    /// The HOME the CLI runs with.
    pub home: std::path::PathBuf,
    /// Answers the reflection model's calls (see [`Rig::script_reflections`]).
    reflections: ReflectionScript,
}

type Script = dyn Fn(&ModelRequest) -> Reply + Send + Sync;

/// What answers reflection calls: a test's script, else a plain "Done." (no trace written).
#[derive(Clone, Default)]
struct ReflectionScript(Arc<Mutex<Option<Arc<Script>>>>);

impl ReflectionScript {
    fn answer(&self, req: &ModelRequest) -> Reply {
        let script = self.0.lock().unwrap().clone();
        match script {
            Some(script) => script(req),
            None => Reply::Text("Done.".into()),
        }
    }
}

/// A call of the reflection model (its prompt starts with `[reflection:`), which the job
/// scripts never see.
pub fn is_reflection(req: &ModelRequest) -> bool {
    req.mentions(ollim_actors::scheduling::reflection::TAG_PREFIX)
}

/// 2026-03-02 14:00 UTC, 09:00 in New York.
pub fn start_instant() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap()
}

pub async fn rig(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
) -> Rig {
    rig_asking(script, prepare, None).await
}

/// A rig whose conversation asks the owner through `approvals`.
pub async fn rig_asking(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
    approvals: Option<Recipient<ApprovalRequest>>,
) -> Rig {
    rig_full(
        script,
        prepare,
        approvals,
        crate::support::claude_cli::binary(),
    )
    .await
}

/// A rig whose sessions run `binary` (a wrapper around the real CLI) instead of the CLI.
pub async fn rig_with_binary(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
    binary: std::path::PathBuf,
) -> Rig {
    rig_full(script, prepare, None, binary).await
}

/// A rig whose CLIs get `env` on top of the mock's (`CLAUDE_CODE_MAX_RETRIES`, …).
pub async fn rig_with_env(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
    env: &[(&str, &str)],
) -> Rig {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    rig_env(
        script,
        prepare,
        None,
        crate::support::claude_cli::binary(),
        env,
    )
    .await
}

async fn rig_full(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
    approvals: Option<Recipient<ApprovalRequest>>,
    binary: std::path::PathBuf,
) -> Rig {
    rig_env(script, prepare, approvals, binary, Vec::new()).await
}

async fn rig_env(
    script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    prepare: impl FnOnce(&DataDir),
    approvals: Option<Recipient<ApprovalRequest>>,
    binary: std::path::PathBuf,
    env: Vec<(String, String)>,
) -> Rig {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    data.ensure().unwrap();
    prepare(&data);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let reflections = ReflectionScript::default();
    let answer = reflections.clone();
    let mock = MockModelApi::start(move |req: &ModelRequest| {
        if is_reflection(req) {
            answer.answer(req)
        } else {
            script(req)
        }
    })
    .await
    .unwrap();
    let clock = ManualClock::new(start_instant());
    let screen = Screen::default();
    let main = MainSessionConfig {
        data_dir: data.clone(),
        tz: chrono_tz::America::New_York,
        clock: clock.shared(),
        launcher: Arc::new(ClaudeLauncher),
        binary,
        system_prompt: "You are a test assistant.".into(),
        runtime: ConfigStore::load(&data).unwrap(),
        hang_timeout: StdDuration::from_secs(120),
        cli_env: mock.cli_env(&home).into_iter().chain(env).collect(),
        user_name: "Sam".into(),
        approvals,
        release: "ollim-bot v0.1.0+dev (test)".into(),
        model_override: None,
        docs_mcp: None,
        usage: None,
    };
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz: chrono_tz::America::New_York,
            clock: clock.shared(),
            watch_jobs: true,
            google: None,
        },
        JobSink::Conversation {
            main: Box::new(main),
            surface: screen.clone().start().recipient(),
        },
    );
    let handles = supervisor.send(GetHandles).await.unwrap();
    Rig {
        _tmp: tmp,
        data,
        clock,
        screen,
        handles,
        mock,
        home,
        reflections,
    }
}

/// A background reminder file due `minutes` after the start instant.
pub fn bg_reminder(id: &str, minutes: i64, extra: &str, body: &str) -> String {
    let at = (start_instant() + Duration::minutes(minutes))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    format!("---\nid: \"{id}\"\nrun-at: \"{at}\"\nbackground: true\n{extra}---\n{body}\n")
}

/// A background routine file.
pub fn bg_routine(id: &str, cron: &str, extra: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"{cron}\"\nbackground: true\n{extra}---\n{body}\n")
}

impl Rig {
    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.data.root().join(rel), text).unwrap();
    }

    /// Waits until the scheduler has registered `n` jobs.
    pub async fn registered(&self, n: usize) {
        for _ in 0..200 {
            if self.handles.scheduler.send(Upcoming).await.unwrap().len() >= n {
                return;
            }
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
        panic!("the scheduler never registered {n} jobs");
    }

    /// Moves the clock to `minutes` after the start.
    pub fn advance_to(&self, minutes: i64) {
        self.clock.set(start_instant() + Duration::minutes(minutes));
    }

    /// Waits (bounded) until `pred` holds.
    pub async fn until(&self, what: &str, pred: impl Fn(&Rig) -> bool) {
        let deadline = tokio::time::Instant::now() + LIMIT;
        while tokio::time::Instant::now() < deadline {
            if pred(self) {
                return;
            }
            tokio::time::sleep(StdDuration::from_millis(50)).await;
        }
        for q in self.mock.agent_requests() {
            eprintln!(
                "REQ latest={:?} results={:?}",
                q.latest_user_text()
                    .chars()
                    .rev()
                    .take(120)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect::<String>(),
                q.tool_results()
            );
        }
        panic!(
            "timed out waiting for {what}; screen: {:#?}",
            self.screen.events()
        );
    }

    /// Waits until every background fork started so far has stopped (the job runner hears of
    /// each fork's end when its actor stops, after its CLI process closed) and their
    /// reflections are written.
    pub async fn settle(&self) {
        let deadline = tokio::time::Instant::now() + LIMIT;
        loop {
            let runs = self.handles.job_runner.send(Runs).await.unwrap();
            if runs.forks_started > 0 && runs.idle() {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "background forks never stopped: {runs:?}"
            );
            tokio::time::sleep(StdDuration::from_millis(20)).await;
        }
    }

    /// Agent requests whose first prompt carried `tag` (reflections left out).
    pub fn requests_for(&self, tag: &str) -> Vec<ModelRequest> {
        self.mock
            .agent_requests()
            .into_iter()
            .filter(|r| r.mentions(tag) && !is_reflection(r))
            .collect()
    }

    /// Answers the reflection model's calls with `script` from now on.
    pub fn script_reflections(
        &self,
        script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    ) {
        *self.reflections.0.lock().unwrap() = Some(Arc::new(script));
    }

    /// The reflection model's calls so far.
    pub fn reflection_requests(&self) -> Vec<ModelRequest> {
        self.mock
            .agent_requests()
            .into_iter()
            .filter(is_reflection)
            .collect()
    }
}

/// The text of the tool results in a request (joined).
pub fn tool_result_text(r: &ModelRequest) -> String {
    r.tool_results()
        .into_iter()
        .map(|(_, text, _)| text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A script step: call a tool.
pub fn call(name: &str, input: serde_json::Value) -> Reply {
    Reply::ToolUse {
        name: name.to_owned(),
        input,
    }
}

/// The first user message of a request, block by block (a string content is one block).
pub fn first_user_blocks(req: &ModelRequest) -> Vec<String> {
    let Some(first) = req.messages().iter().find(|m| m["role"] == "user") else {
        return Vec::new();
    };
    match &first["content"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// The text block of the first user message that holds `tag`: the prompt the fork sent, apart
/// from the context blocks the CLI puts in the same message (2.1.197 puts its `currentDate`
/// reminder there).
pub fn prompt_block(req: &ModelRequest, tag: &str) -> String {
    let blocks = first_user_blocks(req);
    blocks
        .iter()
        .find(|b| b.contains(tag))
        .cloned()
        .unwrap_or_else(|| panic!("no block holds {tag}: {blocks:#?}"))
}
