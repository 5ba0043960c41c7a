//! The command's side: one request, one answer.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::{Request, Response};

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

/// Sends `request` to the bot listening on `socket` (in data directory `dir`) and returns its
/// answer.
pub fn request(socket: &Path, dir: &Path, request: &Request) -> Result<Response, ClientError> {
    let no_bot = || ClientError::NoBot {
        dir: dir.display().to_string(),
    };
    if socket.as_os_str().len() >= 108 {
        return Err(ClientError::PathTooLong(socket.display().to_string()));
    }
    let mut stream = match UnixStream::connect(socket) {
        Ok(s) => s,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Err(no_bot())
        }
        Err(e) => return Err(e.into()),
    };
    stream.set_read_timeout(Some(ANSWER_WAIT))?;
    let mut line = serde_json::to_vec(request)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer)?;
    if answer.trim().is_empty() {
        // The bot went away mid-request (it was stopping).
        return Err(no_bot());
    }
    Ok(serde_json::from_str(answer.trim())?)
}
