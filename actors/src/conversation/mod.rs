//! The one persistent conversation with the owner (SPEC §5) and what it shows and receives.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`main_session`] | the `MainSession` actor: the conversation, its turns and its forks |
//! | [`surface`] | the typed events the conversation shows on Discord or the console |
//! | [`buttons`] | buttons that keep working after a restart |
//! | [`downloads`] | files the owner sends, kept in `downloads/` |

pub mod buttons;
pub mod downloads;
pub mod main_session;
pub mod surface;
