//! Work the bot starts on its own: when jobs fire, the one path every run takes, the background
//! forks that run them, and what is written after.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`scheduler`] | the `Scheduler` actor: job files, next fire times, broken files |
//! | [`job_runner`] | the `JobRunner` actor: gates, screening, slots, starting each run |
//! | [`fork`] | forks of the conversation; the `BackgroundFork` actor of one job |
//! | [`reflection`] | the `Reflector` actor: a reflection after each background run |
//! | [`routine_sessions`] | routines that keep one session from run to run |
//! | [`routines_view`] | `/routines`: each routine's next fire and last outcome |

pub mod fork;
pub mod job_runner;
pub mod reflection;
pub mod routine_sessions;
pub mod routines_view;
pub mod scheduler;
