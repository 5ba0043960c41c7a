//! What a search reads, counted as it is read: `context.md` cut into its `#` sections, then the
//! session snapshots, then the reflections (each file one document, its frontmatter left out).
//! Files are read and counted on a few worker threads; only the counts of every document and
//! the text of those that hold a query word are kept.

use std::fs::{DirEntry, FileType};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::bm25::{Counter, Counts};
use super::CONTEXT_FILE;

/// The most files read at once.
const MAX_WORKERS: usize = 4;

/// A document that holds a query word: what a hit is made of.
pub(super) struct Doc {
    /// Relative to the data directory.
    pub path: String,
    /// The line the text starts on (1-based).
    pub first_line: usize,
    pub text: String,
}

/// Every document counted, in the corpus's order, and the ones that matched.
#[derive(Default)]
pub(super) struct Counted {
    /// One per document.
    pub counts: Vec<Counts>,
    /// The matching documents, by their index in `counts`, in order.
    pub matching: Vec<(usize, Doc)>,
}

impl Counted {
    fn push(&mut self, counts: Counts, doc: impl FnOnce() -> Doc) {
        if counts.matches() {
            self.matching.push((self.counts.len(), doc()));
        }
        self.counts.push(counts);
    }
}

/// Counts `terms` in every document under `root`: `context.md`'s sections, then snapshots,
/// then reflections. Files that cannot be read or listed go to `skipped`.
pub(super) fn count(
    root: &Path,
    terms: &[String],
    skipped: &mut Vec<(PathBuf, String)>,
) -> Counted {
    let mut counted = Counted::default();
    let mut counter = Counter::new(terms);
    let context = root.join(CONTEXT_FILE);
    if context.exists() {
        match read(&context) {
            Ok(text) => {
                for (first_line, section) in sections(&text) {
                    counted.push(counter.count(&section), || Doc {
                        path: CONTEXT_FILE.to_owned(),
                        first_line,
                        text: section,
                    });
                }
            }
            Err(e) => skipped.push((context, e)),
        }
    }
    let mut files = markdown_in(
        &root.join(crate::agent::memory_flush::SNAPSHOT_DIR),
        skipped,
    );
    for dir in subdirs(&root.join(crate::base::data_dir::REFLECTIONS), skipped) {
        files.extend(markdown_in(&dir, skipped));
    }
    for (file, result) in files.iter().zip(count_files(&files, terms)) {
        match result {
            Ok(FileCount {
                counts,
                first_line,
                body,
            }) => counted.push(counts, || Doc {
                path: file
                    .strip_prefix(root)
                    .unwrap_or(file)
                    .display()
                    .to_string(),
                first_line,
                text: body,
            }),
            Err(e) => skipped.push((file.clone(), e)),
        }
    }
    counted
}

/// One file counted.
struct FileCount {
    counts: Counts,
    /// The line its body starts on (1-based).
    first_line: usize,
    /// Its body when a query word is in it, else empty.
    body: String,
}

/// Reads and counts `files` on a few threads; the results in the files' order.
fn count_files(files: &[PathBuf], terms: &[String]) -> Vec<Result<FileCount, String>> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // At least two: reading waits on the disk as much as on a core.
    let workers = cores.clamp(2, MAX_WORKERS).min(files.len());
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Result<FileCount, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut counter = Counter::new(terms);
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = files.get(index) else { break };
                        mine.push((index, count_file(file, &mut counter)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    done.sort_unstable_by_key(|(index, _)| *index);
    // A worker that panicked lost its files: name them rather than drop them silently.
    let mut out = Vec::with_capacity(files.len());
    let mut done = done.into_iter().peekable();
    for index in 0..files.len() {
        match done.next_if(|(i, _)| *i == index) {
            Some((_, result)) => out.push(result),
            None => out.push(Err("not read (a reading thread failed)".to_owned())),
        }
    }
    out
}

fn count_file(file: &Path, counter: &mut Counter<'_>) -> Result<FileCount, String> {
    let text = read(file)?;
    // The frontmatter (a snapshot's session, reason and times) is not what was said.
    let (skipped_lines, body) = crate::jobs::frontmatter::body_after(&text);
    let counts = counter.count(body);
    let body = if counts.matches() {
        body.to_owned()
    } else {
        String::new()
    };
    Ok(FileCount {
        counts,
        first_line: 1 + skipped_lines,
        body,
    })
}

/// `context.md` cut at each line starting with `#` (text before the first heading is a section
/// too): each section's first line (1-based) and text.
fn sections(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let heading = line.starts_with('#');
        match out.last_mut() {
            Some((_, section)) if !heading => {
                section.push('\n');
                section.push_str(line);
            }
            _ => out.push((i + 1, line.to_owned())),
        }
    }
    out
}

/// The file's text, invalid UTF-8 replaced (copied only then).
fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The entries of `dir` (missing: none), sorted, each kept when `keep` says so of its path and
/// kind (links followed).
fn entries(
    dir: &Path,
    skipped: &mut Vec<(PathBuf, String)>,
    keep: impl Fn(&Path, &dyn Fn() -> Option<FileType>) -> bool,
) -> Vec<PathBuf> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            skipped.push((dir.to_path_buf(), e.to_string()));
            return Vec::new();
        }
    };
    let mut out: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            keep(&path, &|| kind(&entry)).then_some(path)
        })
        .collect();
    out.sort();
    out
}

/// What `entry` is, links followed: from the listing itself (no `stat`) unless it is a link.
fn kind(entry: &DirEntry) -> Option<FileType> {
    match entry.file_type() {
        Ok(kind) if !kind.is_symlink() => Some(kind),
        _ => std::fs::metadata(entry.path()).ok().map(|m| m.file_type()),
    }
}

fn markdown_in(dir: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    entries(dir, skipped, |path, kind| {
        path.extension().is_some_and(|e| e == "md") && kind().is_some_and(|k| k.is_file())
    })
}

fn subdirs(dir: &Path, skipped: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    entries(dir, skipped, |_, kind| kind().is_some_and(|k| k.is_dir()))
}
