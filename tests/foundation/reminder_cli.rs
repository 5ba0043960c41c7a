//! The `reminder` subcommands, run as the real binary against a fresh data directory per test:
//! `add` (the delay in the configured zone, chains), bad input refused with nothing written,
//! `list` and `cancel`.

use crate::cli::{assert_rejected, read, scheduled_id, stderr, stdout, Env};

#[test]
fn reminder_add_fires_after_the_delay_in_the_configured_zone() {
    let env = Env::new();
    let before = chrono::Utc::now();
    let o = env.run(&["reminder", "add", "--delay", "30", "-m", "take a break"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = scheduled_id(&o);
    let text = read(&env.files("reminders")[0]);
    let run_at_line = text
        .lines()
        .find(|l| l.starts_with("run-at: "))
        .expect("run-at line");
    let raw = run_at_line.trim_start_matches("run-at: ").trim_matches('"');
    let run_at = chrono::DateTime::parse_from_rfc3339(raw).expect("ISO datetime with offset");
    let offset = run_at.offset().local_minus_utc();
    assert!(
        offset == -5 * 3600 || offset == -4 * 3600,
        "New York offset, got {offset}"
    );
    let delta = run_at.with_timezone(&chrono::Utc) - before;
    assert!(delta >= chrono::Duration::minutes(30) && delta < chrono::Duration::minutes(31));
    let local = raw[..16].replace('T', " ");
    assert!(
        stdout(&o).starts_with(&format!("scheduled {id}: [bg] at {local} -- take a break")),
        "{}",
        stdout(&o)
    );
    assert!(
        !text.contains("chain"),
        "plain reminder carries no chain fields: {text}"
    );
}

#[test]
fn chain_root_records_its_own_id_as_parent() {
    let env = Env::new();
    let o = env.run(&[
        "reminder",
        "add",
        "--delay",
        "5",
        "-m",
        "did you start?",
        "--background",
        "--max-chain",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = scheduled_id(&o);
    assert!(stdout(&o).contains("  (chain 0/3)"), "{}", stdout(&o));
    let text = read(&env.files("reminders")[0]);
    assert!(text.contains("max-chain: 3\n"), "{text}");
    assert!(
        text.contains(&format!("chain-parent: \"{id}\"\n")),
        "{text}"
    );
    assert!(
        !text.contains("chain-depth"),
        "depth 0 is the default: {text}"
    );
}

#[test]
fn bad_reminder_input_is_rejected_and_writes_nothing() {
    let env = Env::new();
    let cases: &[(&[&str], &str)] = &[
        (&["reminder", "add", "--delay", "-5", "-m", "x"], "--delay"),
        (&["reminder", "add", "--delay", "soon", "-m", "x"], "soon"),
        (
            &[
                "reminder",
                "add",
                "--delay",
                "5",
                "-m",
                "x",
                "--max-chain",
                "2",
                "--chain-depth",
                "3",
            ],
            "--chain-depth 3",
        ),
        (
            &[
                "reminder",
                "add",
                "--delay",
                "5",
                "-m",
                "x",
                "--update-main-session",
                "never",
            ],
            "never",
        ),
        (
            &[
                "reminder",
                "add",
                "--delay",
                "5",
                "-m",
                "x",
                "--max-chain",
                "-1",
            ],
            "-1",
        ),
    ];
    for (args, needle) in cases {
        assert_rejected(&env.run(args), needle);
        assert!(env.files("reminders").is_empty(), "{args:?} wrote a file");
    }
}

#[test]
fn reminder_list_orders_by_time_and_cancel_removes() {
    let env = Env::new();
    assert_eq!(
        stdout(&env.run(&["reminder", "list"])),
        "no pending reminders\n"
    );
    let late = scheduled_id(&env.run(&["reminder", "add", "--delay", "90", "-m", "later one"]));
    let soon = scheduled_id(&env.run(&["reminder", "add", "--delay", "10", "-m", "sooner one"]));
    let list = stdout(&env.run(&["reminder", "list"]));
    let (a, b) = (list.find(&soon).unwrap(), list.find(&late).unwrap());
    assert!(a < b, "sooner first: {list}");
    assert_eq!(
        stdout(&env.run(&["reminder", "cancel", &soon])),
        format!("cancelled {soon}\n")
    );
    assert_eq!(env.files("reminders").len(), 1);
    assert_rejected(
        &env.run(&["reminder", "cancel", "ffffffff"]),
        "reminder ffffffff not found",
    );
}
