//! The one place that knows the bot's secret values (SPEC §20): text the bot sends to Discord or
//! writes to its log never carries the Discord token or a webhook secret; each is replaced by
//! [`REDACTED`].
//!
//! The values are read once, at start, from the environment `.env` has filled
//! ([`install_from_env`]): `DISCORD_TOKEN`, `WEBHOOK_SECRET` and every variable whose name ends in
//! `_SECRET` (per-hook secrets). A value shorter than [`MIN_LEN`] is left alone: replacing `x`
//! everywhere would garble the log and hide nothing. The Discord surface passes what it posts
//! through [`event`] and [`redact`]; the log's writers through [`redact`].

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::surface::SurfaceEvent;

/// What a secret becomes.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets.
pub const MIN_LEN: usize = 6;

/// The secret values, longest first (a secret that contains another is replaced whole).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<String>);

impl Secrets {
    /// The secrets among `vars` (name, value).
    pub fn from_vars<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut values: Vec<String> = vars
            .into_iter()
            .filter(|(k, _)| crate::child_env::WITHHELD.contains(k) || k.ends_with("_SECRET"))
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| v.chars().count() >= MIN_LEN)
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Secrets(values)
    }

    /// `text` with every secret replaced by [`REDACTED`]; borrowed when there was none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }
}

static SECRETS: OnceLock<Secrets> = OnceLock::new();

/// Reads the secrets from this process's environment; the first call wins.
pub fn install_from_env() {
    let vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let secrets = Secrets::from_vars(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let _ = SECRETS.set(secrets);
}

/// `text` with the installed secrets replaced (unchanged before [`install_from_env`]).
pub fn redact(text: &str) -> Cow<'_, str> {
    match SECRETS.get() {
        Some(secrets) => secrets.redact(text),
        None => Cow::Borrowed(text),
    }
}

fn owned(text: String) -> String {
    match redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => clean,
    }
}

/// `ev` with every text it shows redacted.
pub fn event(ev: SurfaceEvent) -> SurfaceEvent {
    use SurfaceEvent as E;
    match ev {
        E::Status(t) => E::Status(owned(t)),
        E::ToolUse(t) => E::ToolUse(owned(t)),
        E::SubagentActivity(t) => E::SubagentActivity(owned(t)),
        E::Denied(t) => E::Denied(owned(t)),
        E::ToolFailed(t) => E::ToolFailed(owned(t)),
        E::TextDelta(t) => E::TextDelta(owned(t)),
        E::Reply(t) => E::Reply(owned(t)),
        E::Notice(t) => E::Notice(owned(t)),
        E::Error(t) => E::Error(owned(t)),
        E::Ping {
            text,
            fork_session,
            snooze,
        } => E::Ping {
            text: owned(text),
            fork_session,
            snooze,
        },
        E::Embed {
            mut embed,
            button_ids,
            fork_session,
        } => {
            embed.title = owned(embed.title);
            embed.description = embed.description.map(owned);
            for field in &mut embed.fields {
                field.name = owned(std::mem::take(&mut field.name));
                field.value = owned(std::mem::take(&mut field.value));
            }
            for button in &mut embed.buttons {
                button.label = owned(std::mem::take(&mut button.label));
            }
            E::Embed {
                embed,
                button_ids,
                fork_session,
            }
        }
        E::ForkStarted { topic } => E::ForkStarted {
            topic: topic.map(owned),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_and_webhook_secrets_become_redacted() {
        let secrets = Secrets::from_vars([
            ("DISCORD_TOKEN", "MTIz.abc.def-token"),
            ("WEBHOOK_SECRET", "hook-secret-1"),
            ("GITHUB_HOOK_SECRET", "gh-secret-22"),
            ("ANTHROPIC_API_KEY", "sk-not-ours-to-hide"),
            ("TINY_SECRET", "x"),
        ]);
        let text =
            "token MTIz.abc.def-token, hook hook-secret-1 and gh-secret-22; sk-not-ours-to-hide x";
        assert_eq!(
            secrets.redact(text),
            "token [redacted], hook [redacted] and [redacted]; sk-not-ours-to-hide x"
        );
        assert!(matches!(secrets.redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_inside_another_is_replaced_whole() {
        let secrets =
            Secrets::from_vars([("WEBHOOK_SECRET", "abcdef"), ("A_SECRET", "abcdef-longer")]);
        assert_eq!(
            secrets.redact("abcdef-longer abcdef"),
            "[redacted] [redacted]"
        );
    }
}
