//! The webhook server (SPEC §13) over real HTTP on 127.0.0.1: every status path with a
//! recording recipient and a scripted screener (tier 1), a bounded load test, and the real
//! `claude` CLI against the mock Messages API for screening and the background fork (tier 2).

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod fork;
mod harness;
mod hostile;
mod load;
mod signed;
mod statuses;

mod console;
#[allow(dead_code)]
#[path = "../forks/rig.rs"]
mod forks_rig;

#[allow(dead_code)]
#[path = "../console/bot.rs"]
mod console_bot;
