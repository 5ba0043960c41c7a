//! `ollim-bot dashboard` *(ours, SPEC §21)*: asks the bot running on this data directory, over
//! its control socket, for a one-time login link to its dashboard, and prints it.

use anyhow::bail;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::bot::control_socket::{self, Request};

/// Prints the link, or fails saying why there is none (no bot runs, or its dashboard is off).
pub fn run(data: &DataDir) -> anyhow::Result<()> {
    let socket = data.state_file(control_socket::FILE_NAME);
    let answer = control_socket::request(&socket, data.root(), &Request::DashboardLink)?;
    if !answer.ok {
        bail!("{}", answer.message);
    }
    println!(
        "dashboard login (works once, for 10 minutes): {}",
        answer.message
    );
    Ok(())
}
