//! A command line split into its words the way a POSIX shell splits them, for running a program
//! without a shell (a job's condition gate, a skill's `` !`command` `` lines). The original used
//! Python's `shlex.split`, and this follows it:
//!
//! - unquoted whitespace separates words;
//! - `'…'` keeps everything inside literally;
//! - `"…"` keeps everything but `\"` and `\\`, which lose their backslash;
//! - outside quotes, `\` keeps the next character literally;
//! - adjacent pieces join (`a'b c'"d"` is one word `ab cd`), and `''` is an empty word;
//! - *(as a shell, beyond `shlex`)* an unquoted `~` that starts a word and is the whole word or
//!   followed by `/` is the owner's home ([`crate::base::home_path::home`]): `~/p` is
//!   `$HOME/p`. Quoted or escaped (`'~/p'`, `"~/p"`, `\~/p`), inside a word (`a~/b`) or naming a
//!   user (`~jo`) it stays text, and so it does when there is no home to put in.
//!
//! Nothing else is special: `;`, `|`, `&`, `<`, `>`, `$`, `*`, `#` and backticks are text,
//! so `echo a; rm b` is `echo` with the arguments `a;`, `rm` and `b`. A quote left open or a
//! backslash with nothing after it is an error.

/// Why a command line could not be split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A quote that is never closed.
    #[error("unclosed {0} quote")]
    UnclosedQuote(char),
    /// A backslash at the very end, escaping nothing.
    #[error("a backslash at the end escapes nothing")]
    TrailingBackslash,
}

/// The words of `text`, in order (empty for blank text), a leading `~` expanded to `home`.
pub fn split(text: &str, home: Option<&str>) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(next) => word.push(next),
                    None => return Err(SplitError::TrailingBackslash),
                }
            }
            '~' if !in_word && chars.peek().is_none_or(|&n| n == '/' || n.is_whitespace()) => {
                in_word = true;
                word.push_str(home.unwrap_or("~"));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        split(text, None).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn homed(text: &str) -> Vec<String> {
        split(text, Some("/home/me")).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    #[test]
    fn an_unquoted_leading_tilde_is_the_home() {
        assert_eq!(
            homed("git -C ~/my-project log ~ ~/ ~/a~/b"),
            [
                "git",
                "-C",
                "/home/me/my-project",
                "log",
                "/home/me",
                "/home/me/",
                "/home/me/a~/b"
            ]
        );
        // Each word on its own, whatever came before it.
        assert_eq!(homed("\t~/x\t~"), ["/home/me/x", "/home/me"]);
        // The rest of the word is split as ever.
        assert_eq!(homed("~/'a b'\"c\""), ["/home/me/a bc"]);
    }

    #[test]
    fn a_quoted_escaped_inner_or_named_tilde_stays_text() {
        assert_eq!(
            homed(r#"'~/x' "~/x" \~/x a~/b ~user ~+ ~- x=~/y ~'/x' ~\/x"#),
            ["~/x", "~/x", "~/x", "a~/b", "~user", "~+", "~-", "x=~/y", "~/x", "~/x"]
        );
        // No home to put in: `~` is text.
        assert_eq!(words("ls ~/x ~"), ["ls", "~/x", "~"]);
    }

    #[test]
    fn whitespace_separates_and_quotes_group() {
        assert_eq!(
            words("  git -C ~/p log\t--format='%h %s' \"two words\"  "),
            ["git", "-C", "~/p", "log", "--format=%h %s", "two words"]
        );
        assert_eq!(words("a'b c'\"d\"e"), ["ab cde"]);
        assert_eq!(words("echo '' \"\""), ["echo", "", ""]);
        assert!(words(" \t\n ").is_empty());
    }

    #[test]
    fn backslashes_follow_shlex() {
        assert_eq!(words(r"a\ b c\\d \'"), ["a b", r"c\d", "'"]);
        // In double quotes only `\"` and `\\` lose their backslash.
        assert_eq!(
            words(r#""q\"uote" "b\\s" "\$x\n""#),
            [r#"q"uote"#, r"b\s", r"\$x\n"]
        );
        // In single quotes nothing is special.
        assert_eq!(words(r"'a\b'"), [r"a\b"]);
    }

    #[test]
    fn shell_operators_are_plain_text() {
        assert_eq!(
            words("echo a; rm -rf b | tee c > d && $HOME `x` # e *"),
            [
                "echo", "a;", "rm", "-rf", "b", "|", "tee", "c", ">", "d", "&&", "$HOME", "`x`",
                "#", "e", "*"
            ]
        );
    }

    #[test]
    fn open_quotes_and_a_trailing_backslash_are_errors() {
        assert_eq!(
            split("echo 'open", None),
            Err(SplitError::UnclosedQuote('\''))
        );
        assert_eq!(
            split("echo \"open", None),
            Err(SplitError::UnclosedQuote('"'))
        );
        assert_eq!(
            split("echo \"open\\", None),
            Err(SplitError::UnclosedQuote('"'))
        );
        assert_eq!(
            split("echo end\\", None),
            Err(SplitError::TrailingBackslash)
        );
    }
}
