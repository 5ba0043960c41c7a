//! The agent runs `ollim-bot …` through its Bash tool, and skills expand `` !`ollim-bot …` ``,
//! in children of this process that find the command on `PATH`. A user who started the bot
//! with `make run` (or from any path) has not installed it there, so the directory of the
//! running executable goes first on this process's `PATH`, which every child inherits: the
//! claude CLI, the commands it runs, skill commands.

use std::env;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `inherited` with `dir` first and no other copy of it.
pub fn with_dir_first(
    dir: &Path,
    inherited: Option<&OsStr>,
) -> Result<OsString, env::JoinPathsError> {
    let rest = inherited
        .into_iter()
        .flat_map(env::split_paths)
        .filter(|p| p.as_path() != dir && !p.as_os_str().is_empty());
    env::join_paths(std::iter::once(dir.to_path_buf()).chain(rest))
}

/// The running executable as it was at start.
static OWN_EXE: OnceLock<PathBuf> = OnceLock::new();

/// The path of the running executable as it was at start: `/update` rebuilds replace the file,
/// after which `/proc/self/exe` names a deleted one, while this path holds the new binary.
pub fn own_exe() -> Option<PathBuf> {
    OWN_EXE.get().cloned().or_else(|| env::current_exe().ok())
}

/// The directory of the running executable, symlinks resolved (`/proc/self/exe`).
fn own_dir() -> Option<PathBuf> {
    let exe = env::current_exe().ok()?;
    let _ = OWN_EXE.set(exe.clone());
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.parent().map(Path::to_path_buf)
}

/// Puts the executable's directory first on `PATH`. Must run before any thread starts: it
/// changes the process environment. Failing leaves `PATH` as it was, with a warning, since
/// only commands the agent runs by name depend on it.
pub fn put_own_dir_first() {
    let Some(dir) = own_dir() else {
        eprintln!("warning: could not find this program's own path; `ollim-bot` may be missing from the agent's PATH");
        return;
    };
    match with_dir_first(&dir, env::var_os("PATH").as_deref()) {
        Ok(path) => env::set_var("PATH", path),
        Err(e) => eprintln!(
            "warning: {} cannot go on PATH ({e}); `ollim-bot` may be missing from the agent's PATH",
            dir.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(path: &OsStr) -> Vec<PathBuf> {
        env::split_paths(path).collect()
    }

    #[test]
    fn own_dir_goes_first_and_appears_once() {
        let dir = Path::new("/opt/bot/target/release");
        let inherited = OsString::from("/usr/bin:/opt/bot/target/release:/bin");
        let path = with_dir_first(dir, Some(&inherited)).unwrap();
        assert_eq!(
            parts(&path),
            [dir, Path::new("/usr/bin"), Path::new("/bin")]
        );
    }

    #[test]
    fn no_inherited_path_gives_just_the_dir() {
        let dir = Path::new("/opt/bot");
        assert_eq!(parts(&with_dir_first(dir, None).unwrap()), [dir]);
    }

    #[test]
    fn a_dir_with_a_separator_cannot_join() {
        assert!(with_dir_first(Path::new("/odd:dir"), None).is_err());
    }
}
