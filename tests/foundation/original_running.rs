//! The Python original running on the same data directory stops a start and fails `doctor`; a
//! pid file it left behind, or one naming another program, does not. The original is played by
//! a real Python process started the way its installed `ollim-bot` script starts (a script of
//! that name whose first line runs `python3`), so its `/proc/<pid>/cmdline` is the original's.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Running {
    fn pid(&self) -> u32 {
        self.0.id()
    }
}

/// The interpreter's command line once the shebang (and any version-manager shim) has exec'd.
fn wait_for_python(pid: u32) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let args: Vec<String> = fs::read(format!("/proc/{pid}/cmdline"))
            .unwrap_or_default()
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let interpreter = args.first().map(|a| a.rsplit('/').next().unwrap_or(a));
        if interpreter.is_some_and(|i| i.starts_with("python")) {
            return args;
        }
        assert!(
            Instant::now() < deadline,
            "python3 did not start (is it installed?): {args:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A Python program installed as `<dir>/bin/ollim-bot`, running.
fn python_original(dir: &Path) -> Running {
    let script = dir.join("bin").join("ollim-bot");
    fs::create_dir_all(script.parent().unwrap()).unwrap();
    fs::write(
        &script,
        "#!/usr/bin/env python3\nimport time\ntime.sleep(60)\n",
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let child = Command::new(&script)
        .stdin(Stdio::null())
        .spawn()
        .expect("python3 runs the script");
    let running = Running(child);
    let args = wait_for_python(running.pid());
    assert!(
        args.iter().any(|a| a.ends_with("/bin/ollim-bot")),
        "the script is the interpreter's argument: {args:?}"
    );
    running
}

struct Dir {
    tmp: tempfile::TempDir,
    data: PathBuf,
}

impl Dir {
    fn with_pid(pid: u32) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        fs::create_dir_all(data.join("state")).unwrap();
        // The original writes its pid without a newline.
        fs::write(data.join("state").join("bot.pid"), pid.to_string()).unwrap();
        Dir { tmp, data }
    }

    /// Runs the bot (or `doctor`) on the directory; the claude binary is one that is not there,
    /// so a start that gets past the instance checks stops right after them.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .args(args)
            .current_dir(self.tmp.path())
            .env("HOME", self.tmp.path())
            .env("OLLIM_DATA_DIR", &self.data)
            .env("OLLIM_TIMEZONE", "UTC")
            .env("DASHBOARD_PORT", "off")
            .env("OLLIM_CLAUDE_BIN", self.tmp.path().join("no-claude"))
            .env_remove("DISCORD_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run ollim-bot")
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_running_python_original_stops_the_start_and_fails_doctor() {
    let tmp = tempfile::tempdir().unwrap();
    let original = python_original(tmp.path());
    let dir = Dir::with_pid(original.pid());
    let pid = original.pid().to_string();

    let start = dir.run(&["console"]);
    let said = text(&start);
    assert_eq!(start.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the Python ollim-bot is running") && said.contains(&format!("(pid {pid})")),
        "{said}"
    );
    assert!(
        said.contains(&format!("kill {pid}")) || said.contains("systemctl"),
        "says how to stop it: {said}"
    );
    assert!(
        !dir.data.join("state").join("bot.lock").exists() && !dir.data.join("routines").exists(),
        "nothing was written before the refusal"
    );

    let doctor = dir.run(&["doctor"]);
    let report = text(&doctor);
    assert_eq!(doctor.status.code(), Some(1), "{report}");
    let line = report
        .lines()
        .find(|l| l.contains("bot.pid"))
        .unwrap_or_else(|| panic!("a bot.pid line: {report}"));
    assert!(
        line.contains("FAIL") && line.contains(&format!("Python ollim-bot is running (pid {pid})")),
        "{report}"
    );
}

#[test]
fn a_stale_pid_file_or_another_program_never_blocks() {
    // A pid whose process has ended.
    let mut ended = Command::new("true").spawn().unwrap();
    ended.wait().unwrap();
    // A live process that is not the original.
    let other = Running(
        Command::new("sleep")
            .arg("60")
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    for pid in [ended.id(), other.pid()] {
        let dir = Dir::with_pid(pid);
        let start = dir.run(&["console"]);
        let said = text(&start);
        assert!(!said.contains("Python ollim-bot"), "{said}");
        // The start went on to take its own lock (and then stopped for want of a CLI).
        assert!(dir.data.join("state").join("bot.lock").exists(), "{said}");
        assert!(said.contains("no-claude"), "stopped at the CLI: {said}");
        let doctor = text(&dir.run(&["doctor"]));
        let line = doctor
            .lines()
            .find(|l| l.contains("bot.pid"))
            .unwrap_or_default();
        assert!(line.contains("PASS"), "{doctor}");
    }
}
