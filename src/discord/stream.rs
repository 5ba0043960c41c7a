//! The text of one streamed answer and how it maps onto Discord messages (SPEC §12): messages hold
//! at most 2,000 characters; a long answer is cut preferring a newline, then a space, within the
//! last 200 characters of the window, else at the hard limit. Pure bookkeeping: the outbox
//! decides when to flush and performs the calls.

/// Discord's limit on a message's content, in characters.
pub const MAX_MESSAGE_CHARS: usize = 2000;
/// How far back from the limit a natural break (newline, space) is accepted.
const BREAK_WINDOW: usize = 200;

/// Where a piece of text goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Edit the message the stream is currently writing into.
    Current,
    /// Create a new message (it becomes the current one).
    New,
}

/// One create or edit a flush asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Create or edit.
    pub target: Target,
    /// The whole content the message should have.
    pub text: String,
}

/// One answer's text and the message it is being written into.
#[derive(Debug, Default)]
pub struct Stream {
    buf: String,
    /// Byte offset in `buf` where the current message's text begins.
    msg_start: usize,
    /// A message holds the text from `msg_start` (so the next flush edits it).
    has_current: bool,
    /// Text arrived since the last flush.
    stale: bool,
}

impl Stream {
    /// Appends answer text.
    pub fn push(&mut self, text: &str) {
        if !text.is_empty() {
            self.buf.push_str(text);
            self.stale = true;
        }
    }

    /// Whether any text arrived for this answer.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Whether text is waiting to be shown.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// A message already shows the start of the current part (a promoted status line counts).
    pub fn adopt_current(&mut self) {
        self.has_current = true;
    }

    /// The creates and edits that bring Discord up to date, in order; afterwards the last piece's
    /// message is the current one.
    pub fn flush(&mut self) -> Vec<Piece> {
        if !self.stale {
            return Vec::new();
        }
        self.stale = false;
        let mut pieces = Vec::new();
        loop {
            let rest = &self.buf[self.msg_start..];
            if rest.is_empty() {
                break;
            }
            let target = if self.has_current {
                Target::Current
            } else {
                Target::New
            };
            let cut = split_point(rest);
            pieces.push(Piece {
                target,
                text: rest[..cut].to_owned(),
            });
            self.has_current = true;
            if cut == rest.len() {
                break;
            }
            // The part is full: the rest starts a new message.
            self.msg_start += cut;
            self.has_current = false;
        }
        pieces
    }
}

/// The byte length of the first message's worth of `text`: all of it when it fits, else up to and
/// including the last newline (or else space) in the window's last 200 characters, else exactly
/// the limit.
pub fn split_point(text: &str) -> usize {
    let Some((limit, _)) = text.char_indices().nth(MAX_MESSAGE_CHARS) else {
        return text.len();
    };
    let threshold = text
        .char_indices()
        .nth(MAX_MESSAGE_CHARS - BREAK_WINDOW)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let window = &text[..limit];
    for sep in ['\n', ' '] {
        if let Some(at) = window.rfind(sep) {
            if at >= threshold {
                return at + 1;
            }
        }
    }
    limit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(pieces: &[Piece]) -> Vec<usize> {
        pieces.iter().map(|p| p.text.chars().count()).collect()
    }

    #[test]
    fn short_text_is_created_then_edited_in_place() {
        let mut s = Stream::default();
        s.push("hello");
        assert_eq!(
            s.flush(),
            vec![Piece {
                target: Target::New,
                text: "hello".into()
            }]
        );
        assert!(s.flush().is_empty(), "nothing new, nothing to do");
        s.push(" world");
        assert_eq!(
            s.flush(),
            vec![Piece {
                target: Target::Current,
                text: "hello world".into()
            }]
        );
    }

    #[test]
    fn long_text_splits_at_a_newline_in_the_last_200_chars() {
        let text = format!("{}\n{}", "a".repeat(1900), "b".repeat(500));
        assert_eq!(
            split_point(&text),
            1901,
            "the newline stays with the first part"
        );
        let mut s = Stream::default();
        s.push(&text);
        let pieces = s.flush();
        assert_eq!(texts(&pieces), vec![1901, 500]);
        assert_eq!(pieces[1].target, Target::New);
        assert!(pieces[0].text.ends_with('\n'));
    }

    #[test]
    fn a_space_is_used_when_no_newline_is_near_the_end() {
        let text = format!(
            "{}\n{} {}",
            "a".repeat(100),
            "b".repeat(1850),
            "c".repeat(300)
        );
        // The newline at 100 is too early; the space at 1951 is inside the window.
        assert_eq!(split_point(&text), 1952);
    }

    #[test]
    fn without_a_natural_break_the_cut_is_at_2000() {
        let text = "x".repeat(4500);
        let mut s = Stream::default();
        s.push(&text);
        assert_eq!(texts(&s.flush()), vec![2000, 2000, 500]);
    }

    #[test]
    fn splitting_counts_characters_not_bytes() {
        let text = "é".repeat(2100);
        assert_eq!(text[..split_point(&text)].chars().count(), 2000);
    }

    #[test]
    fn growing_past_the_limit_finishes_the_current_message_and_starts_another() {
        let mut s = Stream::default();
        s.push(&"a".repeat(1850));
        assert_eq!(s.flush()[0].target, Target::New);
        s.push(&format!(" {}", "b".repeat(1000)));
        let pieces = s.flush();
        assert_eq!(pieces[0].target, Target::Current);
        assert_eq!(texts(&pieces), vec![1851, 1000]);
        assert_eq!(pieces[1].target, Target::New);
        s.push("c");
        let next = s.flush();
        assert_eq!(next[0].target, Target::Current);
        assert_eq!(next[0].text, format!("{}c", "b".repeat(1000)));
    }
}
