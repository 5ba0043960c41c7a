//! `doctor` warns about a job whose skill or subagent does not exist (SPEC §17: such a job is
//! blocked when it fires), and passes one whose references are all there.

use std::fs;

use crate::cli::Env;

fn write(env: &Env, rel: &str, text: &str) {
    let path = env.data.join(rel);
    fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
    fs::write(path, text).expect("writes");
}

#[test]
fn missing_skills_and_subagents_are_warned_about() {
    let env = Env::new();
    write(
        &env,
        "routines/bound.md",
        "---\nid: \"a0b0c0d0\"\ncron: \"0 9 * * *\"\nbackground: true\nskills:\n  - \"nope\"\nsubagent: \"ghost\"\n---\nGo.\n",
    );
    write(
        &env,
        "reminders/fine.md",
        "---\nid: \"a0b0c0d1\"\nrun-at: \"2099-01-01T09:00:00+00:00\"\nskills:\n  - \"focus\"\nsubagent: \"reader\"\n---\nGo.\n",
    );
    write(
        &env,
        "skills/focus/SKILL.md",
        "---\ndescription: \"one thing\"\n---\nDo one thing.\n",
    );
    write(
        &env,
        ".claude/agents/reader.md",
        "---\nname: reader\n---\nRead.\n",
    );
    write(
        &env,
        "webhooks/hook.md",
        "---\nid: \"hook\"\nfields:\n  type: \"object\"\nsubagent: \"Explore\"\nskills:\n  - \"gone\"\n---\nGo.\n",
    );
    let out = env.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let warns: Vec<&str> = text.lines().filter(|l| l.contains("WARN")).collect();
    let about = |file: &str, what: &str| warns.iter().any(|l| l.contains(file) && l.contains(what));
    assert!(
        about("routines/bound.md", "skill `nope` not found"),
        "{text}"
    );
    assert!(
        about("routines/bound.md", "subagent `ghost` not found"),
        "{text}"
    );
    assert!(
        about("webhooks/hook.md", "skill `gone` not found"),
        "{text}"
    );
    assert!(
        !warns
            .iter()
            .any(|l| l.contains("reminders/fine.md") || l.contains("`Explore`")),
        "an existing skill, an installed subagent and one of the CLI's own pass: {text}"
    );
}
