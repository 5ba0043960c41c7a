//! Damaged files: each is skipped with its file named and the reason given, while the good
//! files beside it still load (SPEC §3: a bad file never stops the others).

use std::fs;
use std::path::{Path, PathBuf};

use ollim_actors::jobs::frontmatter::ParseError;
use ollim_actors::jobs::store::{self, Error, Item};
use ollim_actors::jobs::{reminder, Reminder, Routine};
use ollim_actors::{jobs::skills, jobs::webhook_spec};

use crate::fixtures::{capture_logs, copy_fixtures, fixture_files, fresh_dir};

/// A damaged file: its name, its text, and whether the reason it gives is the right one.
type Case = (&'static str, &'static str, fn(&ParseError) -> bool);

/// Writes `cases` beside copies of the good fixtures of `kind`, loads the directory, and
/// checks that exactly the damaged files were skipped, each for its own reason.
fn check_skipped<T: Item + std::fmt::Debug>(kind: &str, cases: &[Case]) {
    let tmp = fresh_dir(&format!("damaged_{kind}"));
    let dir = copy_fixtures(kind, tmp.path());
    for (name, text, _) in cases {
        fs::write(dir.join(name), text).expect("write damaged file");
    }
    let loaded = store::load_dir::<T>(&dir).expect("directory lists");
    assert_eq!(
        loaded.items.len(),
        fixture_files(kind).len(),
        "good files all load"
    );
    assert_eq!(loaded.skipped.len(), cases.len(), "{:#?}", loaded.skipped);
    for (name, _, is_expected) in cases {
        let path = dir.join(name);
        let (_, err) = loaded
            .skipped
            .iter()
            .find(|(p, _)| *p == path)
            .unwrap_or_else(|| panic!("{name} was not skipped"));
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        match err {
            Error::Parse { source, .. } => assert!(is_expected(source), "{name}: {source}"),
            other => panic!("{name}: expected a parse error, got {other}"),
        }
    }
}

#[test]
fn corrupt_routines_are_skipped_with_file_named_while_good_ones_load() {
    check_skipped::<Routine>(
        "routines",
        &[
            (
                "no-frontmatter.md",
                "Just a prompt, no YAML at all.\n",
                |e| matches!(e, ParseError::NoFrontmatter),
            ),
            (
                "bad-yaml.md",
                "---\nid: \"ab\ncron: [unclosed\n---\nb\n",
                |e| matches!(e, ParseError::Yaml(_)),
            ),
            ("not-a-mapping.md", "---\n- id\n- cron\n---\nb\n", |e| {
                matches!(e, ParseError::NotAMapping)
            }),
            ("empty-yaml.md", "---\n---\nb\n", |e| {
                matches!(e, ParseError::NotAMapping)
            }),
            (
                "wrong-type.md",
                "---\nid: \"a\"\ncron: \"* * * * *\"\nbackground: [1]\n---\nb\n",
                |e| matches!(e, ParseError::Yaml(_)) && e.to_string().contains("background"),
            ),
            (
                "bad-model.md",
                "---\nid: \"a\"\ncron: \"* * * * *\"\nmodel: \"gpt-4\"\n---\nb\n",
                |e| matches!(e, ParseError::UnknownModel { value } if value == "gpt-4"),
            ),
            (
                "bad-mode.md",
                "---\nid: \"a\"\ncron: \"* * * * *\"\nupdate-main-session: \"loudly\"\n---\nb\n",
                |e| matches!(e, ParseError::UnknownUpdateMode { value } if value == "loudly"),
            ),
            ("missing-id.md", "---\ncron: \"* * * * *\"\n---\nb\n", |e| {
                matches!(e, ParseError::Missing { field: "id" })
            }),
            (
                "empty-id.md",
                "---\nid: \"\"\ncron: \"* * * * *\"\n---\nb\n",
                |e| matches!(e, ParseError::EmptyId),
            ),
            ("missing-cron.md", "---\nid: \"a\"\n---\nb\n", |e| {
                matches!(e, ParseError::Missing { field: "cron" })
            }),
            (
                "short-cron.md",
                "---\nid: \"a\"\ncron: \"0 9 * *\"\n---\nb\n",
                |e| matches!(e, ParseError::CronFieldCount { found: 4, .. }),
            ),
            (
                "cut-short.md",
                "---\nid: \"a1b2c3d4\"\ncron: \"30 8 *",
                |e| matches!(e, ParseError::Unterminated),
            ),
        ],
    );
}

