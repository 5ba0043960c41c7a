//! `.env.example` (SPEC §17): it lists every variable of the configuration guide's table
//! (`docs/configuration.md`), each with a comment, and reads as a `.env` file.

use std::collections::BTreeSet;

fn repo_file(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The variables named in the first column of the configuration guide's table.
fn documented_variables() -> BTreeSet<String> {
    let guide = repo_file("docs/configuration.md");
    let table = guide
        .split("| variable | meaning | default |")
        .nth(1)
        .expect("the configuration table");
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or_default().to_owned();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|v| v.split('=').next().unwrap_or_default().to_owned())
                .filter(|v| v.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `KEY=value` or `# KEY=value`.
fn is_assignment(line: &str) -> bool {
    let l = line.trim_start_matches('#').trim_start();
    l.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

#[test]
fn env_example_lists_every_variable_with_a_comment() {
    let example = repo_file(".env.example");
    let wanted = documented_variables();
    assert!(wanted.len() >= 15, "the table was read: {wanted:?}");
    let lines: Vec<&str> = example.lines().collect();
    for var in &wanted {
        let at = lines
            .iter()
            .position(|l| {
                let l = l.trim_start_matches('#').trim_start();
                l.starts_with(&format!("{var}="))
            })
            .unwrap_or_else(|| panic!("{var} is not in .env.example"));
        assert!(
            at > 0 && lines[at - 1].starts_with("# ") && !is_assignment(lines[at - 1]),
            "{var} has a comment above it: {:?}",
            &lines[at.saturating_sub(1)..=at]
        );
    }
    // Everything not commented out is a variable assignment.
    for line in &lines {
        let l = line.trim();
        assert!(
            l.is_empty() || l.starts_with('#') || l.split_once('=').is_some(),
            "unreadable line {l:?}"
        );
    }
}
