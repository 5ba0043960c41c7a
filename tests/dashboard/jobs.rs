//! Jobs: Run now reaches the model with the routine's prompt, Pause writes `paused: true` and
//! takes the routine off the timeline (Resume puts it back), and an edit with a bad cron is
//! refused with the loader's words, leaving the file as it was; a new routine shows its next
//! five fire times on Check and is written (and scheduled) on Save.

use std::path::Path;
use std::time::Duration;

use chrono::Utc;
use chrono_tz::Tz;
use fantoccini::Locator;
use ollim_actors::jobs::cron::CronSchedule;

use crate::bot::{Bot, LIMIT};
use crate::browser::Browser;
use crate::fixtures::{routine_path, EVENING, MORNING, STRETCH, WATER};
use crate::support::home::Home;
use crate::support::mock_model_api::MockModelApi;
use crate::today::fire_marks;

/// The button of the form that POSTs to `/jobs/<id>/<action>`, in the job's row.
fn button(id: &str, action: &str) -> String {
    format!("tr#job-{id} form[action$=\"/jobs/{id}/{action}\"] button")
}

pub async fn run_now_sends_the_routines_prompt_to_the_model(
    browser: &Browser,
    bot: &Bot,
    mock: &MockModelApi,
) {
    browser.open(&bot.url("/jobs"), "main#page-jobs").await;
    for id in [MORNING, STRETCH, EVENING] {
        browser.wait_for(&format!("tr#job-{id}.job")).await;
    }
    browser.screenshot("jobs").await;
    // The morning routine, then (for a second job on Runs) the two-hourly one.
    for (id, prompt) in [
        (MORNING, "Look over today's plan and the calendar."),
        (STRETCH, "Remind me to stand up and stretch."),
    ] {
        let tag = format!("[routine-bg:{id}]");
        assert!(
            mock.agent_requests()
                .iter()
                .all(|r| !r.latest_user_text().contains(&tag)),
            "{id} ran before Run now"
        );
        let run_now = button(id, "run");
        assert_eq!(browser.text(&run_now).await, "Run now");
        browser.click_through(&run_now).await;
        let answer = browser.text("main#page-jobs").await;
        let request = mock
            .first_agent_request(|r| r.latest_user_text().contains(&tag), LIMIT)
            .await
            .unwrap_or_else(|| panic!("the model never received {tag}; the page said: {answer}"));
        assert!(
            request.latest_user_text().contains(prompt),
            "the routine's prompt: {}",
            request.latest_user_text()
        );
    }
}

pub async fn pause_writes_paused_and_the_timeline_drops_its_marks(
    browser: &Browser,
    bot: &Bot,
    home: &Home,
) {
    let file = home.data.join(routine_path(STRETCH));
    browser.open(&bot.url("/jobs"), "main#page-jobs").await;
    let pause = button(STRETCH, "pause");
    assert_eq!(browser.text(&pause).await, "Pause");
    browser.click_through(&pause).await;
    until("the routine's file says paused: true", || {
        read(&file).contains("paused: true")
    })
    .await;
    marks_until(
        browser,
        bot,
        STRETCH,
        "the paused routine off the timeline",
        |n| n == 0,
    )
    .await;
    assert!(
        browser.count(&fire_marks(MORNING)).await >= 1,
        "the other routines stay on the timeline"
    );
    browser.screenshot("today-paused").await;

    browser.open(&bot.url("/jobs"), "main#page-jobs").await;
    let resume = button(STRETCH, "resume");
    assert_eq!(browser.text(&resume).await, "Resume");
    browser.click_through(&resume).await;
    until("the routine's file no longer paused", || {
        !read(&file).contains("paused: true")
    })
    .await;
    marks_until(
        browser,
        bot,
        STRETCH,
        "the resumed routine back on the timeline",
        |n| n == 12,
    )
    .await;
}

