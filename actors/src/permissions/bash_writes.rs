//! Could a Bash command write into `state/`? (SPEC §11: the bot's own state is the owner's to
//! change, and the issue's attacks were `echo … > state/pending_updates.json`, `touch state/x`,
//! `rm state/ping_budget.json`.)
//!
//! This reads the command text, so "could" is judged on what the text shows, leaning towards
//! yes whenever it cannot tell:
//! - a redirection that writes (`>`, `>>`, `&>`, `<>`, `>&` to a file) into `state/`;
//! - any command that is not known to be read-only naming a path in `state/`, or a directory
//!   that holds it (`rm -rf .`, `cp -r x ~`), or a path only known when it runs (`$X`, `*`,
//!   `$(…)`) whose known directory holds `state/`, or — in code such as `python3 -c` —
//!   mentioning `state` as a path;
//! - `cd` into `state/` (the Bash tool keeps its directory for later calls), or to a place that
//!   cannot be known, before a relative path;
//! - `sh -c`/`bash -c`/`eval` text is judged as a command line of its own; so is every
//!   substitution; `xargs` feeding a writer and `git clean` always count.
//!
//! Paths are read against the shell's working directory (the hook's `cwd`), `..` folded, `~`
//! and `$HOME` expanded, and symlinks followed where they exist. The bot's own commands
//! (`ollim-bot …`, `claude-history …`) write state only through their own code, so only their
//! redirections count.
//!
//! What it cannot see: a script or program that computes the path or reads it from a file
//! (`python3 tool.py`, `make`), a name assembled from pieces inside code, a symlink made by an
//! earlier command that only now points into `state/` through a name that does not say so,
//! and hard links made before. The CLI's own checks still ask about most of those in
//! `default`; what they allow is what this module exists for.

use std::path::{Path, PathBuf};

use super::bash_words::{parse, Piece, Simple, Word};
use super::file_rules::{home_dir, lexical, real_path};

/// Commands that only read, whatever their arguments (their paths are not judged).
const READ_ONLY: [&str; 44] = [
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
const WRAPPERS: [&str; 14] = [
    "sudo", "doas", "env", "nice", "nohup", "time", "command", "builtin", "exec", "timeout",
    "stdbuf", "ionice", "setsid", "unbuffer",
];

/// Shell words that come before a command.
const KEYWORDS: [&str; 10] = [
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}",
];

/// Shells that take a command line after `-c`.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "busybox", "fish"];

