//! Two job files holding one id *(ours)*: the first by file name is the job, every later one is
//! ignored. The one rule the scheduler follows and that `routine list`, `reminder list` and
//! `doctor` show, so what they mark is what the scheduler leaves out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::store::{Item, Loaded};

/// A file ignored because an earlier file (by name) holds its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The id both files hold.
    pub id: String,
    /// The file that is the job.
    pub kept: PathBuf,
    /// The file ignored.
    pub ignored: PathBuf,
}

/// Every ignored file among `files` (`(file, id)`, in any order), in file-name order.
pub fn find<'a>(files: impl IntoIterator<Item = (&'a Path, &'a str)>) -> Vec<Duplicate> {
    let files: Vec<_> = files.into_iter().collect();
    // Only files whose id is held more than once are sorted by name: the scheduler asks on
    // every change to thousands of files, and nearly every id is held once.
    let mut holders: HashMap<&str, usize> = HashMap::with_capacity(files.len());
    for (_, id) in &files {
        *holders.entry(id).or_default() += 1;
    }
    let mut files: Vec<_> = files
        .into_iter()
        .filter(|(_, id)| holders.get(id).is_some_and(|n| *n > 1))
        .collect();
    files.sort();
    let mut first: HashMap<&str, &Path> = HashMap::new();
    let mut ignored = Vec::new();
    for (path, id) in files {
        match first.get(id) {
            Some(kept) => ignored.push(Duplicate {
                id: id.to_owned(),
                kept: kept.to_path_buf(),
                ignored: path.to_path_buf(),
            }),
            None => {
                first.insert(id, path);
            }
        }
    }
    ignored
}

impl<T: Item> Loaded<T> {
    /// The loaded files the scheduler ignores, each with the file it uses instead.
    pub fn duplicates(&self) -> Vec<Duplicate> {
        find(self.items.iter().map(|(p, item)| (p.as_path(), item.id())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_file_by_name_keeps_the_id_whatever_the_order_given() {
        let (a, b, c) = (
            Path::new("r/a.md"),
            Path::new("r/b.md"),
            Path::new("r/c.md"),
        );
        let found = find([(c, "x"), (b, "y"), (a, "x")]);
        assert_eq!(
            found,
            vec![Duplicate {
                id: "x".into(),
                kept: a.into(),
                ignored: c.into()
            }]
        );
    }

    #[test]
    fn a_third_copy_names_the_first_file_too() {
        let (a, b, c) = (
            Path::new("r/a.md"),
            Path::new("r/b.md"),
            Path::new("r/c.md"),
        );
        let found = find([(a, "x"), (b, "x"), (c, "x")]);
        let pairs: Vec<_> = found.iter().map(|d| (&*d.kept, &*d.ignored)).collect();
        assert_eq!(pairs, vec![(a, b), (a, c)]);
    }

    #[test]
    fn distinct_ids_ignore_nothing() {
        assert!(find([(Path::new("a.md"), "x"), (Path::new("b.md"), "y")]).is_empty());
    }
}
