//! Could a Bash command write into `state/`? (SPEC §11: the bot's own state is the owner's to
//! change, and the attacks were `echo … > state/pending_updates.json`, `touch state/x`,
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

use super::bash_commands::{
    EXTRACTORS, FIND_ACTIONS, KEYWORDS, READ_ONLY, SHELLS, TRUSTED, WRAPPERS,
};
use super::bash_paths::{shown, Cwds, Judge};
use super::bash_words::{parse, Piece, Simple, Word};
use super::file_rules::{home_dir, lexical};

/// How deep substitutions and `sh -c` may nest before the command counts as a writer.
const MAX_DEPTH: usize = 8;

/// Why `command`, run in `cwd`, could write into `root/state`; `None` when its text shows no way.
pub fn bash_state_write(command: &str, cwd: &Path, root: &Path) -> Option<String> {
    judged(command, cwd, root, home_dir())
}

/// Why `command`, run in `cwd`, could write the file `rel` of `root` (the memory and profile
/// files a background fork must leave alone); `None` when its text shows no way. Judged as
/// writes into `state/` are, with the file in place of the directory.
pub fn bash_file_write(command: &str, cwd: &Path, root: &Path, rel: &str) -> Option<String> {
    let home = home_dir().filter(|_| !command.contains("HOME="));
    let judge = Judge::guarding(root, rel, rel, home);
    let mut cwds = Cwds {
        known: vec![lexical(&root.join(cwd))],
        unknown: false,
    };
    judge.line(command, &mut cwds, 0)
}

/// [`bash_state_write`] with the home directory given.
fn judged(command: &str, cwd: &Path, root: &Path, home: Option<PathBuf>) -> Option<String> {
    // A line that sets HOME makes `~` mean something else: leave it unknown.
    let home = home.filter(|_| !command.contains("HOME="));
    let judge = Judge::new(root, home);
    let mut cwds = Cwds {
        known: vec![lexical(&root.join(cwd))],
        unknown: false,
    };
    judge.line(command, &mut cwds, 0)
}

impl Judge {
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
            n if EXTRACTORS.contains(&n) => {
                let here = extract_dir(args).unwrap_or(Word {
                    pieces: vec![Piece::Lit(".".into())],
                });
                let mut named = args.to_vec();
                named.push(here);
                self.writer(&name, &named, cwds)
                    .map(|why| format!("{why} (it writes the files its input names)"))
            }
            "rg" if args.iter().any(|a| a.known_text().starts_with("--pre")) => {
                Some("rg --pre runs a program on every file it searches".into())
            }
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
            if is_code(&text) && mentions(&text, self.stem()) {
                return Some(format!("{name} is given code that mentions {}", self.label));
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
        if has("apply") || has("am") {
            return Some("git apply writes the files its patch names".into());
        }
        if has("clean") {
            return Some(format!(
                "git clean removes untracked files, {} among them",
                self.label
            ));
        }
        if has("stash") && (has("-a") || has("--all")) {
            return Some(format!(
                "git stash --all takes ignored files away, {} among them",
                self.label
            ));
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
                .any(|segment| segment == self.stem());
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

/// The directory an extractor is told to write into (`-C DIR`, `-d DIR`, `--directory=DIR`).
fn extract_dir(args: &[Word]) -> Option<Word> {
    args.iter().enumerate().find_map(|(i, arg)| {
        let text = arg.literal()?;
        if text == "-C" || text == "-d" || text == "--directory" {
            return args.get(i + 1).cloned();
        }
        let dir = text.strip_prefix("--directory=")?;
        Some(Word {
            pieces: vec![Piece::Lit(dir.to_owned())],
        })
    })
}

/// The words after the leading options (`-x`, `--long`).
pub(super) fn skip_options(words: &[Word]) -> &[Word] {
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

impl Judge {
    /// The guarded path's last name (`state`, `context.md`).
    fn stem(&self) -> &str {
        self.state
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("state")
    }
}

/// True when code mentions `name` as a path: quoted (`'state'`), after a slash
/// (`/x/state/`), or starting a relative path (`state/x`).
fn mentions(text: &str, name: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let target: Vec<char> = name.chars().collect();
    if target.is_empty() {
        return false;
    }
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
#[path = "bash_writes_tests.rs"]
mod tests;
