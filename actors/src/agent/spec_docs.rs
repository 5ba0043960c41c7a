//! The spec documents the agent reads (SPEC §2): how routine, reminder, webhook and skill files
//! are written. They ship inside the binary (from `config/specs/`) and are placed in the data
//! directory at start, replaced when this build's text differs, so the agent always reads the
//! rules the running code applies.

use crate::base::data_dir::DataDir;
use crate::base::state_file;

/// (file name in the data directory, content).
const DOCS: [(&str, &str); 3] = [
    (
        "routine-reminder-spec.md",
        include_str!("../../../config/specs/routine-reminder-spec.md"),
    ),
    (
        "webhook-spec.md",
        include_str!("../../../config/specs/webhook-spec.md"),
    ),
    (
        "skill-spec.md",
        include_str!("../../../config/specs/skill-spec.md"),
    ),
];

/// Writes each doc whose content differs from this build's; returns how many were written.
pub fn install(data: &DataDir) -> Result<usize, state_file::Error> {
    let mut written = 0;
    for (name, text) in DOCS {
        let path = data.root().join(name);
        if std::fs::read_to_string(&path).is_ok_and(|on_disk| on_disk == text) {
            continue;
        }
        // The original placed symlinks here; replace one rather than write through it.
        if path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            let _ = std::fs::remove_file(&path);
        }
        state_file::write_atomic(&path, text.as_bytes())?;
        written += 1;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_installed_once_and_refreshed_when_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        assert_eq!(install(&data).unwrap(), 3);
        assert_eq!(install(&data).unwrap(), 0);
        std::fs::write(tmp.path().join("webhook-spec.md"), "stale").unwrap();
        assert_eq!(install(&data).unwrap(), 1);
        let text = std::fs::read_to_string(tmp.path().join("webhook-spec.md")).unwrap();
        assert_eq!(text, DOCS[1].1);
    }
}
