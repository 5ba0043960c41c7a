//! Signing Claude Code in from the DM (SPEC §16): when the CLI is not signed in at start on
//! Discord, the bot runs the CLI's own login flow (`claude auth login`), DMs the owner "claude
//! login required — …" with the link it prints, passes what the owner writes back to the flow
//! (the code the sign-in page may show), relays what the flow answers, and carries on once
//! `claude auth status` says signed in. A flow that ends without signing in is offered again when
//! the owner writes. A sign-in lost while the bot runs goes through the same flow
//! ([`super::reauth`]).
//!
//! poise hands messages to the bot only after initialisation, so while signing in the owner's
//! DMs arrive through [`CodeRelay`], a plain serenity event handler. The messages it passed on are
//! remembered, so that poise, which sees them later, does not send them to the conversation.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context as _;
use ollim_actors::claude::brain::auth::{self, AuthState};
use serenity::all::{ChannelId, Context, EventHandler, Http, Message, MessageId, UserId};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// The start of the DM that asks for a sign-in.
pub const LOGIN_REQUIRED: &str = "claude login required";
/// How long the login flow may take to print its link.
const LINK_TIMEOUT: Duration = Duration::from_secs(60);
/// How many owner messages may wait for the flow.
pub const RELAY_DEPTH: usize = 16;

/// A message from the owner while the bot signs in.
#[derive(Debug, Clone)]
pub struct OwnerLine {
    /// Its id (poise must skip it later).
    pub id: MessageId,
    /// What it says.
    pub text: String,
}

/// Passes the owner's DMs to the sign-in while it runs; does nothing once it is over (its
/// receiver is gone).
pub struct CodeRelay {
    owner: UserId,
    tx: mpsc::Sender<OwnerLine>,
}

impl CodeRelay {
    /// A relay for `owner`'s messages, and where they come out.
    pub fn new(owner: UserId) -> (CodeRelay, mpsc::Receiver<OwnerLine>) {
        let (tx, rx) = mpsc::channel(RELAY_DEPTH);
        (CodeRelay { owner, tx }, rx)
    }
}

#[serenity::async_trait]
impl EventHandler for CodeRelay {
    async fn message(&self, _ctx: Context, msg: Message) {
        if msg.author.id != self.owner || msg.guild_id.is_some() || self.tx.is_closed() {
            return;
        }
        let line = OwnerLine {
            id: msg.id,
            text: msg.content.trim().to_owned(),
        };
        // Full (the owner wrote a lot at once) or closed (sign-in over): nothing to wait for.
        let _ = self.tx.try_send(line);
    }
}

/// Where the sign-in talks.
pub struct Dm<'a> {
    /// The REST client.
    pub http: &'a Http,
    /// The owner's DM channel.
    pub channel: ChannelId,
}

impl Dm<'_> {
    async fn say(&self, text: impl Into<String>) {
        if let Err(e) = self.channel.say(self.http, text.into()).await {
            tracing::warn!(cause = %e, "could not post in the DM during sign-in");
        }
    }
}

/// Signs the CLI at `binary` in through the owner; returns the ids of the messages it used (for
/// poise to skip) once `claude auth status` says signed in, after saying `done` in the DM.
pub async fn sign_in(
    binary: &Path,
    dm: &Dm<'_>,
    lines: &mut mpsc::Receiver<OwnerLine>,
    done: &str,
) -> anyhow::Result<HashSet<MessageId>> {
    let mut used = HashSet::new();
    loop {
        match attempt(binary, dm, lines, &mut used).await? {
            true => {
                dm.say(done).await;
                tracing::info!("claude is signed in");
                return Ok(used);
            }
            false => {
                dm.say("-# the sign-in did not complete — send any message for a new link.")
                    .await;
                let Some(line) = lines.recv().await else {
                    anyhow::bail!("the Discord connection went away during sign-in");
                };
                used.insert(line.id);
            }
        }
    }
}

