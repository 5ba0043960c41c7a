//! Test support for the on-disk formats: where the fixtures are, fresh directories, copies,
//! snapshots of a directory's bytes, and a way to see what was logged.
//!
//! The fixtures under `tests/fixtures/original/` are written by hand in the original
//! program's format (SPEC §3): one directory per kind, files named the way it names them.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// `tests/fixtures/original/<kind>` (`routines`, `reminders`, `webhooks`, `skills`).
pub fn original(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/original")
        .join(kind)
}

/// A fresh empty directory for one test, named after it.
pub fn fresh_dir(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("{test}-"))
        .tempdir()
        .expect("the system temp directory is writable")
}

/// Copies the fixtures of `kind` into `<root>/<kind>` and returns that directory.
pub fn copy_fixtures(kind: &str, root: &Path) -> PathBuf {
    let target = root.join(kind);
    copy_tree(&original(kind), &target).expect("fixtures copy into a temp directory");
    target
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else {
            fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}

/// Every file under `dir`, by path relative to it, with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    collect(dir, dir, &mut out);
    out
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    let entries = fs::read_dir(dir).expect("snapshot directory is readable");
    for entry in entries {
        let path = entry.expect("directory entry is readable").path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).expect("path is under its root");
            let bytes = fs::read(&path).expect("snapshot file is readable");
            out.insert(rel.to_string_lossy().into_owned(), bytes);
        }
    }
}

/// The `*.md` fixture files of one kind (skills: each `SKILL.md`), sorted.
pub fn fixture_files(kind: &str) -> Vec<PathBuf> {
    snapshot(&original(kind))
        .into_keys()
        .filter(|name| name.ends_with(".md"))
        .map(|name| original(kind).join(name))
        .collect()
}

/// Runs `f` with a subscriber that records everything logged (plain text), and returns
/// `f`'s result with the log.
pub fn capture_logs<R>(f: impl FnOnce() -> R) -> (R, String) {
    let buffer = SharedBuffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    let result = tracing::subscriber::with_default(subscriber, f);
    (result, buffer.text())
}

#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl io::Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Ok(mut inner) = self.0.lock() {
            inner.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
