//! What the main session is started with: the data directory, the zone and clock, how to
//! start the CLI and with what, the runtime config and where approvals and usage go.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use chrono_tz::Tz;

use crate::base::clock::SharedClock;
use crate::base::data_dir::DataDir;
use crate::claude::brain::Launcher;
use crate::records::runtime_config::ConfigStore;

/// What the main session needs.
#[derive(Clone)]
pub struct MainSessionConfig {
    /// The data directory (the CLI's working directory).
    pub data_dir: DataDir,
    /// The configured zone.
    pub tz: Tz,
    /// The clock.
    pub clock: SharedClock,
    /// Starts CLI processes.
    pub launcher: Arc<dyn Launcher>,
    /// The `claude` binary.
    pub binary: PathBuf,
    /// Text appended to the `claude_code` preset.
    pub system_prompt: String,
    /// The runtime configuration (`state/config.json`): model, thinking and permission mode
    /// of the conversation; `/config` changes it.
    pub runtime: ConfigStore,
    /// A turn with no sign of life for this long is treated as a hung CLI.
    pub hang_timeout: Duration,
    /// Extra environment for every CLI process (on top of the bot's own).
    pub cli_env: std::collections::BTreeMap<String, String>,
    /// The user's name, for prompts the bot writes (fork prompts).
    pub user_name: String,
    /// Where approval questions go (`default` permission mode); `None`: nobody to ask, deny.
    pub approvals: Option<Recipient<crate::agent::permissions::ApprovalRequest>>,
    /// The release that runs (`ollim-bot v0.2.0`), named in the greeting after a restart.
    pub release: String,
    /// *(`ollim-bot chat --model`)* The conversation's model for this run, above `/model`.
    pub model_override: Option<String>,
    /// The docs MCP server's URL (`OLLIM_DOCS_MCP_URL`), offered to the conversation as the
    /// `docs` server; `None`: none.
    pub docs_mcp: Option<String>,
    /// *(ours, SPEC §19)* Where each turn's cost and tokens go (`state/usage.jsonl`); the
    /// supervisor fills it in. `None`: not recorded.
    pub usage: Option<Recipient<crate::records::usage::RecordTurn>>,
}
