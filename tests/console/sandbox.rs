//! The OS sandbox around the agent's commands (SPEC §20, issue 39), through the real CLI with
//! bubblewrap and socat installed: the mock model issues Bash calls whose code builds the
//! secrets' names at run time — which no reading of the text can see — from the conversation
//! under `bypassPermissions` and from a background job allowed `Bash(python3 *)`. The kernel
//! refuses each: no secret byte reaches a `tool_result` the mock receives, writes to `~/.bashrc`
//! and into `state/` change nothing, a `setsid` child is no way out, curl reaches only what the
//! job allowed, and a compound command cannot ride out of the sandbox with `ollim-bot`.
//!
//! Then, with bubblewrap off `PATH`: `auto` starts and warns once, `on` refuses with the reason.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// What the secret files and the bot's environment hold.
const PROJECT_SECRET: &str = "dtok-sbx-project-39";
const DATA_SECRET: &str = "data-sbx-env-39";
const GRANT_SECRET: &str = "ya29-sbx-grant-39";

/// What the allowed server answers.
const SERVED: &str = "sbx-served-39";

pub(crate) fn require_sandbox_programs() {
    for program in ["bwrap", "socat"] {
        let found = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
            .unwrap_or(false);
        assert!(
            found,
            "{program} is not installed: these tests need the OS sandbox \
             (`sudo apt-get install bubblewrap socat`, see docs/sandbox.md)"
        );
    }
}

/// A one-line HTTP server on 127.0.0.1 answering [`SERVED`]; its port.
async fn serve() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 2048];
                let _ = socket.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{SERVED}",
                    SERVED.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

/// How many tool results the request's history holds: the step the session is at.
fn step(req: &ModelRequest) -> usize {
    req.messages()
        .iter()
        .filter(|m| {
            m["content"]
                .as_array()
                .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
        })
        .count()
}

fn bash(command: &str) -> Reply {
    Reply::ToolUse {
        name: "Bash".into(),
        input: json!({"command": command, "description": "probe"}),
    }
}

/// `python3 -c` printing the file whose name is `parts` joined at run time.
fn py_read(parts: &[&str]) -> String {
    let name = parts
        .iter()
        .map(|p| format!("'{p}'"))
        .collect::<Vec<_>>()
        .join("+");
    format!("python3 -c \"print(open({name}).read())\"")
}

/// The probes both sessions run: reads of each secret, a detached child doing the same,
/// writes to `~/.bashrc` and into `state/`.
fn probes(project: &Path, bot_pid: u32) -> Vec<String> {
    let project = project.display().to_string();
    let (p_dir, p_name) = (format!("{project}/.e"), "nv");
    vec![
        py_read(&[&p_dir, p_name]),
        py_read(&[".e", "nv"]),
        py_read(&["sta", "te/tok", "en.json"]),
        py_read(&[&format!("/proc/{bot_pid}/envi"), "ron"]),
        // A detached grandchild, its own session: still inside.
        format!(
            "python3 -c \"import subprocess; print(subprocess.run(['setsid', '-w', 'python3', \
             '-c', 'print(open(\\\".e\\\"+\\\"nv\\\").read()); \
             print(open(\\\"/proc/{bot_pid}/envi\\\"+\\\"ron\\\").read())'], \
             capture_output=True, text=True))\""
        ),
        "python3 -c \"import os; open(os.path.expanduser('~/.ba'+'shrc'), 'a').write('x')\""
            .to_owned(),
        "python3 -c \"open('sta'+'te/ev'+'il', 'w').write('x')\"".to_owned(),
    ]
}

/// Every tool result text the mock received, with the command that produced it.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

fn record(seen: &Seen, req: &ModelRequest, commands: &[String]) {
    if let Some((_, text, _)) = req.tool_results().first() {
        let at = step(req);
        let command = commands.get(at - 1).cloned().unwrap_or_default();
        seen.lock().push((command, text.clone()));
    }
}

fn assert_no_secret(seen: &[(String, String)]) {
    for (command, text) in seen {
        for secret in [PROJECT_SECRET, DATA_SECRET, GRANT_SECRET] {
            assert!(
                !text.contains(secret),
                "{secret} leaked through `{command}`: {text}"
            );
        }
    }
}

/// The result of the probe at `index`, which must show the kernel's refusal `word`.
fn refused(seen: &[(String, String)], command: &str, words: &[&str]) {
    let (_, text) = seen
        .iter()
        .find(|(c, _)| c == command)
        .unwrap_or_else(|| panic!("`{command}` never ran: {seen:#?}"));
    assert!(
        words.iter().any(|w| text.contains(w)),
        "`{command}` was not refused by the kernel ({words:?}): {text}"
    );
}

