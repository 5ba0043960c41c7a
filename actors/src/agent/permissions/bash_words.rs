//! A Bash command line split the way the shell splits it, as far as [`super::bash_writes`] needs
//! to tell which files it could write: simple commands with their words and redirections, and
//! the text of every command and process substitution, to be judged on its own.
//!
//! Quotes, escapes, `$NAME`, `${…}`, `$(…)`, `` `…` ``, `<(…)`, `>(…)`, globs, brace
//! expansion, comments, here-documents and the operators `; & && | || ( )` and newlines are
//! understood. Whatever only the running shell could know (a variable, a substitution, a glob)
//! is kept as a [`Piece::Var`] or [`Piece::Dynamic`], never guessed.

/// One piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text as the command will receive it.
    Lit(String),
    /// A variable (`$HOME`, `${PWD}`; a leading `~` is `HOME`).
    Var(String),
    /// Something only known when the command runs: a substitution, a glob, a brace expansion.
    Dynamic,
}

/// One word of a command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    /// Its pieces in order.
    pub pieces: Vec<Piece>,
}

impl Word {
    /// The whole word when it is plain text.
    pub fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Lit(s) => out.push_str(s),
                _ => return None,
            }
        }
        Some(out)
    }

    /// The plain text of the word with every unknown part left out (for looking at code).
    pub fn known_text(&self) -> String {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Lit(s) => Some(s.as_str()),
                _ => None,
            })
            .collect()
    }

    pub(super) fn push_char(&mut self, c: char) {
        match self.pieces.last_mut() {
            Some(Piece::Lit(s)) => s.push(c),
            _ => self.pieces.push(Piece::Lit(c.to_string())),
        }
    }
}

/// A redirection and the word it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// True when it opens its target for writing (`>`, `>>`, `>|`, `&>`, `<>`, `>& file`).
    pub writes: bool,
    /// The file (or fd number, for `>&2`).
    pub target: Word,
}

/// One simple command: its words (assignments and keywords included) and redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Simple {
    /// The words in order.
    pub words: Vec<Word>,
    /// The redirections in order.
    pub redirects: Vec<Redirect>,
}

/// A command line taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Parsed {
    /// The simple commands, in order.
    pub commands: Vec<Simple>,
    /// The text of each substitution (`$(…)`, `` `…` ``, `<(…)`, `>(…)`, `${x:-…}`), which
    /// runs as a command line of its own.
    pub nested: Vec<String>,
}

/// What the next finished word is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// A redirection target; `true` when it is written.
    Target(bool),
    /// A here-document delimiter; `true` for `<<-` (leading tabs stripped).
    HereDoc(bool),
    /// A here-string (`<<< word`): text, not a file.
    HereString,
}

/// Takes `text` apart.
pub(crate) fn parse(text: &str) -> Parsed {
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
        out: Parsed::default(),
        command: Simple::default(),
        word: None,
        pending: None,
        heredocs: Vec::new(),
    };
    p.run();
    p.out
}

/// The reading of one command line (the quoting and substitution parts in
/// [`super::bash_quotes`]).
pub(super) struct Parser {
    /// The text.
    pub(super) chars: Vec<char>,
    /// The next character to read.
    pub(super) pos: usize,
    /// What has been read so far.
    pub(super) out: Parsed,
    command: Simple,
    word: Option<Word>,
    pending: Option<Pending>,
    heredocs: Vec<(String, bool)>,
}

