//! Pausing and resuming a routine *(ours, SPEC §16)*: `paused: true` in its file.
//!
//! The file is edited, not rewritten: the YAML's top-level `paused:` line is removed, and when
//! pausing one `paused: true` line is added at the end of the YAML. Everything else — comments,
//! key order, keys another version of the bot wrote, the body — stays byte for byte, and a
//! resumed routine's file is what it was before it was paused (`paused: false` is never
//! written, so the original program still reads it). The result is parsed again before it is
//! written (atomically); a file that would not read back as the same routine, paused or not as
//! asked, is left alone with an error.

use std::path::{Path, PathBuf};

use super::frontmatter;
use super::store::{self, Error};
use super::{routine, JobId, Routine};
use crate::base::state_file;

/// What a pause or resume did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PauseOutcome {
    /// The file now says what was asked.
    Changed {
        /// The routine as it now reads.
        routine: Box<Routine>,
        /// Its file.
        path: PathBuf,
    },
    /// The routine was already paused (or running) as asked; nothing written.
    Already {
        /// The routine.
        routine: Box<Routine>,
    },
    /// No routine file holds that id.
    NotFound,
}

/// Pauses (`paused = true`) or resumes the routine `id` in `dir`.
pub fn set_paused(dir: &Path, id: &JobId, paused: bool) -> Result<PauseOutcome, Error> {
    let Some(path) = store::find_path(dir, id.as_str())? else {
        return Ok(PauseOutcome::NotFound);
    };
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
        path: path.clone(),
        source,
    })?;
    let parse_err = |source| Error::Parse {
        path: path.clone(),
        source,
    };
    let current = routine::parse(&text).map_err(parse_err)?;
    if current.paused == paused {
        return Ok(PauseOutcome::Already {
            routine: Box::new(current),
        });
    }
    let edited = with_paused_line(&text, paused).map_err(parse_err)?;
    let after = routine::parse(&edited).map_err(parse_err)?;
    if after.paused != paused || after.id != current.id {
        return Err(Error::Parse {
            path,
            source: frontmatter::ParseError::NotAMapping,
        });
    }
    state_file::write_atomic(&path, edited.as_bytes())?;
    Ok(PauseOutcome::Changed {
        routine: Box::new(after),
        path,
    })
}

/// `text` with its top-level `paused:` lines removed and, when `paused`, `paused: true` added as
/// the YAML's last line.
fn with_paused_line(text: &str, paused: bool) -> Result<String, frontmatter::ParseError> {
    let parts = frontmatter::split(text)?;
    let start = parts.yaml.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + parts.yaml.len();
    let mut yaml: String = parts
        .yaml
        .split_inclusive('\n')
        .filter(|line| !is_paused_key(line))
        .collect();
    if paused {
        if !yaml.is_empty() && !yaml.ends_with('\n') {
            yaml.push('\n');
        }
        yaml.push_str("paused: true\n");
    }
    Ok(format!("{}{yaml}{}", &text[..start], &text[end..]))
}

/// A top-level `paused:` key (not indented, not inside another value).
fn is_paused_key(line: &str) -> bool {
    line.strip_prefix("paused")
        .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "---\n# my morning\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\nunknown-key: 3\n---\nCheck in.\n";

    #[test]
    fn pausing_adds_one_line_and_resuming_restores_the_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("morning.md");
        std::fs::write(&path, FILE).unwrap();
        let id = JobId("a1b2c3d4".into());
        let out = set_paused(tmp.path(), &id, true).unwrap();
        assert!(matches!(out, PauseOutcome::Changed { .. }), "{out:?}");
        let paused = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            paused,
            "---\n# my morning\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\nunknown-key: 3\npaused: true\n---\nCheck in.\n"
        );
        assert!(matches!(
            set_paused(tmp.path(), &id, true).unwrap(),
            PauseOutcome::Already { .. }
        ));
        set_paused(tmp.path(), &id, false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), FILE);
    }

    #[test]
    fn a_hand_written_paused_line_is_replaced_not_doubled() {
        let text =
            "---\nid: x\npaused:   yes\ncron: \"0 9 * * *\"\ndescription: \"paused: no\"\n---\nb\n";
        assert_eq!(
            with_paused_line(text, false).unwrap(),
            "---\nid: x\ncron: \"0 9 * * *\"\ndescription: \"paused: no\"\n---\nb\n"
        );
        assert!(
            routine::parse(&with_paused_line(text, true).unwrap())
                .unwrap()
                .paused
        );
    }

    #[test]
    fn unknown_ids_and_broken_files_are_said_so() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(
            set_paused(tmp.path(), &JobId("nope".into()), true).unwrap(),
            PauseOutcome::NotFound
        );
        std::fs::write(tmp.path().join("b.md"), "---\nid: b\n---\nno cron\n").unwrap();
        let err = set_paused(tmp.path(), &JobId("b".into()), true).unwrap_err();
        assert!(err.to_string().contains("cron"), "{err}");
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("b.md")).unwrap(),
            "---\nid: b\n---\nno cron\n"
        );
    }
}
