//! Google from the command line, as the agent uses it: the `ollim-bot tasks|cal|gmail` binary
//! against a fake Google on 127.0.0.1 (`tests/support/fake_google/`) — every command and its
//! output lines, the original's token file used, refreshed and rewritten, `invalid_grant`, and
//! bad input that must write nothing.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod buttons;
mod calendar;
mod gmail;
mod harness;
mod hostile;
mod targets;
mod tasks;
mod token;
