//! Fakes shared by the integration test binaries, each named for what it fakes.

pub mod claude_cli;
pub mod mock_model_api;