pub async fn an_edit_with_a_bad_cron_is_refused_with_the_loaders_words(
    browser: &Browser,
    bot: &Bot,
    home: &Home,
) {
    let file = home.data.join(routine_path(EVENING));
    let before = std::fs::read(&file).expect("the routine's file");
    browser
        .open(
            &bot.url(&format!("/jobs/{EVENING}/edit")),
            "textarea[name=\"text\"]",
        )
        .await;
    let text = browser.value("textarea[name=\"text\"]").await;
    assert!(text.contains("cron: \"30 21 * * *\""), "{text}");
    browser.wait_for("ol.next-fires").await;
    assert_eq!(
        browser.count("ol.next-fires li").await,
        5,
        "the next five fire times"
    );
    browser.screenshot("edit").await;

    let bad_cron = "61 21 * * *";
    let words = CronSchedule::parse(bad_cron)
        .expect_err("61 is no minute")
        .to_string();
    browser
        .type_into(
            "textarea[name=\"text\"]",
            &text.replace("30 21 * * *", bad_cron),
        )
        .await;
    browser
        .click_through("button[name=\"action\"][value=\"save\"]")
        .await;
    let error = browser.text("p.error").await;
    assert!(
        error.contains(&words),
        "the refusal {error:?} gives the loader's words {words:?}"
    );
    assert_eq!(
        std::fs::read(&file).expect("the routine's file"),
        before,
        "the refused edit left the file as it was"
    );
    browser.screenshot("edit-refused").await;
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()))
}

async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "never {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Opens Today until the count of `id`'s marks satisfies `wanted` (the scheduler takes a
/// changed file within a second).
async fn marks_until(
    browser: &Browser,
    bot: &Bot,
    id: &str,
    what: &str,
    wanted: impl Fn(usize) -> bool,
) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        browser.open(&bot.url("/"), "svg#timeline").await;
        let n = browser.count(&fire_marks(id)).await;
        if wanted(n) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {what}: {n} marks"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A new routine as typed on `/jobs/new`: daily at 16:15, later today in the midday zone.
fn new_routine() -> String {
    format!(
        "---\nid: \"{WATER}\"\ncron: \"15 16 * * *\"\ndescription: \"Water the plants\"\n\
         background: true\n---\nRemind me to water the plants.\n"
    )
}

pub async fn a_new_routine_shows_its_next_five_fires_before_it_is_saved(
    browser: &Browser,
    bot: &Bot,
    home: &Home,
    zone: Tz,
) {
    let routines = home.data.join("routines");
    let files_before = files_in(&routines);
    browser
        .open(&bot.url("/jobs/new"), "textarea[name=\"text\"]")
        .await;
    browser
        .type_into("textarea[name=\"text\"]", &new_routine())
        .await;
    browser
        .click_through("button[name=\"action\"][value=\"check\"]")
        .await;
    // Today at 16:15 and the four days after, in the bot's zone.
    let today = Utc::now().with_timezone(&zone).date_naive();
    let fires: Vec<String> = {
        let items = browser
            .client
            .find_all(Locator::Css("ol.next-fires li"))
            .await
            .unwrap_or_else(|e| panic!("the next fire times: {e}"));
        let mut texts = Vec::new();
        for item in items {
            texts.push(item.text().await.unwrap_or_default());
        }
        texts
    };
    assert_eq!(fires.len(), 5, "{fires:?}");
    for (day, fire) in fires.iter().enumerate() {
        let date = (today + chrono::Days::new(day as u64)).format("%Y-%m-%d");
        assert!(
            fire.contains(&date.to_string()) && fire.contains("16:15"),
            "fire {day}: {fire:?}"
        );
    }
    assert_eq!(files_in(&routines), files_before, "Check wrote nothing");
    browser.screenshot("new").await;

    browser
        .click_through("button[name=\"action\"][value=\"save\"]")
        .await;
    let notes = browser.text("main").await;
    assert!(notes.contains(&format!("saved {WATER}")), "{notes}");
    let added: Vec<_> = files_in(&routines)
        .into_iter()
        .filter(|f| !files_before.contains(f))
        .collect();
    assert_eq!(added.len(), 1, "one new file: {added:?}");
    let saved = read(&routines.join(&added[0]));
    let routine = ollim_actors::jobs::routine::parse(&saved)
        .unwrap_or_else(|e| panic!("the saved file loads: {e}\n{saved}"));
    assert_eq!(routine.cron, "15 16 * * *");
    assert_eq!(routine.message.trim(), "Remind me to water the plants.");
    // The scheduler has it: on Jobs and once on Today's timeline.
    browser.open(&bot.url("/jobs"), "main#page-jobs").await;
    browser.wait_for(&format!("tr#job-{WATER}.job")).await;
    marks_until(
        browser,
        bot,
        WATER,
        "the new routine on the timeline",
        |n| n == 1,
    )
    .await;
}

/// The file names in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
