//! Google buttons pressed through the GoogleAccount actor against the fake (SPEC §15, §17):
//! `event_del:<calendar_id>/<event_id>` and `task_done|task_del:<list_id>/<task_id>` act on the
//! calendar or list they name; the bare forms act on `primary` and on the configured
//! `google_task_list`.

use std::sync::Arc;

use actix::prelude::*;
use ollim_actors::base::clock::SystemClock;
use ollim_actors::base::data_dir::DataDir;
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::google::account::{AskDelete, GoogleClick, PressGoogleButton};
use ollim_actors::google::confirm::DeleteTarget;
use ollim_actors::google::{Api, ApiBase, GoogleAccount, Paths};
use ollim_actors::records::pending_updates::{Peek, PendingUpdates};
use serde_json::json;

use crate::harness::Setup;

/// The questions posted: each one's title and button ids.
type Asked = Arc<parking_lot::Mutex<Vec<(String, Vec<String>)>>>;

/// The DM channel: keeps the questions' titles and button ids.
struct Channel(Asked);

impl Actor for Channel {
    type Context = Context<Self>;
}

impl Handler<SurfaceEvent> for Channel {
    type Result = ();
    fn handle(&mut self, ev: SurfaceEvent, _: &mut Self::Context) {
        if let SurfaceEvent::Embed {
            embed, button_ids, ..
        } = ev
        {
            self.0.lock().push((embed.title, button_ids));
        }
    }
}

#[actix_rt::test]
async fn buttons_act_on_the_calendar_or_list_they_name_and_bare_ids_on_the_defaults() {
    let s = Setup::connected();
    std::fs::write(
        s.state("config.json"),
        json!({"google_task_list": "errands", "google_calendars": "work@example.com"}).to_string(),
    )
    .unwrap();
    let event = |summary: &str| {
        json!({"summary": summary,
               "start": {"dateTime": "2026-07-01T13:00:00Z"},
               "end": {"dateTime": "2026-07-01T14:00:00Z"}})
    };
    let review = s.fake.add_event_to("work@example.com", event("Review"));
    let dentist = s.fake.add_event(event("Dentist"));
    let milk = s.fake.add_task_to("errands", "Buy milk", None);
    let stamps = s.fake.add_task("Stamps", None, false);
    let bread = s.fake.add_task_to("errands", "Bread", None);

    let data = DataDir::new(&s.data);
    let clock = SystemClock::shared();
    let updates = PendingUpdates::new(
        data.state_file("pending_updates.json"),
        clock.clone(),
        chrono_tz::UTC,
    )
    .start();
    let api = Api::new(
        Paths::in_data_dir(&data),
        ApiBase::parse(&s.api_base).unwrap(),
    )
    .unwrap();
    let questions: Asked = Arc::default();
    let account = GoogleAccount::new(
        api,
        clock,
        Channel(Arc::clone(&questions)).start().recipient(),
        updates.clone().recipient(),
    )
    .start();
    let press = |custom_id: String| {
        let account = account.clone();
        async move {
            let click = GoogleClick::from_custom_id(&custom_id).expect("a google button");
            account.send(PressGoogleButton(click)).await.unwrap()
        }
    };

    // A delete button asks; its Delete button deletes.
    let confirmed = |custom_id: String| {
        let questions = Arc::clone(&questions);
        async move {
            let asked = press(custom_id).await;
            assert!(asked.starts_with("-# asked below: delete '"), "{asked}");
            let (_, ids) = questions.lock().last().cloned().expect("a question");
            press(ids[0].clone()).await
        }
    };
    assert_eq!(
        confirmed(format!("act:event_del:work@example.com/{review}")).await,
        "deleted 'Review' (Wed 13:00)."
    );
    assert_eq!(
        confirmed(format!("act:event_del:{dentist}")).await,
        "deleted 'Dentist' (Wed 13:00)."
    );
    assert_eq!(press(format!("act:task_done:{milk}")).await, "done ✓");
    assert_eq!(
        confirmed(format!("act:task_del:@default/{stamps}")).await,
        "deleted 'Stamps'."
    );
    assert_eq!(
        press(format!("act:task_del:@default/{bread}")).await,
        "failed: google has no such item: it was deleted, or the id is wrong or from another \
         calendar or list — list them again for the current ids",
        "Bread is on errands, not the default list: nobody is asked"
    );
    assert_eq!(questions.lock().len(), 3);
    assert_eq!(questions.lock()[0].0, "Delete 'Review' (Wed 13:00)?");

    assert!(s.fake.events_in("work@example.com").is_empty());
    assert!(s.fake.events().is_empty(), "the bare id is on primary");
    let errands = s.fake.tasks_in("errands");
    assert_eq!(errands[0]["status"], "completed", "the configured list");
    assert_eq!(errands[1]["status"], "needsAction");
    assert!(s.fake.tasks().is_empty());
    assert!(s
        .fake
        .requests_to("/calendar/v3/calendars/work@example.com/events/")
        .iter()
        .any(|r| r.method == "DELETE"));

    let messages: Vec<String> = updates
        .send(Peek)
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.message)
        .collect();
    assert_eq!(
        messages,
        [
            "User deleted calendar event \"Review\"",
            "User deleted calendar event \"Dentist\"",
            "User completed task \"Buy milk\"",
            "User deleted task \"Stamps\"",
        ]
    );
}

