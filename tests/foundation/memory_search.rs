//! `ollim-bot memory search` (SPEC §18) through the real binary: ranked `path:line  snippet`
//! lines across `context.md` sections, session snapshots and reflections.

use crate::cli::Env;

fn write(env: &Env, rel: &str, text: &str) {
    let path = env.data.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn snapshot(summary: &str) -> String {
    format!(
        "---\nsession: 0123abcd\nreason: clear\nfrom: 2026-11-20T09:00:00-05:00\n\
         to: 2026-11-20T10:00:00-05:00\n---\n\n{summary}\n"
    )
}

#[test]
fn the_snapshot_that_says_it_most_ranks_first_with_its_line() {
    let env = Env::new();
    write(
        &env,
        "memory/sessions/2026-11-20-1000-0123abcd.md",
        &snapshot("talked about the garden\nthe Dentist called once"),
    );
    write(
        &env,
        "memory/sessions/2026-11-21-1000-4567cdef.md",
        &snapshot("booked the dentist for friday\nthe dentist wants the x-rays; dentist bill paid"),
    );
    write(
        &env,
        "context.md",
        "# People\nDr. Weiß, the dentist\n\n# Projects\nthe shed\n",
    );
    write(
        &env,
        "reflections/weekly/2026-11-22T08-00-00Z.md",
        "nothing about teeth\n",
    );
    let out = env.run(&["memory", "search", "dentist", "--limit", "2"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "memory/sessions/2026-11-21-1000-4567cdef.md:9  the dentist wants the x-rays; dentist bill paid",
            "context.md:2  Dr. Weiß, the dentist",
        ],
        "{text}"
    );
    // Unicode-aware: the capitalised query finds the lowercase word, and an umlaut matches.
    let out = env.run(&["memory", "search", "WEIß"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("context.md:2  "), "{text}");
    let none = env.run(&["memory", "search", "piano"]);
    assert!(none.status.success());
    assert_eq!(
        String::from_utf8(none.stdout).unwrap().trim(),
        "no matches for \"piano\""
    );
    // A snapshot's frontmatter (session, reason, times) is not searched.
    let front = env.run(&["memory", "search", "reason", "clear"]);
    assert!(String::from_utf8(front.stdout)
        .unwrap()
        .starts_with("no matches"));
    let empty = env.run(&["memory", "search", "--", "--"]);
    assert!(!empty.status.success(), "a query with no words is refused");
}
