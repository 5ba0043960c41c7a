//! Files the owner sends that are not images (SPEC §16): kept in `downloads/` in the data
//! directory under the name they were sent with (made safe; `-2`, `-3`… when taken), so the
//! agent can read them by the path added to the owner's message. Each file is published whole
//! and never replaces another ([`crate::base::state_file::create_new`]). Files above
//! [`MAX_DOWNLOAD_BYTES`] are not kept.

use std::path::{Path, PathBuf};

use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// The largest file kept (the most Discord lets the owner send without a subscription is
/// smaller; this bounds what a larger upload can cost the disk).
pub const MAX_DOWNLOAD_BYTES: u64 = 25 * 1024 * 1024;

/// The directory, relative to the data directory.
pub const DOWNLOADS_DIR: &str = "downloads";

/// The longest file name kept, in characters.
const MAX_NAME_CHARS: usize = 100;

/// `downloads/` of `data`.
pub fn dir(data: &DataDir) -> PathBuf {
    data.root().join(DOWNLOADS_DIR)
}

/// A name safe to create in `downloads/`: the last part of what was sent, without control
/// characters, path separators or leading dots, at most [`MAX_NAME_CHARS`] characters (the
/// extension kept); `file` when nothing is left.
pub fn safe_name(sent: &str) -> String {
    let last = sent.rsplit(['/', '\\']).next().unwrap_or(sent);
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| {
            if matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim();
    if cleaned.is_empty() {
        return "file".to_owned();
    }
    let (stem, ext) = split_ext(cleaned);
    let ext_chars = ext.map_or(0, |e| e.chars().count() + 1);
    let stem: String = stem
        .chars()
        .take(MAX_NAME_CHARS.saturating_sub(ext_chars).max(1))
        .collect();
    match ext {
        Some(ext) => format!("{stem}.{}", ext.chars().take(20).collect::<String>()),
        None => stem,
    }
}

/// `report.pdf` → (`report`, `pdf`); a name without a dot has no extension.
fn split_ext(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() => (stem, Some(ext)),
        _ => (name, None),
    }
}

/// `report.pdf`, `report-2.pdf`, `report-3.pdf`, … inside `dir`.
fn candidates(dir: &Path, name: &str) -> impl Iterator<Item = PathBuf> {
    let (stem, ext) = split_ext(name);
    let (stem, ext) = (stem.to_owned(), ext.map(str::to_owned));
    let dir = dir.to_path_buf();
    (1..=10_000u32).map(move |n| {
        let numbered = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        match &ext {
            Some(ext) => dir.join(format!("{numbered}.{ext}")),
            None => dir.join(numbered),
        }
    })
}

/// Saves `bytes`, sent as `sent_name`, as a new file in `downloads/`; its path.
pub fn save(data: &DataDir, sent_name: &str, bytes: &[u8]) -> Result<PathBuf, state_file::Error> {
    let dir = dir(data);
    std::fs::create_dir_all(&dir).map_err(|source| state_file::Error::Io {
        action: "creating",
        path: dir.clone(),
        source,
    })?;
    let path = state_file::create_new(candidates(&dir, &safe_name(sent_name)), bytes)?;
    tracing::info!(file = %path.display(), bytes = bytes.len(), "saved a file the owner sent");
    Ok(path)
}

/// The line added to the owner's message for the files kept, and for those not kept.
pub fn message_note(saved: &[PathBuf], not_kept: &[String]) -> Option<String> {
    let mut lines = Vec::new();
    for path in saved {
        lines.push(format!("[attached file saved to {}]", path.display()));
    }
    for why in not_kept {
        lines.push(format!("[attached file not saved: {why}]"));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe() {
        assert_eq!(safe_name("report.pdf"), "report.pdf");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("..\\..\\win.ini"), "win.ini");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("a\u{0}b\nc?.txt"), "abc_.txt");
        assert_eq!(safe_name("..."), "file");
        assert_eq!(safe_name(""), "file");
        let long = format!("{}.pdf", "x".repeat(300));
        let safe = safe_name(&long);
        assert!(safe.ends_with(".pdf") && safe.chars().count() == MAX_NAME_CHARS);
    }

    #[test]
    fn a_taken_name_gets_a_number_and_nothing_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let first = save(&data, "notes.txt", b"one").unwrap();
        let second = save(&data, "notes.txt", b"two").unwrap();
        let third = save(&data, "sub/notes.txt", b"three").unwrap();
        let bare = save(&data, "Makefile", b"m").unwrap();
        let bare2 = save(&data, "Makefile", b"m2").unwrap();
        assert_eq!(first, dir(&data).join("notes.txt"));
        assert_eq!(second, dir(&data).join("notes-2.txt"));
        assert_eq!(third, dir(&data).join("notes-3.txt"));
        assert_eq!(bare2, dir(&data).join("Makefile-2"));
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        assert_eq!(std::fs::read(&third).unwrap(), b"three");
        assert_eq!(std::fs::read(&bare).unwrap(), b"m");
    }

    #[test]
    fn the_note_names_every_file() {
        assert_eq!(message_note(&[], &[]), None);
        let note = message_note(
            &[PathBuf::from("/d/downloads/a.pdf")],
            &["big.zip is 40.0 MB; the limit is 25 MB".into()],
        )
        .unwrap();
        assert_eq!(
            note,
            "[attached file saved to /d/downloads/a.pdf]\n[attached file not saved: big.zip is 40.0 MB; the limit is 25 MB]"
        );
    }
}
