//! The examples in the agent's spec docs (`config/specs/*.md`) are real files: each parses and
//! is already in the exact layout the bot writes, so the docs cannot drift from the code.

use std::fs;
use std::path::Path;

use ollim_actors::jobs::{reminder, routine};
use ollim_actors::{jobs::skills, jobs::webhook_spec};

/// The contents of every ```markdown block in a spec doc, each ending in one newline.
fn markdown_examples(doc: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/specs")
        .join(doc);
    let text = fs::read_to_string(&path).expect("spec doc is readable");
    let mut examples = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```markdown") => current = Some(String::new()),
            (Some(block), "```") => {
                examples.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    examples
}

#[test]
fn routine_and_reminder_examples_are_files_the_bot_would_write() {
    let examples = markdown_examples("routine-reminder-spec.md");
    assert_eq!(examples.len(), 4);
    for example in examples {
        if example.contains("\ncron: ") {
            let parsed = routine::parse(&example).unwrap_or_else(|e| panic!("{e}\n{example}"));
            assert_eq!(routine::to_markdown(&parsed), example);
        } else {
            let parsed = reminder::parse(&example).unwrap_or_else(|e| panic!("{e}\n{example}"));
            assert_eq!(reminder::to_markdown(&parsed), example);
        }
    }
}

#[test]
fn webhook_example_is_a_file_the_bot_would_write() {
    let examples = markdown_examples("webhook-spec.md");
    assert_eq!(examples.len(), 1);
    let parsed = webhook_spec::parse(&examples[0]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.id, "build-status");
    assert_eq!(webhook_spec::to_markdown(&parsed), examples[0]);
}

#[test]
fn skill_example_is_a_file_the_bot_would_write() {
    let examples = markdown_examples("skill-spec.md");
    assert_eq!(examples.len(), 1);
    let parsed = skills::parse(&examples[0], "inbox-sweep").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(skills::to_markdown(&parsed), examples[0]);
}
