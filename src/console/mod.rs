//! The console surface: the terminal as the DM channel (SPEC §1, ours).
//!
//! Runs the same actors as the Discord surface. Lines typed (or piped) on stdin are read one
//! at a time; `/command` lines run commands; end of input or Ctrl-C shuts down cleanly.
//! Fired jobs are shown as they reach the surface. The conversation itself arrives with the
//! brain; until then a plain line is answered with a note saying so.

mod commands;

use std::io::Write;

use actix::prelude::*;
use anyhow::Context as _;
use ollim_actors::clock::SystemClock;
use ollim_actors::scheduler::FireJob;
use ollim_actors::settings::Settings;
use ollim_actors::supervisor::{GetHandles, Shutdown, Supervisor, SupervisorConfig};
use tokio::io::{AsyncBufReadExt, BufReader};

/// Shows what reaches the DM channel on stdout.
struct ConsoleOut;

impl Actor for ConsoleOut {
    type Context = Context<Self>;
}

impl Handler<FireJob> for ConsoleOut {
    type Result = ();
    fn handle(&mut self, msg: FireJob, _ctx: &mut Self::Context) {
        let first = msg.prompt.lines().next().unwrap_or_default();
        print_line(&format!("-# fired {first} ({})", msg.rel_path));
    }
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not an error worth dying for.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// Runs the bot on the console until end of input or a signal.
pub fn run(settings: Settings) -> anyhow::Result<()> {
    let system = actix::System::new();
    system.block_on(async move {
        let out = ConsoleOut.start();
        let supervisor = Supervisor::start(
            SupervisorConfig {
                data_dir: settings.data_dir.clone(),
                tz: settings.tz,
                clock: SystemClock::shared(),
                watch_jobs: true,
            },
            out.recipient(),
            None,
        );
        let handles = supervisor
            .send(GetHandles)
            .await
            .context("the supervisor did not answer")?;
        print_line(&format!(
            "ollim-bot console — {} here. /help lists commands; end input (Ctrl-D) to quit.",
            settings.bot_name
        ));
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        let reason = loop {
            tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => {
                        if let Some(reply) = commands::handle(line.trim(), &handles).await {
                            print_line(&reply);
                        }
                    }
                    Ok(None) => break "end of input".to_owned(),
                    Err(e) => break format!("reading input failed: {e}"),
                },
                _ = tokio::signal::ctrl_c() => break "interrupted".to_owned(),
            }
        };
        print_line(&format!("shutting down: {reason}"));
        supervisor.do_send(Shutdown { reason });
        anyhow::Ok(())
    })?;
    system.run().context("running the actor system")?;
    Ok(())
}
