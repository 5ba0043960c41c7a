//! `session: persistent` routines at the command line (SPEC §18), with no bot running:
//! `routine add --session persistent` writes the key and `routine list` marks the routine
//! `[persistent]`; a flag that would make a file the loader refuses is refused; `routine
//! cancel` removes the routine's session files with it.

use std::fs;

use crate::cli::{scheduled_id, stderr, stdout, Env};

#[test]
fn add_list_and_cancel_a_persistent_routine() {
    let env = Env::new();
    let add = env.run(&[
        "routine",
        "add",
        "--cron",
        "0 17 * * 5",
        "-m",
        "Weekly review",
        "--background",
        "--session",
        "persistent",
    ]);
    assert!(add.status.success(), "{}", stderr(&add));
    let said = stdout(&add);
    assert!(said.contains("[persistent]"), "{said}");
    let id = scheduled_id(&add);
    let file = fs::read_dir(env.data.join("routines"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(fs::read_to_string(&file)
        .unwrap()
        .contains("session: \"persistent\"\n"));
    let list = env.run(&["routine", "list"]);
    let listed = stdout(&list);
    assert!(
        listed.contains(&format!("{id}  [bg] cron '0 17 * * 5'  [persistent]")),
        "{listed}"
    );

    // As the first fire leaves it.
    let sessions = env.data.join("state/routine_sessions");
    fs::create_dir_all(&sessions).unwrap();
    fs::write(sessions.join(&id), "4f0c-session\n").unwrap();
    fs::write(
        sessions.join(format!("{id}.usage")),
        "{\"context_tokens\": 1, \"window\": 2}\n",
    )
    .unwrap();
    let cancel = env.run(&["routine", "cancel", &id]);
    assert!(cancel.status.success(), "{}", stderr(&cancel));
    assert_eq!(
        fs::read_dir(&sessions).unwrap().count(),
        0,
        "its session went with it"
    );
}

#[test]
fn a_session_the_loader_would_refuse_is_refused_at_add() {
    let env = Env::new();
    let base = [
        "routine",
        "add",
        "--cron",
        "0 9 * * *",
        "-m",
        "x",
        "--session",
    ];
    let refused = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let o = env.run(&args);
        assert!(!o.status.success(), "{args:?} was accepted");
        stderr(&o)
    };
    assert!(refused(&["persistent"]).contains("needs `background: true`"));
    assert!(refused(&["persistent", "--background", "--isolated"]).contains("`isolated: true`"));
    assert!(refused(&["forever", "--background"]).contains("not a session mode"));
    assert!(
        !env.data.join("routines").exists()
            || fs::read_dir(env.data.join("routines")).unwrap().count() == 0
    );
}
