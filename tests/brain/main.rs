//! Tier 2: the driver against the real `claude` CLI and a mock Messages API on 127.0.0.1.
//!
//! Needs the binary (`tools/install-claude.sh`, or `OLLIM_CLAUDE_BIN`); a missing binary fails
//! with instructions. Each test gets its own mock, HOME and working directory, and bounds every
//! wait with a timeout. Run with `cargo test --test brain -- --test-threads=2`.

// The support module is shared with other test binaries; not every helper is used here.
#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod conversation;
mod harness;
mod lifecycle;
mod limits;
mod sessions;
mod tools;
