//! A webhook server per test: a temporary data directory with specs, the real routes on
//! 127.0.0.1:0, the real job runner handing every built job to a recorder, a scripted screener,
//! and a bare HTTP client.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use chrono::{TimeZone, Utc};
use ollim_actors::agent::prompts::skill_section::CommandLimits;
use ollim_actors::agent::webhook_screen::{Field, ScreenError, Screener};
use ollim_actors::base::clock::ManualClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::webhook_server::{bind, serve, HookConfig};
use ollim_actors::claude::brain::BoxFuture;
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::records::ping_budget::PingBudget;
use ollim_actors::records::runs::RunLog;
use ollim_actors::scheduling::job_runner::{Delivery, JobRunner, JobRunnerConfig, RunCounts, Runs};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const SECRET: &str = "hook-secret";

/// `ci`: a required free-form `repo` and an enum `status`, both in the template.
pub const CI_SPEC: &str = "---\nid: \"ci\"\nfields:\n  type: object\n  required: [repo, status]\n  properties:\n    repo:\n      type: string\n    status:\n      type: string\n      enum: [ok, failed]\n    note:\n      type: string\n---\nCI for {repo} finished: {status}.\n";

/// Keeps every dispatched job.
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<FireJob>>>);

impl Actor for Recorder {
    type Context = Context<Self>;
}

impl Handler<FireJob> for Recorder {
    type Result = MessageResult<FireJob>;
    fn handle(&mut self, msg: FireJob, _ctx: &mut Self::Context) -> Self::Result {
        self.0.lock().unwrap().push(msg);
        MessageResult(JobTurnEnd::bare(JobTurnOutcome::Completed, None))
    }
}

impl Recorder {
    pub fn jobs(&self) -> Vec<FireJob> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (bounded) until `n` jobs arrived, then returns them.
    pub async fn until(&self, n: usize) -> Vec<FireJob> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.jobs().len() < n && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.jobs()
    }
}

/// What the fake screener answers.
#[derive(Clone, Copy)]
pub enum Verdict {
    Safe,
    FlagAll,
    Fail,
}

pub struct FakeScreener {
    pub verdict: Verdict,
    pub calls: AtomicUsize,
}

impl Screener for FakeScreener {
    fn screen<'a>(
        &'a self,
        fields: &'a [Field],
    ) -> BoxFuture<'a, Result<Vec<String>, ScreenError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = match self.verdict {
            Verdict::Safe => Ok(Vec::new()),
            Verdict::FlagAll => Ok(fields.iter().map(|(k, _)| k.clone()).collect()),
            Verdict::Fail => Err(ScreenError::Timeout(Duration::from_secs(1))),
        };
        Box::pin(async move { answer })
    }
}

pub struct Hooks {
    _tmp: tempfile::TempDir,
    pub data: DataDir,
    pub addr: SocketAddr,
    pub recorder: Recorder,
    pub screener: Arc<FakeScreener>,
    pub runner: Addr<JobRunner>,
    /// The server's clock (2026-03-02 14:00 UTC).
    pub clock: ManualClock,
    server: actix_web::dev::ServerHandle,
}

impl Hooks {
    /// A server over a data directory holding `specs` (file name, contents).
    pub async fn start(specs: &[(&str, &str)], verdict: Verdict) -> Hooks {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path().join("data"));
        data.ensure().unwrap();
        std::fs::create_dir_all(data.webhooks()).unwrap();
        for (name, text) in specs {
            std::fs::write(data.webhooks().join(name), text).unwrap();
        }
        let recorder = Recorder::default();
        let screener = Arc::new(FakeScreener {
            verdict,
            calls: AtomicUsize::new(0),
        });
        let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap());
        let tz = chrono_tz::America::New_York;
        let budget = PingBudget::in_data_dir(&data, clock.shared(), tz).start();
        let runs = RunLog::in_data_dir(&data, clock.shared(), tz).start();
        let runner = JobRunner::new(JobRunnerConfig {
            data_dir: data.clone(),
            tz,
            clock: clock.shared(),
            limits: CommandLimits::default(),
            budget,
            runs,
            screener: Some(screener.clone()),
            delivery: Delivery::Recipient {
                jobs: recorder.clone().start().recipient(),
                busy: None,
            },
        })
        .start();
        let config = Arc::new(HookConfig {
            secret: SECRET.into(),
            data_dir: data.clone(),
            clock: clock.shared(),
            runner: runner.clone().recipient(),
            schedule: None,
        });
        let listener = bind(0).unwrap();
        let addr = listener.local_addr().unwrap();
        let server = serve(listener, config).unwrap();
        let handle = server.handle();
        actix_rt::spawn(server);
        Hooks {
            _tmp: tmp,
            data,
            addr,
            recorder,
            screener,
            runner,
            clock,
            server: handle,
        }
    }

    /// Waits until the job runner has decided `n` runs (handed on, started, dropped or failed):
    /// the event that says the dispatched work is over. Fails when it never comes.
    pub async fn decided(&self, n: u64) -> RunCounts {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let counts = self.runner.send(Runs).await.unwrap();
            if counts.decided() >= n {
                return counts;
            }
            assert!(
                Instant::now() < deadline,
                "the job runner decided {counts:?}, never {n} runs"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn post(&self, id: &str, body: &str) -> (u16, Value) {
        post(
            self.addr,
            id,
            Some(&format!("Bearer {SECRET}")),
            body.as_bytes(),
        )
        .await
    }

    pub async fn stop(self) {
        self.server.stop(false).await;
    }

    /// Stops the server and starts a new one over the same data directory and job runner, as
    /// a restarted bot would (what it remembers comes from `state/` alone).
    pub async fn restart(mut self) -> Hooks {
        self.server.stop(false).await;
        let listener = bind(0).unwrap();
        self.addr = listener.local_addr().unwrap();
        let config = Arc::new(HookConfig {
            secret: SECRET.into(),
            data_dir: self.data.clone(),
            clock: self.clock.shared(),
            runner: self.runner.clone().recipient(),
            schedule: None,
        });
        let server = serve(listener, config).unwrap();
        self.server = server.handle();
        actix_rt::spawn(server);
        self
    }
}

/// One `POST /hook/<id>` on a fresh connection: the status and the JSON body (`Null` if none).
pub async fn post(addr: SocketAddr, id: &str, auth: Option<&str>, body: &[u8]) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
    let (status, _, json) = post_with(addr, id, &headers, body).await;
    (status, json)
}

/// One `POST /hook/<target>` (`target` may carry a query string) with `headers`: the status,
/// the raw head of the answer and its JSON body (`Null` if none).
pub async fn post_with(
    addr: SocketAddr,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // Small writes must not wait on Nagle's algorithm and the peer's delayed ACK.
    let _ = stream.set_nodelay(true);
    let mut head = format!(
        "POST /hook/{target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    // One write for head and body; the server may answer (and stop reading) before a too-large
    // body is all sent, so a failed write is not an error here.
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    let _ = stream.write_all(&request).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (answer_head, json) = match text.split_once("\r\n\r\n") {
        Some((h, b)) => (h.to_owned(), serde_json::from_str(b).unwrap_or(Value::Null)),
        None => (text.to_string(), Value::Null),
    };
    (status, answer_head, json)
}
