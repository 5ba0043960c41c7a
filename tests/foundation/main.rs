//! Foundation tier: the pieces everything else stands on, tested from outside the crate.

mod fixtures;
mod formats;