/// `find` options that change files.
const FIND_ACTIONS: [&str; 9] = [
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// The bot's own commands: they write state only through their own code.
const TRUSTED: [&str; 2] = ["ollim-bot", "claude-history"];

/// How deep substitutions and `sh -c` may nest before the command counts as a writer.
const MAX_DEPTH: usize = 8;

/// Why `command`, run in `cwd`, could write into `root/state`; `None` when its text shows no way.
pub fn bash_state_write(command: &str, cwd: &Path, root: &Path) -> Option<String> {
    judged(command, cwd, root, home_dir())
}

/// [`bash_state_write`] with the home directory given.
fn judged(command: &str, cwd: &Path, root: &Path, home: Option<PathBuf>) -> Option<String> {
    let judge = Judge::new(root, home);
    let mut cwds = Cwds {
        known: vec![lexical(&root.join(cwd))],
        unknown: false,
    };
    judge.line(command, &mut cwds, 0)
}

/// The working directories a command might be in by now.
struct Cwds {
    known: Vec<PathBuf>,
    /// A `cd` went somewhere the text does not tell.
    unknown: bool,
}

struct Judge {
    root: PathBuf,
    state: PathBuf,
    real_state: Option<PathBuf>,
    home: Option<PathBuf>,
}

/// What a path is, seen from `state/`.
#[derive(Debug, PartialEq, Eq)]
enum Reach {
    /// It is `state/` or lies inside it.
    Inside,
    /// A directory that holds `state/` (the data directory or one above it).
    Holds,
    /// Neither.
    Apart,
}

impl Judge {
    fn new(root: &Path, home: Option<PathBuf>) -> Self {
        let root = lexical(root);
        let state = root.join("state");
        Self {
            real_state: real_path(&state),
            root,
            state,
            home,
        }
    }

    /// A whole command line: its simple commands in order, then its substitutions.
    fn line(&self, text: &str, cwds: &mut Cwds, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return Some("commands nested too deeply to check".into());
        }
        let parsed = parse(text);
        for nested in &parsed.nested {
            let mut inner = Cwds {
                known: cwds.known.clone(),
                unknown: cwds.unknown,
            };
            if let Some(why) = self.line(nested, &mut inner, depth + 1) {
                return Some(why);
            }
        }
        // A line that changes PATH, or defines aliases or functions, could put another program
        // behind a trusted name.
        let trust = !(text.contains("PATH") || text.contains("alias") || text.contains("()"));
        parsed
            .commands
            .iter()
            .find_map(|c| self.simple(c, cwds, depth, trust))
    }

    fn simple(
        &self,
        command: &Simple,
        cwds: &mut Cwds,
        depth: usize,
        trust: bool,
    ) -> Option<String> {
        for redirect in command.redirects.iter().filter(|r| r.writes) {
            let fd = redirect.target.literal().is_some_and(|t| {
                t == "-" || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit()))
            });
            if fd {
                continue;
            }
            if let Some(path) = self.reaches(&redirect.target, cwds, false) {
                return Some(format!("output redirected to {path}"));
            }
        }
        let words = skip_prefixes(&command.words);
        let (first, args) = words.split_first()?;
        let Some(literal) = first.literal() else {
            return self.writer("a command named at run time", words, cwds);
        };
        // Trusted by its bare name only, found on a PATH this line leaves alone.
        let trusted = !literal.contains('/') && trust;
        let name = basename(&literal);
        match name.as_str() {
            "cd" | "pushd" => self.change_dir(args, cwds),
            "for" | "select" | "case" | "esac" | "done" | "fi" | "in" | "popd" => None,
            "eval" => self.run_text("eval", args, cwds, depth),
            "xargs" => {
                let rest = skip_options(args);
                let target = rest.first().and_then(Word::literal).map(|n| basename(&n));
                match target {
                    Some(t) if READ_ONLY.contains(&t.as_str()) => None,
                    Some(t) => Some(format!("xargs {t} takes its paths from its input")),
                    None => Some("xargs takes its command from its input".into()),
                }
            }
            "find" => {
                let acts = args.iter().any(|a| {
                    a.literal()
                        .is_some_and(|a| FIND_ACTIONS.contains(&a.as_str()))
                });
                acts.then(|| self.writer(&name, args, cwds)).flatten()
            }
            "git" => self.git(args, cwds),
            n if TRUSTED.contains(&n) && trusted => None,
            n if TRUSTED.contains(&n) => Some(format!(
                "{literal} may not be the bot's own {n} (a path, or PATH or aliases changed)"
            )),
            "ln" => self.link(args, cwds),
            n if SHELLS.contains(&n) => self.shell(n, args, cwds, depth),
            n if READ_ONLY.contains(&n) => None,
            _ => self.writer(&name, args, cwds),
        }
    }

    /// A command that may write: each argument that reaches `state/` counts.
    fn writer(&self, name: &str, args: &[Word], cwds: &Cwds) -> Option<String> {
        for arg in args {
            if let Some(path) = self.argument(arg, cwds) {
                return Some(format!("{name} on {path}"));
            }
            let text = arg.known_text();
            if is_code(&text) && mentions_state(&text) {
                return Some(format!("{name} is given code that mentions state/"));
            }
        }
        None
    }

    /// Where an argument could reach: the word itself, the value after `=` (`of=state/x`,
    /// `--output=state/x`), and the value glued to a short option (`-ostate/x`).
    fn argument(&self, arg: &Word, cwds: &Cwds) -> Option<String> {
        if let Some(path) = self.reaches(arg, cwds, true) {
            return Some(path);
        }
        let Some(Piece::Lit(head)) = arg.pieces.first() else {
            return None;
        };
        let cut = head.find('=').map(|i| i + 1).or_else(|| {
            (head.starts_with('-') && !head.starts_with("--") && head.len() > 2).then_some(2)
        })?;
        let mut rest = arg.clone();
        rest.pieces[0] = Piece::Lit(head[cut..].to_owned());
        self.reaches(&rest, cwds, true)
    }

    /// The path `word` names, shown relative to the data directory, when it could reach
    /// `state/` (with `holds`, also a directory holding it).
    fn reaches(&self, word: &Word, cwds: &Cwds, holds: bool) -> Option<String> {
        let (text, known) = self.expand(word);
        if text.is_empty() && known {
            return None;
        }
        // Only the directory part of a partly known path is certain.
        let (text, holds) = if known {
            (text, holds)
        } else {
            (
                text.rsplit_once('/')
                    .map(|(d, _)| d.to_owned())
                    .unwrap_or_default(),
                true,
            )
        };
        let relative = !text.starts_with('/');
        if relative && cwds.unknown {
            return Some(format!(
                "{} after a cd that cannot be followed",
                shown(word)
            ));
        }
        let candidates: Vec<PathBuf> = if relative {
            cwds.known.iter().map(|c| c.join(&text)).collect()
        } else {
            vec![PathBuf::from(&text)]
        };
        candidates
            .into_iter()
            .find_map(|path| match self.reach(&path) {
                Reach::Inside => Some(self.display(&path, word, known)),
                Reach::Holds if holds => Some(format!(
                    "{}, which holds state/",
                    self.display(&path, word, known)
                )),
                _ => None,
            })
    }

    /// The word's text with `~`, `$HOME` and `$PWD` expanded, cut at the first part only known
    /// when it runs; `false` when it was cut.
    fn expand(&self, word: &Word) -> (String, bool) {
        let mut out = String::new();
        for (i, piece) in word.pieces.iter().enumerate() {
            match piece {
                Piece::Lit(s) => out.push_str(s),
                Piece::Var(v) if v == "HOME" && i == 0 && self.home.is_some() => {
                    out.push_str(
                        &self
                            .home
                            .as_ref()
                            .map(|h| h.display().to_string())
                            .unwrap_or_default(),
                    );
                }
                _ => return (out, false),
            }
        }
        (out, true)
    }

    fn reach(&self, path: &Path) -> Reach {
        let written = lexical(path);
        let real = real_path(path);
        let inside = written.starts_with(&self.state)
            || matches!((&real, &self.real_state), (Some(r), Some(s)) if r.starts_with(s));
        if inside {
            return Reach::Inside;
        }
        let holds = self.state.starts_with(&written)
            || matches!((&real, &self.real_state), (Some(r), Some(s)) if s.starts_with(r));
        if holds {
            Reach::Holds
        } else {
            Reach::Apart
        }
    }

    fn display(&self, path: &Path, word: &Word, known: bool) -> String {
        if !known {
            return format!("{} (only known when it runs)", shown(word));
        }
        let path = lexical(path);
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// `cd DIR`: later commands may run there.
    fn change_dir(&self, args: &[Word], cwds: &mut Cwds) -> Option<String> {
        let target = skip_options(args).first().cloned();
        let Some(target) = target else {
            if let Some(home) = &self.home {
                cwds.known.push(home.clone());
            }
            return None;
        };
        let (text, known) = self.expand(&target);
        if !known || text == "-" {
            cwds.unknown = true;
            return None;
        }
        let next: Vec<PathBuf> = if text.starts_with('/') {
            vec![lexical(Path::new(&text))]
        } else {
            cwds.known.iter().map(|c| lexical(&c.join(&text))).collect()
        };
        if next.iter().any(|p| self.reach(p) == Reach::Inside) {
            return Some("cd into state/".into());
        }
        cwds.known.extend(next);
        None
    }

    /// `sh -c TEXT` and friends: the text is a command line of its own.
    fn shell(&self, name: &str, args: &[Word], cwds: &mut Cwds, depth: usize) -> Option<String> {
        let at = args.iter().position(|a| {
            a.literal()
                .is_some_and(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
        });
        let Some(at) = at else {
            return self.writer(name, args, cwds);
        };
        match args.get(at + 1).map(Word::literal) {
            Some(Some(text)) => self.line(&text, cwds, depth + 1),
            Some(None) => Some(format!("{name} -c runs a command only known when it runs")),
            None => None,
        }
    }

    /// `eval ARGS`: the joined arguments are a command line.
    fn run_text(&self, name: &str, args: &[Word], cwds: &mut Cwds, depth: usize) -> Option<String> {
        let texts: Option<Vec<String>> = args.iter().map(Word::literal).collect();
        match texts {
            Some(texts) => self.line(&texts.join(" "), cwds, depth + 1),
            None => Some(format!("{name} runs a command only known when it runs")),
        }
    }

    /// `git clean` removes untracked and ignored files (state/ among them); `git stash --all`
    /// takes them away; anything else is judged on its paths.
    fn git(&self, args: &[Word], cwds: &Cwds) -> Option<String> {
        let texts: Vec<String> = args.iter().filter_map(Word::literal).collect();
        let has = |word: &str| texts.iter().any(|t| t == word);
        if has("clean") {
            return Some("git clean removes untracked files, state/ among them".into());
        }
        if has("stash") && (has("-a") || has("--all")) {
            return Some("git stash --all takes ignored files away, state/ among them".into());
        }
        self.writer("git", args, cwds)
    }

    /// `ln`: a symlink's target is read from the link's own directory, so a target naming a
    /// `state` directory anywhere counts as well.
    fn link(&self, args: &[Word], cwds: &Cwds) -> Option<String> {
        for arg in skip_options(args) {
            let names_state = arg
                .known_text()
                .split('/')
                .any(|segment| segment == "state");
            if names_state {
                return Some(format!("ln on {}", shown(arg)));
            }
        }
        self.writer("ln", args, cwds)
    }
}

/// The words from the command name on: leading assignments (`X=1`), keywords (`if`, `do`) and
/// wrappers (`sudo`, `env`, `nohup`) with their options are passed over. A wrapper's option
/// values may be taken for the command; an unknown command is judged as a writer, so that errs
/// on the side of asking.
fn skip_prefixes(words: &[Word]) -> &[Word] {
    let mut rest = words;
    while let Some((first, tail)) = rest.split_first() {
        let text = first.literal();
        let assignment = matches!(first.pieces.first(), Some(Piece::Lit(s)) if is_assignment(s));
        let keyword = text.as_deref().is_some_and(|t| KEYWORDS.contains(&t));
        if assignment || keyword {
            rest = tail;
            continue;
        }
        if text
            .as_deref()
            .is_some_and(|t| WRAPPERS.contains(&basename(t).as_str()))
        {
            rest = skip_options(tail);
            while let Some((next, more)) = rest.split_first() {
                let assignment =
                    matches!(next.pieces.first(), Some(Piece::Lit(s)) if is_assignment(s));
                if !assignment {
                    break;
                }
                rest = more;
            }
            continue;
        }
        break;
    }
    rest
}

/// The words after the leading options (`-x`, `--long`).
fn skip_options(words: &[Word]) -> &[Word] {
    let n = words
        .iter()
        .take_while(|w| {
            w.literal()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1)
        })
        .count();
    &words[n..]
}

