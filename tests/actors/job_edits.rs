//! The scheduler writes a whole job file only when the loader's validator passes it (SPEC §21,
//! the dashboard's create and edit): a refused text leaves the file byte for byte, an edit may
//! not change the id, a new job may not take an id in use, and a saved job is registered.

use std::time::Duration as StdDuration;

use actix::prelude::*;
use ollim_actors::base::clock::ManualClock;
use ollim_actors::bot::supervisor::{GetHandles, JobSink, Supervisor, SupervisorConfig};
use ollim_actors::conversation::main_session::{FireJob, JobTurnEnd, JobTurnOutcome};
use ollim_actors::jobs::validate::Kind;
use ollim_actors::jobs::JobId;
use ollim_actors::scheduling::scheduler::{ReadJobFile, Upcoming, WriteJobFile};

use crate::catch_up::{fresh, ny, TZ};

struct NoJobs;

impl Actor for NoJobs {
    type Context = Context<Self>;
}

impl Handler<FireJob> for NoJobs {
    type Result = MessageResult<FireJob>;
    fn handle(&mut self, _msg: FireJob, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(JobTurnEnd::bare(JobTurnOutcome::Completed, None))
    }
}

const GOOD: &str = "---\nid: tea\ncron: \"0 16 * * *\"\ndescription: Tea time\n---\nMake tea.\n";

#[actix_rt::test]
async fn job_files_are_written_only_when_the_loader_would_read_them() {
    let (_tmp, data) = fresh();
    std::fs::write(data.routines().join("tea.md"), GOOD).unwrap();
    let clock = ManualClock::new(ny(9, 0));
    let supervisor = Supervisor::start(
        SupervisorConfig {
            data_dir: data.clone(),
            tz: TZ,
            clock: clock.shared(),
            watch_jobs: false,
            google: None,
        },
        JobSink::Recipient {
            jobs: NoJobs.start().recipient(),
            busy: None,
        },
    );
    let h = supervisor.send(GetHandles).await.unwrap();
    let path = data.routines().join("tea.md");
    let tea = JobId("tea".into());

    let read = h
        .scheduler
        .send(ReadJobFile {
            kind: Kind::Routine,
            id: tea.clone(),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (read.rel_path.as_str(), read.text.as_str()),
        ("routines/tea.md", GOOD)
    );

    let write = |editing: Option<JobId>, text: &str| {
        h.scheduler.send(WriteJobFile {
            kind: Kind::Routine,
            editing,
            text: text.to_owned(),
        })
    };
    // A bad cron, no frontmatter, another id: refused, the file as it was.
    let bad_cron = GOOD.replace("0 16 * * *", "0 25 * * *");
    let problem = write(Some(tea.clone()), &bad_cron)
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        problem.contains("hour: 25 is out of range 0-23"),
        "{problem}"
    );
    let problem = write(Some(tea.clone()), "just text")
        .await
        .unwrap()
        .unwrap_err();
    assert!(!problem.is_empty());
    let renamed = GOOD.replace("id: tea", "id: coffee");
    let problem = write(Some(tea.clone()), &renamed)
        .await
        .unwrap()
        .unwrap_err();
    assert!(problem.contains("cannot change"), "{problem}");
    let problem = write(None, GOOD).await.unwrap().unwrap_err();
    assert!(problem.contains("already exists"), "{problem}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), GOOD);
    assert!(!data.routines().join("coffee.md").exists());

    // A good edit is written as given, and the scheduler fires at the new time.
    let later = GOOD.replace("0 16 * * *", "30 17 * * *");
    let saved = write(Some(tea.clone()), &later).await.unwrap().unwrap();
    assert_eq!(saved.rel_path, "routines/tea.md");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), later);
    let upcoming = h.scheduler.send(Upcoming).await.unwrap();
    assert_eq!(upcoming[0].next, Some(ny(17, 30)), "{upcoming:?}");

    // A new routine gets a file of its own and is registered.
    let saved = write(None, &renamed).await.unwrap().unwrap();
    assert_eq!(saved.id, JobId("coffee".into()));
    assert!(data.root().join(&saved.rel_path).is_file(), "{saved:?}");
    let mut registered = false;
    for _ in 0..100 {
        let upcoming = h.scheduler.send(Upcoming).await.unwrap();
        if upcoming.iter().any(|j| j.id.as_str() == "coffee") {
            registered = true;
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
    assert!(registered, "the new routine is registered");
}
