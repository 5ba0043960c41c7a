//! A check on the crate's shape: no import circle spans two top-level modules. Every
//! `crate::<module>` path in a module's files (a `use`, an inline path or a doc link) counts as
//! that module depending on `<module>`; the graph of those dependencies must have no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules of `src` and the `.rs` files each is made of.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if path.is_dir() {
            out.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            out.insert(name, vec![path]);
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a module directory is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The modules `text` names after `crate::`, including those inside `crate::{a, b::c}`.
fn named_modules(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or_default();
            out.extend(inner.split(',').map(|part| ident(part.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

/// Each module's dependencies on the other modules, with one file that makes each.
fn graph(src: &Path) -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let modules = modules(src);
    let mut edges: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (module, files) in &modules {
        let deps = edges.entry(module.clone()).or_default();
        for file in files {
            let text = std::fs::read_to_string(file).expect("a source file is readable");
            for named in named_modules(&text) {
                if named != *module && modules.contains_key(&named) {
                    deps.entry(named).or_insert_with(|| file.clone());
                }
            }
        }
    }
    edges
}

/// One cycle through the graph, if there is any, as the modules in order.
fn find_cycle(edges: &BTreeMap<String, BTreeMap<String, PathBuf>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeMap<String, PathBuf>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flat_map(|d| d.keys()) {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let start = path.iter().position(|n| n == next).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(cycle) = visit(next, edges, marks, path) {
                        return Some(cycle);
                    }
                }
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in edges.keys() {
        if !marks.contains_key(node) {
            if let Some(cycle) = visit(node, edges, &mut marks, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn no_import_circle_spans_two_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    assert!(edges.len() > 20, "found only {:?}", edges.keys());
    if let Some(cycle) = find_cycle(&edges) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                let file = &edges[&w[0]][&w[1]];
                format!("{} -> {} ({})", w[0], w[1], file.display())
            })
            .collect();
        panic!("import circle:\n  {}", steps.join("\n  "));
    }
}

#[test]
fn a_circle_is_found_and_named() {
    let mut edges: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges
            .entry(from.into())
            .or_default()
            .insert(to.into(), PathBuf::from(from));
    }
    edges.entry("d".into()).or_default();
    assert_eq!(
        find_cycle(&edges),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    edges.get_mut("c").map(|d| d.remove("a"));
    assert_eq!(find_cycle(&edges), None);
}

#[test]
fn paths_and_groups_name_their_modules() {
    let text = "use crate::{jobs::Job, clock};\nlet x = crate::tools::Refusal::UserBusy;";
    assert_eq!(
        named_modules(text).into_iter().collect::<Vec<_>>(),
        ["clock", "jobs", "tools"]
    );
}
