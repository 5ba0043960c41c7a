//! Runs: the run Run now just made is listed with its cost, and Today draws it.

use std::time::Duration;

use crate::bot::{Bot, LIMIT};
use crate::browser::Browser;
use crate::fixtures::MORNING;

pub async fn runs_shows_the_run_just_made_with_its_cost(browser: &Browser, bot: &Bot) {
    let row = format!("tr.run[data-job=\"{MORNING}\"]");
    // The run ends a moment after the model's answer: the page is opened until it is listed.
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        browser.open(&bot.url("/runs"), "main#page-runs").await;
        if browser.count(&row).await > 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run never showed on Runs: {}",
            browser.page_text().await
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(browser.count(&row).await, 1, "one run of the routine");
    let cost = browser.text(&format!("{row} td.cost")).await;
    assert!(
        cost.starts_with('$') && cost[1..].trim().parse::<f64>().is_ok_and(|c| c > 0.0),
        "the run's cost: {cost:?}"
    );
    browser.screenshot("runs").await;
    // The filter by job keeps it.
    browser
        .open(&bot.url(&format!("/runs?job={MORNING}")), "main#page-runs")
        .await;
    assert_eq!(browser.count(&row).await, 1);
    // Today draws it too, coloured as a run that went well.
    browser.open(&bot.url("/"), "svg#timeline").await;
    assert_eq!(
        browser
            .count(&format!(
                "svg#timeline g.run.outcome-ok[data-job=\"{MORNING}\"]"
            ))
            .await,
        1,
        "the run on Today's timeline"
    );
    browser.screenshot("today-after-run").await;
}
