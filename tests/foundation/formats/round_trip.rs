//! Fixtures read and written back byte for byte; every field read; defaults, aliases, quoting.

use std::fs;

use ollim_actors::jobs::store::{self, Item};
use ollim_actors::jobs::{reminder, routine, ModelChoice, Reminder, Routine, UpdateMode};
use ollim_actors::{jobs::skills, jobs::webhook_spec};

use crate::fixtures::{copy_fixtures, fixture_files, fresh_dir, original, snapshot};

fn read(path: &std::path::Path) -> String {
    fs::read_to_string(path).expect("fixture is readable")
}

fn strings(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

#[test]
fn every_fixture_writes_back_byte_identical() {
    for path in fixture_files("routines") {
        let text = read(&path);
        let parsed = routine::parse(&text).expect("routine fixture parses");
        assert_eq!(routine::to_markdown(&parsed), text, "{}", path.display());
    }
    for path in fixture_files("reminders") {
        let text = read(&path);
        let parsed = reminder::parse(&text).expect("reminder fixture parses");
        assert_eq!(reminder::to_markdown(&parsed), text, "{}", path.display());
    }
    for path in fixture_files("webhooks") {
        let text = read(&path);
        let parsed = webhook_spec::parse(&text).expect("webhook fixture parses");
        assert_eq!(
            webhook_spec::to_markdown(&parsed),
            text,
            "{}",
            path.display()
        );
    }
    for path in fixture_files("skills") {
        let text = read(&path);
        let dir = path
            .parent()
            .and_then(|p| p.file_name())
            .expect("skill dir");
        let parsed = skills::parse(&text, &dir.to_string_lossy()).expect("skill parses");
        assert_eq!(skills::to_markdown(&parsed), text, "{}", path.display());
    }
    assert_eq!(fixture_files("routines").len(), 3);
    assert_eq!(fixture_files("reminders").len(), 4);
    assert_eq!(fixture_files("webhooks").len(), 2);
    assert_eq!(fixture_files("skills").len(), 3);
}

#[test]
fn rewriting_every_item_through_the_store_changes_no_byte() {
    let tmp = fresh_dir("rewriting_every_item");
    let routines = copy_fixtures("routines", tmp.path());
    let reminders = copy_fixtures("reminders", tmp.path());
    let webhooks = copy_fixtures("webhooks", tmp.path());
    let skills_dir = copy_fixtures("skills", tmp.path());
    let before = snapshot(tmp.path());

    fn rewrite_all<T: Item>(dir: &std::path::Path) {
        let loaded = store::load_dir::<T>(dir).expect("directory lists");
        assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
        for (path, item) in &loaded.items {
            assert_eq!(&store::write(dir, item).expect("rewrite"), path);
        }
    }
    rewrite_all::<Routine>(&routines);
    rewrite_all::<Reminder>(&reminders);
    rewrite_all::<webhook_spec::WebhookSpec>(&webhooks);
    for (path, skill) in skills::load_skills(&skills_dir).expect("skills list").items {
        assert_eq!(
            skills::write_skill(&skills_dir, &skill).expect("rewrite"),
            path
        );
    }

    assert_eq!(snapshot(tmp.path()), before);
}

#[test]
fn every_option_routine_reads_every_field() {
    let path = original("routines").join("end-of-the-work-day-collect-everything-before-deci.md");
    let r = routine::parse(&read(&path)).expect("parses");
    assert_eq!(r.id.as_str(), "bead3dd2");
    assert_eq!(r.cron, "30 16 * * 1-5");
    let s = &r.settings;
    assert!(s.background && s.isolated && !s.thinking && !s.allow_ping);
    assert_eq!(s.model, Some(ModelChoice::Sonnet));
    assert_eq!(
        s.description,
        "End of day -- triage email, review tasks, quiet if nothing to do"
    );
    assert_eq!(s.update_main_session, UpdateMode::Always);
    assert_eq!(
        s.allowed_tools,
        strings(&[
            "Bash(ollim-bot tasks *)",
            "Bash(ollim-bot gmail *)",
            "mcp__discord__*"
        ])
    );
    assert_eq!(s.skills, strings(&["email-triage", "task-review"]));
    assert!(r.message.starts_with("End of the work day."));
    assert!(r.message.ends_with("Otherwise stay silent."));
    assert!(r.message.contains("\n\n## Collect\n"));
}

#[test]
fn every_option_reminder_reads_every_field() {
    let path = original("reminders").join("final-check-is-the-visa-form-submitted-if-not-put.md");
    let r = reminder::parse(&read(&path)).expect("parses");
    assert_eq!(r.id.as_str(), "e1e2e3e4");
    assert_eq!(r.run_at_raw, "2026-03-01T09:15:30.000250+01:00");
    assert_eq!(r.run_at.to_rfc3339(), "2026-03-01T09:15:30.000250+01:00");
    assert_eq!((r.chain_depth, r.max_chain), (2, 2));
    assert_eq!(r.chain_parent.as_deref(), Some("abcdef12"));
    assert!(!r.can_follow_up());
    let s = &r.settings;
    assert!(s.background && s.isolated && !s.thinking && !s.allow_ping);
    assert_eq!(s.model, Some(ModelChoice::Haiku));
    assert_eq!(s.update_main_session, UpdateMode::Blocked);
    assert_eq!(s.allowed_tools, strings(&["Bash(ollim-bot cal *)"]));
    assert_eq!(s.skills, strings(&["task-review"]));
}

#[test]
fn chain_root_and_link_read_their_chain_fields() {
    let dir = original("reminders");
    let root = reminder::parse(&read(
        &dir.join("has-the-quarterly-report-been-sent-check-tasks-for.md"),
    ))
    .expect("root parses");
    let link = reminder::parse(&read(
        &dir.join("has-the-quarterly-report-been-sent-check-tasks-for-2.md"),
    ))
    .expect("link parses");
    assert_eq!((root.chain_depth, root.max_chain), (0, 3));
    assert_eq!(root.chain_parent.as_deref(), Some(root.id.as_str()));
    assert_eq!((link.chain_depth, link.max_chain), (1, 3));
    assert_eq!(link.chain_root(), root.id.as_str());
    assert_eq!(link.run_at_raw, "2026-02-24T15:00:00.482913-08:00");
    assert!(link.can_follow_up());
}

#[test]
fn every_option_webhook_spec_and_skill_read_every_field() {
    let spec =
        webhook_spec::parse(&read(&original("webhooks").join("github-ci.md"))).expect("spec");
    assert_eq!(spec.id, "github-ci");
    assert!(spec.isolated && !spec.thinking && !spec.allow_ping);
    assert_eq!(spec.model, Some(ModelChoice::Haiku));
    assert_eq!(spec.update_main_session, UpdateMode::Freely);
    assert_eq!(spec.allowed_tools, strings(&["Bash(gh run list *)"]));
    assert_eq!(spec.fields["additionalProperties"], false);
    assert_eq!(spec.fields["properties"]["status"]["enum"][2], "cancelled");
    assert!(spec.template.contains("{repo} with status {{status}}"));

    let skill = skills::read_skill(&original("skills"), "email-triage")
        .expect("skill reads")
        .expect("skill exists");
    assert_eq!(
        skill.description,
        "Sort unread email by urgency and turn action items into tasks."
    );
    assert_eq!(
        skill.allowed_tools,
        strings(&["Bash(ollim-bot gmail *)", "Bash(ollim-bot tasks *)"])
    );
    assert!(skill
        .instructions
        .starts_with("## Unread right now\n\n!`ollim-bot gmail unread`"));
}

#[test]
fn snake_case_keys_read_like_kebab_case_and_write_as_kebab() {
    let snake = "---\nid: \"ab12cd34\"\nrun_at: \"2026-02-24T14:00:00-08:00\"\nbackground: true\nchain_depth: 1\nmax_chain: 2\nchain_parent: \"ffff0000\"\nupdate_main_session: \"freely\"\nallow_ping: false\nallowed_tools:\n  - \"Read\"\n---\nCheck.\n";
    let kebab = snake
        .replace("run_at", "run-at")
        .replace("chain_depth", "chain-depth")
        .replace("max_chain", "max-chain")
        .replace("chain_parent", "chain-parent")
        .replace("update_main_session", "update-main-session")
        .replace("allow_ping", "allow-ping")
        .replace("allowed_tools", "allowed-tools");
    let from_snake = reminder::parse(snake).expect("snake_case parses");
    assert_eq!(
        from_snake,
        reminder::parse(&kebab).expect("kebab-case parses")
    );
    assert_eq!(from_snake.settings.update_main_session, UpdateMode::Freely);
    assert_eq!(reminder::to_markdown(&from_snake), kebab);
}

#[test]
fn defaults_are_omitted_on_write() {
    let explicit = "---\nid: \"ab12cd34\"\ncron: \"0 9 * * *\"\nbackground: false\nmodel: null\nthinking: true\nisolated: false\ndescription: \"\"\nupdate-main-session: \"on_ping\"\nallow-ping: true\nallowed-tools: null\nskills: ~\n---\nStretch.\n";
    let r = routine::parse(explicit).expect("parses");
    assert_eq!(
        routine::to_markdown(&r),
        "---\nid: \"ab12cd34\"\ncron: \"0 9 * * *\"\n---\nStretch.\n"
    );
    let explicit = "---\nid: \"ab12cd34\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\nchain-depth: 0\nmax-chain: 0\nchain-parent: null\n---\nStretch.\n";
    let r = reminder::parse(explicit).expect("parses");
    assert_eq!(
        reminder::to_markdown(&r),
        "---\nid: \"ab12cd34\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\n---\nStretch.\n"
    );
}

#[test]
fn quotes_and_backslashes_round_trip() {
    let tmp = fresh_dir("quotes_and_backslashes");
    let mut r = Routine::new(
        "Say \"hi\" -- then open C:\\notes",
        "0 9 * * *",
        Default::default(),
    );
    r.settings.description = "the \"big\" one \\ with a\nnewline".to_owned();
    r.settings.allowed_tools = Some(vec!["Bash(echo \"x\")".to_owned()]);
    let path = store::write(tmp.path(), &r).expect("writes");
    let text = fs::read_to_string(&path).expect("reads");
    assert!(
        text.contains("description: \"the \\\"big\\\" one \\\\ with a\\nnewline\"\n"),
        "{text}"
    );
    assert!(text.contains("  - \"Bash(echo \\\"x\\\")\"\n"), "{text}");
    assert_eq!(store::load_file::<Routine>(&path).expect("reads back"), r);
}

#[test]
fn hand_written_files_in_other_styles_read_the_same() {
    // The agent writes these files with its own tools: unquoted values, any key order,
    // YAML 1.1 booleans, a lone skill instead of a list, blank lines around the body.
    let hand = "---\ndescription: Morning check-in\ncron: 30 8 * * *\nbackground: yes\nid: a1b2c3d4\nskills: email-triage\n---\n\nGood morning prompt.\n\n";
    let r = routine::parse(hand).expect("parses");
    assert_eq!(r.id.as_str(), "a1b2c3d4");
    assert_eq!(r.cron, "30 8 * * *");
    assert!(r.settings.background);
    assert_eq!(r.settings.skills, strings(&["email-triage"]));
    assert_eq!(r.message, "Good morning prompt.");
    assert_eq!(
        routine::to_markdown(&r),
        "---\nid: \"a1b2c3d4\"\ncron: \"30 8 * * *\"\nbackground: true\ndescription: \"Morning check-in\"\nskills:\n  - \"email-triage\"\n---\nGood morning prompt.\n"
    );
}

#[test]
fn reading_never_rewrites_files() {
    let tmp = fresh_dir("reading_never_rewrites");
    let dir = copy_fixtures("routines", tmp.path());
    fs::write(
        dir.join("snake.md"),
        "---\nid: x\ncron: '* * * * *'\nallow_ping: false\n---\nb",
    )
    .expect("write");
    fs::write(dir.join("broken.md"), "no frontmatter").expect("write");
    let before = snapshot(tmp.path());
    let modified = |p: &str| {
        fs::metadata(dir.join(p))
            .and_then(|m| m.modified())
            .expect("mtime")
    };
    let mtimes = (modified("snake.md"), modified("broken.md"));
    let loaded = store::load_dir::<Routine>(&dir).expect("lists");
    assert_eq!((loaded.items.len(), loaded.skipped.len()), (4, 1));
    assert_eq!(snapshot(tmp.path()), before);
    assert_eq!((modified("snake.md"), modified("broken.md")), mtimes);
}
