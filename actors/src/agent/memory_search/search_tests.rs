use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn context_sections_snapshots_and_reflections_are_searched_and_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "context.md",
        "# Projects\nthe garden shed\n\n# People\nAnna is the dentist's receptionist\n",
    );
    write(
        root,
        "memory/sessions/2026-11-20-0900-aaaaaaaa.md",
        "---\nsession: a\n---\n\nwe talked about lunch\nand the dentist once\n",
    );
    write(
        root,
        "memory/sessions/2026-11-21-0900-bbbbbbbb.md",
        "---\nsession: b\n---\n\nthe dentist moved the appointment\ndentist on friday, dentist again\n",
    );
    write(
        root,
        "reflections/morning-review/2026-11-22T08-00-00Z.md",
        "the review ran late\n",
    );
    write(root, "memory/sessions/notes.txt", "dentist dentist dentist");
    let found = search(root, "Dentist", 10).unwrap();
    let where_: Vec<(String, usize)> = found
        .hits
        .iter()
        .map(|h| (h.path.clone(), h.line))
        .collect();
    assert_eq!(
        where_[0],
        ("memory/sessions/2026-11-21-0900-bbbbbbbb.md".into(), 6)
    );
    assert_eq!(found.hits[0].snippet, "dentist on friday, dentist again");
    assert!(where_.contains(&("context.md".into(), 5)), "{where_:?}");
    assert!(where_.contains(&("memory/sessions/2026-11-20-0900-aaaaaaaa.md".into(), 6)));
    assert_eq!(where_.len(), 3, "only .md files, only matches: {where_:?}");
    let late = search(root, "late review", 1).unwrap();
    assert_eq!(late.hits.len(), 1);
    assert_eq!(
        late.hits[0].path,
        "reflections/morning-review/2026-11-22T08-00-00Z.md"
    );
}

#[test]
fn an_empty_memory_finds_nothing_and_an_empty_query_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(search(dir.path(), "anything", 5).unwrap().hits.is_empty());
    assert!(matches!(
        search(dir.path(), " -- ", 5),
        Err(Error::EmptyQuery)
    ));
}

#[test]
fn many_files_read_on_threads_rank_by_count_then_path_as_one_reader_would() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Ten words each, the word 1–3 times: equal lengths, so equal counts tie exactly.
    let count = |i: usize| i * 7 % 3 + 1;
    for i in 0..60 {
        let words: Vec<&str> = (0..10)
            .map(|w| if w < count(i) { "Dentist" } else { "filler" })
            .collect();
        write(
            root,
            &format!("memory/sessions/2026-01-01-{i:04}-0000abcd.md"),
            &format!("---\nsession: x\n---\n\n{}\n", words.join(" ")),
        );
    }
    // A directory named like a snapshot and a linked snapshot: only files count, links followed.
    std::fs::create_dir_all(root.join("memory/sessions/folder.md")).unwrap();
    write(
        root,
        "elsewhere/linked.md",
        "dentist dentist dentist filler filler filler filler filler filler filler\n",
    );
    std::os::unix::fs::symlink(
        root.join("elsewhere/linked.md"),
        root.join("memory/sessions/linked.md"),
    )
    .unwrap();
    let found = search(root, "dentist", 1000).unwrap();
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let mut expected: Vec<(usize, String)> = (0..60)
        .map(|i| {
            (
                count(i),
                format!("memory/sessions/2026-01-01-{i:04}-0000abcd.md"),
            )
        })
        .chain([(3, "memory/sessions/linked.md".to_owned())])
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let got: Vec<&str> = found.hits.iter().map(|h| h.path.as_str()).collect();
    let want: Vec<&str> = expected.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(got, want);
    for hit in &found.hits {
        let line = if hit.path.ends_with("linked.md") {
            1
        } else {
            5
        };
        assert_eq!(hit.line, line, "{hit:?}");
    }
}
