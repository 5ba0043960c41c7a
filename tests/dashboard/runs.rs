//! Runs: the run Run now just made is listed with its cost (the one the run log recorded), the
//! filter by job keeps it, and Today draws it.

use std::time::Duration;

use serde_json::Value;

use crate::bot::{Bot, LIMIT};
use crate::browser::Browser;
use crate::fixtures::{MORNING, STRETCH};
use crate::support::home::Home;

/// The cost `state/runs.jsonl` recorded for the routine's run, once its line is there.
async fn recorded_cost(home: &Home, id: &str) -> f64 {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let text = std::fs::read_to_string(home.state("runs.jsonl")).unwrap_or_default();
        let cost = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|r| r["job"] == id && r["outcome"] == "ok")
            .and_then(|r| r["cost_usd"].as_f64());
        if let Some(cost) = cost {
            return cost;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no run of {id} with a cost in runs.jsonl: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn runs_shows_the_run_just_made_with_its_cost(browser: &Browser, bot: &Bot, home: &Home) {
    let row = format!("tr.run[data-job=\"{MORNING}\"]");
    let other = format!("tr.run[data-job=\"{STRETCH}\"]");
    // A run ends a moment after the model's answer: the page is opened until both are listed.
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        browser.open(&bot.url("/runs"), "main#page-runs").await;
        if browser.count(&row).await > 0 && browser.count(&other).await > 0 {
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
    let cost = recorded_cost(home, MORNING).await;
    assert!(cost > 0.0, "the mock's usage costs something: {cost}");
    let cell = browser.text(&format!("{row} td.cost")).await;
    let shown = cell
        .trim()
        .strip_prefix('$')
        .unwrap_or_else(|| panic!("{cell:?}"));
    let decimals = shown.split_once('.').map_or(0, |(_, d)| d.len());
    assert_eq!(
        shown,
        format!("{cost:.decimals$}"),
        "the run's cost cell {cell:?} against runs.jsonl's {cost}"
    );
    browser.screenshot("runs").await;

    // The filter by job, as a reader uses it: pick the routine, Show.
    browser
        .wait_for("form.filter select[name=\"job\"]")
        .await
        .select_by_value(MORNING)
        .await
        .unwrap_or_else(|e| panic!("pick {MORNING} in the filter: {e}"));
    browser
        .click_through("form.filter button[type=\"submit\"]")
        .await;
    let at = url::Url::parse(&browser.url().await).expect("an address");
    assert_eq!(at.query(), Some(format!("job={MORNING}").as_str()));
    assert_eq!(browser.count(&row).await, 1);
    assert_eq!(browser.count(&other).await, 0, "only that job's runs");

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
