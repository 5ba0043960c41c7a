//! The one place that knows the bot's secret values (SPEC §20): text the bot sends to Discord or
//! writes to its log never carries the Discord token or a webhook secret; each is replaced by
//! [`REDACTED`].
//!
//! The values are read once, at start, from the environment `.env` has filled
//! ([`install_from_env`]): `DISCORD_TOKEN`, `WEBHOOK_SECRET`, every variable whose name ends in
//! `_SECRET`, and every variable a webhook spec names as its `secret-env:` (per-hook secrets).
//! Those names never reach a `claude` child either ([`is_secret_name`]). A value shorter than [`MIN_LEN`] is left alone: replacing `x`
//! everywhere would garble the log and hide nothing. The Discord surface passes what it posts
//! through [`redact`] (events through `SurfaceEvent::redacted`); the log's writers too.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The bot's own secrets by name: redacted, and never passed to a `claude` child.
pub const WITHHELD: [&str; 2] = ["DISCORD_TOKEN", "WEBHOOK_SECRET"];

/// What a secret becomes.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets.
pub const MIN_LEN: usize = 6;

/// The secret values, longest first (a secret that contains another is replaced whole), and
/// the names of the webhook specs' `secret-env` variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    values: Vec<String>,
    hook_names: Vec<String>,
}

impl Secrets {
    /// The secrets among `vars` (name, value), `hook_names` being the webhook specs'
    /// `secret-env` variables.
    pub fn from_vars<'a>(
        vars: impl IntoIterator<Item = (&'a str, &'a str)>,
        hook_names: Vec<String>,
    ) -> Self {
        let mut values: Vec<String> = vars
            .into_iter()
            .filter(|(k, _)| {
                WITHHELD.contains(k) || k.ends_with("_SECRET") || hook_names.iter().any(|n| n == k)
            })
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| v.chars().count() >= MIN_LEN)
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Secrets { values, hook_names }
    }

    /// `text` with every secret replaced by [`REDACTED`]; borrowed when there was none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.values {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }
}

static SECRETS: OnceLock<Secrets> = OnceLock::new();

/// Reads the secrets from this process's environment and the `secret-env:` names of the
/// webhook specs in `webhooks` (the data directory's); the first call wins.
pub fn install_from_env(webhooks: &std::path::Path) {
    let vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let names = hook_secret_names(webhooks);
    let secrets = Secrets::from_vars(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())), names);
    let _ = SECRETS.set(secrets);
}

/// The variables the webhook specs in `dir` name with `secret-env: NAME` (a plain scan of
/// their lines: a spec the loader refuses still keeps its secret out of sight).
fn hook_secret_names(dir: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| l.trim().strip_prefix("secret-env:"))
                .map(|v| v.trim().trim_matches(['"', '\'']).to_owned())
                .filter(|v| !v.is_empty())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when `name` is a webhook spec's `secret-env` variable (as installed at start).
pub fn is_secret_name(name: &str) -> bool {
    SECRETS
        .get()
        .is_some_and(|s| s.hook_names.iter().any(|n| n == name))
}

/// `text` with the installed secrets replaced, reusing it when there was none.
pub fn redact_owned(text: String) -> String {
    match redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => clean,
    }
}

/// `text` with the installed secrets replaced (unchanged before [`install_from_env`]).
pub fn redact(text: &str) -> Cow<'_, str> {
    match SECRETS.get() {
        Some(secrets) => secrets.redact(text),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_and_webhook_secrets_become_redacted() {
        let secrets = Secrets::from_vars(
            [
                ("DISCORD_TOKEN", "MTIz.abc.def-token"),
                ("WEBHOOK_SECRET", "hook-secret-1"),
                ("GITHUB_HOOK_SECRET", "gh-secret-22"),
                ("STRIPE_SIGNING", "whsec_stripe_3"),
                ("ANTHROPIC_API_KEY", "sk-not-ours-to-hide"),
                ("TINY_SECRET", "x"),
            ],
            vec!["STRIPE_SIGNING".to_owned()],
        );
        let text = "token MTIz.abc.def-token, hook hook-secret-1 and gh-secret-22, \
                    whsec_stripe_3; sk-not-ours-to-hide x";
        assert_eq!(
            secrets.redact(text),
            "token [redacted], hook [redacted] and [redacted], [redacted]; sk-not-ours-to-hide x"
        );
        assert!(matches!(secrets.redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_inside_another_is_replaced_whole() {
        let secrets = Secrets::from_vars(
            [("WEBHOOK_SECRET", "abcdef"), ("A_SECRET", "abcdef-longer")],
            Vec::new(),
        );
        assert_eq!(
            secrets.redact("abcdef-longer abcdef"),
            "[redacted] [redacted]"
        );
    }

    #[test]
    fn a_webhook_specs_secret_env_is_read_from_its_lines() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("stripe.md"),
            "---\nid: stripe\nauth: standard\nsecret-env: \"STRIPE_SIGNING\"\n---\nbody\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "secret-env: NOPE\n").unwrap();
        assert_eq!(hook_secret_names(tmp.path()), ["STRIPE_SIGNING"]);
        assert!(hook_secret_names(&tmp.path().join("missing")).is_empty());
    }
}
