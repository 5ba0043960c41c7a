//! ollim-bot: parse the command line, set up logging, and run the bot or a subcommand.
//!
//! Errors reach here with context; they are printed once, as a chain, to stderr, and the
//! process exits 1.

mod chat;
mod cli;
mod console;
mod dashboard;
mod discord;
mod doctor;
mod drain;
mod logging;
mod original_bot;
mod own_path;
mod single_instance;
mod startup;
mod update;
mod version;

use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Command};
use ollim_actors::base::settings;

fn main() -> ExitCode {
    // Before anything could start a thread: this changes the environment children inherit.
    own_path::put_own_dir_first();
    // A missing .env is normal; a broken one is worth a word but not a stop.
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            eprintln!("warning: .env could not be read: {e}");
        }
    }
    // Still before any thread: `OLLIM_DATA_DIR=~/x`, from `.env` or not, means `$HOME/x` to
    // everything that reads it, the CLI children included.
    for (name, path) in ollim_actors::base::home_path::expanded_environment() {
        std::env::set_var(name, path);
    }
    // Before the log starts: it and Discord never show these values (SPEC §20).
    ollim_actors::base::redaction::install_from_env(
        &settings::data_dir_from(&env_lookup).webhooks(),
    );
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if cli.version {
        println!("{}", version::report());
        return ExitCode::SUCCESS;
    }
    let format = logging::LogFormat::choose(cli.log_json);
    match bot_surface(&cli) {
        Some(surface) => logging::init(format, "info", &bot_log(surface, cli.verbose)),
        // The doctor's report says everything the log would.
        None if matches!(cli.command, Some(Command::Doctor)) => {
            logging::init(format, "off", &logging::Destination::stderr())
        }
        None => logging::init(format, "warn", &logging::Destination::stderr()),
    }
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

/// The surface the bot will run on, when the command runs the bot.
fn bot_surface(cli: &Cli) -> Option<settings::SurfaceKind> {
    let choice = match cli.command {
        None => startup::SurfaceChoice::FromEnvironment,
        Some(Command::Console | Command::Chat { .. }) => startup::SurfaceChoice::Console,
        Some(_) => return None,
    };
    Some(startup::surface_for(choice, &env_lookup))
}

/// Where the bot's log goes: on the console a daily file in the data directory.
fn bot_log(surface: settings::SurfaceKind, verbose: bool) -> logging::Destination {
    let console_file = (surface == settings::SurfaceKind::Console).then(|| {
        settings::data_dir_from(&env_lookup)
            .root()
            .join("logs")
            .join("ollim-bot.log")
    });
    let explicit = env_lookup(logging::FILE_VAR)
        .filter(|v| !v.trim().is_empty())
        .map(std::path::PathBuf::from);
    let zone = settings::zone_from(&env_lookup).unwrap_or_else(|_| settings::system_zone());
    logging::Destination::for_bot(console_file, explicit, verbose, zone)
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
            // The zone only shows history times here: a bad one falls back to the system's.
            let tz = settings::zone_from(&env_lookup).unwrap_or_else(|_| settings::system_zone());
            done(cli::routine::run(cmd, &data, tz))
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
        Some(Command::Doctor) => doctor::run(),
        Some(Command::History(args)) => {
            let data = settings::data_dir_from(&env_lookup);
            let tz = settings::zone_from(&env_lookup)
                .map_err(|p| anyhow::anyhow!("{}: {}", p.variable, p.detail))?;
            done(cli::history::run(
                args,
                cli.verbose,
                data.root(),
                &env_lookup,
                tz,
                chrono::Utc::now(),
            ))
        }
        Some(Command::Usage(args)) => {
            let data = settings::data_dir_from(&env_lookup);
            let tz = settings::zone_from(&env_lookup)
                .map_err(|p| anyhow::anyhow!("{}: {}", p.variable, p.detail))?;
            done(cli::usage::run(&args, &data, tz, chrono::Utc::now()))
        }
        Some(Command::Memory(cmd)) => {
            let data = settings::data_dir_from(&env_lookup);
            // The zone only shows change times here: a bad one falls back to the system's.
            let tz = settings::zone_from(&env_lookup).unwrap_or_else(|_| settings::system_zone());
            done(cli::memory::run(cmd, &data, tz))
        }
        Some(Command::Dashboard) => {
            let data = settings::data_dir_from(&env_lookup);
            done(cli::dashboard::run(&data))
        }
        Some(Command::Console) => done(startup::run_bot(startup::SurfaceChoice::Console)),
        Some(Command::Chat { model }) => done(chat::run(model)),
        None => done(startup::run_bot(startup::SurfaceChoice::FromEnvironment)),
    }
}