fn check_probes(seen: &[(String, String)], probes: &[String], home: &Home) {
    assert_no_secret(seen);
    for read in &probes[..5] {
        refused(
            seen,
            read,
            &["Permission denied", "No such file", "PermissionError"],
        );
    }
    for write in &probes[5..] {
        refused(seen, write, &["Read-only file system"]);
    }
    assert!(!home.home.join(".bashrc").exists(), "~/.bashrc was written");
    assert!(!home.state("evil").exists(), "state/evil was written");
}

fn write_secrets(home: &Home, project: &Path) {
    std::fs::write(
        project.join(".env"),
        format!("DISCORD_TOKEN={PROJECT_SECRET}\n"),
    )
    .unwrap();
    home.write(".env", &format!("MY_DATA_SECRET={DATA_SECRET}\n"));
    home.write(
        "state/token.json",
        &json!({"token": GRANT_SECRET, "refresh_token": GRANT_SECRET}).to_string(),
    );
}

#[tokio::test]
async fn the_kernel_keeps_secrets_from_the_conversation_and_a_background_job() {
    require_sandbox_programs();
    let home = Home::new();
    let project = tempfile::tempdir().unwrap();
    write_secrets(&home, project.path());
    home.write(
        "state/config.json",
        r#"{"permission_mode": "bypassPermissions", "sandbox": "on"}"#,
    );
    let port = serve().await;
    let conversation: Arc<Mutex<Vec<String>>> = Arc::default();
    let background: Arc<Mutex<Vec<String>>> = Arc::default();
    let (main_seen, bg_seen): (Seen, Seen) = (Arc::default(), Arc::default());
    let (c, b, ms, bs) = (
        Arc::clone(&conversation),
        Arc::clone(&background),
        Arc::clone(&main_seen),
        Arc::clone(&bg_seen),
    );
    let mock = MockModelApi::start(move |req| {
        let (commands, seen) = if req.mentions("[reminder-bg:b0000039]") {
            (b.lock().clone(), &bs)
        } else if req.mentions("probe the sandbox") {
            (c.lock().clone(), &ms)
        } else {
            return Reply::Text("hi".into());
        };
        record(seen, req, &commands);
        match commands.get(step(req)) {
            Some(command) => bash(command),
            None => Reply::Text("probed".into()),
        }
    })
    .await
    .unwrap();
    let mut bot = Bot::start_in_with(&home, &mock, project.path(), &[("IS_SANDBOX", "1")]).await;
    let probes = probes(project.path(), bot.pid());

    // The conversation, in bypassPermissions: only the kernel stands in the way.
    // Nothing rides out of the sandbox with our own command: chained, substituted, piped.
    let read = py_read(&[".e", "nv"]);
    let riding = [
        format!("ollim-bot tasks list; {read}"),
        format!("ollim-bot tasks add \"$({read})\""),
        format!("{read} | ollim-bot tasks add -"),
    ];
    let mut main_commands = probes.clone();
    main_commands.extend(riding.iter().cloned());
    *conversation.lock() = main_commands;
    bot.say("probe the sandbox").await;
    bot.expect("probed").await;
    let seen = main_seen.lock().clone();
    check_probes(&seen, &probes, &home);
    for command in &riding {
        let (_, text) = seen.iter().find(|(c, _)| c == command).unwrap();
        assert!(
            text.contains("run outside the sandbox"),
            "{command}: {text}"
        );
    }

    // A background job allowed python3 and curl, and the one domain it names.
    let allowed = format!("curl -sS --noproxy '' -m 10 http://localhost:{port}/");
    let denied = format!("curl -sS --noproxy '' -m 10 http://127.0.0.1:{port}/");
    let remind = "ollim-bot reminder add --delay 90 -m \"sandboxed job reminder\"".to_owned();
    let mut bg_commands = probes.clone();
    bg_commands.extend([allowed.clone(), denied.clone(), remind.clone()]);
    *background.lock() = bg_commands;
    let at = (chrono::Utc::now() + chrono::Duration::seconds(2))
        .with_timezone(&chrono_tz::America::New_York)
        .format("%Y-%m-%dT%H:%M:%S%:z");
    home.write(
        "reminders/probe.md",
        &format!(
            "---\nid: \"b0000039\"\nrun-at: \"{at}\"\nbackground: true\nisolated: true\n\
             update-main-session: \"freely\"\nallowed-tools:\n  - \"Bash(python3 *)\"\n  - \
             \"Bash(curl *)\"\n  - \"Bash(ollim-bot reminder *)\"\n  - \"WebFetch(domain:localhost)\"\n---\nprobe in the background\n"
        ),
    );
    let done = mock
        .first_agent_request(
            |r| r.mentions("[reminder-bg:b0000039]") && step(r) == probes.len() + 3,
            crate::bot::LIMIT,
        )
        .await;
    assert!(done.is_some(), "the background job ran every probe");
    bot.finish().await;
    let seen = bg_seen.lock().clone();
    check_probes(&seen, &probes, &home);
    let result = |command: &str| -> String {
        seen.iter()
            .find(|(c, _)| c == command)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    assert!(result(&allowed).contains(SERVED), "{seen:#?}");
    // Our own command runs outside: it wrote and committed its file.
    assert!(result(&remind).contains("scheduled"), "{}", result(&remind));
    let written = std::fs::read_dir(home.data.join("reminders"))
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .any(|text| text.contains("sandboxed job reminder"));
    assert!(written, "the reminder file was written");
    let blocked = result(&denied);
    assert!(
        !blocked.contains(SERVED) && (blocked.contains("403") || blocked.contains("blocked")),
        "{blocked}"
    );
}

/// A `PATH` like this one with `bwrap` left out: every other program of its directories is
/// linked into `dir`.
fn path_without_bwrap(dir: &Path) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = vec![dir.to_path_buf()];
    for d in std::env::split_paths(&path) {
        if !d.join("bwrap").exists() {
            dirs.push(d);
            continue;
        }
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if name != "bwrap" && !dir.join(&name).exists() {
                let _ = std::os::unix::fs::symlink(entry.path(), dir.join(&name));
            }
        }
    }
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn warnings(stderr: &Mutex<Vec<String>>) -> usize {
    stderr
        .lock()
        .iter()
        .filter(|l| l.contains("sandbox: auto, but"))
        .count()
}

