//! ollim-bot: parse the command line, set up logging, and run the bot or a subcommand.
//!
//! Errors reach here with context; they are printed once, as a chain, to stderr, and the
//! process exits 1.

mod cli;
mod console;
mod discord;
mod logging;
mod own_path;
mod single_instance;
mod startup;

use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Command};
use ollim_actors::settings;

fn main() -> ExitCode {
    // Before anything could start a thread: this changes the environment children inherit.
    own_path::put_own_dir_first();
    // A missing .env is normal; a broken one is worth a word but not a stop.
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            eprintln!("warning: .env could not be read: {e}");
        }
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let bot_run = matches!(cli.command, None | Some(Command::Console));
    logging::init(
        logging::LogFormat::choose(cli.log_json),
        if bot_run { "info" } else { "warn" },
    );
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn env_lookup(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

fn google_from_env() -> anyhow::Result<cli::google::Google> {
    cli::google::Google::from_env(&env_lookup)
}

/// Runs the command; its exit code is success unless the command has one of its own to pass on.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let done = |result: anyhow::Result<()>| result.map(|()| ExitCode::SUCCESS);
    match cli.command {
        Some(Command::Help) => {
            use clap::CommandFactory;
            Cli::command().print_long_help()?;
            println!();
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Routine(cmd)) => {
            let data = settings::data_dir_from(&env_lookup);
            done(cli::routine::run(cmd, &data))
        }
        Some(Command::Reminder(cmd)) => {
            let data = settings::data_dir_from(&env_lookup);
            let tz = settings::zone_from(&env_lookup)
                .map_err(|p| anyhow::anyhow!("{}: {}", p.variable, p.detail))?;
            done(cli::reminder::run(cmd, &data, tz, chrono::Utc::now()))
        }
        Some(Command::Tasks(cmd)) => done(cli::tasks::run(cmd, &google_from_env()?)),
        Some(Command::Cal(cmd)) => done(cli::cal::run(cmd, &google_from_env()?)),
        Some(Command::Gmail(cmd)) => done(cli::gmail::run(cmd, &google_from_env()?)),
        Some(Command::Auth(cmd)) => cli::auth::run(&cmd),
        Some(Command::Console) => done(startup::run_bot(startup::SurfaceChoice::Console)),
        None => done(startup::run_bot(startup::SurfaceChoice::FromEnvironment)),
    }
}
