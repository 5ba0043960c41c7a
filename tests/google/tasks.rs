//! `ollim-bot tasks …` against the fake: the lines of SPEC §15, paging, and what Google got.

use crate::harness::Setup;

#[test]
fn list_shows_open_tasks_across_pages_and_all_adds_completed_ones() {
    let s = Setup::connected();
    s.fake.set_page_size(2);
    let milk = s.fake.add_task("Buy milk", Some("2026-02-24"), false);
    let call = s.fake.add_task("Call Jo", None, false);
    let done = s.fake.add_task("File taxes", Some("2026-01-31"), true);
    let plants = s.fake.add_task("Water plants", None, false);
    let lines = s.run(&["tasks", "list"]).lines();
    assert_eq!(
        lines,
        [
            format!("  {milk}  2026-02-24    [ ]  Buy milk"),
            format!("  {call}  (no due)      [ ]  Call Jo"),
            format!("  {plants}  (no due)      [ ]  Water plants"),
        ]
    );
    let lists = s.fake.requests_to("/tasks/v1/lists/@default/tasks");
    assert_eq!(lists.len(), 2, "two pages of two: {lists:#?}");
    let query = lists[0].query_pairs();
    assert!(
        query.contains(&("showCompleted".into(), "false".into())),
        "{query:?}"
    );
    assert!(
        query.contains(&("showHidden".into(), "false".into())),
        "{query:?}"
    );
    assert!(
        lists[1].query.contains("pageToken=2"),
        "the second page was asked for"
    );

    let all = s.run(&["tasks", "list", "--all"]).lines();
    assert_eq!(all.len(), 4, "{all:#?}");
    assert!(
        all.contains(&format!("  {done}  2026-01-31    [x]  File taxes")),
        "{all:#?}"
    );
}

#[test]
fn an_empty_list_says_so() {
    let s = Setup::connected();
    assert_eq!(s.run(&["tasks", "list"]).lines(), ["no tasks"]);
}

#[test]
fn add_done_update_and_delete_change_the_list() {
    let s = Setup::connected();
    let added = s
        .run(&[
            "tasks",
            "add",
            "Buy milk",
            "--due",
            "2026-02-24",
            "--notes",
            "2% please",
        ])
        .lines();
    let task = s.fake.tasks()[0].clone();
    let id = task["id"].as_str().unwrap().to_owned();
    assert_eq!(added, [format!("added {id}: 2026-02-24 -- Buy milk")]);
    assert_eq!(task["due"], "2026-02-24T00:00:00.000Z");
    assert_eq!(task["notes"], "2% please");

    let plain = s.run(&["tasks", "add", "Call Jo"]).lines();
    assert!(plain[0].ends_with(": (no due) -- Call Jo"), "{plain:?}");

    assert_eq!(
        s.run(&["tasks", "done", &id]).lines(),
        [format!("completed {id}")]
    );
    assert_eq!(s.fake.tasks()[0]["status"], "completed");

    let updated = s
        .run(&[
            "tasks",
            "update",
            &id,
            "--title",
            "Buy oat milk",
            "--due",
            "2026-03-01",
        ])
        .lines();
    assert_eq!(updated, [format!("updated {id}")]);
    let patch = s
        .fake
        .requests_to(&format!("/tasks/v1/lists/@default/tasks/{id}"))
        .last()
        .unwrap()
        .json();
    assert_eq!(
        patch,
        serde_json::json!({"title": "Buy oat milk", "due": "2026-03-01T00:00:00.000Z"}),
        "only the given fields are sent"
    );

    assert_eq!(
        s.run(&["tasks", "delete", &id]).lines(),
        [format!("deleted {id}")]
    );
    assert_eq!(s.fake.tasks().len(), 1, "only Call Jo is left");
}

#[test]
fn every_call_carries_the_grants_access_token() {
    let s = Setup::connected();
    s.run(&["tasks", "list"]).lines();
    let token: serde_json::Value = serde_json::from_str(&s.token()).unwrap();
    let bearer = format!("Bearer {}", token["token"].as_str().unwrap());
    let calls = s.fake.requests_to("/tasks/");
    assert!(!calls.is_empty());
    assert!(calls
        .iter()
        .all(|r| r.authorization.as_deref() == Some(bearer.as_str())));
    assert!(
        s.fake.requests_to("/token").is_empty(),
        "a fresh token is not refreshed"
    );
}
