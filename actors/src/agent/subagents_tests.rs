use super::*;

fn names() -> Names {
    Names {
        user: "Robin".to_owned(),
        bot: "Pip".to_owned(),
    }
}

fn agent_path(data: &DataDir, file: &str) -> PathBuf {
    data.root().join(AGENTS_DIR).join(file)
}

/// A later release in which every shipped text changed.
fn next_release() -> Vec<(&'static str, String)> {
    shipped(&names())
        .into_iter()
        .map(|(file, text)| (file, format!("{text}\nOne more rule.\n")))
        .collect()
}

#[test]
fn fresh_install_writes_all_five_with_names_filled_in() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.written.len(), 5);
    assert_eq!(report.files_written(), 5);
    for (file, _) in SHIPPED {
        let text = std::fs::read_to_string(agent_path(&data, file)).unwrap();
        assert!(text.contains("Robin"), "{file} lacks the user's name");
        assert!(!text.contains("{USER_NAME}") && !text.contains("{BOT_NAME}"));
    }
    assert!(data.state_file(MANIFEST_FILE).is_file());
}

#[test]
fn reinstall_without_changes_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    install(&data, &names()).unwrap();
    let manifest_before = std::fs::read(data.state_file(MANIFEST_FILE)).unwrap();
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.files_written(), 0);
    assert_eq!(report.unchanged.len(), 5);
    let manifest_after = std::fs::read(data.state_file(MANIFEST_FILE)).unwrap();
    assert_eq!(manifest_before, manifest_after);
}

#[test]
fn user_edit_is_kept_while_untouched_files_follow_the_new_release() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    install(&data, &names()).unwrap();
    let edited = agent_path(&data, "gmail-reader.md");
    std::fs::write(&edited, "---\nname: gmail-reader\n---\nmy own rules\n").unwrap();

    let release = next_release();
    let report = install_texts(&data, &release).unwrap();
    assert_eq!(report.kept_user_edits, ["gmail-reader.md"]);
    assert_eq!(report.updated.len(), 4);
    assert_eq!(
        std::fs::read_to_string(&edited).unwrap(),
        "---\nname: gmail-reader\n---\nmy own rules\n"
    );
    let guide = std::fs::read_to_string(agent_path(&data, "ollim-bot-guide.md")).unwrap();
    assert!(guide.ends_with("One more rule.\n"));

    // The edit stays protected in later releases too.
    let report = install_texts(&data, &release).unwrap();
    assert_eq!(report.kept_user_edits, ["gmail-reader.md"]);
    assert_eq!(report.files_written(), 0);
}

#[test]
fn copies_of_the_claude_history_release_move_to_ollim_bot_history_unless_edited() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    // What an earlier release installed: the same specs calling `claude-history`.
    let earlier: Vec<(&str, String)> = shipped(&names())
        .into_iter()
        .map(|(file, text)| (file, text.replace("ollim-bot history", "claude-history")))
        .collect();
    install_texts(&data, &earlier).unwrap();
    let edited = agent_path(&data, "user-proxy.md");
    let mine = std::fs::read_to_string(&edited).unwrap() + "\nMy own note.\n";
    std::fs::write(&edited, &mine).unwrap();
    let report = install(&data, &names()).unwrap();
    assert_eq!(
        report.updated,
        ["history-reviewer.md", "responsiveness-reviewer.md"]
    );
    assert_eq!(report.kept_user_edits, ["user-proxy.md"]);
    for file in ["history-reviewer.md", "responsiveness-reviewer.md"] {
        let text = std::fs::read_to_string(agent_path(&data, file)).unwrap();
        assert!(text.contains("tools: Bash(ollim-bot history *)"), "{file}");
        assert!(!text.contains("claude-history"), "{file}");
    }
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), mine);
}

#[test]
fn deleted_file_is_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    install(&data, &names()).unwrap();
    std::fs::remove_file(agent_path(&data, "user-proxy.md")).unwrap();
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.written, ["user-proxy.md"]);
    let text = std::fs::read_to_string(agent_path(&data, "user-proxy.md")).unwrap();
    assert_eq!(text, shipped(&names())[4].1);
}

#[test]
fn file_without_a_record_counts_as_the_users() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let path = agent_path(&data, "ollim-bot-guide.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "installed by the original program\n").unwrap();
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.kept_user_edits, ["ollim-bot-guide.md"]);
    assert_eq!(report.written.len(), 4);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "installed by the original program\n"
    );
}

/// What a release before the rename installed: the guide as `guide.md`.
fn before_the_rename() -> Vec<(&'static str, String)> {
    shipped(&names())
        .into_iter()
        .map(|(file, text)| match file {
            "ollim-bot-guide.md" => (
                "guide.md",
                text.replace("name: ollim-bot-guide", "name: guide"),
            ),
            other => (other, text),
        })
        .collect()
}

#[test]
fn our_unedited_old_guide_is_replaced_by_ollim_bot_guide() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    install_texts(&data, &before_the_rename()).unwrap();
    assert!(agent_path(&data, "guide.md").is_file());
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.written, ["ollim-bot-guide.md"]);
    assert_eq!(report.retired, ["guide.md"]);
    assert!(!agent_path(&data, "guide.md").exists());
    let guide = std::fs::read_to_string(agent_path(&data, "ollim-bot-guide.md")).unwrap();
    assert!(guide.starts_with("---\nname: ollim-bot-guide\n"), "{guide}");
    let manifest = std::fs::read_to_string(data.state_file(MANIFEST_FILE)).unwrap();
    assert!(!manifest.contains("\"guide.md\""), "{manifest}");
    // Nothing left to do the next time.
    let again = install(&data, &names()).unwrap();
    assert!(again.retired.is_empty() && again.kept_renamed.is_empty());
    assert_eq!(again.files_written(), 0);
}

#[test]
fn an_edited_old_guide_is_kept_beside_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    install_texts(&data, &before_the_rename()).unwrap();
    let old = agent_path(&data, "guide.md");
    let mine = std::fs::read_to_string(&old).unwrap() + "\nAlways answer in French.\n";
    std::fs::write(&old, &mine).unwrap();
    let report = install(&data, &names()).unwrap();
    assert_eq!(report.kept_renamed, ["guide.md"]);
    assert!(report.retired.is_empty());
    assert_eq!(std::fs::read_to_string(&old).unwrap(), mine);
    assert!(agent_path(&data, "ollim-bot-guide.md").is_file());
}

#[test]
fn shipped_specs_have_the_agent_frontmatter() {
    #[derive(Deserialize)]
    struct Front {
        name: String,
        description: String,
        tools: String,
        model: Option<String>,
    }
    for (file, text) in shipped(&names()) {
        let rest = text.strip_prefix("---\n").expect("opens with ---");
        let (yaml, body) = rest.split_once("\n---\n").expect("closing ---");
        let front: Front = serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(format!("{}.md", front.name), file);
        assert!(!front.description.trim().is_empty(), "{file}");
        assert!(
            front.tools.split(',').all(|t| !t.trim().is_empty()),
            "{file}"
        );
        if let Some(model) = front.model {
            assert!(
                ["opus", "sonnet", "haiku"].contains(&model.as_str()),
                "{file}"
            );
        }
        assert!(body.trim().len() > 200, "{file} has no real prompt");
    }
}

#[test]
fn fingerprint_is_stable_and_tells_texts_apart() {
    assert_eq!(fingerprint(""), "fnv1a64:cbf29ce484222325");
    assert_eq!(fingerprint("a"), "fnv1a64:af63dc4c8601ec8c");
    assert_ne!(fingerprint("guide"), fingerprint("guidf"));
}
