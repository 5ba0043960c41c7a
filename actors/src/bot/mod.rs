//! The running bot: the supervisor that starts every actor in order and restarts a failed one,
//! and the doors into it from outside the conversation.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`supervisor`] | start order, restarts, and the log of every start, restart and failure |
//! | [`webhook_server`] | `POST /hook/<id>` on 127.0.0.1 and its `Admission` actor |
//! | [`control_socket`] | `state/bot.sock`: `ollim-bot routine run` reaching the running bot |
//! | [`onboarding`] | `/setup` and the first greeting's questions |

#[cfg(unix)]
pub mod control_socket;
pub mod onboarding;
pub mod supervisor;
pub mod webhook_server;
