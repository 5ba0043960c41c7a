//! The browser tier: the dashboard (SPEC §21) in headless Chromium, driven over WebDriver
//! (`chromedriver`, Debian's `chromium-driver`) against the real bot, which runs the real
//! `claude` CLI against the mock model API on 127.0.0.1. Each page's screenshot is saved under
//! `target/dashboard-screenshots/` (`$CARGO_TARGET_DIR` when set).
//!
//! Needs `chromium` and `chromedriver` on PATH (`make test` installs them with apt-get); a
//! missing one fails with the command that installs it, never a skip.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod bot;
mod browser;
mod fixtures;
mod jobs;
mod memory;
mod pages;
mod phone;
mod runs;
mod today;
mod webhooks;

use crate::bot::Bot;
use crate::browser::Browser;
use crate::support::home::Home;
use crate::support::mock_model_api::MockModelApi;

/// Runs one step of the walk, saying first which and when (for the reader of a failure).
macro_rules! step {
    ($started:expr, $step:path, $($arg:expr),*) => {{
        eprintln!(
            "dashboard walk, {:.1} s: {}",
            $started.elapsed().as_secs_f64(),
            stringify!($step)
        );
        $step($($arg),*).await
    }};
}

/// One bot and one browser for the whole walk (starting them is most of the time), each step
/// named for the behaviour it asserts.
#[tokio::test]
async fn the_dashboard_in_chromium() {
    let home = Home::new();
    let zone = fixtures::midday_zone();
    fixtures::write(&home, zone);
    let context = home.data.join("context.md").display().to_string();
    let mock = MockModelApi::start(fixtures::model_reply(context))
        .await
        .expect("start the mock model API");
    let mut bot = Bot::start(
        &home,
        &mock,
        zone,
        browser::free_port(),
        browser::free_port(),
    )
    .await;
    let browser = Browser::start().await;
    let link = bot.login_link().await;
    let started = std::time::Instant::now();

    step!(
        started,
        today::the_login_link_opens_today_with_the_routines_on_the_timeline,
        &browser,
        &link
    );
    step!(
        started,
        today::the_login_links_second_use_is_refused,
        &browser,
        &link
    );
    step!(
        started,
        jobs::run_now_sends_the_routines_prompt_to_the_model,
        &browser,
        &bot,
        &mock
    );
    step!(
        started,
        runs::runs_shows_the_run_just_made_with_its_cost,
        &browser,
        &bot,
        &home
    );
    step!(
        started,
        jobs::pause_writes_paused_and_the_timeline_drops_its_marks,
        &browser,
        &bot,
        &home
    );
    step!(
        started,
        jobs::an_edit_with_a_bad_cron_is_refused_with_the_loaders_words,
        &browser,
        &bot,
        &home
    );
    step!(
        started,
        jobs::a_new_routine_shows_its_next_five_fires_before_it_is_saved,
        &browser,
        &bot,
        &home,
        zone
    );
    step!(
        started,
        memory::undo_reverts_the_last_change,
        &browser,
        &mut bot,
        &home
    );
    step!(
        started,
        webhooks::the_webhooks_page_shows_the_spec_and_each_requests_answer,
        &browser,
        &bot,
        &mock
    );
    step!(
        started,
        pages::the_other_pages_open_with_their_headings,
        &browser,
        &bot
    );
    step!(started, phone::every_page_fits_a_phone, &browser, &bot);

    browser.close().await;
    bot.finish().await;
}
