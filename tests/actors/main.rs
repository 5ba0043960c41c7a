//! Actor tier: single actors driven through their mailboxes, with a manual clock and a fresh
//! directory per test.

mod catch_up;
mod failure_alerts;
mod job_edits;
mod scheduler;
mod simulated_year;
mod state_actors;
