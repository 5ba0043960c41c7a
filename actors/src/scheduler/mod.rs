//! The scheduler: when routines and reminders fire (SPEC §3).

pub mod cron;
