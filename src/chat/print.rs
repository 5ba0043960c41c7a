//! How `ollim-bot chat` prints a conversation: the answer streams as it is written, tool
//! activity as dim `[tool] <label>` lines, embeds as `[embed] <title>`, the bot's own lines as
//! they are; `you> ` asks for the next line.

use std::io::{IsTerminal, Write};

use ollim_actors::agent::permissions::denied_line;
use ollim_actors::bot::control_socket::ChatEvent;

/// The prompt before each line the user types.
pub const PROMPT: &str = "you> ";

/// Prints chat events to stdout, keeping track of a line left open by streamed text.
#[derive(Debug, Default)]
pub struct ChatPrinter {
    /// Text has been printed without its final newline.
    mid_line: bool,
    /// Something of the current answer has streamed.
    streamed: bool,
}

fn write(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not worth dying for.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// `text` dimmed when stdout is a terminal.
fn dim(text: &str) -> String {
    if std::io::stdout().is_terminal() {
        format!("\x1b[2m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

impl ChatPrinter {
    fn own_line(&mut self, text: &str) {
        if self.mid_line {
            write("\n");
            self.mid_line = false;
        }
        write(&format!("{text}\n"));
    }

    /// Prints the `you> ` prompt on a line of its own.
    pub fn prompt(&mut self) {
        if self.mid_line {
            write("\n");
            self.mid_line = false;
        }
        write(PROMPT);
    }

    /// Prints one event.
    pub fn show(&mut self, ev: ChatEvent) {
        match ev {
            ChatEvent::Text(t) => {
                write(&t);
                self.streamed = true;
                self.mid_line = !t.ends_with('\n');
            }
            ChatEvent::Reply(text) => {
                if !self.streamed {
                    self.own_line(&text);
                } else if self.mid_line {
                    write("\n");
                }
                self.mid_line = false;
                self.streamed = false;
            }
            ChatEvent::Tool(label) => self.own_line(&dim(&format!("[tool] {label}"))),
            ChatEvent::Denied { label, reason } => {
                self.own_line(&dim(&format!("[tool] {}", denied_line(&label, &reason))))
            }
            ChatEvent::Embed(title) => self.own_line(&format!("[embed] {title}")),
            ChatEvent::Notice(text) => self.own_line(&text),
        }
    }
}
