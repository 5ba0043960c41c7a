//! A generated `~/.claude/projects` for the history figures, in the record shapes Claude Code
//! 2.1.330 writes (as seen in the tier-2 tests' transcripts): queue operations, prompts with
//! their header, the attachment records a turn starts with (environment, listings, the prompt
//! snapshot that makes most of a file's bytes), request shapes and blobs, one assistant record
//! per content block under a shared message id, tool results marked `sourceToolAssistantUUID`,
//! last-prompt and cost lines. Every tenth session is a main session; the nine after it are
//! background forks that carry its records and add a reminder turn with a `ping_user` call, as
//! the bot's forks do. Nothing random: the same size gives the same files.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Found in the `ping_user` message of exactly one session.
pub const RARE: &str = "zanzibarquokka";
/// Found in the own prompt of one session in ten (forks, so copies do not spread it).
pub const COMMON: &str = "marmalade";

const WORDS: [&str; 48] = [
    "the",
    "agent",
    "routine",
    "calendar",
    "task",
    "inbox",
    "when",
    "should",
    "never",
    "tool",
    "result",
    "owner",
    "morning",
    "review",
    "note",
    "ping",
    "budget",
    "quiet",
    "hours",
    "and",
    "with",
    "from",
    "a",
    "file",
    "session",
    "context",
    "summary",
    "list",
    "check",
    "water",
    "walk",
    "before",
    "after",
    "meeting",
    "draft",
    "reply",
    "focus",
    "block",
    "daily",
    "weekly",
    "permission",
    "denied",
    "allowed",
    "setting",
    "skill",
    "job",
    "schedule",
    "remind",
];

/// Deterministic filler text of about `bytes` bytes.
fn filler(seed: u64, bytes: usize) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = String::with_capacity(bytes + 16);
    while out.len() < bytes {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(WORDS[(state >> 33) as usize % WORDS.len()]);
        out.push(if (state >> 20).is_multiple_of(13) {
            '\n'
        } else {
            ' '
        });
    }
    out
}

fn uuid(n: u64, salt: u64) -> String {
    let x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        x >> 32,
        (x >> 16) & 0xffff,
        x & 0xfff,
        (x >> 40) & 0xfff,
        x.rotate_left(17) & 0xffff_ffff_ffff
    )
}

/// One session's records as they are built: the lines and the uuid of the last message.
struct Writer {
    session: String,
    cwd: String,
    lines: Vec<String>,
    parent: Option<String>,
    count: u64,
    clock: u64,
}

impl Writer {
    fn common(&self) -> String {
        format!(
            r#""userType":"external","entrypoint":"sdk-rust","cwd":{},"sessionId":"{}","version":"2.1.330","gitBranch":"master""#,
            serde_json::to_string(&self.cwd).unwrap_or_default(),
            self.session
        )
    }

    fn next(&mut self) -> (String, String, String) {
        self.count += 1;
        self.clock += 1;
        let id = uuid(
            self.count,
            self.clock ^ self.session.len() as u64 ^ hash(&self.session),
        );
        let parent = match &self.parent {
            Some(p) => format!("\"{p}\""),
            None => "null".to_owned(),
        };
        let at = format!(
            "2026-11-{:02}T{:02}:{:02}:{:02}.000Z",
            1 + (self.clock / 86_400) % 28,
            (self.clock / 3600) % 24,
            (self.clock / 60) % 60,
            self.clock % 60
        );
        self.parent = Some(id.clone());
        (id, parent, at)
    }

    fn raw(&mut self, line: String) {
        self.lines.push(line);
    }