#[actix_rt::test]
async fn nothing_is_deleted_until_delete_and_keep_or_a_used_question_deletes_nothing() {
    let s = Setup::connected();
    let dentist = s.fake.add_task("Dentist", Some("2026-07-03"), false);
    let data = DataDir::new(&s.data);
    let clock = SystemClock::shared();
    let updates = PendingUpdates::new(
        data.state_file("pending_updates.json"),
        clock.clone(),
        chrono_tz::UTC,
    )
    .start();
    let api = Api::new(
        Paths::in_data_dir(&data),
        ApiBase::parse(&s.api_base).unwrap(),
    )
    .unwrap();
    let questions: Asked = Arc::default();
    let account = GoogleAccount::new(
        api,
        clock,
        Channel(Arc::clone(&questions)).start().recipient(),
        updates.clone().recipient(),
    )
    .start();
    let target = DeleteTarget::Task {
        list: None,
        id: dentist.clone(),
    };
    let asked = account.send(AskDelete(target.clone())).await.unwrap();
    assert_eq!(asked.as_deref(), Ok("'Dentist' (due 2026-07-03)"));
    let missing = DeleteTarget::Task {
        list: None,
        id: "nope".into(),
    };
    assert!(account.send(AskDelete(missing)).await.unwrap().is_err());
    let (title, ids) = questions.lock()[0].clone();
    assert_eq!(title, "Delete 'Dentist' (due 2026-07-03)?");
    assert_eq!(s.fake.tasks().len(), 1, "asking deletes nothing");
    let press = |custom_id: &str| {
        let click = GoogleClick::from_custom_id(custom_id).expect("a google button");
        account.send(PressGoogleButton(click))
    };
    assert_eq!(
        press(&ids[1]).await.unwrap(),
        "kept 'Dentist' (due 2026-07-03)."
    );
    assert_eq!(
        press(&ids[0]).await.unwrap(),
        "-# that question has expired — nothing was deleted.",
        "one answer per question"
    );
    assert_eq!(s.fake.tasks().len(), 1, "Keep deletes nothing");
    account.send(AskDelete(target)).await.unwrap().unwrap();
    let (_, ids) = questions.lock()[1].clone();
    assert_eq!(
        press(&ids[0]).await.unwrap(),
        "deleted 'Dentist' (due 2026-07-03)."
    );
    assert!(s.fake.tasks().is_empty());
    let messages: Vec<String> = updates
        .send(Peek)
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.message)
        .collect();
    assert_eq!(
        messages,
        [
            "User chose to keep 'Dentist' (due 2026-07-03) (not deleted)",
            "User deleted task \"Dentist\"",
        ]
    );
}
