//! A job's own bounds on one run (SPEC §19): `--max-cost` and `--max-turns` write `max-cost:`
//! and `max-turns:` last, the listing shows them, an unusable value is refused writing nothing,
//! and a hand-written file with them round-trips byte for byte.

use ollim_actors::jobs::routine;

use super::gates::{files, run};

fn webhook_spec_parse(text: &str) -> ollim_actors::jobs::webhook_spec::WebhookSpec {
    ollim_actors::jobs::webhook_spec::parse(text).unwrap()
}

#[test]
fn add_takes_a_cost_and_turn_bound_and_refuses_unusable_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let add = |extra: &[&str]| {
        let mut args = vec![
            "routine",
            "add",
            "--cron",
            "0 9 * * *",
            "-m",
            "digest",
            "--background",
        ];
        args.extend_from_slice(extra);
        run(&data, &args)
    };
    for bad in [
        ["--max-cost", "0"],
        ["--max-cost", "-1"],
        ["--max-turns", "0"],
    ] {
        let o = add(&bad);
        assert!(!o.status.success(), "{bad:?} accepted");
        assert!(
            files(data.join("routines")).is_empty(),
            "{bad:?} wrote a file"
        );
    }
    let o = add(&["--max-cost", "0.5", "--max-turns", "12"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("(max-cost: $0.50)  (max-turns: 12)"), "{out}");
    let text = std::fs::read_to_string(&files(data.join("routines"))[0]).unwrap();
    assert!(
        text.ends_with("background: true\nmax-cost: 0.50\nmax-turns: 12\n---\ndigest\n"),
        "{text}"
    );
    let listed = run(&data, &["routine", "list"]);
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("(max-cost: $0.50)  (max-turns: 12)"),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );
}

#[test]
fn hand_written_bounds_round_trip_and_a_bad_one_is_named() {
    let text = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * *\"\nbackground: true\nmax-cost: 2.00\nmax-turns: 5\n---\ndigest\n";
    let parsed = routine::parse(text).unwrap();
    assert_eq!(parsed.settings.limits.max_cost_cents, Some(200));
    assert_eq!(parsed.settings.limits.max_turns, Some(5));
    assert_eq!(routine::to_markdown(&parsed), text);
    let bad = text.replace("max-cost: 2.00", "max-cost: lots");
    assert_eq!(
        routine::parse(&bad).unwrap_err().to_string(),
        "`max-cost` \"lots\" is not a cost in dollars from 0.01 to 10000 (such as 0.50)"
    );
    let hook = "---\nid: \"ci\"\nfields:\n  type: \"object\"\nmax-cost: 0.25\nmax-turns: 3\n---\nBuild {x}\n";
    let spec = webhook_spec_parse(hook);
    assert_eq!(spec.limits.max_cost_cents, Some(25));
    assert_eq!(spec.job().settings().limits.max_turns, Some(3));
}
