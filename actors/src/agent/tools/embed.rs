//! The rich message `discord_embed` sends (SPEC §10): its colours (Discord's integer values),
//! fields, buttons and footer, the clean-up the original applied to what the model writes
//! (emoji stripped from the title, literal `\n` turned into newlines), and a plain-text rendering
//! for the console surface.
//!
//! The emoji rule, the same everywhere *(ours: the original stripped the title only)*: headings
//! carry none — the title and every field name — while body text (the description, field
//! values, a fork's topic line) keeps what the model wrote. The bot's own embeds ("Forked
//! Session", "Fork Ended — …") have fixed headings without emoji.

use std::fmt::Write as _;

pub use super::button::Button;

/// Discord's limit on an embed title.
pub const MAX_TITLE_CHARS: usize = 256;
/// Discord's limit on an embed description.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// Discord's limit on the number of fields.
pub const MAX_FIELDS: usize = 25;
/// Discord's limit on a field name.
pub const MAX_FIELD_NAME_CHARS: usize = 256;
/// Discord's limit on a field value.
pub const MAX_FIELD_VALUE_CHARS: usize = 1024;
/// Discord's limit on all of an embed's text together.
pub const MAX_TOTAL_CHARS: usize = 6000;
/// The most buttons the agent may put under one embed (SPEC §10).
pub const MAX_BUTTONS: usize = 5;

/// The colours the agent may pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmbedColor {
    /// Information (the default).
    #[default]
    Blue,
    /// Success.
    Green,
    /// Urgent.
    Red,
    /// Warning.
    Yellow,
    /// Forks and other session matters.
    Purple,
}

impl EmbedColor {
    /// Every colour, in the order the tool schema lists them.
    pub const ALL: [EmbedColor; 5] = [
        EmbedColor::Blue,
        EmbedColor::Green,
        EmbedColor::Red,
        EmbedColor::Yellow,
        EmbedColor::Purple,
    ];

    /// The agent-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedColor::Blue => "blue",
            EmbedColor::Green => "green",
            EmbedColor::Red => "red",
            EmbedColor::Yellow => "yellow",
            EmbedColor::Purple => "purple",
        }
    }

    /// Reads the agent-facing name; `None` for anything else.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|color| color.as_str() == name)
    }

    /// The RGB value Discord takes, the same as the original's discord.py colours.
    pub fn rgb(self) -> u32 {
        match self {
            EmbedColor::Blue => 0x3498DB,
            EmbedColor::Green => 0x2ECC71,
            EmbedColor::Red => 0xE74C3C,
            EmbedColor::Yellow => 0xFEE75C,
            EmbedColor::Purple => 0x9B59B6,
        }
    }
}

/// One name/value pair in an embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedField {
    /// The field's heading.
    pub name: String,
    /// Its text.
    pub value: String,
    /// Whether Discord may put it beside its neighbours (default true, as in the original).
    pub inline: bool,
}

/// A rich message with optional buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embed {
    /// The heading, without emoji.
    pub title: String,
    /// The body text, if any.
    pub description: Option<String>,
    /// The stripe colour.
    pub color: EmbedColor,
    /// Name/value pairs.
    pub fields: Vec<EmbedField>,
    /// Action buttons, at most [`MAX_BUTTONS`].
    pub buttons: Vec<Button>,
    /// `bg` from a background fork, `fork` from an interactive fork, none from the main session.
    pub footer: Option<String>,
}

impl Embed {
    /// Applies the clean-up to what the model wrote: emoji leave the headings (the title and
    /// the field names), and literal backslash-n sequences in the description and field values
    /// become newlines.
    pub fn cleaned(mut self) -> Self {
        self.title = strip_emoji(&self.title);
        self.description = self
            .description
            .map(|text| unescape_newlines(&text))
            .filter(|text| !text.is_empty());
        for field in &mut self.fields {
            field.name = strip_emoji(&field.name);
            field.value = unescape_newlines(&field.value);
        }
        self
    }

