//! Wildcard matching for tool rules (SPEC §6, §11): path globs as Claude Code's file rules use
//! them (`*` stays inside one path segment, `**` crosses segments, `**/` is zero or more
//! directories, `?` is one character) and command wildcards for Bash rules (`*` is any text,
//! spaces and slashes included). No regex engine: a small table-driven matcher, linear in the
//! pattern times the text.

/// One piece of a compiled pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// This exact character.
    Literal(char),
    /// One character other than `/`.
    One,
    /// Any run of characters without `/`.
    Segment,
    /// Any run of characters at all.
    Anything,
    /// Nothing, or any run that ends in `/` (whole directories).
    Directories,
}

/// A compiled wildcard pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    tokens: Vec<Token>,
}

impl Glob {
    /// A path glob: `*`, `**`, `**/` and `?` as file rules read them.
    pub(crate) fn path(pattern: &str) -> Self {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::with_capacity(chars.len());
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    if chars.get(i + 2) == Some(&'/') {
                        tokens.push(Token::Directories);
                        i += 3;
                    } else {
                        tokens.push(Token::Anything);
                        i += 2;
                    }
                }
                '*' => {
                    tokens.push(Token::Segment);
                    i += 1;
                }
                '?' => {
                    tokens.push(Token::One);
                    i += 1;
                }
                c => {
                    tokens.push(Token::Literal(c));
                    i += 1;
                }
            }
        }
        Self { tokens }
    }

    /// A command wildcard: every `*` is any text; everything else is literal.
    pub(crate) fn command(pattern: &str) -> Self {
        let tokens = pattern
            .chars()
            .map(|c| match c {
                '*' => Token::Anything,
                c => Token::Literal(c),
            })
            .collect();
        Self { tokens }
    }

    /// True when the whole of `text` matches the whole pattern.
    pub(crate) fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let n = text.len();
        // `next[j]`: tokens after the current one match `text[j..]`.
        let mut next = vec![false; n + 1];
        next[n] = true;
        for token in self.tokens.iter().rev() {
            let mut here = vec![false; n + 1];
            for j in (0..=n).rev() {
                let c = text.get(j).copied();
                here[j] = match *token {
                    Token::Literal(l) => c == Some(l) && next[j + 1],
                    Token::One => c.is_some_and(|c| c != '/') && next[j + 1],
                    Token::Segment => next[j] || (c.is_some_and(|c| c != '/') && here[j + 1]),
                    Token::Anything => next[j] || (c.is_some() && here[j + 1]),
                    Token::Directories => {
                        next[j] || (j + 1..=n).any(|k| text[k - 1] == '/' && next[k])
                    }
                };
            }
            next = here;
        }
        next[0]
    }
}

/// True when `text` contains a wildcard character a path glob would interpret.
pub(crate) fn has_wildcard(text: &str) -> bool {
    text.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_star_stays_inside_one_segment() {
        let g = Glob::path("routines/*.md");
        assert!(g.matches("routines/walk.md"));
        assert!(!g.matches("routines/sub/walk.md"));
        assert!(!g.matches("reminders/walk.md"));
    }

    #[test]
    fn double_star_crosses_segments() {
        let g = Glob::path("**.md");
        assert!(g.matches("notes.md"));
        assert!(g.matches("routines/sub/walk.md"));
        assert!(!g.matches("state/budget.json"));
    }

    #[test]
    fn double_star_slash_means_zero_or_more_directories() {
        let g = Glob::path("**/state/*");
        assert!(g.matches("state/x"));
        assert!(g.matches("a/b/state/x"));
        assert!(!g.matches("xstate/x"));
    }

    #[test]
    fn question_mark_is_one_character_but_not_a_slash() {
        let g = Glob::path("a?c");
        assert!(g.matches("abc"));
        assert!(!g.matches("a/c"));
        assert!(!g.matches("ac"));
    }

    #[test]
    fn command_star_spans_spaces_and_slashes() {
        let g = Glob::command("ollim-bot tasks *");
        assert!(g.matches("ollim-bot tasks list --all"));
        assert!(g.matches("ollim-bot tasks /x/y"));
        assert!(!g.matches("ollim-bot cal list"));
        assert!(Glob::command("git * main").matches("git push origin main"));
    }

    #[test]
    fn literal_pattern_needs_the_whole_text() {
        let g = Glob::path("state");
        assert!(g.matches("state"));
        assert!(!g.matches("state/x"));
        assert!(!g.matches("stat"));
    }
}