/// `NAME=…`
fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else {
        return false;
    };
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `/usr/bin/rm` → `rm`.
fn basename(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).to_owned()
}

/// How a word is shown in a reason: its known text, unknown parts as `…`.
fn shown(word: &Word) -> String {
    word.pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(s) => s.clone(),
            Piece::Var(v) => format!("${v}"),
            Piece::Dynamic => "…".into(),
        })
        .collect()
}

/// True when `text` is more than a path or option: it has characters a path rarely has.
fn is_code(text: &str) -> bool {
    text.chars().any(|c| {
        !(c.is_alphanumeric()
            || matches!(
                c,
                '.' | '_' | '/' | '~' | '+' | '@' | '%' | ':' | ',' | '=' | '-'
            ))
    })
}

/// True when code mentions `state` as a path: quoted (`'state'`), after a slash
/// (`/x/state/`), or starting a relative path (`state/x`).
fn mentions_state(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let target: Vec<char> = "state".chars().collect();
    (0..chars.len().saturating_sub(target.len() - 1)).any(|i| {
        if chars[i..i + target.len()] != target[..] {
            return false;
        }
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + target.len()).copied();
        let opens = matches!(
            before,
            Some('/' | '\'' | '"' | '`' | '(' | ',' | '=' | ':' | '[')
        );
        let starts = before.is_none_or(|c| c.is_whitespace()) && after == Some('/');
        let closes =
            after.is_none_or(|c| matches!(c, '/' | '\'' | '"' | '`' | ')' | ',' | ']' | ';'));
        (opens && closes) || starts
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "/home/u/.ollim-bot";

    fn why(command: &str) -> Option<String> {
        judged(
            command,
            Path::new(ROOT),
            Path::new(ROOT),
            Some(PathBuf::from("/home/u")),
        )
    }

    fn flagged(commands: &[&str]) {
        for c in commands {
            assert!(
                why(c).is_some(),
                "{c:?} should count as a write into state/"
            );
        }
    }

    fn clear(commands: &[&str]) {
        for c in commands {
            assert_eq!(why(c), None, "{c:?} should not count");
        }
    }

    #[test]
    fn the_issues_attacks_count() {
        assert_eq!(
            why("echo '[]' > state/pending_updates.json").as_deref(),
            Some("output redirected to state/pending_updates.json")
        );
        assert_eq!(why("touch state/x").as_deref(), Some("touch on state/x"));
        assert_eq!(
            why("rm state/ping_budget.json").as_deref(),
            Some("rm on state/ping_budget.json")
        );
    }

    #[test]
    fn redirections_of_every_kind_count() {
        flagged(&[
            "ollim-bot reminder list > state/x",
            "ollim-bot help >>state/x",
            "ls 2> ./state/x",
            "cat notes.md &> state/x",
            "echo x >| state/x",
            "echo x 1<>state/x",
            "echo x >& state/x",
            "echo x > routines/../state/x",
            "echo x > /home/u/.ollim-bot/state/x",
            "echo x > ~/.ollim-bot/state/x",
            "echo x > $HOME/.ollim-bot/state/x",
            "echo x > \"$F\"",
            "echo x > st*/x",
            "cat <<EOF > state/x\nhello\nEOF",
        ]);
        clear(&[
            "echo x > /dev/null 2>&1",
            "ollim-bot reminder list 2>&1 >&2",
            "echo x > routines/state.md",
            "cat < state/ping_budget.json",
            "echo x > /tmp/state/x",
            "grep -c x state/x >&-",
        ]);
    }

    #[test]
    fn known_writers_on_state_paths_count() {
        flagged(&[
            "rm -f state/ping_budget.json",
            "mv state/a state/b",
            "cp notes.md state/",
            "tee state/x < notes.md",
            "sed -i s/a/b/ state/x",
            "dd if=/dev/zero of=state/x",
            "sort -ostate/x notes.md",
            "sort --output=state/x notes.md",
            "truncate -s0 ./state/x",
            "chmod 000 state",
            "sudo -n rm state/x",
            "env X=1 nohup rm state/x",
            "/bin/rm state/x",
            "find state -delete",
            "find . -name x -exec rm {} +",
            "python3 script.py state/x",
        ]);
    }

    #[test]
    fn directories_that_hold_state_count_for_writers() {
        flagged(&[
            "rm -rf .",
            "rm -rf ..",
            "rm -rf ~",
            "rm -rf /",
            "mv /home/u/.ollim-bot /tmp/x",
            "cp -r /tmp/backup/. .",
            "chmod -R 000 ~/.ollim-bot",
        ]);
        clear(&[
            "ls -la .",
            "du -sh ~",
            "grep -r todo .",
            "find . -name '*.md'",
        ]);
    }

    #[test]
    fn paths_known_only_when_it_runs_count_when_their_directory_holds_state() {
        flagged(&[
            "rm -rf *",
            "rm s*/x",
            "rm $F",
            "rm \"$(cat list)\"",
            "rm state/$X",
            "for f in state/*; do rm \"$f\"; done",
            "ls | xargs rm -rf",
        ]);
        clear(&[
            "rm routines/*.md",
            "rm /tmp/$X",
            "ls state/* | xargs grep x",
            "echo $(date) > routines/log.md",
        ]);
    }

    #[test]
    fn chained_nested_and_quoted_commands_are_each_judged() {
        flagged(&[
            "ollim-bot reminder list; touch state/x",
            "ollim-bot reminder list && rm state/x",
            "ollim-bot reminder list | tee state/x",
            "ollim-bot reminder list\ntouch state/x",
            "ollim-bot reminder add -m \"$(touch state/x)\"",
            "ollim-bot reminder add -m `rm state/x`",
            "echo <(touch state/x)",
            "bash -c 'touch state/x'",
            "sh -lc \"echo > state/x\"",
            "eval rm state/x",
            "(cd state && touch x)",
            "cd routines && touch ../state/x",
            "cd state",
            "cd \"$X\" && touch x",
            "python3 -c \"import os; os.remove('state/ping_budget.json')\"",
            "python3 -c \"import shutil; shutil.rmtree('state')\"",
            "node -e 'require(\"fs\").rmSync(\"/home/u/.ollim-bot/state\", {recursive: true})'",
            "git clean -fdx",
            "git -C . clean -X",
            "git stash --all",
            "ln -s ../state routines/l",
            "PATH=/tmp/evil:$PATH ollim-bot help",
            "/tmp/ollim-bot help",
        ]);
        clear(&[
            "ollim-bot reminder add -m \"check the state of the oven\"",
            "ollim-bot reminder add --delay 30 -m 'rm state/x' ",
            "ollim-bot tasks list",
            "git status && git log --oneline -5",
            "cd routines && ls",
            "echo 'done' && cat state/ping_budget.json",
            "claude-history search 'state of things'",
            "git commit -m \"state machine fix\"",
        ]);
    }

    #[test]
    fn the_shell_directory_is_where_relative_paths_start() {
        let routines = PathBuf::from(ROOT).join("routines");
        let home = Some(PathBuf::from("/home/u"));
        let root = Path::new(ROOT);
        assert!(judged("touch ../state/x", &routines, root, home.clone()).is_some());
        assert!(judged(
            "touch x",
            &PathBuf::from(ROOT).join("state"),
            root,
            home.clone()
        )
        .is_some());
        assert!(judged("touch ../state/x", Path::new(ROOT), root, home).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_into_state_are_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        std::fs::create_dir_all(root.join("state")).unwrap();
        std::fs::create_dir_all(root.join("routines")).unwrap();
        std::os::unix::fs::symlink(root.join("state"), root.join("routines/link")).unwrap();
        let judge = |c: &str| judged(c, &root, &root, None);
        assert!(judge("touch routines/link/x").is_some());
        assert!(judge("echo x > routines/link/y").is_some());
        assert!(judge("touch routines/x").is_none());
    }

    #[test]
    fn code_mentions_state_only_as_a_path() {
        assert!(mentions_state("open('state/x', 'w')"));
        assert!(mentions_state("rmtree(\"state\")"));
        assert!(mentions_state("state/x is gone"));
        assert!(!mentions_state("the state of things"));
        assert!(!mentions_state("statement('x')"));
        assert!(!mentions_state("restate('x')"));
    }
}
