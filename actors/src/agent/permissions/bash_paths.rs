//! Where the words of a Bash command lead, seen from `state/` (for [`super::bash_writes`]):
//! the shell's possible working directories, `~`, `$HOME` and `..` resolved, symlinks followed,
//! and what part of a word is only known when the command runs.

use std::path::{Path, PathBuf};

use super::bash_words::{Piece, Word};
use super::bash_writes::skip_options;
use super::file_rules::{lexical, real_path};

/// The working directories a command might be in by now.
pub(super) struct Cwds {
    pub(super) known: Vec<PathBuf>,
    /// A `cd` went somewhere the text does not tell.
    pub(super) unknown: bool,
}

pub(super) struct Judge {
    pub(super) root: PathBuf,
    /// The guarded path (`state/`, or a file such as `context.md`), lexically clean.
    pub(super) state: PathBuf,
    pub(super) real_state: Option<PathBuf>,
    pub(super) home: Option<PathBuf>,
    /// The guarded path as reasons name it (`state/`, `context.md`).
    pub(super) label: String,
}

/// What a path is, seen from `state/`.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// It is `state/` or lies inside it.
    Inside,
    /// A directory that holds `state/` (the data directory or one above it).
    Holds,
    /// Neither.
    Apart,
}

impl Judge {
    pub(super) fn new(root: &Path, home: Option<PathBuf>) -> Self {
        Self::guarding(root, "state", "state/", home)
    }

    /// A judge of whether a command could write `rel` (relative to `root`), named `label`.
    pub(super) fn guarding(root: &Path, rel: &str, label: &str, home: Option<PathBuf>) -> Self {
        let root = lexical(root);
        let state = root.join(rel);
        Self {
            real_state: real_path(&state),
            root,
            state,
            home,
            label: label.to_owned(),
        }
    }

    /// The path `word` names, shown relative to the data directory, when it could reach
    /// `state/` (with `holds`, also a directory holding it).
    pub(super) fn reaches(&self, word: &Word, cwds: &Cwds, holds: bool) -> Option<String> {
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
                    "{}, which holds {}",
                    self.display(&path, word, known),
                    self.label
                )),
                _ => None,
            })
    }

    /// The word's text with `~`, `$HOME` and `$PWD` expanded, cut at the first part only known
    /// when it runs; `false` when it was cut.
    pub(super) fn expand(&self, word: &Word) -> (String, bool) {
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

    pub(super) fn reach(&self, path: &Path) -> Reach {
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

    pub(super) fn display(&self, path: &Path, word: &Word, known: bool) -> String {
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
    pub(super) fn change_dir(&self, args: &[Word], cwds: &mut Cwds) -> Option<String> {
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
            return Some(format!("cd into {}", self.label));
        }
        cwds.known.extend(next);
        None
    }
}

/// How a word is shown in a reason: its known text, unknown parts as `…`.
pub(super) fn shown(word: &Word) -> String {
    word.pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(s) => s.clone(),
            Piece::Var(v) => format!("${v}"),
            Piece::Dynamic => "…".into(),
        })
        .collect()
}
