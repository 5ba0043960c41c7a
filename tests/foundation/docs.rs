//! The README and the guides in `docs/` hold together: every relative link leads to a file (and
//! a `#section` to one of its headings), every `ollim-bot …` command in a code block is one of
//! `ollim-bot --help`'s commands, every `make …` a target of the Makefile, and every setting
//! they name is read by the bot's code — or is one of the few only the claude CLI reads.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Settings the docs tell people about that only the claude CLI reads (the bot passes them on).
const CLI_SETTINGS: [&str; 1] = [
    // How often the CLI retries a failed model call.
    "CLAUDE_CODE_MAX_RETRIES",
];

/// The prefixes of the names the docs use for settings.
const SETTING_PREFIXES: [&str; 6] = [
    "OLLIM_",
    "DISCORD_",
    "CLAUDE_CODE_",
    "ANTHROPIC_",
    "GOOGLE_",
    "WEBHOOK_",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, wanted: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, wanted, out);
        } else if wanted(&path) {
            out.push(path);
        }
    }
}

/// README.md, CHANGELOG.md and every page under docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md"), repo().join("CHANGELOG.md")];
    files_under(
        &repo().join("docs"),
        &|p| p.extension().is_some_and(|e| e == "md"),
        &mut pages,
    );
    assert!(pages.len() >= 14, "the guides were found: {pages:?}");
    pages
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page's text outside fenced code blocks, and the lines of its shell blocks (` ```sh `).
fn prose_and_code(text: &str) -> (String, Vec<String>) {
    let (mut prose, mut code) = (String::new(), Vec::new());
    let (mut fenced, mut shell) = (false, false);
    for line in text.lines() {
        if let Some(label) = line.trim_start().strip_prefix("```") {
            fenced = !fenced;
            shell = fenced && matches!(label.trim(), "sh" | "bash" | "shell" | "console");
        } else if shell {
            code.push(line.to_owned());
        } else if fenced {
            continue;
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    (prose, code)
}

/// The targets of the page's `[text](target)` links.
fn links(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prose;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            out.push(after[..end].to_owned());
        }
        rest = after;
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose_and_code(text)
        .0
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// Why each relative link of `page` does not resolve.
fn broken_links(page: &Path) -> Vec<String> {
    let (prose, _) = prose_and_code(&read(page));
    let dir = page.parent().expect("a page has a directory");
    let mut broken = Vec::new();
    for target in links(&prose) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, section) = match target.split_once('#') {
            Some((file, section)) => (file, Some(section)),
            None => (target.as_str(), None),
        };
        let path = if file.is_empty() {
            page.to_path_buf()
        } else {
            dir.join(file)
        };
        if !path.exists() {
            broken.push(format!("{target}: no such file"));
            continue;
        }
        if let Some(section) = section {
            if !anchors(&read(&path)).contains(section) {
                broken.push(format!("{target}: no such heading"));
            }
        }
    }
    broken
}

/// The commands `ollim-bot --help` lists.
fn subcommands() -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("--help")
        .output()
        .expect("run ollim-bot --help");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let listed = help
        .split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("a command list: {help}"));
    let names: BTreeSet<String> = listed
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(
        names.contains("routine") && names.contains("doctor"),
        "{names:?}"
    );
    names
}

/// The Makefile's targets.
fn make_targets() -> BTreeSet<String> {
    read(&repo().join("Makefile"))
        .lines()
        .filter(|l| !l.starts_with(['\t', '#', ' ', '.']))
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, rest)| !rest.starts_with('=') && !name.contains([' ', '$', '?', '=']))
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// The commands in code lines: each `a && b`, `a; b` piece, its first word and the next.
fn commands(code: &[String]) -> Vec<(String, Option<String>)> {
    code.iter()
        .flat_map(|l| {
            l.split("&&")
                .flat_map(|p| p.split(';'))
                .map(|p| p.trim().trim_start_matches("$ ").to_owned())
                .collect::<Vec<_>>()
        })
        .filter_map(|piece| {
            let mut words = piece.split_whitespace();
            let program = words.next()?.to_owned();
            Some((program, words.next().map(str::to_owned)))
        })
        .collect()
}

