use super::*;
use serde_json::json;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    std::fs::create_dir_all(root.join("state")).unwrap();
    std::fs::create_dir_all(root.join("routines")).unwrap();
    std::fs::write(root.join("state/token.json"), "{}").unwrap();
    std::fs::write(root.join("state/config.json"), "{}").unwrap();
    std::fs::write(root.join(".env"), "DISCORD_TOKEN=x").unwrap();
    (tmp, root)
}

fn refused(root: &Path, cwd: &Path, tool: &str, input: Value) -> bool {
    secret_read(tool, &input, cwd, root).is_some()
}

#[test]
fn reading_a_secret_file_is_refused_however_it_is_named() {
    let (_tmp, root) = setup();
    let routines = root.join("routines");
    for (cwd, path) in [
        (&root, ".env"),
        (&root, "./.env.local"),
        (&root, "state/token.json"),
        (&root, "state/credentials.json"),
        (&root, "state/webhook_secrets.json"),
        (&routines, "../state/token.json"),
        (&routines, "../.env"),
        (&root, "/proc/self/environ"),
        (&root, "/proc/1/environ"),
    ] {
        assert!(
            refused(&root, cwd, "Read", json!({"file_path": path})),
            "{path}"
        );
    }
    for path in [
        "state/config.json",
        "routines/x.md",
        ".env.example",
        ".envrc",
        "notes/token.json.md",
        "/proc/self/status",
    ] {
        assert!(
            !refused(&root, &root, "Read", json!({"file_path": path})),
            "{path}"
        );
    }
    let why = secret_read("Read", &json!({"file_path": ".env"}), &root, &root).unwrap();
    assert!(why.contains("secrets"), "{why}");
}

#[test]
fn a_symlink_to_a_secret_is_a_secret() {
    let (_tmp, root) = setup();
    std::os::unix::fs::symlink(root.join("state/token.json"), root.join("notes.txt")).unwrap();
    assert!(refused(
        &root,
        &root,
        "Read",
        json!({"file_path": "notes.txt"})
    ));
    assert!(refused(
        &root,
        &root,
        "Edit",
        json!({"file_path": "notes.txt"})
    ));
}

#[test]
fn a_grep_that_could_reach_a_secret_needs_a_glob_that_keeps_it_out() {
    let (_tmp, root) = setup();
    assert!(refused(&root, &root, "Grep", json!({"pattern": "x"})));
    assert!(refused(
        &root,
        &root,
        "Grep",
        json!({"pattern": "x", "path": "state"})
    ));
    assert!(refused(
        &root,
        &root,
        "Grep",
        json!({"pattern": "x", "glob": "*.json"})
    ));
    assert!(!refused(
        &root,
        &root,
        "Grep",
        json!({"pattern": "x", "glob": "*.md"})
    ));
    assert!(!refused(
        &root,
        &root,
        "Grep",
        json!({"pattern": "x", "path": "routines"})
    ));
}
