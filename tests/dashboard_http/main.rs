//! The dashboard's doors over plain HTTP (SPEC §21, issue 40): a real `ollim-bot console` with
//! the mock model and `DASHBOARD_PORT` set, asked with reqwest. No cookie gets the login page,
//! never data; a foreign `Host` gets 421; a POST from another origin or without the CSRF token
//! gets 403 and changes nothing; the socket listens on 127.0.0.1 only; the CSP and the cookie's
//! flags are set; a login link works once. (The browser tier is `tests/dashboard/`.)

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

#[allow(dead_code)]
#[path = "../console/bot.rs"]
mod console_bot;

mod doors;
mod off;
mod pages;
