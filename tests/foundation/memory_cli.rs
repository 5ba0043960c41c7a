//! `ollim-bot memory show|log|undo` through the real binary, on a data directory whose git
//! history holds two changes of `context.md` made as the bot's file hook makes them.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::cli::Env;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn remember(env: &Env, text: &str) {
    fs::write(env.data.join("context.md"), text).unwrap();
    git(&env.data, &["add", "context.md"]);
    git(
        &env.data,
        &["commit", "-q", "-m", "auto: memory: write context.md"],
    );
}

fn out(env: &Env, args: &[&str]) -> (Option<i32>, String, String) {
    let o = env.run(args);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn show_log_and_undo_read_and_revert_the_memory_history() {
    let env = Env::new();
    fs::create_dir_all(&env.data).unwrap();
    git(&env.data, &["init", "-q"]);
    let (code, _, stderr) = out(&env, &["memory", "undo"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("nothing undone"), "{stderr}");

    remember(&env, "- Robin is moving in May\n");
    remember(
        &env,
        "- Robin is moving in May\n- the dentist is on Friday\n",
    );

    let (code, show, _) = out(&env, &["memory", "show"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = show.lines().collect();
    assert_eq!(lines[0], "context.md: 52 characters (limit 12,000)");
    assert!(
        lines[1].starts_with("last change: ")
            && lines[1].ends_with("auto: memory: write context.md  (+1 -0)"),
        "{show}"
    );
    assert!(show.ends_with("\n- Robin is moving in May\n- the dentist is on Friday\n"));

    let (_, log, _) = out(&env, &["memory", "log"]);
    assert!(log.contains("    +- the dentist is on Friday"), "{log}");
    assert!(log.contains("    +- Robin is moving in May"), "{log}");
    let first = log.find("dentist").unwrap();
    assert!(
        first < log.find("(+1 -0)\n    @@ -0,0").unwrap_or(usize::MAX),
        "newest first:\n{log}"
    );

    let (code, undo, _) = out(&env, &["memory", "undo"]);
    assert_eq!(code, Some(0));
    assert!(undo.starts_with("undid "), "{undo}");
    assert!(
        undo.contains("context.md has 25 characters again"),
        "{undo}"
    );
    assert_eq!(
        fs::read_to_string(env.data.join("context.md")).unwrap(),
        "- Robin is moving in May\n"
    );
    let subjects = git(&env.data, &["log", "--format=%s", "--", "context.md"]);
    let subjects: Vec<&str> = subjects.lines().collect();
    assert_eq!(subjects.len(), 3, "{subjects:?}");
    assert!(
        subjects[0].starts_with("auto: memory: undo "),
        "{subjects:?}"
    );
    assert_eq!(subjects[1], "auto: memory: write context.md");
}
