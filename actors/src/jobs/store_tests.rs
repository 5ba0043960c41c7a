use super::*;
use crate::jobs::JobSettings;

fn routine(id: &str, message: &str) -> Routine {
    Routine {
        id: crate::jobs::JobId(id.to_owned()),
        message: message.to_owned(),
        cron: "0 9 * * *".to_owned(),
        settings: JobSettings::default(),
        paused: false,
        catch_up: Default::default(),
        session: Default::default(),
    }
}

#[test]
fn missing_directory_loads_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let loaded = load_dir::<Routine>(&tmp.path().join("nope")).unwrap();
    assert!(loaded.items.is_empty() && loaded.skipped.is_empty());
}

#[test]
fn only_markdown_files_load_including_the_originals_bare_dot_md() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "junk").unwrap();
    let text = "---\nid: \"a\"\ncron: \"* * * * *\"\n---\n🎉\n";
    fs::write(tmp.path().join(".md"), text).unwrap();
    let loaded = load_dir::<Routine>(tmp.path()).unwrap();
    assert!(loaded.skipped.is_empty());
    assert_eq!(loaded.items.len(), 1);
    assert_eq!(loaded.items[0].0, tmp.path().join(".md"));
}

#[test]
fn rewrite_keeps_a_renamed_file_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let first = write(tmp.path(), &routine("aaaa0001", "Old words")).unwrap();
    let second = write(tmp.path(), &routine("aaaa0001", "New words")).unwrap();
    assert_eq!(first, second);
    assert_eq!(markdown_files(tmp.path()).unwrap().len(), 1);
    let back: Routine = load_file(&second).unwrap();
    assert_eq!(back.message, "New words");
}

#[test]
fn unparseable_file_at_the_slug_counts_as_taken() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("hello.md"), "not frontmatter").unwrap();
    let path = write(tmp.path(), &routine("aaaa0002", "Hello")).unwrap();
    assert_eq!(path, tmp.path().join("hello-2.md"));
    assert_eq!(
        fs::read_to_string(tmp.path().join("hello.md")).unwrap(),
        "not frontmatter"
    );
}

#[test]
fn simultaneous_writers_of_one_slug_each_get_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let writers: Vec<_> = (0..50)
        .map(|n| {
            let dir = dir.clone();
            std::thread::spawn(move || write(&dir, &routine(&format!("c{n:07}"), "Same words")))
        })
        .collect();
    for w in writers {
        w.join().unwrap().unwrap();
    }
    let loaded = load_dir::<Routine>(tmp.path()).unwrap();
    assert!(loaded.skipped.is_empty());
    let mut ids: Vec<_> = loaded.into_items().into_iter().map(|r| r.id.0).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 50);
}

#[test]
fn remove_unknown_id_is_none() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), &routine("aaaa0003", "Keep me")).unwrap();
    assert_eq!(remove(tmp.path(), "ffffffff").unwrap(), None);
    assert_eq!(markdown_files(tmp.path()).unwrap().len(), 1);
}