impl Parser {
    pub(super) fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    pub(super) fn word(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' => {
                    self.end_word();
                    self.pos += 1;
                }
                '\n' => {
                    self.end_command();
                    self.pos += 1;
                    self.skip_heredoc_bodies();
                }
                ';' | '|' | '(' | ')' => {
                    self.end_command();
                    self.pos += 1;
                }
                '&' if self.peek(1) == Some('>') => {
                    self.end_word();
                    let append = self.peek(2) == Some('>');
                    self.pos += if append { 3 } else { 2 };
                    self.pending = Some(Pending::Target(true));
                }
                '&' => {
                    self.end_command();
                    self.pos += 1;
                }
                '>' | '<' if self.peek(1) == Some('(') => {
                    self.pos += 2;
                    let inner = self.until_closing_paren();
                    self.out.nested.push(inner);
                    self.word().pieces.push(Piece::Dynamic);
                }
                '>' | '<' => self.redirect(c),
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\'' => {
                    self.pos += 1;
                    self.word();
                    while let Some(c) = self.peek(0) {
                        self.pos += 1;
                        if c == '\'' {
                            break;
                        }
                        self.word().push_char(c);
                    }
                }
                '"' => {
                    self.pos += 1;
                    self.word();
                    self.double_quoted();
                }
                '\\' => {
                    match self.peek(1) {
                        Some('\n') => {}
                        Some(next) => self.word().push_char(next),
                        None => self.word().push_char('\\'),
                    }
                    self.pos += 2;
                }
                '$' => self.dollar(),
                '`' => {
                    self.pos += 1;
                    let inner = self.until_backtick();
                    self.out.nested.push(inner);
                    self.word().pieces.push(Piece::Dynamic);
                }
                '*' | '?' => {
                    self.word().pieces.push(Piece::Dynamic);
                    self.pos += 1;
                }
                '[' if self.word.is_some() || self.peek(1).is_some_and(|c| !c.is_whitespace()) => {
                    self.word().pieces.push(Piece::Dynamic);
                    self.pos += 1;
                }
                '{' if self.brace_expands() => {
                    self.word().pieces.push(Piece::Dynamic);
                    self.pos += 1;
                }
                '~' if self.word.is_none()
                    && self
                        .peek(1)
                        .is_none_or(|c| c == '/' || c.is_whitespace() || ";|&)".contains(c)) =>
                {
                    self.word().pieces.push(Piece::Var("HOME".into()));
                    self.pos += 1;
                }
                other => {
                    self.word().push_char(other);
                    self.pos += 1;
                }
            }
        }
        self.end_command();
    }

    /// A redirection operator starting with `c` (`>` or `<`), after an optional fd number.
    fn redirect(&mut self, c: char) {
        // `2>file`: the digits just read were the fd, not a word.
        if let Some(word) = &self.word {
            let fd = word
                .literal()
                .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()));
            if fd {
                self.word = None;
            }
        }
        self.end_word();
        self.pos += 1;
        let next = self.peek(0);
        let pending = match (c, next) {
            ('>', Some('>' | '|')) => {
                self.pos += 1;
                Pending::Target(true)
            }
            ('>', Some('&')) => {
                self.pos += 1;
                Pending::Target(true)
            }
            ('>', _) => Pending::Target(true),
            ('<', Some('<')) => {
                self.pos += 1;
                match self.peek(0) {
                    Some('<') => {
                        self.pos += 1;
                        Pending::HereString
                    }
                    Some('-') => {
                        self.pos += 1;
                        Pending::HereDoc(true)
                    }
                    _ => Pending::HereDoc(false),
                }
            }
            ('<', Some('>')) => {
                self.pos += 1;
                Pending::Target(true)
            }
            ('<', Some('&')) => {
                self.pos += 1;
                Pending::Target(false)
            }
            _ => Pending::Target(false),
        };
        self.pending = Some(pending);
    }

    /// True when the `{` here opens a brace expansion (`{a,b}`, `{1..3}`) within this word.
    fn brace_expands(&self) -> bool {
        let rest = &self.chars[self.pos + 1..];
        let end = rest
            .iter()
            .position(|c| c.is_whitespace() || ";|&<>()".contains(*c))
            .unwrap_or(rest.len());
        let word: String = rest[..end].iter().collect();
        word.find('}')
            .is_some_and(|close| word[..close].contains(',') || word[..close].contains(".."))
    }

    /// After a newline: the bodies of pending here-documents are text, not commands.
    fn skip_heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            while self.pos < self.chars.len() {
                let end = self.chars[self.pos..]
                    .iter()
                    .position(|c| *c == '\n')
                    .map_or(self.chars.len(), |n| self.pos + n);
                let line: String = self.chars[self.pos..end].iter().collect();
                self.pos = (end + 1).min(self.chars.len());
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == delimiter {
                    break;
                }
            }
        }
    }

    fn end_word(&mut self) {
        let Some(word) = self.word.take() else {
            return;
        };
        match self.pending.take() {
            Some(Pending::Target(writes)) => self.command.redirects.push(Redirect {
                writes,
                target: word,
            }),
            Some(Pending::HereDoc(strip_tabs)) => {
                self.heredocs.push((word.known_text(), strip_tabs));
            }
            Some(Pending::HereString) => {}
            None => self.command.words.push(word),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.pending = None;
        let command = std::mem::take(&mut self.command);
        if !command.words.is_empty() || !command.redirects.is_empty() {
            self.out.commands.push(command);
        }
    }
}

#[cfg(test)]
#[path = "bash_words_tests.rs"]
mod tests;
