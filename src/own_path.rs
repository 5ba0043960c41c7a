//! The agent runs `ollim-bot …` through its Bash tool, and skills expand `` !`ollim-bot …` ``,
//! in children of this process that find the command on `PATH`. A user who started the bot
//! with `make run` (or from any path) has not installed it there, so the directory of the
//! running executable goes first on this process's `PATH`, which every child inherits: the
//! claude CLI, the commands it runs, skill commands.
//!
//! The owner's own shell has the `PATH` this process inherited, so the hints the bot prints
//! name the command that runs from there ([`invocation`]): `ollim-bot` when that `PATH` finds
//! this program, else its path; and they say so when that `PATH` has another `ollim-bot` (the
//! Python original's, say).

use std::env;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ollim_actors::base::own_command;

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

/// The `PATH` this process inherited, before its own directory went first.
static USER_PATH: OnceLock<Option<OsString>> = OnceLock::new();

/// How the owner's shell runs this program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The command to type: `ollim-bot`, or this program's path.
    pub command: String,
    /// A script named `ollim-bot` that the owner's `PATH` finds instead of this program.
    pub other: Option<PathBuf>,
}

/// How a shell with `user_path` runs the executable `exe`.
pub fn invocation_for(exe: &Path, user_path: Option<&OsStr>) -> Invocation {
    let same = |a: &Path| match (a.canonicalize(), exe.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let found = user_path
        .into_iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join(own_command::NAME))
        .find(|candidate| candidate.is_file());
    match found {
        Some(found) if same(&found) => Invocation {
            command: own_command::NAME.to_owned(),
            other: None,
        },
        found => Invocation {
            command: shell_word(&exe.display().to_string()),
            // A script (`#!…`) is not a build of this program: most likely the Python original.
            other: found.filter(|f| std::fs::read(f).is_ok_and(|bytes| bytes.starts_with(b"#!"))),
        },
    }
}

/// How the owner's shell runs this program (see [`invocation_for`]).
pub fn invocation() -> Invocation {
    let user_path = USER_PATH
        .get()
        .cloned()
        .unwrap_or_else(|| env::var_os("PATH"));
    match own_exe() {
        Some(exe) => invocation_for(&exe, user_path.as_deref()),
        None => Invocation {
            command: own_command::NAME.to_owned(),
            other: None,
        },
    }
}

/// What to say when the owner's `PATH` finds another `ollim-bot` first.
pub fn other_on_path_note(invocation: &Invocation) -> Option<String> {
    invocation.other.as_ref().map(|other| {
        format!(
            "`ollim-bot` on your PATH is another program ({}; the Python original?): run this \
             one as `{}`, or `make install` and put ~/.cargo/bin before its directory on PATH",
            other.display(),
            invocation.command
        )
    })
}

/// `text` as one shell word: as it is when plain, else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Puts the executable's directory first on `PATH` and settles the command hints name. Must run
/// before any thread starts: it changes the process environment. Failing leaves `PATH` as it
/// was, with a warning, since only commands the agent runs by name depend on it.
pub fn put_own_dir_first() {
    let _ = USER_PATH.set(env::var_os("PATH"));
    own_command::set(invocation().command);
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

    fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn ollim_bot_is_named_only_when_the_path_finds_this_program() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = file(&tmp.path().join("target/release"), "ollim-bot", "\x7fELF");
        // Not on PATH: the path itself.
        let none = invocation_for(&exe, Some(OsStr::new("/nowhere")));
        assert_eq!(none.command, exe.display().to_string());
        assert_eq!(none.other, None);
        // On PATH through a link: the name.
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&exe, bin.join("ollim-bot")).unwrap();
        let linked = invocation_for(&exe, Some(bin.as_os_str()));
        assert_eq!(linked.command, "ollim-bot");
        // The Python original first on PATH: the path, and a note naming the other one.
        let python = file(
            &tmp.path().join("py"),
            "ollim-bot",
            "#!/home/me/.venv/bin/python\nimport sys\n",
        );
        let path = env::join_paths([tmp.path().join("py"), bin]).unwrap();
        let shadowed = invocation_for(&exe, Some(&path));
        assert_eq!(shadowed.command, exe.display().to_string());
        assert_eq!(shadowed.other.as_deref(), Some(python.as_path()));
        let note = other_on_path_note(&shadowed).unwrap();
        assert!(note.contains(&python.display().to_string()), "{note}");
    }

    #[test]
    fn a_path_with_spaces_is_one_shell_word() {
        assert_eq!(shell_word("/opt/bot/ollim-bot"), "/opt/bot/ollim-bot");
        assert_eq!(shell_word("/My Bot/it's"), "'/My Bot/it'\\''s'");
    }

    #[test]
    fn a_dir_with_a_separator_cannot_join() {
        assert!(with_dir_first(Path::new("/odd:dir"), None).is_err());
    }
}