    /// The characters Discord counts against [`MAX_TOTAL_CHARS`].
    pub fn text_chars(&self) -> usize {
        let fields: usize = self
            .fields
            .iter()
            .map(|field| field.name.chars().count() + field.value.chars().count())
            .sum();
        self.title.chars().count()
            + self.description.as_deref().map_or(0, |d| d.chars().count())
            + self.footer.as_deref().map_or(0, |f| f.chars().count())
            + fields
    }

    /// The embed as terminal text: the title, the description, each field as `name: value`,
    /// the buttons numbered `[1] Label`, and the footer in parentheses.
    pub fn to_plain_text(&self) -> String {
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(&self.title);
            out.push('\n');
        }
        if let Some(description) = &self.description {
            out.push_str(description);
            out.push('\n');
        }
        for field in &self.fields {
            let _ = writeln!(out, "{}: {}", field.name, field.value);
        }
        if !self.buttons.is_empty() {
            let labels: Vec<String> = self
                .buttons
                .iter()
                .enumerate()
                .map(|(i, button)| format!("[{}] {}", i + 1, button.label))
                .collect();
            out.push_str(&labels.join("  "));
            out.push('\n');
        }
        if let Some(footer) = &self.footer {
            let _ = writeln!(out, "({footer})");
        }
        out.truncate(out.trim_end().len());
        out
    }
}

/// True for emoji: the ranges the original stripped — pictographs (U+1F300–U+1FAFF),
/// miscellaneous symbols and dingbats (U+2600–U+27BF), media symbols (U+23E9–U+23FA), the emoji
/// variation selector and the zero-width joiner — and *(ours)* the emoji it let through: ⭐ ⭕
/// ⬛ ⬜ ⬅ ⬆ ⬇, ⌚ ⌛ ⌨ ⏏, ‼ ⁉ ℹ Ⓜ, ▪ ▫ ▶ ◀ ◻ ◼ ◽ ◾, ⤴ ⤵, 〰 〽 ㊗ ㊙, mahjong and card
/// tiles, the enclosed letters and flags (U+1F000–U+1F2FF) and the keycap mark. Arrows and
/// other symbols used as text (→, ©) stay.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}'
        | '\u{2600}'..='\u{27BF}'
        | '\u{23E9}'..='\u{23FA}'
        | '\u{231A}'..='\u{231B}'
        | '\u{2328}'
        | '\u{23CF}'
        | '\u{203C}'
        | '\u{2049}'
        | '\u{2139}'
        | '\u{24C2}'
        | '\u{25AA}'..='\u{25AB}'
        | '\u{25B6}'
        | '\u{25C0}'
        | '\u{25FB}'..='\u{25FE}'
        | '\u{2934}'..='\u{2935}'
        | '\u{2B05}'..='\u{2B07}'
        | '\u{2B1B}'..='\u{2B1C}'
        | '\u{2B50}'
        | '\u{2B55}'
        | '\u{3030}'
        | '\u{303D}'
        | '\u{3297}'
        | '\u{3299}'
        | '\u{20E3}'
        | '\u{FE0F}'
        | '\u{200D}')
}

/// Removes emoji (and the spaces after them) and trims the result.
pub fn strip_emoji(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_emoji = false;
    for c in text.chars() {
        if is_emoji(c) {
            after_emoji = true;
        } else if after_emoji && c.is_whitespace() {
            continue;
        } else {
            after_emoji = false;
            out.push(c);
        }
    }
    out.trim().to_owned()
}

/// Turns literal backslash-n sequences (models sometimes escape newlines twice) into newlines.
pub fn unescape_newlines(text: &str) -> String {
    text.replace("\\n", "\n")
}

#[cfg(test)]
mod tests {
    use super::super::button::{ButtonAction, ButtonStyle};
    use super::*;

    fn embed(title: &str) -> Embed {
        Embed {
            title: title.into(),
            description: None,
            color: EmbedColor::Blue,
            fields: Vec::new(),
            buttons: Vec::new(),
            footer: None,
        }
    }