#[test]
fn corrupt_reminders_are_skipped_with_file_named_while_good_ones_load() {
    check_skipped::<Reminder>(
        "reminders",
        &[
            ("missing-run-at.md", "---\nid: \"a\"\n---\nb\n", |e| {
                matches!(e, ParseError::Missing { field: "run-at" })
            }),
            ("bad-run-at.md", "---\nid: \"a\"\nrun-at: \"next tuesday\"\n---\nb\n", |e| {
                matches!(e, ParseError::BadRunAt { raw } if raw == "next tuesday")
            }),
            ("naive-run-at.md", "---\nid: \"a\"\nrun-at: \"2026-02-24T14:00:00\"\n---\nb\n", |e| {
                matches!(e, ParseError::RunAtWithoutOffset { .. })
            }),
            ("too-deep.md", "---\nid: \"a\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\nchain-depth: 4\nmax-chain: 3\n---\nb\n", |e| {
                matches!(e, ParseError::ChainTooDeep { depth: 4, max: 3 })
            }),
            ("negative-chain.md", "---\nid: \"a\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\nmax-chain: -1\n---\nb\n", |e| {
                matches!(e, ParseError::Yaml(_)) && e.to_string().contains("max-chain")
            }),
        ],
    );
}

#[test]
fn truncated_files_are_skipped_at_every_cut_inside_the_yaml() {
    let tmp = fresh_dir("truncated_files");
    let mut kinds = 0;
    for kind in ["routines", "reminders", "webhooks"] {
        let dir = copy_fixtures(kind, tmp.path());
        for fixture in fixture_files(kind) {
            let text = fs::read_to_string(&fixture).expect("fixture reads");
            let closing = text[3..]
                .find("\n---\n")
                .expect("fixture has a closing line")
                + 4;
            for cut in (0..closing).filter(|&i| text.is_char_boundary(i)) {
                let partial = &text[..cut];
                let rejected = match kind {
                    "routines" => Routine::from_markdown(partial).is_err(),
                    "reminders" => Reminder::from_markdown(partial).is_err(),
                    _ => webhook_spec::parse(partial).is_err(),
                };
                assert!(rejected, "{} cut at {cut} was accepted", fixture.display());
            }
            kinds += 1;
        }
        // One partial file on disk among the good ones: skipped, named, the rest load.
        let sample = fs::read_to_string(&fixture_files(kind)[0]).expect("fixture reads");
        let partial_path = dir.join("zz-partial.md");
        fs::write(&partial_path, &sample[..sample.len() / 3]).expect("write partial");
        let (good, skipped) = load_counts(kind, &dir);
        assert_eq!(good, fixture_files(kind).len(), "{kind}");
        assert_eq!(skipped, vec![partial_path], "{kind}");
    }
    assert_eq!(kinds, 9);
}

fn load_counts(kind: &str, dir: &Path) -> (usize, Vec<PathBuf>) {
    fn counts<T: Item>(dir: &Path) -> (usize, Vec<PathBuf>) {
        let loaded = store::load_dir::<T>(dir).expect("lists");
        (
            loaded.items.len(),
            loaded.skipped.into_iter().map(|(p, _)| p).collect(),
        )
    }
    match kind {
        "routines" => counts::<Routine>(dir),
        "reminders" => counts::<Reminder>(dir),
        _ => counts::<webhook_spec::WebhookSpec>(dir),
    }
}

