//! The line shown under an answer when the conversation's context is filling up (the original's
//! context usage warning, SPEC §17): from 60 % of the model's window a hint to `/compact`, from
//! 80 % a stronger one. It is measured from the last model call of the turn (its input, cached
//! or not) against the window of the model the turn ran on.

/// The share of the window from which the hint shows.
const WARN_PCT: u64 = 60;
/// The share from which the hint says compaction is near.
const ESCALATE_PCT: u64 = 80;
/// Haiku's window, and the one assumed for a model we do not recognise.
const SMALL_WINDOW: u64 = 200_000;
/// Opus' and Sonnet's window.
const LARGE_WINDOW: u64 = 1_000_000;

/// The context window of `model` (a CLI model id or alias such as `claude-sonnet-4-5` or `opus`).
pub fn window_of(model: Option<&str>) -> u64 {
    let model = model.unwrap_or("").to_ascii_lowercase();
    if model.contains("opus") || model.contains("sonnet") {
        LARGE_WINDOW
    } else {
        SMALL_WINDOW
    }
}

/// `-# *context: 67% (134k) — consider /compact*` for `tokens` of context on `model`, or `None`
/// below 60 %.
pub fn line(model: Option<&str>, tokens: u64) -> Option<String> {
    let pct = tokens.saturating_mul(100) / window_of(model);
    let k = tokens / 1000;
    if pct >= ESCALATE_PCT {
        Some(format!(
            "-# *context: {pct}% ({k}k) — compaction soon, /compact recommended*"
        ))
    } else if pct >= WARN_PCT {
        Some(format!("-# *context: {pct}% ({k}k) — consider /compact*"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haiku_warns_from_60_and_escalates_from_80_percent_of_200k() {
        let haiku = Some("claude-haiku-4-5-20251001");
        assert_eq!(line(haiku, 119_999), None);
        assert_eq!(
            line(haiku, 134_000).as_deref(),
            Some("-# *context: 67% (134k) — consider /compact*")
        );
        assert_eq!(
            line(haiku, 170_000).as_deref(),
            Some("-# *context: 85% (170k) — compaction soon, /compact recommended*")
        );
    }

    #[test]
    fn opus_and_sonnet_measure_against_a_million() {
        assert_eq!(line(Some("claude-sonnet-4-5"), 170_000), None);
        assert_eq!(line(Some("opus"), 599_000), None);
        assert_eq!(
            line(Some("claude-opus-4-1"), 650_000).as_deref(),
            Some("-# *context: 65% (650k) — consider /compact*")
        );
        assert_eq!(
            window_of(None),
            200_000,
            "an unknown model gets the small window"
        );
    }
}
