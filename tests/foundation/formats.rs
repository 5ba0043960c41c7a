//! The on-disk formats of SPEC §3 against fixtures in the original's format: byte-exact round
//! trips, damaged files skipped with their names, the file-naming rules, and the spec docs.

mod damaged;
mod naming;
mod round_trip;
mod spec_docs;
