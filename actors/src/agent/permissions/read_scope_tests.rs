use super::*;
use crate::claude::brain::HookEvent;
use serde_json::json;

fn scope(root: &Path, allowed: &[&str]) -> ReadScope {
    ReadScope::new(
        allowed.iter().map(|s| (*s).to_owned()).collect(),
        DataDir::new(root),
    )
}

fn call(root: &Path, tool: &str, input: Value) -> HookCall {
    HookCall {
        event: HookEvent::PreToolUse,
        callback_id: "hook_9".into(),
        input: json!({"tool_name": tool, "tool_input": input, "cwd": root}),
    }
}

fn allows(scope: &ReadScope, root: &Path, tool: &str, input: Value) -> bool {
    scope.refusal(&call(root, tool, input)).is_none()
}

const DEFAULTS: [&str; 3] = ["Read(./**.md)", "Glob(./**.md)", "Grep(./**.md)"];

#[test]
fn markdown_reads_pass_and_other_files_do_not() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let s = scope(root, &DEFAULTS);
    for ok in ["notes/plan.md", "plan.md", "routines/a/b.md"] {
        assert!(allows(&s, root, "Read", json!({"file_path": ok})), "{ok}");
    }
    let abs = root.join("notes/plan.md");
    assert!(allows(&s, root, "Read", json!({"file_path": abs})));
    for no in [
        "state/ping_budget.json",
        "notes/plan.txt",
        ".env",
        "../outside.md",
        "/etc/passwd",
    ] {
        assert!(!allows(&s, root, "Read", json!({"file_path": no})), "{no}");
    }
    let why = s
        .refusal(&call(root, "Read", json!({"file_path": "state/x.json"})))
        .unwrap();
    assert!(why.contains("Read(./**.md)"), "{why}");
}

#[test]
fn globs_pass_only_when_every_match_is_markdown_in_the_data_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let s = scope(root, &DEFAULTS);
    for ok in [
        json!({"pattern": "**/*.md"}),
        json!({"pattern": "*.md", "path": "routines"}),
        json!({"pattern": "notes/**/*.md"}),
        json!({"pattern": "routines/morning.md"}),
    ] {
        assert!(allows(&s, root, "Glob", ok.clone()), "{ok}");
    }
    for no in [
        json!({"pattern": "**/*"}),
        json!({"pattern": "state/*"}),
        json!({"pattern": "*.{md,json}"}),
        json!({"pattern": "**/*.md", "path": "/etc"}),
        json!({"pattern": "*/../../*.md"}),
        json!({"pattern": "state/ping_budget.json"}),
    ] {
        assert!(!allows(&s, root, "Glob", no.clone()), "{no}");
    }
}

#[test]
fn greps_need_a_markdown_filter_or_a_markdown_file() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("plan.md"), "x").unwrap();
    std::fs::write(root.join("plan.txt"), "x").unwrap();
    let s = scope(root, &DEFAULTS);
    for ok in [
        json!({"pattern": "x", "glob": "*.md"}),
        json!({"pattern": "x", "glob": "**/*.md", "path": "routines"}),
        json!({"pattern": "x", "glob": "*.md !draft*"}),
        json!({"pattern": "x", "path": "plan.md"}),
    ] {
        assert!(allows(&s, root, "Grep", ok.clone()), "{ok}");
    }
    for no in [
        json!({"pattern": "x"}),
        json!({"pattern": "x", "type": "md"}),
        json!({"pattern": "x", "glob": "*.md,*.json"}),
        json!({"pattern": "x", "glob": "!*.md"}),
        json!({"pattern": "x", "glob": "*.md", "path": "/etc"}),
        json!({"pattern": "x", "path": "plan.txt"}),
    ] {
        assert!(!allows(&s, root, "Grep", no.clone()), "{no}");
    }
}

#[test]
fn read_rules_cover_searches_and_whole_directory_rules_cover_any_name() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let s = scope(root, &["Read(routines/**)"]);
    assert!(allows(
        &s,
        root,
        "Grep",
        json!({"pattern": "x", "path": "routines"})
    ));
    assert!(allows(&s, root, "Glob", json!({"pattern": "routines/*"})));
    assert!(!allows(&s, root, "Glob", json!({"pattern": "*"})));
    assert!(!allows(
        &s,
        root,
        "Read",
        json!({"file_path": "reminders/x.md"})
    ));
}

#[test]
fn bare_and_star_rules_cover_everything_and_other_tools_are_not_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for rule in ["Read", "Read(*)"] {
        let s = scope(root, &[rule]);
        assert!(allows(
            &s,
            root,
            "Read",
            json!({"file_path": "state/x.json"})
        ));
        assert!(allows(&s, root, "Grep", json!({"pattern": "x"})));
    }
    let s = scope(root, &["Glob"]);
    assert!(allows(&s, root, "Glob", json!({"pattern": "**/*"})));
    assert!(!allows(&s, root, "Read", json!({"file_path": "x.md"})));
    let none = scope(root, &[]);
    assert!(allows(
        &none,
        root,
        "Bash",
        json!({"command": "cat state/x"})
    ));
    assert!(allows(&none, root, "Write", json!({"file_path": "x"})));
}
