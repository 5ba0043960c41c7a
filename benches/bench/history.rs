//! `ollim-bot history` figures on generated transcripts ([`crate::history_corpus`]) of 200 and
//! 2,000 sessions: the wall time (median of 5) and peak resident memory of `sessions`,
//! `search` (a word in one session, a word in one session in ten) and `prompts`, each run as
//! the agent runs it (a child process, its peak read from `wait4`), beside `grep -r` for the
//! same words and `cat` of every file over the same files in the same run. The page cache is
//! warmed first, so the figures compare work, not the disk. `OLLIM_HISTORY_BIN` names another
//! `ollim-bot` binary to measure instead (an older build, to compare).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::actors::ms;
use crate::history_corpus::{generate, COMMON, RARE};

const RUNS: usize = 5;
const SIZES: [usize; 2] = [200, 2000];

/// One run of a command: its wall time and peak resident memory (KiB), or why it failed.
fn run(command: &mut Command) -> Result<(Duration, u64), String> {
    let started = Instant::now();
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data, zeroed is a valid value; wait4 writes into both.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = started.elapsed();
    if waited != pid {
        return Err("wait4 failed".into());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) > 1 {
        return Err(format!("exit status {status}"));
    }
    Ok((took, usage.ru_maxrss as u64))
}

/// The median time and the largest peak over [`RUNS`] runs.
fn measure(make: &dyn Fn() -> Command) -> Result<(Duration, u64), String> {
    let mut times = Vec::new();
    let mut peak = 0;
    for _ in 0..RUNS {
        let (took, kib) = run(&mut make())?;
        times.push(took);
        peak = peak.max(kib);
    }
    times.sort();
    Ok((times[RUNS / 2], peak))
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn line(size: usize, what: &str, figure: Result<(Duration, u64), String>) {
    match figure {
        Ok((took, kib)) => println!(
            "history ({size} sessions): {what}: p50 {} peak {}",
            ms(took),
            mib(kib)
        ),
        Err(e) => println!("history ({size} sessions): {what}: failed: {e}"),
    }
}

fn bench_size(size: usize) -> std::io::Result<()> {
    let tmp = tempfile::tempdir()?;
    let home = tmp.path().join("home");
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data)?;
    let project_name: String = data
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let project = home.join(".claude").join("projects").join(project_name);
    let made = Instant::now();
    let files = generate(&project, &data, size)?;
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "history ({size} sessions): {:.0} MB of transcripts generated in {}",
        bytes as f64 / 1e6,
        ms(made.elapsed())
    );
    let history = |args: &[&str]| {
        let bin = std::env::var_os("OLLIM_HISTORY_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_ollim-bot").into());
        let mut c = Command::new(bin);
        c.arg("history")
            .args(args)
            .env("HOME", &home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env("OLLIM_DATA_DIR", &data)
            .env("OLLIM_TIMEZONE", "UTC");
        c
    };
    let project_arg = project.display().to_string();
    let shell = |script: String| {
        let mut c = Command::new("sh");
        c.args(["-c", &script]);
        c
    };
    // Warm the page cache, and time reading it all back.
    let _ = run(&mut shell(format!("cat {project_arg}/*.jsonl > /dev/null")));
    line(
        size,
        "cat of every file (page cache)",
        measure(&|| shell(format!("cat {project_arg}/*.jsonl > /dev/null"))),
    );
    line(
        size,
        "history sessions",
        measure(&|| history(&["sessions"])),
    );
    line(
        size,
        "history prompts prev",
        measure(&|| history(&["prompts", "prev"])),
    );
    for (label, word) in [("rare word", RARE), ("word in 10% of sessions", COMMON)] {
        let found = history(&["search", word]).output();
        let first = found
            .map(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                text.lines().next().unwrap_or("(no output)").to_owned()
            })
            .unwrap_or_else(|e| e.to_string());
        line(
            size,
            &format!("history search ({label}; {first})"),
            measure(&|| history(&["search", word])),
        );
        for flags in [["-r", "-c"].as_slice(), ["-r", "-i", "-c"].as_slice()] {
            line(
                size,
                &format!("grep {} ({label})", flags.join(" ")),
                measure(&|| {
                    let mut c = Command::new("grep");
                    c.args(flags).args([word, &project_arg]);
                    c
                }),
            );
        }
    }
    Ok(())
}

pub fn bench_history() {
    for size in SIZES {
        if let Err(e) = bench_size(size) {
            println!("history ({size} sessions): could not make the transcripts: {e}");
        }
    }
}
