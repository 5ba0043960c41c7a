//! Tests of [`super`] (bash_writes.rs).

use super::*;

const ROOT: &str = "/home/u/.ollim-bot";

fn why(command: &str) -> Option<String> {
    judged(
        command,
        Path::new(ROOT),
        Path::new(ROOT),
        Some(PathBuf::from("/home/u")),
    )
}

fn flagged(commands: &[&str]) {
    for c in commands {
        assert!(
            why(c).is_some(),
            "{c:?} should count as a write into state/"
        );
    }
}

fn clear(commands: &[&str]) {
    for c in commands {
        assert_eq!(why(c), None, "{c:?} should not count");
    }
}

#[test]
fn the_issues_attacks_count() {
    assert_eq!(
        why("echo '[]' > state/pending_updates.json").as_deref(),
        Some("output redirected to state/pending_updates.json")
    );
    assert_eq!(why("touch state/x").as_deref(), Some("touch on state/x"));
    assert_eq!(
        why("rm state/ping_budget.json").as_deref(),
        Some("rm on state/ping_budget.json")
    );
}

#[test]
fn redirections_of_every_kind_count() {
    flagged(&[
        "ollim-bot reminder list > state/x",
        "ollim-bot help >>state/x",
        "ls 2> ./state/x",
        "cat notes.md &> state/x",
        "echo x >| state/x",
        "echo x 1<>state/x",
        "echo x >& state/x",
        "echo x > routines/../state/x",
        "echo x > /home/u/.ollim-bot/state/x",
        "echo x > ~/.ollim-bot/state/x",
        "echo x > $HOME/.ollim-bot/state/x",
        "echo x > \"$F\"",
        "echo x > st*/x",
        "cat <<EOF > state/x\nhello\nEOF",
    ]);
    clear(&[
        "echo x > /dev/null 2>&1",
        "ollim-bot reminder list 2>&1 >&2",
        "echo x > routines/state.md",
        "cat < state/ping_budget.json",
        "echo x > /tmp/state/x",
        "grep -c x state/x >&-",
    ]);
}

#[test]
fn known_writers_on_state_paths_count() {
    flagged(&[
        "rm -f state/ping_budget.json",
        "mv state/a state/b",
        "cp notes.md state/",
        "tee state/x < notes.md",
        "sed -i s/a/b/ state/x",
        "dd if=/dev/zero of=state/x",
        "sort -ostate/x notes.md",
        "sort --output=state/x notes.md",
        "truncate -s0 ./state/x",
        "chmod 000 state",
        "sudo -n rm state/x",
        "env X=1 nohup rm state/x",
        "/bin/rm state/x",
        "find state -delete",
        "find . -name x -exec rm {} +",
        "python3 script.py state/x",
    ]);
}

#[test]
fn directories_that_hold_state_count_for_writers() {
    flagged(&[
        "rm -rf .",
        "rm -rf ..",
        "rm -rf ~",
        "rm -rf /",
        "mv /home/u/.ollim-bot /tmp/x",
        "cp -r /tmp/backup/. .",
        "chmod -R 000 ~/.ollim-bot",
    ]);
    clear(&[
        "ls -la .",
        "du -sh ~",
        "grep -r todo .",
        "find . -name '*.md'",
    ]);
}

#[test]
fn paths_known_only_when_it_runs_count_when_their_directory_holds_state() {
    flagged(&[
        "rm -rf *",
        "rm s*/x",
        "rm $F",
        "rm \"$(cat list)\"",
        "rm state/$X",
        "for f in state/*; do rm \"$f\"; done",
        "ls | xargs rm -rf",
    ]);
    clear(&[
        "rm routines/*.md",
        "rm /tmp/$X",
        "ls state/* | xargs grep x",
        "echo $(date) > routines/log.md",
    ]);
}