#[test]
fn skipping_logs_a_warning_naming_the_file_and_the_reason() {
    let tmp = fresh_dir("skipping_logs");
    let dir = copy_fixtures("routines", tmp.path());
    fs::write(dir.join("no-cron.md"), "---\nid: \"a\"\n---\nb\n").expect("write");
    let (loaded, log) = capture_logs(|| store::load_dir::<Routine>(&dir).expect("lists"));
    assert_eq!(loaded.items.len(), 3);
    let line = log
        .lines()
        .find(|l| l.contains("WARN"))
        .unwrap_or_else(|| panic!("no warning in {log:?}"));
    assert!(line.contains("no-cron.md"), "{line}");
    assert!(line.contains("missing required field `cron`"), "{line}");
    assert_eq!(
        log.lines().filter(|l| l.contains("WARN")).count(),
        1,
        "{log}"
    );
}

#[test]
fn naive_run_at_is_visible_and_can_be_read_in_the_configured_zone() {
    let tmp = fresh_dir("naive_run_at");
    let dir = tmp.path().join("reminders");
    fs::create_dir_all(&dir).expect("mkdir");
    let text = "---\nid: \"a\"\nrun-at: \"2026-07-01T09:30:00\"\n---\nWater the plants.\n";
    fs::write(dir.join("water-the-plants.md"), text).expect("write");

    let strict = store::load_dir::<Reminder>(&dir).expect("lists");
    assert!(strict.items.is_empty());
    assert!(matches!(
        &strict.skipped[0].1,
        Error::Parse {
            source: ParseError::RunAtWithoutOffset { .. },
            ..
        }
    ));

    let zone: chrono_tz::Tz = "Europe/Berlin".parse().expect("zone");
    let zoned =
        store::load_dir_with(&dir, "reminder", |t| reminder::parse_in(t, zone)).expect("lists");
    let (_, r) = &zoned.items[0];
    assert_eq!(r.run_at.to_rfc3339(), "2026-07-01T09:30:00+02:00");
    assert_eq!(reminder::to_markdown(r), text, "the raw text is kept");
}

#[test]
fn bad_webhook_specs_and_skills_are_skipped_while_good_ones_load() {
    check_skipped::<webhook_spec::WebhookSpec>(
        "webhooks",
        &[
            ("no-fields.md", "---\nid: \"x\"\n---\nt\n", |e| {
                matches!(e, ParseError::Missing { field: "fields" })
            }),
            (
                "list-fields.md",
                "---\nid: \"x\"\nfields: [a]\n---\nt\n",
                |e| matches!(e, ParseError::BadWebhookFields { .. }),
            ),
            (
                "bad-model.md",
                "---\nid: \"x\"\nfields: {}\nmodel: \"big\"\n---\nt\n",
                |e| matches!(e, ParseError::UnknownModel { .. }),
            ),
        ],
    );

    let tmp = fresh_dir("bad_skills");
    let dir = copy_fixtures("skills", tmp.path());
    let bad = [
        (
            "wrong-name",
            "---\nname: \"other\"\ndescription: \"d\"\n---\nb\n",
        ),
        (
            "Capital",
            "---\nname: \"Capital\"\ndescription: \"d\"\n---\nb\n",
        ),
        ("plain-text", "Just instructions.\n"),
    ];
    // Claude Code's format: `name` (the directory's) and `description` may be left out.
    let good = [
        ("no-description", "---\nname: \"no-description\"\n---\nb\n"),
        ("no-name", "---\ndescription: \"d\"\n---\nb\n"),
    ];
    for (name, text) in bad.iter().chain(&good) {
        fs::create_dir_all(dir.join(name)).expect("mkdir");
        fs::write(dir.join(name).join("SKILL.md"), text).expect("write");
    }
    fs::create_dir_all(dir.join("empty-dir")).expect("mkdir");
    let loaded = skills::load_skills(&dir).expect("lists");
    let names: Vec<_> = loaded.items.iter().map(|(_, s)| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "email-triage",
            "no-description",
            "no-name",
            "routine-morning",
            "task-review"
        ]
    );
    let mut skipped: Vec<_> = loaded.skipped.iter().map(|(p, _)| p.clone()).collect();
    skipped.sort();
    let mut want: Vec<_> = bad
        .iter()
        .map(|(n, _)| dir.join(n).join("SKILL.md"))
        .collect();
    want.sort();
    assert_eq!(skipped, want);
}
