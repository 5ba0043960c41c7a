//! The system prompt (SPEC §14): the text appended to the CLI's `claude_code` preset with
//! `--append-system-prompt`.
//!
//! Order: the profile ([`profile`]: `IDENTITY.md` then `USER.md`, when present), then the
//! operational sections ([`sections`]): task capture, output, configuration notes, skills
//! (with the list of the user's own skills), Google Tasks, Google Calendar, routines and
//! reminders, the five subagents (one section), embeds, web and docs, interactive forks,
//! background forks and webhooks. Each rule is said once, where the session that needs it reads
//! it: what only a background fork needs is in its preamble ([`crate::agent::prompts::preamble`]),
//! what a tool's caller needs in the tool's description, the formats in the spec documents. The section texts ship in `config/prompts/`; the user's and bot's names and
//! the zone are filled in here.

pub mod profile;
pub mod sections;

use chrono_tz::Tz;

use crate::base::data_dir::DataDir;
use crate::jobs::skills::{self, Skill};

pub use profile::{ensure_identity, load_profile, IDENTITY_FILE, USER_FILE};
use sections::{fill, Part, PARTS};

/// Who is talking to whom: filled into the prompt, the identity template and the subagents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// The user's name (`OLLIM_USER_NAME`).
    pub user: String,
    /// The bot's name (`OLLIM_BOT_NAME`).
    pub bot: String,
}

/// Everything the prompt depends on.
#[derive(Debug, Clone, Copy)]
pub struct PromptInputs<'a> {
    /// Where `IDENTITY.md` and `USER.md` are read from.
    pub data_dir: &'a DataDir,
    /// The user's and bot's names.
    pub names: &'a Names,
    /// The configured zone; its IANA name is what the prompt states.
    pub tz: Tz,
    /// The user's skills (as [`skills::load_user_skills`] gives them); generated ones are
    /// left out here as well.
    pub user_skills: &'a [Skill],
}

/// Separates the profile from the operational sections.
const PROFILE_RULE: &str = "---";

/// Builds the appended prompt: profile first (when there is one), then every section.
pub fn build(inputs: &PromptInputs<'_>) -> String {
    let values = [
        ("USER_NAME", inputs.names.user.as_str()),
        ("BOT_NAME", inputs.names.bot.as_str()),
        ("TZ", inputs.tz.name()),
    ];
    let mut blocks: Vec<String> = Vec::with_capacity(PARTS.len() + 2);
    if let Some(profile) = load_profile(inputs.data_dir) {
        blocks.push(profile);
        blocks.push(PROFILE_RULE.to_owned());
    }
    for part in PARTS {
        let block = match part {
            Part::Template { text, .. } => fill(text, &values),
            Part::UserSkills => skill_list(inputs.user_skills),
        };
        blocks.push(block.trim().to_owned());
    }
    let mut out = blocks.join("\n\n");
    out.push('\n');
    out
}

/// [`build`] with the user's skills read from the data directory; a skills directory that
/// cannot be listed is logged and the list left empty.
pub fn build_from_disk(data_dir: &DataDir, names: &Names, tz: Tz) -> String {
    let user_skills = skills::load_user_skills(&data_dir.skills()).unwrap_or_else(|cause| {
        tracing::warn!(%cause, "could not list skills for the system prompt");
        Vec::new()
    });
    build(&PromptInputs {
        data_dir,
        names,
        tz,
        user_skills: &user_skills,
    })
}