#[test]
fn chained_nested_and_quoted_commands_are_each_judged() {
    flagged(&[
        "ollim-bot reminder list; touch state/x",
        "ollim-bot reminder list && rm state/x",
        "ollim-bot reminder list | tee state/x",
        "ollim-bot reminder list\ntouch state/x",
        "ollim-bot reminder add -m \"$(touch state/x)\"",
        "ollim-bot reminder add -m `rm state/x`",
        "echo <(touch state/x)",
        "bash -c 'touch state/x'",
        "sh -lc \"echo > state/x\"",
        "eval rm state/x",
        "(cd state && touch x)",
        "cd routines && touch ../state/x",
        "cd state",
        "cd \"$X\" && touch x",
        "python3 -c \"import os; os.remove('state/ping_budget.json')\"",
        "python3 -c \"import shutil; shutil.rmtree('state')\"",
        "node -e 'require(\"fs\").rmSync(\"/home/u/.ollim-bot/state\", {recursive: true})'",
        "git clean -fdx",
        "git -C . clean -X",
        "git stash --all",
        "ln -s ../state routines/l",
        "PATH=/tmp/evil:$PATH ollim-bot help",
        "/tmp/ollim-bot help",
    ]);
    clear(&[
        "ollim-bot reminder add -m \"check the state of the oven\"",
        "ollim-bot reminder add --delay 30 -m 'rm state/x' ",
        "ollim-bot tasks list",
        "git status && git log --oneline -5",
        "cd routines && ls",
        "echo 'done' && cat state/ping_budget.json",
        "claude-history search 'state of things'",
        "git commit -m \"state machine fix\"",
    ]);
}

#[test]
fn the_shell_directory_is_where_relative_paths_start() {
    let routines = PathBuf::from(ROOT).join("routines");
    let home = Some(PathBuf::from("/home/u"));
    let root = Path::new(ROOT);
    assert!(judged("touch ../state/x", &routines, root, home.clone()).is_some());
    assert!(judged(
        "touch x",
        &PathBuf::from(ROOT).join("state"),
        root,
        home.clone()
    )
    .is_some());
    assert!(judged("touch ../state/x", Path::new(ROOT), root, home).is_none());
}

#[cfg(unix)]
#[test]
fn symlinks_into_state_are_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    std::fs::create_dir_all(root.join("state")).unwrap();
    std::fs::create_dir_all(root.join("routines")).unwrap();
    std::os::unix::fs::symlink(root.join("state"), root.join("routines/link")).unwrap();
    let judge = |c: &str| judged(c, &root, &root, None);
    assert!(judge("touch routines/link/x").is_some());
    assert!(judge("echo x > routines/link/y").is_some());
    assert!(judge("touch routines/x").is_none());
}

#[test]
fn code_mentions_state_only_as_a_path() {
    assert!(mentions("open('state/x', 'w')", "state"));
    assert!(mentions("rmtree(\"state\")", "state"));
    assert!(mentions("state/x is gone", "state"));
    assert!(!mentions("the state of things", "state"));
    assert!(!mentions("statement('x')", "state"));
    assert!(!mentions("restate('x')", "state"));
}

#[test]
fn programs_that_pick_their_own_paths_count() {
    flagged(&[
        "tar xzf backup.tgz",
        "unzip -o restore.zip",
        "patch -p1 < fix.diff",
        "git apply fix.diff",
        "rg --pre rm x .",
        "rg --pre=./touch-all x",
        "HOME=/home/u/.ollim-bot; touch ~/state/x",
    ]);
    clear(&[
        "tar xzf /tmp/b.tgz -C /tmp/out/x",
        "rg todo routines",
        "touch ~/x",
    ]);
}

#[test]
fn writes_of_one_file_are_seen_and_reads_of_it_are_not() {
    let root = Path::new("/home/u/.ollim-bot");
    let file = |c: &str| bash_file_write(c, root, root, "context.md");
    for command in [
        "echo x >> context.md",
        "echo x > ./context.md",
        "cd /tmp && echo x >> /home/u/.ollim-bot/context.md",
        "sed -i s/a/b/ context.md",
        "rm context.md",
        "cp notes.md context.md",
        "python3 -c \"open('context.md','a').write('x')\"",
        "rm -rf .",
    ] {
        assert!(file(command).is_some(), "{command}");
    }
    for command in [
        "cat context.md",
        "grep -n x context.md",
        "echo x >> notes.md",
        "ollim-bot tasks list",
    ] {
        assert_eq!(file(command), None, "{command}");
    }
    let why = file("echo x >> context.md").unwrap_or_default();
    assert!(why.contains("context.md"), "{why}");
}
