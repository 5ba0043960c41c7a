use super::*;

fn skill(name: &str, instructions: &str) -> Skill {
    Skill {
        name: name.to_owned(),
        description: String::new(),
        allowed_tools: None,
        instructions: instructions.to_owned(),
    }
}

fn quick(per_command_ms: u64, total_ms: u64, max_output_chars: usize) -> CommandLimits {
    CommandLimits {
        per_command: Duration::from_millis(per_command_ms),
        total: Duration::from_millis(total_ms),
        max_output_chars,
    }
}

async fn expand(text: &str, limits: CommandLimits) -> String {
    let dir = std::env::temp_dir();
    expand_commands(text, &dir, None, &limits).await
}

#[tokio::test]
async fn command_output_replaces_its_marker() {
    let text = expand(
        "Today:\n!`printf 'a\\nb\\n\\n'`\nend",
        CommandLimits::default(),
    )
    .await;
    assert_eq!(text, "Today:\na\nb\nend");
}

#[tokio::test]
async fn text_without_a_closed_marker_is_unchanged() {
    let text = "empty !`` here, `code`, and !`never closed\nnext` line";
    assert_eq!(expand(text, CommandLimits::default()).await, text);
}

#[tokio::test]
async fn failed_command_is_marked_with_exit_code_and_first_stderr_line() {
    let text = expand(
        "x !`sh -c 'echo oops >&2; echo more >&2; exit 3'` y",
        CommandLimits::default(),
    )
    .await;
    assert_eq!(
        text,
        "x [command failed (exit 3): sh -c 'echo oops >&2; echo more >&2; exit 3': oops] y"
    );
}

#[tokio::test]
async fn commands_run_without_a_shell() {
    // `;`, `|`, `>` and `$HOME` reach the program as plain arguments.
    let dir = tempfile::tempdir().unwrap();
    let text = "!`echo a; echo b | tr a-z A-Z > out.txt $HOME`";
    let out = expand_commands(text, dir.path(), None, &CommandLimits::default()).await;
    assert_eq!(out, "a; echo b | tr a-z A-Z > out.txt $HOME");
    assert!(
        !dir.path().join("out.txt").exists(),
        "nothing was redirected"
    );
    // Quotes and backslashes group words as a shell would.
    let out = expand(
        r#"!`printf '[%s]' "two words" 'it''s' back\ slash`"#,
        CommandLimits::default(),
    )
    .await;
    assert_eq!(out, "[two words][its][back slash]");
}

#[tokio::test]
async fn unsplittable_and_missing_commands_are_marked() {
    let text = expand(
        "a !`echo 'unclosed` b !`no-such-program-ollim --flag` c",
        CommandLimits::default(),
    )
    .await;
    assert_eq!(
        text,
        "a [command parse error: echo 'unclosed] b [command not found: no-such-program-ollim --flag] c"
    );
}

#[tokio::test]
async fn slow_command_is_cut_off_and_marked_timed_out() {
    let started = std::time::Instant::now();
    let text = expand("!`sleep 5`", quick(200, 10_000, 100)).await;
    assert_eq!(text, "[command timed out after 200ms: sleep 5]");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn commands_after_the_total_limit_are_skipped() {
    let text = expand("!`sleep 3` !`sleep 4`", quick(2_000, 150, 100)).await;
    assert_eq!(
        text,
        "[command timed out (time limit for this prompt reached): sleep 3] \
         [command skipped (time limit for this prompt reached): sleep 4]"
    );
}

#[tokio::test]
async fn long_output_is_cut_and_marked() {
    let text = expand("!`printf 0123456789abcdef`", quick(5_000, 5_000, 10)).await;
    assert_eq!(text, "0123456789\n[...truncated]");
}

#[tokio::test]
async fn endless_output_is_cut_without_waiting_for_the_timeout() {
    let started = std::time::Instant::now();
    let text = expand("!`yes`", quick(5_000, 5_000, 5)).await;
    assert_eq!(text, "y\ny\ny\n[...truncated]");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn repeated_command_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = "!`sh -c 'echo x >> runs; wc -l < runs'` !`sh -c 'echo x >> runs; wc -l < runs'`";
    let out = expand_commands(text, dir.path(), None, &CommandLimits::default()).await;
    assert_eq!(out.split_whitespace().collect::<Vec<_>>(), ["1", "1"]);
}

#[tokio::test]
async fn commands_run_in_the_given_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "found it").unwrap();
    let out = expand_commands(
        "!`cat marker.txt`",
        dir.path(),
        None,
        &CommandLimits::default(),
    )
    .await;
    assert_eq!(out, "found it");
}

#[tokio::test]
async fn section_lists_each_requested_skill_in_order() {
    let library = [skill("b", "Second."), skill("a", "First: !`echo 1`")];
    let requested = ["a".to_owned(), "b".to_owned()];
    let dir = std::env::temp_dir();
    let text =
        build_skills_section(&requested, &library, &dir, None, &CommandLimits::default()).await;
    assert_eq!(
        text,
        "SKILL INSTRUCTIONS:\n\n### a\nFirst: 1\n\n### b\nSecond.\n\n"
    );
}

#[tokio::test]
async fn unknown_skill_is_noted_not_fatal() {
    let library = [skill("known", "Known.")];
    let requested = ["ghost".to_owned(), "known".to_owned()];
    let dir = std::env::temp_dir();
    let text =
        build_skills_section(&requested, &library, &dir, None, &CommandLimits::default()).await;
    assert!(text
        .contains("### ghost\n[skill not found: skills/ghost/SKILL.md is missing or invalid]\n\n"));
    assert!(text.ends_with("### known\nKnown.\n\n"));
}

#[tokio::test]
async fn no_requested_skills_means_no_section() {
    let dir = std::env::temp_dir();
    let library = [skill("a", "A.")];
    let text = build_skills_section(&[], &library, &dir, None, &CommandLimits::default()).await;
    assert_eq!(text, "");
}

#[tokio::test]
async fn a_leading_tilde_is_the_given_home_and_a_quoted_one_is_not() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("note.txt"), "from home").unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let out = expand_commands(
        "!`cat ~/note.txt` | !`cat '~/note.txt'`",
        cwd.path(),
        Some(home.path()),
        &CommandLimits::default(),
    )
    .await;
    assert!(
        out.starts_with("from home | [command failed (exit 1): cat '~/note.txt'"),
        "{out}"
    );
    // Without a home `~` is text, as before.
    let out = expand_commands("!`echo ~/x`", cwd.path(), None, &CommandLimits::default()).await;
    assert_eq!(out, "~/x");
}
