//! `ollim-bot chat` (SPEC §17): a terminal conversation that shares the main session.
//!
//! When a bot runs on the data directory, each line goes to it over the control socket and is
//! said in its conversation (the same session, with its earlier turns); the answer streams
//! back. The running bot keeps its instance lock, its surface and its model. When none runs,
//! `chat` runs the conversation itself, as the console does (claiming the lock), shown the
//! `chat` way.

mod print;

pub use print::ChatPrinter;

use std::io::BufRead;

use ollim_actors::base::settings;
use ollim_actors::bot::control_socket::{self, ClientError};

/// Runs `ollim-bot chat` until end of input.
pub fn run(model: Option<String>) -> anyhow::Result<()> {
    let data = settings::data_dir_from(&|k: &str| std::env::var(k).ok());
    let socket = data.state_file(control_socket::FILE_NAME);
    match control_socket::connect(&socket, data.root()) {
        Ok(probe) => {
            drop(probe);
            if model.is_some() {
                eprintln!(
                    "note: a bot is running on {}; chat talks to its conversation, which keeps \
                     its own model (--model applies when no bot runs; /model changes the bot's)",
                    data.root().display()
                );
            }
            with_running_bot(&socket, data.root())
        }
        Err(ClientError::NoBot { .. }) => crate::startup::run_chat_alone(model),
        Err(e) => Err(e.into()),
    }
}

/// Says each line typed in the running bot's conversation and prints the answer.
fn with_running_bot(socket: &std::path::Path, dir: &std::path::Path) -> anyhow::Result<()> {
    let mut printer = ChatPrinter::default();
    printer.show(control_socket::ChatEvent::Notice(format!(
        "-# talking to the bot running on {} (Ctrl-D to leave)",
        dir.display()
    )));
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        printer.prompt();
        let Some(line) = lines.next() else {
            println!();
            return Ok(());
        };
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let done = control_socket::chat(socket, dir, line, |ev| printer.show(ev))?;
        if !done.ok {
            printer.show(control_socket::ChatEvent::Notice(format!(
                "error: {}",
                done.message
            )));
        }
    }
}
