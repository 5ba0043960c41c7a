//! The permission modes in plain words (SPEC §11): what `/permissions` offers and answers. The
//! CLI's names (`dontAsk`, `acceptEdits`, `bypassPermissions`) are machinery; the owner picks
//! from "don't ask", "ask first", "allow file edits" and "allow everything", each said with what
//! it does. Both spellings are accepted as input, so old habits and scripts keep working.

use crate::claude::brain::PermissionMode;

/// The modes `/permissions` offers, in the order it shows them.
pub const OFFERED: [PermissionMode; 4] = [
    PermissionMode::DontAsk,
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::BypassPermissions,
];

/// The mode's name in plain words.
pub fn plain_name(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::DontAsk => "don't ask",
        PermissionMode::Default => "ask first",
        PermissionMode::AcceptEdits => "allow file edits",
        PermissionMode::BypassPermissions => "allow everything",
        PermissionMode::Plan => "plan only",
    }
}

/// What the mode does, in a few words.
pub fn meaning(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::DontAsk => "tools that aren't allowed are refused without asking",
        PermissionMode::Default => "you're asked before a tool that isn't allowed runs",
        PermissionMode::AcceptEdits => {
            "file edits inside the data directory run, other tools are asked about"
        }
        PermissionMode::BypassPermissions => "every tool runs without asking",
        PermissionMode::Plan => "nothing runs; the agent only plans",
    }
}

/// The mode as a choice label: its plain name and what it does (`don't ask — tools that …`).
pub fn choice_label(mode: PermissionMode) -> String {
    format!("{} — {}", plain_name(mode), meaning(mode))
}

/// Reads a mode the owner typed: the plain name (`ask first`, `dont-ask`, `allow everything`,
/// any case, spaces, dashes or underscores) or the CLI's own (`dontAsk`, `default`,
/// `acceptEdits`, `bypassPermissions`). `plan` is not a resting mode and is not accepted.
pub fn parse(input: &str) -> Option<PermissionMode> {
    let folded: String = input
        .trim()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    OFFERED.into_iter().find(|&mode| {
        let plain: String = plain_name(mode)
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect();
        folded == plain || folded == mode.as_str().to_lowercase()
    })
}

/// All the plain names, for an error message: `don't ask, ask first, … or allow everything`.
pub fn listed() -> String {
    let names: Vec<&str> = OFFERED.iter().map(|&m| plain_name(m)).collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_and_the_clis_names_both_parse() {
        for mode in OFFERED {
            assert_eq!(parse(plain_name(mode)), Some(mode), "{mode}");
            assert_eq!(parse(mode.as_str()), Some(mode), "{mode}");
        }
        assert_eq!(parse("Dont-Ask"), Some(PermissionMode::DontAsk));
        assert_eq!(
            parse("ALLOW_EVERYTHING"),
            Some(PermissionMode::BypassPermissions)
        );
        assert_eq!(parse(" acceptedits "), Some(PermissionMode::AcceptEdits));
        assert_eq!(parse("plan"), None);
        assert_eq!(parse("sometimes"), None);
    }

    #[test]
    fn labels_say_what_a_mode_does_without_the_clis_names() {
        for mode in OFFERED {
            let label = choice_label(mode);
            assert!(!label.contains(mode.as_str()), "{label}");
            assert!(
                label.len() <= 100,
                "Discord's limit for a choice name: {label}"
            );
        }
        assert_eq!(
            choice_label(PermissionMode::DontAsk),
            "don't ask — tools that aren't allowed are refused without asking"
        );
        assert_eq!(
            listed(),
            "don't ask, ask first, allow file edits or allow everything"
        );
    }
}
