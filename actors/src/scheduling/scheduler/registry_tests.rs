//! Tests of the incremental directory index.
use super::*;

fn parse(p: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(p).map_err(|e| e.to_string())?;
    if text.starts_with("bad") {
        Err("starts with bad".into())
    } else {
        Ok(text)
    }
}

#[cfg(unix)]
#[test]
fn links_are_followed_only_inside_the_data_directory() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = root.path().join("routines");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.path().join("shared.md"), "inside").unwrap();
    std::fs::write(outside.path().join("secret.md"), "outside").unwrap();
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    };
    link(&root.path().join("shared.md"), "in.md");
    link(&outside.path().join("secret.md"), "out.md");
    link(&root.path().join("missing.md"), "dangling.md");
    std::fs::create_dir(dir.join("folder.md")).unwrap();
    let mut idx = DirIndex::new(dir.clone());
    assert_eq!(idx.refresh(parse), Changed::Added);
    let items: Vec<_> = idx
        .items()
        .map(|(p, t)| (p.to_path_buf(), t.clone()))
        .collect();
    assert_eq!(items, [(dir.join("in.md"), "inside".to_owned())]);
    let mut refused: Vec<_> = idx.refused.keys().cloned().collect();
    refused.sort();
    assert_eq!(
        refused,
        ["dangling.md", "folder.md", "out.md"].map(|n| dir.join(n))
    );
}

#[test]
fn refresh_tracks_additions_edits_removals_and_skips_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    assert_eq!(idx.refresh(parse), Changed::None);
    std::fs::write(dir.path().join("a.md"), "one").unwrap();
    std::fs::write(dir.path().join("b.md"), "bad file").unwrap();
    std::fs::write(dir.path().join("c.txt"), "ignored").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.len(), 1);
    let broken: Vec<_> = idx.broken().map(|(p, r)| (p.to_path_buf(), r)).collect();
    assert_eq!(broken, [(dir.path().join("b.md"), "starts with bad")]);
    assert_eq!(idx.refresh(parse), Changed::None);
    std::fs::write(dir.path().join("a.md"), "one, edited").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.items().next().unwrap().1, "one, edited");
    std::fs::remove_file(dir.path().join("a.md")).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Removed);
    assert!(idx.is_empty());
}

#[test]
fn an_unchanged_file_is_not_parsed_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "one").unwrap();
    std::fs::write(dir.path().join("b.md"), "two").unwrap();
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.parses, 2);
    for _ in 0..3 {
        assert_eq!(idx.refresh(parse), Changed::None);
    }
    assert_eq!(idx.parses, 2, "unchanged files were parsed again");
    std::fs::remove_file(dir.path().join("b.md")).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Removed);
    assert_eq!(idx.parses, 2);
}

#[test]
fn a_file_edited_to_the_same_size_is_read_again_for_its_new_mtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.md");
    std::fs::write(&path, "one").unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    assert_eq!(idx.refresh(parse), Changed::Added);
    // Rewritten in place (same inode), same size; only the modification time tells.
    std::fs::write(&path, "two").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.items().next().unwrap().1, "two");
    assert_eq!(idx.parses, 2);
}

#[cfg(unix)]
#[test]
fn a_file_replaced_with_the_same_size_and_mtime_is_read_again_for_its_inode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.md");
    let at = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(at).unwrap();
        p
    };
    write("a.md", "one");
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    assert_eq!(idx.refresh(parse), Changed::Added);
    // An atomic replace (write aside, rename over) within one tick of the clock.
    let aside = write("a.tmp", "two");
    std::fs::rename(aside, &path).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.items().next().unwrap().1, "two");
}

#[cfg(target_os = "linux")]
#[test]
fn only_the_files_named_by_file_events_are_looked_at_again() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..50 {
        std::fs::write(dir.path().join(format!("job-{i}.md")), format!("job {i}")).unwrap();
    }
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert!(
        idx.events.is_live(),
        "no inotify feed for a plain directory"
    );
    assert_eq!((idx.checks, idx.parses, idx.listings), (50, 50, 1));
    assert_eq!(idx.refresh(parse), Changed::None);
    assert_eq!(idx.checks, 50, "an unchanged directory was looked at again");
    std::fs::write(dir.path().join("job-7.md"), "job 7, edited").unwrap();
    std::fs::remove_file(dir.path().join("job-8.md")).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!((idx.checks, idx.parses, idx.listings), (52, 51, 1));
    assert_eq!(idx.len(), 49);
    let edited = idx.items().find(|(p, _)| p.ends_with("job-7.md")).unwrap();
    assert_eq!(edited.1, "job 7, edited");
    std::fs::remove_file(dir.path().join("job-9.md")).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Removed);
    assert_eq!(idx.len(), 48);
}

#[test]
fn a_directory_replaced_at_its_path_is_listed_whole() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("reminders");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.md"), "one").unwrap();
    let mut idx = DirIndex::new(dir.clone());
    assert_eq!(idx.refresh(parse), Changed::Added);
    // Restored from a backup: the old directory moved away, another put in its place.
    std::fs::rename(&dir, root.path().join("old")).unwrap();
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("b.md"), "two").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    let items: Vec<_> = idx
        .items()
        .map(|(p, t)| (p.to_path_buf(), t.clone()))
        .collect();
    assert_eq!(items, [(dir.join("b.md"), "two".to_owned())]);
    assert_eq!(idx.listings, 2);
    std::fs::write(dir.join("c.md"), "three").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.len(), 2);
}

#[cfg(unix)]
#[test]
fn a_link_is_read_again_when_its_target_changes_and_a_dangling_one_when_it_appears() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("routines");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(root.path().join("shared.md"), "inside").unwrap();
    std::os::unix::fs::symlink(root.path().join("shared.md"), dir.join("in.md")).unwrap();
    std::os::unix::fs::symlink(root.path().join("later.md"), dir.join("later.md")).unwrap();
    let mut idx = DirIndex::new(dir.clone());
    assert_eq!(idx.refresh(parse), Changed::Added);
    assert_eq!(idx.len(), 1);
    assert_eq!(idx.refresh(parse), Changed::None);
    // Neither change is an event in the watched directory.
    std::fs::write(root.path().join("shared.md"), "inside, edited").unwrap();
    std::fs::write(root.path().join("later.md"), "arrived").unwrap();
    assert_eq!(idx.refresh(parse), Changed::Added);
    let mut items: Vec<_> = idx.items().map(|(_, t)| t.clone()).collect();
    items.sort();
    assert_eq!(items, ["arrived", "inside, edited"]);
    assert!(idx.refused.is_empty());
    std::fs::remove_file(root.path().join("shared.md")).unwrap();
    assert_eq!(idx.refresh(parse), Changed::Removed);
    assert_eq!(idx.refused.len(), 1, "the link now dangles");
}

#[test]
fn after_list_next_one_refresh_looks_at_every_file_then_events_again() {
    // What the watcher's poll asks for when it sees a change the file events may have missed
    // (a network file system).
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.md", "b.md", "c.md"] {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let mut idx = DirIndex::new(dir.path().to_path_buf());
    idx.refresh(parse);
    idx.refresh(parse);
    assert_eq!((idx.listings, idx.checks), (1, 3));
    idx.list_next();
    assert_eq!(idx.refresh(parse), Changed::None);
    assert_eq!((idx.listings, idx.checks), (2, 6));
    idx.refresh(parse);
    #[cfg(target_os = "linux")]
    assert_eq!(
        (idx.listings, idx.checks),
        (2, 6),
        "events are trusted again"
    );
}
