//! The commands the Bash judge ([`super::bash_writes`]) knows by name: those that only read,
//! those that run the command after them, shells, `find` actions, archive and patch tools, and
//! the bot's own commands. One table each, kept apart from the judging.

/// Commands that only read, whatever their arguments (their paths are not judged).
pub(super) const READ_ONLY: [&str; 44] = [
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "ls",
    "wc",
    "stat",
    "file",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "jq",
    "du",
    "df",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "echo",
    "printf",
    "test",
    "[",
    "[[",
    "true",
    "false",
    "nl",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "strings",
    "cut",
    "column",
    "diff",
    "cmp",
    "comm",
    "tr",
    "date",
    "pwd",
    "which",
    "type",
];

/// Commands that run the command after them.
pub(super) const WRAPPERS: [&str; 14] = [
    "sudo", "doas", "env", "nice", "nohup", "time", "command", "builtin", "exec", "timeout",
    "stdbuf", "ionice", "setsid", "unbuffer",
];

/// Shell words that come before a command.
pub(super) const KEYWORDS: [&str; 10] = [
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}",
];

/// Shells that take a command line after `-c`.
pub(super) const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "busybox", "fish"];

/// `find` options that change files.
pub(super) const FIND_ACTIONS: [&str; 9] = [
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Commands that write files named inside their input (an archive, a patch), in their
/// directory unless told otherwise: judged as writing into it.
pub(super) const EXTRACTORS: [&str; 8] =
    ["tar", "bsdtar", "unzip", "cpio", "7z", "7za", "patch", "ar"];

/// The bot's own commands: they write state only through their own code.
pub(super) const TRUSTED: [&str; 2] = ["ollim-bot", "claude-history"];
