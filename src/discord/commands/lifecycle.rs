//! `/restart`, `/update` and `/google-auth` (SPEC §12, §15). `/restart` runs the binary again;
//! `/update` pulls the project's git checkout fast-forward only, rebuilds it and restarts,
//! refusing while an answer is being written; `/google-auth` starts connecting Google (the
//! Google account actor answers; the flow's end arrives in the DM).

use std::path::{Path, PathBuf};

use ollim_actors::google::account::StartConsent;
use ollim_actors::main_session::IsBusy;
use tokio::process::Command;

use super::super::data::Leave;
use super::{answer, Ctx, Error};

/// Restart the bot.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn restart(ctx: Ctx<'_>) -> Result<(), Error> {
    answer(ctx, "restarting...").await?;
    let _ = ctx
        .data()
        .leave
        .send(Leave::Restart("restart requested".into()));
    Ok(())
}

/// Connect Google (Tasks, Calendar, Gmail).
#[poise::command(slash_command, rename = "google-auth", check = "super::authorized")]
pub async fn google_auth(ctx: Ctx<'_>) -> Result<(), Error> {
    let Some(google) = ctx.data().handles.google.clone() else {
        return answer(ctx, "google is not available in this run.").await;
    };
    let reply = google.send(StartConsent).await?;
    answer(ctx, reply.to_string()).await
}

/// Pull the latest version, rebuild, and restart.
#[poise::command(slash_command, check = "super::authorized")]
pub async fn update(ctx: Ctx<'_>) -> Result<(), Error> {
    ctx.defer().await?;
    match ctx.data().main.send(IsBusy).await {
        Ok(false) => {}
        Ok(true) => {
            return answer(ctx, "busy answering — try /update again once it's done.").await;
        }
        Err(e) => {
            tracing::error!(cause = %e, "the conversation has stopped");
            return answer(ctx, "the conversation is not running — try /restart.").await;
        }
    }
    let Some(dir) = project_dir() else {
        return answer(
            ctx,
            "can't find the project's git checkout; set OLLIM_PROJECT_DIR to it.",
        )
        .await;
    };
    let before = run_in(&dir, "git", &["rev-parse", "--short", "HEAD"]).await;
    if let Err(e) = run_in(&dir, "git", &["pull", "--ff-only"]).await {
        return answer(ctx, format!("update failed at git pull:\n```\n{e}\n```")).await;
    }
    let after = run_in(&dir, "git", &["rev-parse", "--short", "HEAD"]).await;
    if before.is_ok() && before == after {
        return answer(ctx, "already up to date.").await;
    }
    answer(ctx, "pulled; rebuilding (this takes a few minutes)...").await?;
    if let Err(e) = run_in(&dir, "cargo", &["build", "--release", "--bin", "ollim-bot"]).await {
        let tail: String = tail_lines(&e, 15);
        return answer(
            ctx,
            format!("update failed at the build:\n```\n{tail}\n```"),
        )
        .await;
    }
    let version = after.unwrap_or_default();
    answer(ctx, format!("updated to {}; restarting...", version.trim())).await?;
    let _ = ctx
        .data()
        .leave
        .send(Leave::Restart("update installed".into()));
    Ok(())
}

/// The git checkout the running binary was built from: `OLLIM_PROJECT_DIR`, else the nearest
/// ancestor of the executable holding both `Cargo.toml` and `.git`.
fn project_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("OLLIM_PROJECT_DIR") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .find(|d| d.join("Cargo.toml").is_file() && d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Runs a program in `dir`; its stdout on success, its output on failure.
async fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .await
        .map_err(|e| format!("could not run {program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
