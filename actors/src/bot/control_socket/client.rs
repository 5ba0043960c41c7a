//! The command's side: one request, one answer.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::{ChatEvent, ChatLine, Request, Response};

/// How long a command waits for the bot's answer (a background job is prepared first).
const ANSWER_WAIT: Duration = Duration::from_secs(120);

/// Why a command got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nothing listens on the socket: no bot runs on this data directory.
    #[error("no ollim-bot is running on {dir} (start it with `ollim-bot`, then try again)")]
    NoBot {
        /// The data directory.
        dir: String,
    },
    /// The socket's path is longer than the system allows.
    #[error("the control socket's path is too long for this system: {0}")]
    PathTooLong(String),
    /// The conversation with the bot failed.
    #[error("talking to the running bot: {0}")]
    Io(#[from] std::io::Error),
    /// The bot answered something unreadable.
    #[error("the running bot's answer did not read: {0}")]
    Answer(#[from] serde_json::Error),
}

/// How long a chat turn may go without a word from the bot (the conversation's own hang limit
/// is shorter by default).
const CHAT_SILENCE: Duration = Duration::from_secs(30 * 60);

/// Sends `request` to the bot listening on `socket` (in data directory `dir`) and returns its
/// answer.
pub fn request(socket: &Path, dir: &Path, request: &Request) -> Result<Response, ClientError> {
    let no_bot = || ClientError::NoBot {
        dir: dir.display().to_string(),
    };
    let stream = connect(socket, dir)?;
    stream.set_read_timeout(Some(ANSWER_WAIT))?;
    send(&stream, request)?;
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer)?;
    if answer.trim().is_empty() {
        // The bot went away mid-request (it was stopping).
        return Err(no_bot());
    }
    Ok(serde_json::from_str(answer.trim())?)
}

/// Says `text` in the running bot's conversation, handing each event of the turn to `shown` as
/// it arrives; returns the bot's closing word.
pub fn chat(
    socket: &Path,
    dir: &Path,
    text: &str,
    mut shown: impl FnMut(ChatEvent),
) -> Result<Response, ClientError> {
    let stream = connect(socket, dir)?;
    stream.set_read_timeout(Some(CHAT_SILENCE))?;
    send(&stream, &Request::Chat(text.to_owned()))?;
    let mut reader = BufReader::new(&stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            // The bot stopped mid-turn.
            return Err(ClientError::NoBot {
                dir: dir.display().to_string(),
            });
        }
        match serde_json::from_str::<ChatLine>(line.trim())? {
            ChatLine::Event(ev) => shown(ev),
            ChatLine::Done(response) => return Ok(response),
        }
    }
}

fn send(mut stream: &UnixStream, request: &Request) -> Result<(), ClientError> {
    let mut line = serde_json::to_vec(request)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    Ok(())
}

/// Connects to the bot's socket; [`ClientError::NoBot`] when nothing listens there.
pub fn connect(socket: &Path, dir: &Path) -> Result<UnixStream, ClientError> {
    let no_bot = || ClientError::NoBot {
        dir: dir.display().to_string(),
    };
    if socket.as_os_str().len() >= 108 {
        return Err(ClientError::PathTooLong(socket.display().to_string()));
    }
    match UnixStream::connect(socket) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            Err(no_bot())
        }
        Err(e) => Err(e.into()),
        Ok(s) => Ok(s),
    }
}