/// The "your skills" list: each user-authored skill's name and description on one line.
fn skill_list(user_skills: &[Skill]) -> String {
    let own: Vec<&Skill> = user_skills.iter().filter(|s| !s.is_generated()).collect();
    if own.is_empty() {
        return "Your skills: none yet.".to_owned();
    }
    let mut out = String::from("Your skills:");
    for skill in own {
        let description = skill.description.split_whitespace().collect::<Vec<_>>();
        out.push_str(&format!("\n- `{}`: {}", skill.name, description.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sections::{placeholder_tokens, PLACEHOLDERS};
    use super::*;

    /// The section headers SPEC §14 asks for, in order.
    const HEADERS: [&str; 13] = [
        "## Capturing tasks",
        "## How to answer",
        "## Configuration notes",
        "## Skills",
        "## Google Tasks",
        "## Google Calendar",
        "## Routines and reminders",
        "## Subagents",
        "## Discord embeds",
        "## Web and docs",
        "## Interactive forks",
        "## Background forks",
        "## Webhooks",
    ];

    fn names() -> Names {
        Names {
            user: "Robin".to_owned(),
            bot: "Pip".to_owned(),
        }
    }

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.to_owned(),
            description: description.to_owned(),
            allowed_tools: None,
            instructions: "Do it.".to_owned(),
        }
    }

    fn build_in(dir: &std::path::Path, user_skills: &[Skill]) -> String {
        let data = DataDir::new(dir);
        build(&PromptInputs {
            data_dir: &data,
            names: &names(),
            tz: chrono_tz::America::Los_Angeles,
            user_skills,
        })
    }

    #[test]
    fn profile_comes_first_identity_before_user() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(IDENTITY_FILE), "# Pip the persona\n").unwrap();
        std::fs::write(tmp.path().join(USER_FILE), "Robin works nights.\n").unwrap();
        let prompt = build_in(tmp.path(), &[]);
        assert!(prompt.starts_with("# Pip the persona\n\nRobin works nights.\n\n---\n\n"));
        let profile_end = prompt.find("Robin works nights.").unwrap();
        assert!(profile_end < prompt.find(HEADERS[0]).unwrap());
    }

    #[test]
    fn without_a_profile_the_sections_start_the_prompt() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(build_in(tmp.path(), &[]).starts_with(HEADERS[0]));
    }

    #[test]
    fn every_section_header_appears_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let prompt = build_in(tmp.path(), &[]);
        let mut last = 0;
        for header in HEADERS {
            let at = prompt
                .find(&format!("{header}\n"))
                .unwrap_or_else(|| panic!("missing {header}"));
            assert!(at >= last, "{header} out of order");
            last = at;
        }
    }

    #[test]
    fn names_and_zone_are_substituted_and_no_placeholder_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let prompt = build_in(tmp.path(), &[]);
        assert!(prompt.contains("Robin"));
        assert!(prompt.contains("Pip's data directory"));
        assert!(prompt.contains("The configured time zone is America/Los_Angeles."));
        for placeholder in PLACEHOLDERS {
            assert!(!prompt.contains(&format!("{{{placeholder}}}")));
        }
        assert_eq!(placeholder_tokens(&prompt), Vec::<&str>::new());
    }

    #[test]
    fn prompt_names_every_tag_command_group_and_subagent() {
        let tmp = tempfile::tempdir().unwrap();
        let prompt = build_in(tmp.path(), &[]);
        for needle in [
            "[routine:ID]",
            "[routine-bg:ID]",
            "[reminder:ID]",
            "[reminder-bg:ID]",
            "[webhook:ID]",
            "[fork-started]",
            "[fork-timeout]",
            "[button]",
            "[2026-02-24 Tue 02:30 PM PST]",
            "ollim-bot tasks add",
            "ollim-bot cal upcoming",
            "ollim-bot reminder add --delay",
            "ollim-bot routine add --cron",
            "routine-reminder-spec.md",
            "webhook-spec.md",
            "skill-spec.md",
            "`ollim-bot-guide`",
            "`run_in_background`",
            "tool-policy.yaml",
            "`gmail-reader`",
            "`history-reviewer`",
            "`responsiveness-reviewer`",
            "`user-proxy`",
            "`job-config`",
            "reflections/<job id>/<time>.md",
        ] {
            assert!(prompt.contains(needle), "prompt lacks {needle}");
        }
    }

    /// Each rule once, where the session that needs it reads it (the original's context audit,
    /// L1 and T1): a background run's rulebook — the one-ping rule, the budget, the reporting
    /// modes, quiet hours — is its preamble's, never repeated in the prompt every turn carries.
    #[test]
    fn background_run_rules_are_left_to_the_preamble() {
        let tmp = tempfile::tempdir().unwrap();
        let prompt = build_in(tmp.path(), &[]);
        for needle in [
            "only one",
            "at most 1",
            "critical=true",
            "`on_ping`",
            "`freely`",
            "would {USER_NAME} regret",
            "regret",
            "quiet hours",
            "follow_up_chain",
        ] {
            assert!(
                !prompt.to_lowercase().contains(&needle.to_lowercase()),
                "the prompt repeats {needle}"
            );
        }
        assert!(
            prompt.contains("preamble"),
            "the prompt points to the preamble"
        );
    }

    #[test]
    fn user_skills_are_listed_and_generated_ones_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let prompt = build_in(
            tmp.path(),
            &[
                skill("inbox-sweep", "Sort unread mail\ninto tasks."),
                skill("routine-morning", "generated"),
                skill("reminder-x", "generated"),
                skill("webhook-ci", "generated"),
            ],
        );
        assert!(prompt.contains("Your skills:\n- `inbox-sweep`: Sort unread mail into tasks."));
        for generated in ["routine-morning", "reminder-x", "webhook-ci"] {
            assert!(!prompt.contains(generated), "{generated} listed");
        }
    }

    #[test]
    fn skills_are_read_from_disk_when_building_from_disk() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        skills::write_skill(&data.skills(), &skill("weekly-review", "Look back.")).unwrap();
        skills::write_skill(&data.skills(), &skill("routine-abc", "generated")).unwrap();
        let prompt = build_from_disk(&data, &names(), chrono_tz::UTC);
        assert!(prompt.contains("- `weekly-review`: Look back."));
        assert!(!prompt.contains("routine-abc"));
        let empty = build_in(tmp.path().join("nowhere").as_path(), &[]);
        assert!(empty.contains("Your skills: none yet."));
    }
}
