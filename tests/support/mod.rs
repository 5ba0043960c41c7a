//! Fakes shared by the integration test binaries, each named for what it fakes.

pub mod claude_cli;
pub mod cli_release;
pub mod fake_claude;
pub mod fake_discord;
pub mod fake_google;
pub mod git_remote;
pub mod home;
pub mod hostile_text;
pub mod mock_model_api;
pub mod usage_records;