    #[test]
    fn emoji_and_their_trailing_space_leave_titles() {
        assert_eq!(strip_emoji("🎉 Party time"), "Party time");
        assert_eq!(strip_emoji("Tasks ✅ done"), "Tasks done");
        assert_eq!(strip_emoji("⏰Alarm ⚠️"), "Alarm");
        assert_eq!(strip_emoji("👩‍💻 Focus"), "Focus");
        assert_eq!(strip_emoji("Plain: 3 items"), "Plain: 3 items");
        assert_eq!(strip_emoji("⭐ Starred ⬛"), "Starred");
        assert_eq!(strip_emoji("🇫🇷 Trip"), "Trip");
        assert_eq!(strip_emoji("A → B ©"), "A → B ©");
    }

    #[test]
    fn literal_backslash_n_becomes_a_newline() {
        assert_eq!(unescape_newlines("a\\nb\\n\\nc"), "a\nb\n\nc");
        assert_eq!(unescape_newlines("real\nnewline"), "real\nnewline");
    }

    #[test]
    fn headings_lose_their_emoji_and_body_text_keeps_it() {
        let raw = Embed {
            description: Some("line1\\nline2 🎉".into()),
            fields: vec![EmbedField {
                name: "⏰ Due\\n".into(),
                value: "today\\ntomorrow ✅".into(),
                inline: true,
            }],
            ..embed("📋 Tasks")
        };
        let clean = raw.cleaned();
        assert_eq!(clean.title, "Tasks");
        assert_eq!(clean.description.as_deref(), Some("line1\nline2 🎉"));
        assert_eq!(clean.fields[0].name, "Due\\n");
        assert_eq!(clean.fields[0].value, "today\ntomorrow ✅");
    }

    #[test]
    fn an_empty_description_is_dropped() {
        let clean = Embed {
            description: Some(String::new()),
            ..embed("x")
        }
        .cleaned();
        assert_eq!(clean.description, None);
    }

    #[test]
    fn colours_map_to_discord_values_and_names_round_trip() {
        assert_eq!(EmbedColor::Blue.rgb(), 0x3498DB);
        assert_eq!(EmbedColor::Green.rgb(), 0x2ECC71);
        assert_eq!(EmbedColor::Red.rgb(), 0xE74C3C);
        assert_eq!(EmbedColor::Yellow.rgb(), 0xFEE75C);
        assert_eq!(EmbedColor::Purple.rgb(), 0x9B59B6);
        for color in EmbedColor::ALL {
            assert_eq!(EmbedColor::parse(color.as_str()), Some(color));
        }
        assert_eq!(EmbedColor::parse("orange"), None);
        assert_eq!(EmbedColor::default(), EmbedColor::Blue);
    }

    #[test]
    fn plain_text_lists_fields_buttons_and_footer() {
        let rich = Embed {
            description: Some("Two things left".into()),
            fields: vec![
                EmbedField {
                    name: "Laundry".into(),
                    value: "due 5 PM".into(),
                    inline: true,
                },
                EmbedField {
                    name: "Email".into(),
                    value: "reply to Sam".into(),
                    inline: false,
                },
            ],
            buttons: vec![
                Button {
                    label: "Done".into(),
                    style: ButtonStyle::Success,
                    action: ButtonAction::TaskDone("t1".into()),
                },
                Button {
                    label: "Close".into(),
                    style: ButtonStyle::Secondary,
                    action: ButtonAction::Dismiss,
                },
            ],
            footer: Some("bg".into()),
            ..embed("Today")
        };
        assert_eq!(
            rich.to_plain_text(),
            "Today\nTwo things left\nLaundry: due 5 PM\nEmail: reply to Sam\n[1] Done  [2] Close\n(bg)"
        );
        assert_eq!(embed("Just a title").to_plain_text(), "Just a title");
    }

    #[test]
    fn text_chars_counts_every_text_part() {
        let counted = Embed {
            description: Some("12345".into()),
            fields: vec![EmbedField {
                name: "ab".into(),
                value: "cde".into(),
                inline: true,
            }],
            footer: Some("bg".into()),
            ..embed("é")
        };
        assert_eq!(counted.text_chars(), 1 + 5 + 2 + 3 + 2);
    }
}
