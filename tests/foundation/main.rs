//! Tier 1, foundation: the CLI and the on-disk formats, through the real binary and files.

mod auth;
mod cli;
mod concurrent_cli;
mod fixtures;
mod formats;
mod hostile_files;