/// Where the docs' commands go wrong.
fn unknown_commands(
    text: &str,
    subcommands: &BTreeSet<String>,
    targets: &BTreeSet<String>,
) -> Vec<String> {
    let (_, code) = prose_and_code(text);
    let mut wrong = Vec::new();
    for (program, first) in commands(&code) {
        let name = program.rsplit('/').next().unwrap_or(&program);
        match (name, first.as_deref()) {
            ("ollim-bot", Some(arg)) if !arg.starts_with('-') && !subcommands.contains(arg) => {
                wrong.push(format!(
                    "{program} {arg}: not a command of ollim-bot --help"
                ));
            }
            ("make", Some(target)) if !target.contains('=') && !targets.contains(target) => {
                wrong.push(format!("make {target}: not a Makefile target"));
            }
            _ => {}
        }
    }
    wrong
}

/// The setting names in `text`: upper-case words with one of [`SETTING_PREFIXES`].
fn setting_names(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .filter(|w| {
            SETTING_PREFIXES
                .iter()
                .any(|p| w.starts_with(p) && w.len() > p.len())
        })
        .filter(|w| !w.ends_with('_'))
        .map(str::to_owned)
        .collect()
}

/// Whether the code reads (or sets) `name`: quoted in the Rust sources, or named in the Makefile
/// or the tools' scripts.
struct Code {
    rust: String,
    scripts: String,
}

impl Code {
    fn load() -> Self {
        let text =
            |files: Vec<PathBuf>| files.iter().map(|f| read(f)).collect::<Vec<_>>().join("\n");
        let mut rust = vec![repo().join("build.rs")];
        for dir in ["src", "actors/src"] {
            files_under(
                &repo().join(dir),
                &|p| p.extension().is_some_and(|e| e == "rs"),
                &mut rust,
            );
        }
        let mut scripts = vec![repo().join("Makefile")];
        files_under(
            &repo().join("tools"),
            &|p| p.extension().is_some_and(|e| e == "sh"),
            &mut scripts,
        );
        Code {
            rust: text(rust),
            scripts: text(scripts),
        }
    }

    fn reads(&self, name: &str) -> bool {
        self.rust.contains(&format!("\"{name}\"")) || self.scripts.contains(name)
    }
}

#[test]
fn every_relative_link_resolves() {
    let broken: Vec<String> = pages()
        .iter()
        .flat_map(|page| {
            broken_links(page)
                .into_iter()
                .map(move |b| format!("{}: {b}", page.display()))
        })
        .collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_command_in_a_code_block_exists() {
    let (subcommands, targets) = (subcommands(), make_targets());
    assert!(
        targets.contains("run") && targets.contains("test-cli"),
        "{targets:?}"
    );
    let wrong: Vec<String> = pages()
        .iter()
        .flat_map(|page| {
            unknown_commands(&read(page), &subcommands, &targets)
                .into_iter()
                .map(move |w| format!("{}: {w}", page.display()))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_setting_named_is_read_by_the_bot_or_the_cli() {
    let code = Code::load();
    let mut unread = Vec::new();
    for page in pages() {
        for name in setting_names(&read(&page)) {
            if !code.reads(&name) && !CLI_SETTINGS.contains(&name.as_str()) {
                unread.push(format!("{}: {name}", page.display()));
            }
        }
    }
    assert!(
        unread.is_empty(),
        "named in the docs, read by nothing:\n{}",
        unread.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // A page with a broken link, an unknown command and an unread setting is caught by each.
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("page.md");
    fs::write(
        &page,
        "# Title\n\n[gone](missing.md) [here](#title) [nope](#other)\n",
    )
    .unwrap();
    assert_eq!(
        broken_links(&page),
        ["missing.md: no such file", "#other: no such heading"]
    );
    let subcommands = BTreeSet::from(["doctor".to_owned()]);
    let targets = BTreeSet::from(["run".to_owned()]);
    let text = "```sh\nollim-bot doctor && ollim-bot frobnicate\nmake run; make deploy\n./target/release/ollim-bot --version\n```\n";
    assert_eq!(
        unknown_commands(text, &subcommands, &targets),
        [
            "ollim-bot frobnicate: not a command of ollim-bot --help",
            "make deploy: not a Makefile target"
        ]
    );
    assert_eq!(
        setting_names("set `OLLIM_DATA_DIR` and `ANTHROPIC_*`, not OLLIMX"),
        BTreeSet::from(["OLLIM_DATA_DIR".to_owned()])
    );
}
