//! The on-disk formats of SPEC §3 against fixtures in the original's format: byte-exact round
//! trips, damaged files skipped with their names, and the file-naming rules.

mod damaged;
mod naming;
mod round_trip;
