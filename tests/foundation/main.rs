//! Tier 1, foundation: the CLI and the on-disk formats, through the real binary and files.

#[allow(dead_code)]
#[path = "../support/fake_claude.rs"]
mod fake_claude;

mod auth;
mod cli;
mod concurrent_cli;
mod delete_guard;
mod docs;
mod doctor;
mod doctor_failures;
mod doctor_references;
mod duplicate_ids;
mod env_example;
mod fixtures;
mod formats;
mod gates;
mod hints;
mod home_paths;
mod hostile_files;
mod make_run;
mod memory_cli;
mod memory_search;
mod original_2026_04;
mod original_running;
mod persistent_routines;
mod reminder_background;
mod reminder_cli;
mod routine_control;
mod run_limits;
mod version;
