//! Text cut short for a reader: at most a number of characters (never inside one), ending in
//! `…` when anything was left out. For names and lines in lists, logs and the run history;
//! outside text the agent reads is cut by the untrusted fence instead, which says how much it
//! left out.

/// `text` cut after `max` characters, with `…` added when it was longer.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn text_longer_than_the_limit_ends_in_an_ellipsis() {
        assert_eq!(cut("morning review", 7), "morning…");
        assert_eq!(cut("morning", 7), "morning");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        assert_eq!(cut("ééé", 2), "éé…");
        assert_eq!(cut("日本語テキスト", 3), "日本語…");
    }
}
