//! The skills section of a job prompt, with `` !`command` `` expansion (SPEC §3, §9).
//!
//! For each skill a job names, its instructions go under `### <name>`; every
//! `` !`command` `` marker in them is replaced by that command's output, run in the data
//! directory when the job fires. There is no shell: the command is split into words as a shell
//! would split them ([`crate::base::shell_words`]) and the first word is run as the program, so `;`,
//! `|`, `>` and `$VAR` are plain arguments (a skill that wants a shell writes `sh -c '…'`); as in
//! a shell, an unquoted `~` or `~/` starting a word is the owner's home (`git -C ~/repo log`).
//! Each command is bounded in time and output, all commands of one prompt share a total time
//! limit, and failures are written into the text as `[command …]` markers rather than stopping
//! the job: `[command parse error: …]` when the text cannot be split (an open quote),
//! `[command not found: …]` when there is no such program, `[command failed (exit N): …]`,
//! and the time-limit markers. The job runner blocks a job whose skills are missing before any
//! of this runs; a name not found here is still noted in the section and logged.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::time::Instant;

use crate::jobs::skills::Skill;

/// Bounds on `` !`command` `` expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLimits {
    /// Longest one command may run.
    pub per_command: Duration,
    /// Longest all commands of one prompt may run together.
    pub total: Duration,
    /// Output longer than this many characters is cut and marked `[...truncated]`.
    pub max_output_chars: usize,
}

impl Default for CommandLimits {
    fn default() -> Self {
        Self {
            per_command: Duration::from_secs(10),
            total: Duration::from_secs(30),
            max_output_chars: 2000,
        }
    }
}

/// Most stderr kept for the failure marker.
const STDERR_CAP: usize = 4096;
/// Appended to output that was cut.
const TRUNCATED: &str = "\n[...truncated]";

/// Builds the `SKILL INSTRUCTIONS:` block for the skills named in `requested`, looked up in
/// `library`; empty when none are requested. Commands run with `cwd` as working directory, and
/// a leading `~` in their words is `home` (`None`: it stays `~`).
pub async fn build_skills_section(
    requested: &[String],
    library: &[Skill],
    cwd: &Path,
    home: Option<&Path>,
    limits: &CommandLimits,
) -> String {
    if requested.is_empty() {
        return String::new();
    }
    let mut expander = Expander::new(cwd, home, limits);
    let mut out = String::from("SKILL INSTRUCTIONS:\n\n");
    for name in requested {
        out.push_str(&format!("### {name}\n"));
        match library.iter().find(|s| &s.name == name) {
            Some(skill) => out.push_str(&expander.expand(&skill.instructions).await),
            None => {
                tracing::warn!(skill = %name, "skill named by job not found");
                out.push_str(&format!(
                    "[skill not found: skills/{name}/SKILL.md is missing or invalid]"
                ));
            }
        }
        out.push_str("\n\n");
    }
    out
}

/// Replaces every `` !`command` `` marker in `text` by the command's output.
pub async fn expand_commands(
    text: &str,
    cwd: &Path,
    home: Option<&Path>,
    limits: &CommandLimits,
) -> String {
    Expander::new(cwd, home, limits).expand(text).await
}

/// Runs markers for one prompt: remembers results of repeated commands and the time used.
struct Expander<'a> {
    cwd: &'a Path,
    /// What a leading `~` stands for (a home that is not Unicode is not put in).
    home: Option<&'a str>,
    limits: &'a CommandLimits,
    deadline: Instant,
    results: HashMap<String, String>,
}

impl<'a> Expander<'a> {
    fn new(cwd: &'a Path, home: Option<&'a Path>, limits: &'a CommandLimits) -> Self {
        Self {
            cwd,
            home: home.and_then(Path::to_str),
            limits,
            deadline: Instant::now() + limits.total,
            results: HashMap::new(),
        }
    }