#[tokio::test]
async fn without_bubblewrap_auto_warns_once_and_on_refuses() {
    let mock = MockModelApi::start(|_| Reply::Text("answered".into()))
        .await
        .unwrap();
    let bin = tempfile::tempdir().unwrap();
    let path = path_without_bwrap(bin.path());

    let home = Home::new();
    let mut bot = Bot::start_with(&home, &mock, &[("PATH", &path)]).await;
    let stderr = Arc::clone(&bot.stderr);
    bot.say("hello").await;
    bot.expect("answered").await;
    // A second process start (after /clear) stays quiet.
    bot.say("/clear").await;
    bot.say("again").await;
    bot.expect("answered").await;
    bot.finish().await;
    assert_eq!(warnings(&stderr), 1, "{:#?}", stderr.lock());
    let said: String = stderr.lock().join("\n");
    assert!(said.contains("bubblewrap not installed"), "{said}");

    let home = Home::new();
    home.write("state/config.json", r#"{"sandbox": "on"}"#);
    home.write(
        "reminders/unsandboxable.md",
        &crate::support::home::background_reminder(2, "b0000139", "a job"),
    );
    let mut bot = Bot::start_with(&home, &mock, &[("PATH", &path)]).await;
    bot.say("hello").await;
    let refusal = bot.expect("couldn't start the assistant").await;
    assert!(
        refusal.contains("sandbox is on") && refusal.contains("bubblewrap not installed"),
        "{refusal}"
    );
    // A background job is not started either, and the owner reads why at once.
    let job = bot.expect("couldn't complete").await;
    assert!(job.contains("bubblewrap not installed"), "{job}");
    bot.finish().await;
    let answered = mock
        .agent_requests()
        .iter()
        .filter(|r| r.latest_user_text().contains("hello"))
        .count();
    assert_eq!(answered, 1, "only the auto bot reached the model");
}

/// A secret written while the conversation's CLI runs — the Google grant, at a sign-in — was
/// not there when its sandbox was made; the next message starts the CLI again (resuming the
/// session), so the grant is unreadable to it too.
#[tokio::test]
async fn a_grant_written_after_the_cli_started_is_kept_from_its_next_command() {
    require_sandbox_programs();
    let home = Home::new();
    home.write(
        "state/config.json",
        r#"{"permission_mode": "bypassPermissions", "sandbox": "on"}"#,
    );
    let read = py_read(&["sta", "te/tok", "en.json"]);
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let (command, results) = (read.clone(), Arc::clone(&seen));
    let mock = MockModelApi::start(move |req| {
        if !req.mentions("peek at the grant") {
            return Reply::Text("hello back".into());
        }
        match req.tool_results().first() {
            Some((_, text, _)) => {
                results.lock().push(text.clone());
                Reply::Text("peeked".into())
            }
            None => bash(&command),
        }
    })
    .await
    .unwrap();
    let mut bot = Bot::start_with(&home, &mock, &[("IS_SANDBOX", "1")]).await;
    bot.say("hello").await;
    bot.expect("hello back").await;
    // The CLI runs; now the grant appears, as a sign-in writes it.
    home.write(
        "state/token.json",
        &json!({"token": GRANT_SECRET, "refresh_token": GRANT_SECRET}).to_string(),
    );
    bot.say("peek at the grant").await;
    bot.expect("peeked").await;
    bot.finish().await;
    let results = seen.lock().clone();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert!(
        !results[0].contains(GRANT_SECRET),
        "the grant leaked: {}",
        results[0]
    );
    assert!(
        results[0].contains("Permission denied"),
        "not refused by the kernel: {}",
        results[0]
    );
}
