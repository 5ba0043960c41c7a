//! The parts of a Bash word that the shell reads specially (for [`super::bash_words`]): text
//! in double quotes, `$NAME`, `${…}`, `$'…'`, and the bodies of `$(…)`, `<(…)` and `` `…` ``,
//! kept whole to be judged as command lines of their own.

use super::bash_words::{Parser, Piece};

impl Parser {
    /// Inside `"…"`: escapes, variables and substitutions are live, everything else is text.
    pub(super) fn double_quoted(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => {
                    match self.peek(1) {
                        Some(n @ ('"' | '\\' | '$' | '`')) => self.word().push_char(n),
                        Some('\n') => {}
                        Some(n) => {
                            self.word().push_char('\\');
                            self.word().push_char(n);
                        }
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
                other => {
                    self.word().push_char(other);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$…` at the current position.
    pub(super) fn dollar(&mut self) {
        match self.peek(1) {
            Some('(') => {
                self.pos += 2;
                let inner = self.until_closing_paren();
                self.out.nested.push(inner);
                self.word().pieces.push(Piece::Dynamic);
            }
            Some('{') => {
                self.pos += 2;
                let mut inner = String::new();
                let mut depth = 1;
                while let Some(c) = self.peek(0) {
                    self.pos += 1;
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    inner.push(c);
                }
                let name_len = inner
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(inner.len());
                if name_len == inner.len() && name_len > 0 {
                    self.word().pieces.push(Piece::Var(inner));
                } else {
                    // `${x:-default}` and friends: the default may run substitutions.
                    self.out.nested.push(inner[name_len..].to_owned());
                    self.word().pieces.push(Piece::Dynamic);
                }
            }
            Some('\'') => {
                // `$'…'`: escapes decide the text; treat it as unknown.
                self.pos += 2;
                while let Some(c) = self.peek(0) {
                    self.pos += 1;
                    if c == '\\' {
                        self.pos += 1;
                    } else if c == '\'' {
                        break;
                    }
                }
                self.word().pieces.push(Piece::Dynamic);
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                let mut name = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    name.push(c);
                    self.pos += 1;
                }
                self.word().pieces.push(Piece::Var(name));
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                self.word().pieces.push(Piece::Var(c.to_string()));
            }
            _ => {
                self.word().push_char('$');
                self.pos += 1;
            }
        }
    }

    /// The text up to the `)` that closes an already opened `(`, quotes and nesting respected.
    pub(super) fn until_closing_paren(&mut self) -> String {
        let start = self.pos;
        let mut depth = 1;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"') | None, '\\') => self.pos += 1,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth -= 1;
                    if depth == 0 {
                        return self.chars[start..self.pos - 1].iter().collect();
                    }
                }
                _ => {}
            }
        }
        self.chars[start..self.pos.min(self.chars.len())]
            .iter()
            .collect()
    }

    /// The text up to the closing backtick, with `` \` `` unescaped.
    pub(super) fn until_backtick(&mut self) -> String {
        let mut inner = String::new();
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '`' => break,
                '\\' if self
                    .peek(0)
                    .is_some_and(|n| n == '`' || n == '\\' || n == '$') =>
                {
                    inner.push(self.chars[self.pos]);
                    self.pos += 1;
                }
                other => inner.push(other),
            }
        }
        inner
    }
}
