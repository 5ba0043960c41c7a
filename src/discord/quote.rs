//! Quoting the message a user replied to (SPEC §5): its content, or its first embed's title,
//! description and fields, cut at 500 characters plus "...", each line behind `> `.

use serenity::all::{Message, UserId};

/// Quoted text longer than this is cut.
const MAX_QUOTE_CHARS: usize = 500;

/// The quotable text of a message, before quoting.
fn quotable(msg: &Message) -> Option<String> {
    if !msg.content.is_empty() {
        return Some(msg.content.clone());
    }
    let embed = msg.embeds.first()?;
    let mut parts = Vec::new();
    if let Some(t) = embed.title.as_deref().filter(|t| !t.is_empty()) {
        parts.push(format!("**{t}**"));
    }
    if let Some(d) = embed.description.as_deref().filter(|d| !d.is_empty()) {
        parts.push(d.to_owned());
    }
    for f in &embed.fields {
        parts.push(format!("**{}**: {}", f.name, f.value));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// Whether `msg` is the bot's (`bot`) and carries a fork's marks: a `[bg] ` ping, or an embed
/// footed `bg` or `fork`. For a reply whose fork record is gone: it cannot resume, and the owner
/// is told so rather than left to guess.
pub fn sent_by_a_fork(msg: &Message, bot: UserId) -> bool {
    if msg.author.id != bot {
        return false;
    }
    msg.content.starts_with("[bg] ")
        || msg.embeds.iter().any(|e| {
            e.footer
                .as_ref()
                .is_some_and(|f| f.text == "bg" || f.text == "fork")
        })
}

/// `text` as a quote block, cut to [`MAX_QUOTE_CHARS`].
pub fn quote_text(text: &str) -> String {
    let cut: String = text.chars().take(MAX_QUOTE_CHARS).collect();
    let text = if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        cut
    };
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The user's message with the replied-to message quoted above it.
pub fn with_quote(replied: &Message, content: &str) -> String {
    match quotable(replied) {
        Some(q) => format!("{}\n\n{content}", quote_text(&q)),
        None => content.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_500_chars_and_every_line_quoted() {
        let text = format!("first\n{}", "x".repeat(600));
        let q = quote_text(&text);
        let lines: Vec<_> = q.lines().collect();
        assert_eq!(lines[0], "> first");
        assert!(lines[1].starts_with("> xxx"));
        assert!(q.ends_with("..."));
        assert_eq!(
            q.chars().filter(|c| *c == 'x').count(),
            500 - "first\n".len()
        );
    }

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(quote_text("call mom"), "> call mom");
    }
}
