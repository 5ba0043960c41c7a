//! The ground floor: facts about the machine and the data directory that every other group
//! builds on. Nothing here knows about jobs, sessions or Discord.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`settings`] | the settings read from the environment and `.env` (SPEC §2) |
//! | [`data_dir`] | the data directory's layout and its git history |
//! | [`state_file`] | the one way state files are written (atomically) and read |
//! | [`disk_space`] | a full disk, told to the owner once |
//! | [`clock`] | the injectable clock every time-dependent actor reads |
//! | [`local_days`] | where the owner's local day and month begin |
//! | [`ellipsis`] | text cut short for a reader, ending in `…` |
//! | [`usd`] | dollar amounts as typed and shown, kept in cents |
//! | [`redaction`] | the bot's secret values, kept out of Discord and the log |
//! | [`env_file`] | changing variables in a `.env` file in place |
//! | [`shell_words`] | a command line split into words without a shell |
//! | [`home_path`] | `~` and `$HOME` in the paths a person writes |
//! | [`own_command`] | the command that runs this program from the owner's shell |
//! | [`child_env`] | the allow-listed environment of every `claude` child |
//! | [`cpu_priority`] | background work yielding the CPU to the conversation |

pub mod child_env;
pub mod clock;
pub mod cpu_priority;
pub mod data_dir;
pub mod disk_space;
pub mod ellipsis;
pub mod env_file;
pub mod home_path;
pub mod local_days;
pub mod own_command;
pub mod redaction;
pub mod settings;
pub mod shell_words;
pub mod state_file;
pub mod usd;