/// One run of `claude auth login`; whether the CLI is signed in afterwards.
async fn attempt(
    binary: &Path,
    dm: &Dm<'_>,
    lines: &mut mpsc::Receiver<OwnerLine>,
    used: &mut HashSet<MessageId>,
) -> anyhow::Result<bool> {
    let mut child = Command::new(binary)
        .args(["auth", "login"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("running {} auth login", binary.display()))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        anyhow::bail!("claude auth login: no pipes");
    };
    // Both streams, line by line, into one channel.
    let (out_tx, mut out) = mpsc::unbounded_channel::<String>();
    for stream in [
        Box::new(stdout) as Box<dyn tokio::io::AsyncRead + Send + Unpin>,
        Box::new(stderr),
    ] {
        let tx = out_tx.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stream).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(out_tx);
    let url = match tokio::time::timeout(LINK_TIMEOUT, find_link(&mut out)).await {
        Ok(Some(url)) => url,
        Ok(None) | Err(_) => {
            let _ = child.kill().await;
            tracing::warn!("claude auth login printed no sign-in link");
            return Ok(false);
        }
    };
    tracing::info!("claude is not signed in; sent the owner the sign-in link");
    dm.say(format!(
        "{LOGIN_REQUIRED} — open this link and sign in to your Anthropic account:\n{url}\nIf the \
         page shows a code, send it to me here. I'll carry on once you're signed in."
    ))
    .await;
    let ended = converse(&mut child, stdin, &mut out, dm, lines, used).await;
    let ok = matches!(ended, Some(true));
    if !ok {
        tracing::warn!(status = ?ended, "claude auth login ended without signing in");
    }
    // The flow's word is not enough: ask the CLI the way the start did.
    let bin = PathBuf::from(binary);
    let state = tokio::task::spawn_blocking(move || auth::check(&bin))
        .await
        .unwrap_or_else(|e| AuthState::Unknown(e.to_string()));
    Ok(matches!(state, AuthState::LoggedIn { .. }))
}

/// Waits for the line with the link; `None` when the flow ends without one.
async fn find_link(out: &mut mpsc::UnboundedReceiver<String>) -> Option<String> {
    while let Some(line) = out.recv().await {
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("https://")) {
            return Some(url.to_owned());
        }
    }
    None
}

/// Relays the owner's lines to the flow and the flow's answers to the owner until it exits;
/// whether it exited successfully (`None` when it could not be waited for).
async fn converse(
    child: &mut Child,
    stdin: ChildStdin,
    out: &mut mpsc::UnboundedReceiver<String>,
    dm: &Dm<'_>,
    lines: &mut mpsc::Receiver<OwnerLine>,
    used: &mut HashSet<MessageId>,
) -> Option<bool> {
    let mut stdin = Some(stdin);
    let mut output_open = true;
    loop {
        tokio::select! {
            status = child.wait() => return status.ok().map(|s| s.success()),
            line = lines.recv() => {
                let line = line?;
                used.insert(line.id);
                if let Some(pipe) = stdin.as_mut() {
                    let sent = pipe.write_all(format!("{}\n", line.text).as_bytes()).await;
                    if sent.is_err() || pipe.flush().await.is_err() {
                        stdin = None;
                    }
                }
            }
            said = out.recv(), if output_open => match said {
                Some(text) => {
                    if let Some(answer) = worth_relaying(&text) {
                        dm.say(format!("-# {answer}")).await;
                    }
                }
                None => output_open = false,
            },
        }
    }
}

/// What of the flow's output the owner should read (its answers, not its prompts).
fn worth_relaying(line: &str) -> Option<String> {
    let text = line.replace("Paste code here if prompted >", "");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_not_relayed_but_answers_are() {
        assert_eq!(worth_relaying("Paste code here if prompted > "), None);
        assert_eq!(
            worth_relaying("Paste code here if prompted > Invalid code. Please try again."),
            Some("Invalid code. Please try again.".to_owned())
        );
        assert_eq!(
            worth_relaying("Login successful."),
            Some("Login successful.".to_owned())
        );
    }
}
