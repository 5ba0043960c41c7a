//! The skills section of a job prompt, with `` !`command` `` expansion (SPEC §3, §9).
//!
//! For each skill a job names, its instructions go under `### <name>`; every
//! `` !`command` `` marker in them is replaced by that command's output, run through `sh -c`
//! in the data directory when the job fires. Each command is bounded in time and output, all
//! commands of one prompt share a total time limit, and failures are written into the text
//! as `[command …]` markers rather than stopping the job. A skill name that is not found is
//! noted in the section and logged.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::time::Instant;

use crate::skills::Skill;

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
/// `library`; empty when none are requested. Commands run with `cwd` as working directory.
pub async fn build_skills_section(
    requested: &[String],
    library: &[Skill],
    cwd: &Path,
    limits: &CommandLimits,
) -> String {
    if requested.is_empty() {
        return String::new();
    }
    let mut expander = Expander::new(cwd, limits);
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
pub async fn expand_commands(text: &str, cwd: &Path, limits: &CommandLimits) -> String {
    Expander::new(cwd, limits).expand(text).await
}

/// Runs markers for one prompt: remembers results of repeated commands and the time used.
struct Expander<'a> {
    cwd: &'a Path,
    limits: &'a CommandLimits,
    deadline: Instant,
    results: HashMap<String, String>,
}

impl<'a> Expander<'a> {
    fn new(cwd: &'a Path, limits: &'a CommandLimits) -> Self {
        Self {
            cwd,
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
        match tokio::time::timeout(limit, run_capped(command, self.cwd, self.limits)).await {
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
async fn run_capped(command: &str, cwd: &Path, limits: &CommandLimits) -> String {
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
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
mod tests {
    use super::*;

    fn skill(name: &str, instructions: &str) -> Skill {
        Skill {
            name: name.to_owned(),
            description: String::new(),
            allowed_tools: None,
            instructions: instructions.to_owned(),
        }
    }

    fn quick(per_command_ms: u64, total_ms: u64, max_output_chars: usize) -> CommandLimits {
        CommandLimits {
            per_command: Duration::from_millis(per_command_ms),
            total: Duration::from_millis(total_ms),
            max_output_chars,
        }
    }

    async fn expand(text: &str, limits: CommandLimits) -> String {
        let dir = std::env::temp_dir();
        expand_commands(text, &dir, &limits).await
    }

    #[tokio::test]
    async fn command_output_replaces_its_marker() {
        let text = expand(
            "Today:\n!`printf 'a\\nb\\n\\n'`\nend",
            CommandLimits::default(),
        )
        .await;
        assert_eq!(text, "Today:\na\nb\nend");
    }

    #[tokio::test]
    async fn text_without_a_closed_marker_is_unchanged() {
        let text = "empty !`` here, `code`, and !`never closed\nnext` line";
        assert_eq!(expand(text, CommandLimits::default()).await, text);
    }

    #[tokio::test]
    async fn failed_command_is_marked_with_exit_code_and_first_stderr_line() {
        let text = expand(
            "x !`echo oops >&2; echo more >&2; exit 3` y",
            CommandLimits::default(),
        )
        .await;
        assert_eq!(
            text,
            "x [command failed (exit 3): echo oops >&2; echo more >&2; exit 3: oops] y"
        );
    }

    #[tokio::test]
    async fn slow_command_is_cut_off_and_marked_timed_out() {
        let started = std::time::Instant::now();
        let text = expand("!`sleep 5`", quick(200, 10_000, 100)).await;
        assert_eq!(text, "[command timed out after 200ms: sleep 5]");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[tokio::test]
    async fn commands_after_the_total_limit_are_skipped() {
        let text = expand("!`sleep 3` !`sleep 4`", quick(2_000, 150, 100)).await;
        assert_eq!(
            text,
            "[command timed out (time limit for this prompt reached): sleep 3] \
             [command skipped (time limit for this prompt reached): sleep 4]"
        );
    }

    #[tokio::test]
    async fn long_output_is_cut_and_marked() {
        let text = expand("!`printf 0123456789abcdef`", quick(5_000, 5_000, 10)).await;
        assert_eq!(text, "0123456789\n[...truncated]");
    }

    #[tokio::test]
    async fn endless_output_is_cut_without_waiting_for_the_timeout() {
        let started = std::time::Instant::now();
        let text = expand("!`yes`", quick(5_000, 5_000, 5)).await;
        assert_eq!(text, "y\ny\ny\n[...truncated]");
        assert!(started.elapsed() < Duration::from_secs(4));
    }

    #[tokio::test]
    async fn repeated_command_runs_once() {
        let dir = tempfile::tempdir().unwrap();
        let text = "!`echo x >> runs; wc -l < runs` !`echo x >> runs; wc -l < runs`";
        let out = expand_commands(text, dir.path(), &CommandLimits::default()).await;
        assert_eq!(out.split_whitespace().collect::<Vec<_>>(), ["1", "1"]);
    }

    #[tokio::test]
    async fn commands_run_in_the_given_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("marker.txt"), "found it").unwrap();
        let out = expand_commands("!`cat marker.txt`", dir.path(), &CommandLimits::default()).await;
        assert_eq!(out, "found it");
    }

    #[tokio::test]
    async fn section_lists_each_requested_skill_in_order() {
        let library = [skill("b", "Second."), skill("a", "First: !`echo 1`")];
        let requested = ["a".to_owned(), "b".to_owned()];
        let dir = std::env::temp_dir();
        let text =
            build_skills_section(&requested, &library, &dir, &CommandLimits::default()).await;
        assert_eq!(
            text,
            "SKILL INSTRUCTIONS:\n\n### a\nFirst: 1\n\n### b\nSecond.\n\n"
        );
    }

    #[tokio::test]
    async fn unknown_skill_is_noted_not_fatal() {
        let library = [skill("known", "Known.")];
        let requested = ["ghost".to_owned(), "known".to_owned()];
        let dir = std::env::temp_dir();
        let text =
            build_skills_section(&requested, &library, &dir, &CommandLimits::default()).await;
        assert!(text.contains(
            "### ghost\n[skill not found: skills/ghost/SKILL.md is missing or invalid]\n\n"
        ));
        assert!(text.ends_with("### known\nKnown.\n\n"));
    }

    #[tokio::test]
    async fn no_requested_skills_means_no_section() {
        let dir = std::env::temp_dir();
        let library = [skill("a", "A.")];
        let text = build_skills_section(&[], &library, &dir, &CommandLimits::default()).await;
        assert_eq!(text, "");
    }
}