    fn attachment(&mut self, kind: &str, body: &str) {
        let (id, parent, at) = self.next();
        let text = serde_json::to_string(body).unwrap_or_default();
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"attachment":{{"type":"{kind}","content":{text}}},"type":"attachment","uuid":"{id}","timestamp":"{at}","rendered":[{{"content":{text}}}],"renderedRole":"system",{}}}"#,
            self.common()
        );
        self.raw(line);
    }

    fn prompt(&mut self, text: &str) {
        let (id, parent, at) = self.next();
        let content = serde_json::to_string(&format!("[2026-11-27 Fri 03:21 AM EST] {text}"))
            .unwrap_or_default();
        let line = format!(
            r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"{at}","sessionId":"{}","content":{content}}}"#,
            self.session
        );
        self.raw(line);
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"promptId":"{}","type":"user","message":{{"role":"user","content":{content}}},"uuid":"{id}","timestamp":"{at}","permissionMode":"default","promptSource":"sdk",{}}}"#,
            uuid(self.count, 7),
            self.common()
        );
        self.raw(line);
    }

    fn assistant(&mut self, message: &str, block: String, stop: &str) {
        let (id, parent, at) = self.next();
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"message":{{"content":[{block}],"id":"{message}","model":"claude-opus-5-5","role":"assistant","stop_reason":"{stop}","stop_sequence":null,"type":"message","usage":{{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5,"service_tier":"standard"}}}},"requestId":"req_{}","type":"assistant","uuid":"{id}","timestamp":"{at}",{}}}"#,
            self.count,
            self.common()
        );
        self.raw(line);
    }

    fn text(&mut self, message: &str, text: &str, stop: &str) {
        let block = format!(
            r#"{{"text":{},"type":"text"}}"#,
            serde_json::to_string(text).unwrap_or_default()
        );
        self.assistant(message, block, stop);
    }

    fn tool(&mut self, message: &str, name: &str, input: serde_json::Value, result: &str) {
        let block = format!(
            r#"{{"id":"toolu_{message}","input":{input},"name":"{name}","type":"tool_use"}}"#
        );
        self.assistant(message, block, "tool_use");
        let source = self.parent.clone().unwrap_or_default();
        let (id, parent, at) = self.next();
        let text = serde_json::to_string(result).unwrap_or_default();
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{message}","type":"tool_result","content":[{{"type":"text","text":{text}}}]}}]}},"uuid":"{id}","timestamp":"{at}","toolUseResult":[{{"type":"text","text":{text}}}],"sourceToolAssistantUUID":"{source}",{}}}"#,
            self.common()
        );
        self.raw(line);
    }

    /// The records a turn's request leaves: the request's shape and blobs, and bookkeeping.
    fn request(&mut self, seed: u64, first: bool) {
        if first {
            for (kind, size) in [
                ("environment", 1_200),
                ("agent_listing_delta", 9_000),
                ("skill_listing", 14_000),
                ("session_context", 2_000),
                ("prompt_snapshot", 125_000),
            ] {
                self.attachment(kind, &filler(seed ^ size as u64, size));
            }
        }
        let shape = serde_json::to_string(&filler(seed ^ 99, if first { 80_000 } else { 6_000 }))
            .unwrap_or_default();
        let line = format!(
            r#"{{"type":"api-request-shape","sessionId":"{}","shapeHash":"{:064x}","shape":{shape}}}"#,
            self.session, seed
        );
        self.raw(line);
        let line = format!(
            r#"{{"type":"last-prompt","lastPrompt":"…","leafUuid":"{}","sessionId":"{}"}}"#,
            self.parent.clone().unwrap_or_default(),
            self.session
        );
        self.raw(line);
    }
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(1469598103934665603u64, |h, b| {
        (h ^ b as u64).wrapping_mul(1099511628211)
    })
}

/// Writes `sessions` transcripts into `project` (created); returns the files, oldest first.
pub fn generate(project: &Path, cwd: &Path, sessions: usize) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(project)?;
    let mut files = Vec::with_capacity(sessions);
    let mut main: Vec<String> = Vec::new();
    for n in 0..sessions as u64 {
        let session = uuid(n, 0x5e55);
        let mut w = Writer {
            session: session.clone(),
            cwd: cwd.display().to_string(),
            lines: Vec::new(),
            parent: None,
            count: 0,
            clock: n * 600,
        };
        if n.is_multiple_of(10) {
            for turn in 0..4u64 {
                let seed = n * 31 + turn;
                w.prompt(&filler(seed, 120));
                w.request(seed, turn == 0);
                let message = format!("msg_{n}_{turn}");
                w.text(&message, &filler(seed ^ 5, 300), "tool_use");
                w.tool(
                    &message,
                    "Bash",
                    serde_json::json!({"command": "ollim-bot tasks list"}),
                    &filler(seed ^ 6, 3_000),
                );
                w.text(&format!("{message}b"), &filler(seed ^ 7, 400), "end_turn");
            }
            main = w.lines.clone();
        } else {
            // A background fork: the parent's records, then its own reminder turn.
            w.lines = main.clone();
            w.parent = None;
            let own = if n % 10 == 3 {
                format!("[reminder-bg:{n:08x}] ask about the {COMMON} order")
            } else {
                format!("[reminder-bg:{n:08x}] check on the owner")
            };
            w.prompt(&own);
            w.request(n, false);
            let ping = if n == sessions as u64 / 2 + 1 {
                format!("hello from the {RARE} reminder")
            } else {
                format!("time for a short walk ({})", filler(n, 40).trim())
            };
            w.tool(
                &format!("msg_{n}_ping"),
                "mcp__discord__ping_user",
                serde_json::json!({"message": ping}),
                "Message sent.",
            );
            w.text(&format!("msg_{n}_end"), "done", "end_turn");
        }
        let mut body = String::new();
        for line in &w.lines {
            let _ = writeln!(body, "{line}");
        }
        let path = project.join(format!("{session}.jsonl"));
        std::fs::File::create(&path)?.write_all(body.as_bytes())?;
        files.push(path);
    }
    Ok(files)
}
