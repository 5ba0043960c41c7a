//! Tests of the atomic state-file writes.
use super::*;
use std::cell::RefCell;

thread_local! {
    /// Directories this thread flushed, in order.
    pub(super) static SYNCED_DIRS: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

fn synced_dirs() -> Vec<PathBuf> {
    SYNCED_DIRS.with(|synced| synced.take())
}

#[test]
fn atomic_write_flushes_the_directory_after_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/x.json");
    synced_dirs();
    write_atomic(&path, b"one").unwrap();
    assert_eq!(synced_dirs(), [dir.path().join("state")]);
    let created = create_new([dir.path().join("new.md")], b"x").unwrap();
    assert_eq!(created, dir.path().join("new.md"));
    assert_eq!(synced_dirs(), [dir.path().to_path_buf()]);
}

#[test]
fn create_new_never_replaces_and_takes_the_next_free_name() {
    let dir = tempfile::tempdir().unwrap();
    let names = || (1..=3).map(|n| dir.path().join(format!("f{n}.md")));
    fs::write(dir.path().join("f1.md"), b"mine").unwrap();
    assert_eq!(
        create_new(names(), b"two").unwrap(),
        dir.path().join("f2.md")
    );
    assert_eq!(
        create_new(names(), b"three").unwrap(),
        dir.path().join("f3.md")
    );
    let full = create_new(names(), b"four").unwrap_err();
    assert!(full.to_string().contains("taken"), "{full}");
    assert_eq!(fs::read(dir.path().join("f1.md")).unwrap(), b"mine");
    assert_eq!(fs::read(dir.path().join("f2.md")).unwrap(), b"two");
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 3, "no temporary file left behind");
}

#[test]
fn atomic_write_replaces_content_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/x.json");
    write_atomic(&path, b"one").unwrap();
    write_atomic(&path, b"two").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"two");
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("x.json")]);
}

#[test]
fn a_refused_write_reads_as_nothing_changed_naming_the_file_and_the_cause() {
    let error = Error::Io {
        action: "writing",
        path: PathBuf::from("/d/state/config.json"),
        source: io::Error::from_raw_os_error(28),
    };
    assert_eq!(
        NotSaved::from(&error).to_string(),
        "couldn't save /d/state/config.json: No space left on device (os error 28) — \
         nothing changed"
    );
}

#[test]
fn corrupt_file_is_moved_aside_and_defaults_returned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("budget.json");
    fs::write(&path, b"{not json").unwrap();
    let loaded = load_json::<Vec<u32>>(&path, Vec::new).unwrap();
    let Loaded::Corrupt(v, aside) = loaded else {
        panic!("expected corrupt, got {loaded:?}")
    };
    assert!(v.is_empty());
    assert!(!path.exists());
    assert_eq!(fs::read(&aside).unwrap(), b"{not json");
    assert!(aside
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("budget.json.corrupt-"));
}

#[test]
fn missing_and_empty_files_give_defaults_without_moving_anything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.json");
    assert_eq!(
        load_json::<Vec<u8>>(&path, Vec::new).unwrap(),
        Loaded::Missing(vec![])
    );
    fs::write(&path, b"  \n").unwrap();
    assert_eq!(
        load_json::<Vec<u8>>(&path, Vec::new).unwrap(),
        Loaded::Missing(vec![])
    );
    assert!(path.exists());
}
