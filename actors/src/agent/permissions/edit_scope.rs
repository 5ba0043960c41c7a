//! Which file edits `acceptEdits` approves without asking (SPEC §11, issue 17): edits that stay
//! in the data directory — judged on the path as written and on where it really lands, symlinks
//! followed — and touch neither `state/` (always refused before this is asked) nor a hidden
//! file or directory (`.git/`, `.claude/`, `.mcp.json`, `.gitignore`), whose contents configure
//! programs that run code, nor the files that say what runs unattended later (`routines/`,
//! `reminders/`, `webhooks/`, `skills/`): a job's `gate:` and a skill's `` !`command` `` are run
//! by the bot without another question, so writing one is the owner's call. Everything else asks.

use std::path::{Component, Path};

use serde_json::Value;

use super::file_rules::{is_state_path, lexical, real_path};

/// True when the file an editing tool's `input` names (`file_path` or `notebook_path`,
/// absolute or relative to `root`) may be edited without asking under `acceptEdits`.
pub fn edit_stays_home(input: &Value, root: &Path) -> bool {
    let Some(target) = ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
    else {
        return false;
    };
    let path = root.join(target);
    if is_state_path(&path, root) {
        return false;
    }
    let written = lexical(&path);
    let home = lexical(root);
    let (Some(real), Some(real_home)) = (real_path(&path), real_path(root)) else {
        return false;
    };
    plain_inside(&written, &home)
        && plain_inside(&real, &real_home)
        && !runs_unattended(&written, &home)
        && !runs_unattended(&real, &real_home)
}

/// The directories whose files the bot acts on later without asking anyone.
const UNATTENDED: [&str; 4] = ["routines", "reminders", "webhooks", "skills"];

/// True when `path` is in one of the [`UNATTENDED`] directories of `root`.
fn runs_unattended(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .ok()
        .and_then(|rel| rel.components().next())
        .is_some_and(|first| UNATTENDED.iter().any(|d| first.as_os_str() == *d))
}

/// True when `path` lies below `dir` through names that are not hidden.
fn plain_inside(path: &Path, dir: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(dir) else {
        return false;
    };
    !rel.as_os_str().is_empty()
        && rel.components().all(|c| match c {
            Component::Normal(name) => !name.to_string_lossy().starts_with('.'),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stays(root: &Path, file: &str) -> bool {
        edit_stays_home(&json!({ "file_path": file }), root)
    }

    #[test]
    fn files_in_the_data_directory_stay_home() {
        let root = Path::new("/home/u/.ollim-bot");
        assert!(stays(root, "/home/u/.ollim-bot/notes/walk.md"));
        assert!(stays(root, "notes/list.txt"));
        assert!(stays(root, "USER.md"));
        assert!(edit_stays_home(&json!({"notebook_path": "n.ipynb"}), root));
    }

    #[test]
    fn outside_state_and_hidden_files_do_not() {
        let root = Path::new("/home/u/.ollim-bot");
        for file in [
            "/home/u/.ssh/authorized_keys",
            "/home/u/.bashrc",
            "../.bashrc",
            "routines/../../x",
            "state/ping_budget.json",
            "routines/../state/x",
            ".git/hooks/pre-commit",
            ".claude/settings.json",
            ".mcp.json",
            "skills/x/.hidden",
            "/home/u/.ollim-bot",
            // What runs later without a question: a gate, a skill's commands.
            "routines/walk.md",
            "/home/u/.ollim-bot/reminders/r.md",
            "webhooks/hook.md",
            "skills/x/SKILL.md",
            "notes/../skills/x/SKILL.md",
        ] {
            assert!(!stays(root, file), "{file}");
        }
        assert!(!edit_stays_home(&json!({"content": "x"}), root));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_data_directory_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("notes")).unwrap();
        assert!(!stays(&root, "notes/x.md"));
        assert!(stays(&root, "journal/x.md"));
        std::fs::create_dir_all(root.join("skills")).unwrap();
        std::os::unix::fs::symlink(root.join("skills"), root.join("shelf")).unwrap();
        assert!(
            !stays(&root, "shelf/x/SKILL.md"),
            "a link into skills/ asks too"
        );
    }
}
