//! The routine buttons' custom ids and what a click does.

use actix::Addr;

use crate::agent::tools::button::CUSTOM_ID_PREFIX;
use crate::jobs::JobId;
use crate::scheduling::scheduler::{RunNow, Scheduler, SetPaused};

/// A click on a routine button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoutineClick {
    /// Run now.
    Run(JobId),
    /// Pause.
    Pause(JobId),
    /// Resume.
    Resume(JobId),
}

impl RoutineClick {
    /// Reads `act:routine_run:<id>` (and pause, resume); `None` for any other custom id.
    pub fn from_custom_id(custom_id: &str) -> Option<Self> {
        let rest = custom_id.strip_prefix(CUSTOM_ID_PREFIX)?;
        let (action, id) = rest.split_once(':')?;
        let id = JobId::parse(id).ok()?;
        Some(match action {
            "routine_run" => RoutineClick::Run(id),
            "routine_pause" => RoutineClick::Pause(id),
            "routine_resume" => RoutineClick::Resume(id),
            _ => return None,
        })
    }

    /// The routine clicked.
    pub fn routine(&self) -> &JobId {
        match self {
            RoutineClick::Run(id) | RoutineClick::Pause(id) | RoutineClick::Resume(id) => id,
        }
    }

    /// The custom id a button doing this carries.
    pub fn custom_id(&self) -> String {
        let (action, id) = match self {
            RoutineClick::Run(id) => ("routine_run", id),
            RoutineClick::Pause(id) => ("routine_pause", id),
            RoutineClick::Resume(id) => ("routine_resume", id),
        };
        format!("{CUSTOM_ID_PREFIX}{action}:{id}")
    }
}

/// Carries out `click`; the answer is one line for the owner.
pub async fn press(click: RoutineClick, scheduler: &Addr<Scheduler>) -> String {
    let gone = |e: actix::MailboxError| format!("the scheduler has stopped: {e}");
    match click {
        RoutineClick::Run(id) => scheduler
            .send(RunNow { id })
            .await
            .map(|outcome| outcome.describe())
            .unwrap_or_else(gone),
        RoutineClick::Pause(id) => scheduler
            .send(SetPaused { id, paused: true })
            .await
            .unwrap_or_else(gone),
        RoutineClick::Resume(id) => scheduler
            .send(SetPaused { id, paused: false })
            .await
            .unwrap_or_else(gone),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_ids_round_trip_and_others_are_not_ours() {
        for click in [
            RoutineClick::Run(JobId("a1b2c3d4".into())),
            RoutineClick::Pause(JobId("a1".into())),
            RoutineClick::Resume(JobId("x-y".into())),
        ] {
            assert_eq!(
                RoutineClick::from_custom_id(&click.custom_id()),
                Some(click)
            );
        }
        assert_eq!(
            RoutineClick::Run(JobId("a1b2c3d4".into())).custom_id(),
            "act:routine_run:a1b2c3d4"
        );
        for other in [
            "act:agent:1",
            "act:routine_run:../x",
            "act:routine_stop:a",
            "routine_run:a",
        ] {
            assert_eq!(RoutineClick::from_custom_id(other), None, "{other}");
        }
    }
}