    async fn expand(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some((before, command, after)) = next_marker(rest) {
            out.push_str(before);
            match self.results.get(command) {
                Some(known) => out.push_str(known),
                None => {
                    let result = self.run(command).await;
                    out.push_str(&result);
                    self.results.insert(command.to_owned(), result);
                }
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }

    async fn run(&self, command: &str) -> String {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            tracing::warn!(command, "skill command skipped: prompt time limit reached");
            return format!("[command skipped (time limit for this prompt reached): {command}]");
        }
        let limit = left.min(self.limits.per_command);
        match tokio::time::timeout(limit, run_capped(command, self.cwd, self.home, self.limits))
            .await
        {
            Ok(text) => text,
            Err(_) if limit < self.limits.per_command => {
                tracing::warn!(command, "skill command cut off: prompt time limit reached");
                format!("[command timed out (time limit for this prompt reached): {command}]")
            }
            Err(_) => {
                tracing::warn!(command, "skill command timed out");
                format!("[command timed out after {}: {command}]", seconds(limit))
            }
        }
    }
}

/// Splits `text` around its first `` !`command` `` marker (one line, non-empty command).
fn next_marker(text: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(found) = text[from..].find("!`") {
        let start = from + found;
        let inner = &text[start + 2..];
        if let Some(end) = inner.find(['`', '\n']) {
            if inner.as_bytes()[end] == b'`' && end > 0 {
                return Some((&text[..start], &inner[..end], &inner[end + 1..]));
            }
        }
        from = start + 2;
    }
    None
}

/// Runs one command to completion and renders its output or a failure marker.
async fn run_capped(
    command: &str,
    cwd: &Path,
    home: Option<&str>,
    limits: &CommandLimits,
) -> String {
    let argv = match crate::base::shell_words::split(command, home) {
        Ok(argv) if !argv.is_empty() => argv,
        Ok(_) => {
            tracing::warn!(command, "skill command has no program to run");
            return format!("[command parse error: {command}]");
        }
        Err(err) => {
            tracing::warn!(command, cause = %err, "skill command could not be split into words");
            return format!("[command parse error: {command}]");
        }
    };
    let spawned = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            tracing::warn!(command, program = %argv[0], "skill command not found");
            return format!("[command not found: {command}]");
        }
        Err(err) => {
            tracing::warn!(command, cause = %err, "skill command could not start");
            return format!("[command failed to start: {command}: {err}]");
        }
    };
    let stdout_cap = limits.max_output_chars.saturating_mul(4).max(1);
    // Reading stops at the cap and drops the pipe, so a chatty command ends on SIGPIPE.
    let (stdout, stderr) = tokio::join!(
        read_capped(child.stdout.take(), stdout_cap, false),
        read_capped(child.stderr.take(), STDERR_CAP, true),
    );
    let status = child.wait().await;
    let (stdout, cut) = stdout;
    if cut {
        return render_output(&stdout, true, limits.max_output_chars);
    }
    match status {
        Ok(status) if status.success() => render_output(&stdout, false, limits.max_output_chars),
        Ok(status) => {
            let how = match status.code() {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_owned(),
            };
            let first_line = String::from_utf8_lossy(&stderr.0)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            tracing::warn!(command, status = %how, "skill command failed");
            format!("[command failed ({how}): {command}{first_line}]")
        }
        Err(err) => {
            tracing::warn!(command, cause = %err, "skill command could not be awaited");
            format!("[command failed: {command}: {err}]")
        }
    }
}

/// Reads up to `cap` bytes; reports whether there was more. With `drain`, the rest is read and
/// discarded instead of closing the pipe early.
async fn read_capped<R: AsyncRead + Unpin>(
    pipe: Option<R>,
    cap: usize,
    drain: bool,
) -> (Vec<u8>, bool) {
    let Some(mut pipe) = pipe else {
        return (Vec::new(), false);
    };
    let mut buf = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    if (&mut pipe).take(limit).read_to_end(&mut buf).await.is_err() {
        return (buf, false);
    }
    let more = buf.len() > cap;
    buf.truncate(cap);
    if more && drain {
        let _ = tokio::io::copy(&mut pipe, &mut tokio::io::sink()).await;
    }
    (buf, more)
}

/// Output as it goes into the prompt: trailing newlines dropped, cut at `max_chars`.
fn render_output(bytes: &[u8], cut: bool, max_chars: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}{TRUNCATED}", &text[..at]),
        None if cut => format!("{text}{TRUNCATED}"),
        None => text.to_owned(),
    }
}

/// A duration for a marker: `10s`, or `250ms` below a whole second.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
#[path = "skill_section_tests.rs"]
mod tests;
