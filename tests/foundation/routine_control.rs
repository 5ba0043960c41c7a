//! `routine pause|resume|run|history` and `reminder history` *(ours, SPEC §16)* through the real
//! binary, with no bot running: pausing edits only the `paused:` line (omitted when false, so the
//! original still reads the file), run now refuses clearly, and history reads `state/runs.jsonl`.

use std::fs;

use crate::cli::Env;

/// What a command that must succeed printed.
trait MustSucceed {
    fn ok(&self, args: &[&str]) -> String;
}

impl MustSucceed for Env {
    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        text(&o.stdout)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const ROUTINE: &str = "---\n# kept as written\nid: \"morn0001\"\ncron: \"30 8 * * 1-5\"\ndescription: \"Morning check\"\n---\nLook at the day.\n";

#[test]
fn pause_adds_one_line_resume_restores_the_file_byte_for_byte() {
    let env = Env::new();
    fs::create_dir_all(env.data.join("routines")).unwrap();
    let path = env.data.join("routines/morning.md");
    fs::write(&path, ROUTINE).unwrap();

    let said = env.ok(&["routine", "pause", "morn0001"]);
    assert!(said.starts_with("paused morn0001"), "{said}");
    let paused = fs::read_to_string(&path).unwrap();
    assert_eq!(
        paused,
        ROUTINE.replacen("---\nLook", "paused: true\n---\nLook", 1)
    );
    assert!(env.ok(&["routine", "list"]).contains("PAUSED"));
    assert!(env
        .ok(&["routine", "pause", "morn0001"])
        .contains("already paused"));

    let said = env.ok(&["routine", "resume", "morn0001"]);
    assert!(said.starts_with("resumed morn0001"), "{said}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        ROUTINE,
        "no `paused: false`"
    );
    assert!(!env.ok(&["routine", "list"]).contains("PAUSED"));

    let missing = env.run(&["routine", "pause", "nope0001"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("routine nope0001 not found"));
}

#[test]
fn run_now_without_a_running_bot_is_refused_and_says_how_to_start_one() {
    let env = Env::new();
    fs::create_dir_all(env.data.join("routines")).unwrap();
    fs::write(env.data.join("routines/morning.md"), ROUTINE).unwrap();
    let o = env.run(&["routine", "run", "morn0001"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(err.contains("no ollim-bot is running on"), "{err}");
    assert!(err.contains("start it with `ollim-bot`"), "{err}");
    assert!(!env.data.join("state/runs.jsonl").exists(), "nothing ran");
}

#[test]
fn history_lists_runs_by_kind_and_id_newest_last_and_skips_unreadable_lines() {
    let env = Env::new();
    let line = |run: &str, job: &str, kind: &str, at: &str, outcome: &str, extra: &str| {
        format!(
            "{{\"run\":\"{run}\",\"job\":\"{job}\",\"kind\":\"{kind}\",\"tag\":\"{kind}\",\"name\":\"{job} job\",\"file\":\"x/{job}.md\",\"scheduled\":\"2026-03-02T{at}:00-05:00\",\"ended\":\"2026-03-02T{at}:30-05:00\",\"outcome\":\"{outcome}\"{extra}}}\n"
        )
    };
    let mut file = String::new();
    file += &line("r1", "morn0001", "routine", "09:00", "ok", ",\"started\":\"2026-03-02T09:00:01-05:00\",\"reported\":true,\"cost_usd\":0.0123,\"turns\":3");
    file += &line("r2", "morn0001", "routine", "10:00", "missed", "");
    file += "{not json\n";
    file += &line(
        "r3",
        "rem00001",
        "reminder",
        "10:30",
        "failed",
        ",\"started\":\"2026-03-02T10:30:01-05:00\",\"error\":\"the claude cli exited mid-job\"",
    );
    file += &line("r4", "other001", "routine", "11:00", "caught-up", "");
    fs::create_dir_all(env.data.join("state")).unwrap();
    fs::write(env.data.join("state/runs.jsonl"), file).unwrap();

    let o = env.run(&["routine", "history"]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[0].starts_with("2026-03-02 09:00  morn0001  ok"),
        "{out}"
    );
    assert!(
        rows[0].contains("reported  $0.0123  3 turns  -- morn0001 job"),
        "{out}"
    );
    assert!(rows[1].contains("morn0001  missed"), "{out}");
    assert!(rows[2].contains("other001  caught-up"), "{out}");
    assert!(text(&o.stderr).contains("1 line(s)"), "{}", text(&o.stderr));

    let mine = env.ok(&["routine", "history", "morn0001", "--limit", "1"]);
    assert_eq!(mine.lines().count(), 1, "{mine}");
    assert!(mine.contains("missed"), "{mine}");

    let reminders = env.ok(&["reminder", "history"]);
    assert!(reminders.contains("rem00001  failed"), "{reminders}");
    assert!(
        reminders.contains("    error: the claude cli exited mid-job"),
        "{reminders}"
    );
    assert!(!reminders.contains("morn0001"), "{reminders}");

    assert_eq!(
        env.ok(&["routine", "history", "zzzz0001"]).trim(),
        "no runs of zzzz0001 recorded"
    );
}
