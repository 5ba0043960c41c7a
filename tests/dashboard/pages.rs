//! The pages no step above changes, reached through the nav: each opens with its heading and
//! shows what it is for, and is saved.

use crate::bot::Bot;
use crate::browser::Browser;
use crate::fixtures::{routine_path, MORNING, STRETCH};

pub async fn the_other_pages_open_with_their_headings(browser: &Browser, bot: &Bot) {
    // (path, name, heading, what must be on it).
    let pages: Vec<(&str, &str, &str, Vec<String>)> = vec![
        ("/updates", "updates", "Updates", vec![]),
        (
            "/spend",
            "spend",
            "Spend",
            // Both routines that ran cost something.
            [MORNING, STRETCH]
                .iter()
                .map(|id| format!("tr.job-spend[data-job=\"{id}\"]"))
                .collect(),
        ),
        (
            "/health",
            "health",
            "Health",
            vec!["p#health-summary".to_owned(), "tr.check".to_owned()],
        ),
    ];
    for (path, name, heading, must) in pages {
        browser.open(&bot.url("/"), "main#page-today").await;
        browser
            .click_through(&format!("nav a[href=\"{path}\"]"))
            .await;
        browser.wait_for(&format!("main#page-{name}")).await;
        let h1 = browser.text("h1").await;
        assert!(h1.contains(heading), "{path}: heading {h1:?}");
        for css in must {
            browser.wait_for(&css).await;
        }
        browser.screenshot(name).await;
    }
    // Health runs doctor's checks on this bot's data directory: its routines are among them.
    let text = browser.page_text().await;
    assert!(text.contains(routine_path(MORNING)), "{text}");
}
