//! The Python original running on the same data directory. It does not take our lock on
//! `state/bot.lock`; it writes its pid to `state/bot.pid` and refuses to start beside a live
//! process whose command line names `ollim-bot`. Two bots on one directory and one Discord token
//! would both fire every routine and write the same files, so a start (and `doctor`) looks at
//! that pid file too: a live process there that is the original stops us.
//!
//! The original runs as a Python interpreter given the `ollim-bot` script that `uv tool install`
//! or `pip install` made (`…/python3 …/bin/ollim-bot`), or as `python -m ollim_bot`. Anything
//! else — a pid nobody holds any more, a recycled pid, our own bot, whose lock decides — is not
//! the original and never blocks.

use std::path::Path;

/// The original, found running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// Its process id, from `state/bot.pid`.
    pub pid: u32,
    /// The systemd unit it runs in, when it runs as a service (`ollim-bot.service`).
    pub unit: Option<Unit>,
}

/// A systemd service holding the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The unit's name.
    pub name: String,
    /// A user service (`systemctl --user`) rather than a system one.
    pub user: bool,
}

impl Running {
    /// What a person does to stop it.
    pub fn how_to_stop(&self) -> String {
        match &self.unit {
            Some(Unit { name, user: true }) => format!("systemctl --user stop {name}"),
            Some(Unit { name, user: false }) => format!("sudo systemctl stop {name}"),
            None => format!("kill {}", self.pid),
        }
    }

    /// The refusal a start and `doctor` give.
    pub fn refusal(&self, data_dir: &Path) -> String {
        format!(
            "the Python ollim-bot is running on {} (pid {}): two bots on one data directory \
             would both run every routine and ping you twice. Stop it first ({}), then start \
             this one",
            data_dir.display(),
            self.pid,
            self.how_to_stop()
        )
    }
}

/// The original, when the pid in `state_dir/bot.pid` is a live process that is it.
pub fn running(state_dir: &Path) -> Option<Running> {
    let pid: u32 = std::fs::read_to_string(state_dir.join("bot.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if !is_original(&cmdline) {
        return None;
    }
    let unit = std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
        .ok()
        .and_then(|cgroup| service_of(&cgroup));
    Some(Running { pid, unit })
}

/// Whether a `/proc/<pid>/cmdline` (arguments separated by NUL) is the Python original: a
/// Python interpreter running a script named `ollim-bot`, or the `ollim_bot` module.
fn is_original(cmdline: &[u8]) -> bool {
    let args: Vec<String> = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let Some((interpreter, rest)) = args.split_first() else {
        return false;
    };
    if !file_name(interpreter).starts_with("python") {
        return false;
    }
    let mut module_next = false;
    for arg in rest {
        if module_next {
            return arg == "ollim_bot" || arg.starts_with("ollim_bot.");
        }
        match arg.as_str() {
            "-m" => module_next = true,
            // The interpreter's own options come before the script.
            a if a.starts_with('-') => {}
            script => return file_name(script) == "ollim-bot",
        }
    }
    false
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The service of a `/proc/<pid>/cgroup`: the last `*.service` in its path, unless that is
/// only the user's session manager (`user@1000.service`).
fn service_of(cgroup: &str) -> Option<Unit> {
    let path = cgroup.lines().find_map(|l| l.splitn(3, ':').nth(2))?;
    let name = path
        .split('/')
        .rfind(|part| part.ends_with(".service"))?
        .to_owned();
    if name.starts_with("user@") {
        return None;
    }
    let user = path.split('/').any(|part| part.starts_with("user@"));
    Some(Unit { name, user })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmdline(args: &[&str]) -> Vec<u8> {
        args.iter()
            .flat_map(|a| [a.as_bytes(), b"\0"].concat())
            .collect()
    }

    #[test]
    fn the_original_is_python_running_the_ollim_bot_script_or_module() {
        for args in [
            &[
                "/home/me/.local/share/uv/tools/ollim-bot/bin/python",
                "/home/me/.local/bin/ollim-bot",
            ][..],
            &[
                "python3",
                "-u",
                "/srv/ollim-bot/.venv/bin/ollim-bot",
                "console",
            ],
            &["/usr/bin/python3.12", "-m", "ollim_bot.main"],
            &["python", "-m", "ollim_bot"],
        ] {
            assert!(is_original(&cmdline(args)), "{args:?}");
        }
    }

    #[test]
    fn our_bot_and_other_programs_are_not_the_original() {
        for args in [
            &["/home/me/ollim-bot/target/release/ollim-bot"][..],
            &["ollim-bot", "console"],
            &["python3", "/srv/other/script.py", "ollim-bot"],
            &["python3", "-m", "http.server"],
            &["vim", "ollim-bot"],
            &[],
        ] {
            assert!(!is_original(&cmdline(args)), "{args:?}");
        }
    }

    #[test]
    fn a_service_is_named_with_how_to_stop_it() {
        let user = service_of(
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/ollim-bot.service\n",
        );
        let running = Running { pid: 7, unit: user };
        assert_eq!(
            running.how_to_stop(),
            "systemctl --user stop ollim-bot.service"
        );
        let system = service_of("0::/system.slice/ollim.service\n");
        assert_eq!(
            Running {
                pid: 7,
                unit: system
            }
            .how_to_stop(),
            "sudo systemctl stop ollim.service"
        );
        // A process in a login session is stopped by its pid.
        let session = service_of(
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope\n",
        );
        assert_eq!(
            Running {
                pid: 7,
                unit: session
            }
            .how_to_stop(),
            "kill 7"
        );
    }
}
