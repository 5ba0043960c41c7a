use super::*;

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_documented_example_parses() {
    let p = ToolPolicy::parse(
        "main_session:\n  additional_allowed:\n    - \"Bash(git status)\"\n\nbg_forks:\n  additional_allowed:\n    - \"Bash(ollim-bot cal *)\"\n",
    )
    .unwrap();
    assert_eq!(p.main_additional, strings(&["Bash(git status)"]));
    assert_eq!(p.bg_additional, strings(&["Bash(ollim-bot cal *)"]));
    assert_eq!(p.bg_override, None);
    assert!(p.unknown_keys.is_empty());
}

#[test]
fn override_is_kept_even_when_empty() {
    let p = ToolPolicy::parse("bg_forks:\n  override: []\n").unwrap();
    assert_eq!(p.bg_override, Some(Vec::new()));
    let p = ToolPolicy::parse("bg_forks:\n  override:\n    - \"Read(./**.md)\"\n").unwrap();
    assert_eq!(p.bg_override, Some(strings(&["Read(./**.md)"])));
}

#[test]
fn empty_files_and_sections_mean_no_policy() {
    for text in ["", "# nothing yet\n", "main_session:\nbg_forks:\n"] {
        assert_eq!(
            ToolPolicy::parse(text).unwrap(),
            ToolPolicy::default(),
            "{text:?}"
        );
    }
}

#[test]
fn unknown_keys_are_named_not_fatal() {
    let p = ToolPolicy::parse("bg_forks:\n  overide: [\"Read\"]\nextra: 1\n").unwrap();
    assert_eq!(p.unknown_keys, strings(&["extra", "bg_forks.overide"]));
    assert_eq!(p.bg_override, None);
}

#[test]
fn wrong_shapes_are_errors() {
    for text in [
        "main_session: [\"Read\"]\n",
        "bg_forks:\n  additional_allowed: \"Read\"\n",
        "bg_forks:\n  override:\n    - {a: 1}\n",
        "main_session:\n  additional_allowed: [\n",
        "- just a list\n",
    ] {
        assert!(ToolPolicy::parse(text).is_err(), "{text:?}");
    }
}

#[test]
fn the_conversation_gets_only_safe_additions() {
    let data = DataDir::new("/home/u/.ollim-bot");
    let p = ToolPolicy {
        main_additional: strings(&["Bash(git status)", "Bash(*)", "Write(**)", "Read(*)"]),
        ..ToolPolicy::default()
    };
    assert_eq!(
        p.main_allowed(&data),
        strings(&["Bash(git status)", "Read(*)"])
    );
}

fn write(data: &DataDir, text: &str) {
    std::fs::write(path_in(data), text).unwrap();
}

/// Moves the file's modification time, as a later edit would (the test edits faster than the
/// file system's clock may tick).
fn touch_later(data: &DataDir, secs: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(path_in(data))
        .unwrap();
    file.set_modified(
        SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + secs),
    )
    .unwrap();
}

#[test]
fn an_edit_is_read_and_a_broken_file_keeps_the_last_good_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let mut file = PolicyFile::in_data_dir(&data);
    assert_eq!(file.current(), &ToolPolicy::default());

    write(&data, "bg_forks:\n  override: [\"Read(./**.md)\"]\n");
    touch_later(&data, 1);
    assert_eq!(
        file.current().bg_override,
        Some(strings(&["Read(./**.md)"]))
    );

    write(&data, "bg_forks:\n  override: [\"Read(./**.md)\"\n");
    touch_later(&data, 2);
    assert_eq!(
        file.current().bg_override,
        Some(strings(&["Read(./**.md)"])),
        "a broken file must not widen the background set back to the defaults"
    );

    write(&data, "bg_forks:\n  additional_allowed: [\"WebSearch\"]\n");
    touch_later(&data, 3);
    let now = file.current();
    assert_eq!(now.bg_override, None);
    assert_eq!(now.bg_additional, strings(&["WebSearch"]));

    std::fs::remove_file(path_in(&data)).unwrap();
    assert_eq!(file.current(), &ToolPolicy::default());
}

#[test]
fn an_unchanged_file_is_not_read_again() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    write(
        &data,
        "main_session:\n  additional_allowed: [\"Bash(ls a)\"]\n",
    );
    touch_later(&data, 1);
    let mut file = PolicyFile::in_data_dir(&data);
    assert_eq!(file.current().main_additional, strings(&["Bash(ls a)"]));
    // Same size, same time: not looked at again (the stamp is what says "changed").
    write(
        &data,
        "main_session:\n  additional_allowed: [\"Bash(ls b)\"]\n",
    );
    touch_later(&data, 1);
    assert_eq!(file.current().main_additional, strings(&["Bash(ls a)"]));
    touch_later(&data, 2);
    assert_eq!(file.current().main_additional, strings(&["Bash(ls b)"]));
}
