//! A check on the crate's shape. The groups are ranked by the rows of `lib.rs`'s map, from the
//! ground up: a group may name (`crate::<group>`, in a `use`, an inline path or a doc link)
//! only groups in rows above its own. Inside a group made of separate modules, no import
//! circle spans two of them; `jobs` and `google` are each one domain whose files use one
//! another freely.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The groups `lib.rs` declares (`pub mod <group>;`), in any order.
fn declared_groups(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').trim().to_owned())
        .collect()
}

/// The groups in the first column of `lib.rs`'s map, from the ground up: the ranking.
fn ranked_groups(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! | [`"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect()
}

/// The `.rs` files under `dir`, at any depth.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The top-level names `text` uses after `prefix` (`crate::` or `super::`), including those
/// inside `crate::{a, b::c}`.
fn named_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices(prefix) {
        if text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or_default();
            out.extend(inner.split(',').map(|part| ident(part.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// An import that breaks the ranking: `from` (a group) names `to`, declared after it.
#[derive(Debug, PartialEq)]
struct Upward {
    from: String,
    to: String,
    file: PathBuf,
}

/// Every import from a group to a group ranked above it, one file per pair.
fn upward_imports(src: &Path, ranked: &[String]) -> Vec<Upward> {
    let rank: BTreeMap<&str, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, g)| (g.as_str(), i))
        .collect();
    let mut found: BTreeMap<(String, String), PathBuf> = BTreeMap::new();
    for group in ranked {
        for file in rust_files(&src.join(group)) {
            for named in named_after(&read(&file), "crate::") {
                if rank
                    .get(named.as_str())
                    .is_some_and(|&r| r > rank[group.as_str()])
                {
                    found
                        .entry((group.clone(), named))
                        .or_insert_with(|| file.clone());
                }
            }
        }
    }
    found
        .into_iter()
        .map(|((from, to), file)| Upward { from, to, file })
        .collect()
}

/// Inside one group: each module's dependencies on the group's other modules (named as
/// `crate::<group>::<module>`, or `super::<module>` from the module's own top file).
fn module_graph(group_dir: &Path, group: &str) -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(group_dir).expect("a group directory is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if path.is_dir() {
            modules.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            modules.insert(name, vec![path]);
        }
    }
    let prefix = format!("crate::{group}::");
    let mut edges: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (module, files) in &modules {
        let deps = edges.entry(module.clone()).or_default();
        for file in files {
            let text = read(file);
            let mut named = named_after(&text, &prefix);
            let top_file = file.parent() == Some(group_dir)
                || (file.file_name().is_some_and(|n| n == "mod.rs")
                    && file.parent().and_then(Path::parent) == Some(group_dir));
            if top_file {
                // `super::x` from a module's top file names a sibling module.
                named.extend(named_after(&text, "super::"));
            }
            for n in named {
                if n != *module && modules.contains_key(&n) {
                    deps.entry(n).or_insert_with(|| file.clone());
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
fn every_group_imports_only_the_groups_ranked_below_it() {
    let src = src();
    let lib = read(&src.join("lib.rs"));
    let ranked = ranked_groups(&lib);
    assert!(ranked.len() >= 5, "lib.rs declares only {ranked:?}");
    let upward = upward_imports(&src, &ranked);
    let lines: Vec<String> = upward
        .iter()
        .map(|u| format!("{} -> {} ({})", u.from, u.to, u.file.display()))
        .collect();
    assert!(
        lines.is_empty(),
        "imports from a group to one ranked above it (lib.rs's map, ground up: {ranked:?}):\n  {}",
        lines.join("\n  ")
    );
}

#[test]
fn the_source_tree_is_the_groups_and_lib_rs_maps_each_of_them() {
    let src = src();
    let lib = read(&src.join("lib.rs"));
    let ranked = ranked_groups(&lib);
    assert_eq!(
        ranked.iter().cloned().collect::<BTreeSet<_>>(),
        declared_groups(&lib),
        "lib.rs's map has one row for each group it declares"
    );
    let mut folders: Vec<String> = std::fs::read_dir(&src)
        .expect("src is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .collect();
    folders.sort();
    let mut declared = ranked.clone();
    declared.sort();
    assert_eq!(
        folders, declared,
        "every folder of src is a group declared in lib.rs"
    );
    assert!(ranked.len() <= 9, "at most nine groups: {ranked:?}");
    for group in &ranked {
        let doc = read(&src.join(group).join("mod.rs"));
        assert!(
            doc.lines().any(|l| l.starts_with("//! | [`")),
            "{group}/mod.rs's doc has the table of its modules"
        );
    }
}

/// Groups that are one domain module, not a set of modules: their files may form circles.
const ONE_DOMAIN_GROUPS: [&str; 2] = ["jobs", "google"];

#[test]
fn no_import_circle_spans_two_modules_of_a_group() {
    let src = src();
    let groups = ranked_groups(&read(&src.join("lib.rs")));
    for group in groups
        .iter()
        .filter(|g| !ONE_DOMAIN_GROUPS.contains(&g.as_str()))
    {
        let edges = module_graph(&src.join(group), group);
        if let Some(cycle) = find_cycle(&edges) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[&w[0]][&w[1]].display()))
                .collect();
            panic!("import circle in {group}:\n  {}", steps.join("\n  "));
        }
    }
}

#[test]
fn an_upward_import_is_found_and_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (group, text) in [
        ("low", "use crate::low::x;\n"),
        ("mid", "use crate::low::a;\n"),
        ("high", "use crate::{mid::b, low};\n"),
    ] {
        std::fs::create_dir(dir.path().join(group)).expect("a group folder");
        std::fs::write(dir.path().join(group).join("mod.rs"), text).expect("a file");
    }
    let ranked: Vec<String> = ["low", "mid", "high"].map(String::from).to_vec();
    assert_eq!(upward_imports(dir.path(), &ranked), vec![]);
    std::fs::write(
        dir.path().join("low").join("leak.rs"),
        "fn f() { crate::high::y(); }\n",
    )
    .expect("a file");
    assert_eq!(
        upward_imports(dir.path(), &ranked),
        vec![Upward {
            from: "low".into(),
            to: "high".into(),
            file: dir.path().join("low").join("leak.rs"),
        }]
    );
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
    let text = "use crate::{jobs::Job, base};\nlet x = crate::agent::tools::Refusal::UserBusy; $crate::no;";
    assert_eq!(
        named_after(text, "crate::").into_iter().collect::<Vec<_>>(),
        ["agent", "base", "jobs"]
    );
    assert_eq!(
        named_after(text, "crate::agent::")
            .into_iter()
            .collect::<Vec<_>>(),
        ["tools"]
    );
}
