//! File names for jobs: a readable slug of the message (SPEC §3).
//!
//! The slug is the lowercased message with every run of characters outside `a-z0-9` turned
//! into one `-`, trimmed of `-`, cut to 50 characters and trimmed again. A message with no
//! such characters at all (emoji only, say) falls back to the id, so no file is ever named
//! `.md`. On a clash with another item's file the store tries `<slug>-2`, `<slug>-3`, … (see
//! [`candidates`]). The name is only for people: the YAML `id` is what identifies an item.

/// The longest slug, in characters (all ASCII, so also bytes).
pub const MAX_LEN: usize = 50;

/// The slug of `text`: `[^a-z0-9]+` → `-` on the lowercased text, trimmed, at most 50 chars.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len().min(MAX_LEN * 2));
    let mut pending_dash = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if pending_dash && !slug.is_empty() {
                slug.push('-');
            }
            pending_dash = false;
            slug.push(c);
        } else {
            pending_dash = true;
        }
        if slug.len() > MAX_LEN {
            break;
        }
    }
    slug.truncate(MAX_LEN);
    let trimmed = slug.trim_end_matches('-').len();
    slug.truncate(trimmed);
    slug
}

/// The file stem for an item: the slug of its message, or of its id when that is empty.
pub fn file_stem(message: &str, id: &str) -> String {
    let slug = slugify(message);
    if !slug.is_empty() {
        return slug;
    }
    let from_id = slugify(id);
    if from_id.is_empty() {
        "untitled".to_owned()
    } else {
        from_id
    }
}

/// File names to try in order: `<stem>.md`, `<stem>-2.md`, `<stem>-3.md`, …
pub fn candidates(stem: &str) -> impl Iterator<Item = String> + '_ {
    std::iter::once(format!("{stem}.md")).chain((2u64..).map(move |n| format!("{stem}-{n}.md")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_other_characters_become_one_dash() {
        assert_eq!(slugify("Take a break!!  Now"), "take-a-break-now");
        assert_eq!(slugify("  --Check email--  "), "check-email");
        assert_eq!(slugify("Café au lait"), "caf-au-lait");
    }

    #[test]
    fn cut_at_fifty_then_trailing_dash_trimmed() {
        let text = format!("{} tail", "a".repeat(49));
        assert_eq!(slugify(&text), "a".repeat(49));
        let long = "word ".repeat(30);
        let slug = slugify(&long);
        assert!(slug.len() <= MAX_LEN);
        assert_eq!(slug, "word-".repeat(10).trim_end_matches('-'));
    }

    #[test]
    fn exactly_fifty_is_kept_whole() {
        let text = "b".repeat(50);
        assert_eq!(slugify(&text), text);
        assert_eq!(slugify(&"c".repeat(80)), "c".repeat(50));
    }

    #[test]
    fn empty_slug_falls_back_to_id() {
        assert_eq!(file_stem("🎉🎉", "a1b2c3d4"), "a1b2c3d4");
        assert_eq!(file_stem("", "A1-B2"), "a1-b2");
        assert_eq!(file_stem("!!", "??"), "untitled");
        assert_eq!(file_stem("Hello", "a1b2c3d4"), "hello");
    }

    #[test]
    fn candidates_count_up_from_two() {
        let names: Vec<_> = candidates("x").take(3).collect();
        assert_eq!(names, ["x.md", "x-2.md", "x-3.md"]);
    }
}
