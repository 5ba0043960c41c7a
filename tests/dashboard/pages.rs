//! The pages no step above changes: each opens from the nav with its heading, and is saved.

use crate::bot::Bot;
use crate::browser::Browser;

/// (path, name, heading).
const PAGES: &[(&str, &str, &str)] = &[
    ("/updates", "updates", "Updates"),
    ("/spend", "spend", "Spend"),
    ("/webhooks", "webhooks", "Webhooks"),
    ("/health", "health", "Health"),
];

pub async fn the_other_pages_open_with_their_headings(browser: &Browser, bot: &Bot) {
    for (path, name, heading) in PAGES {
        browser.open(&bot.url("/"), "main#page-today").await;
        // Reached through the page frame's nav, as a reader would.
        browser
            .click_through(&format!("nav a[href=\"{path}\"]"))
            .await;
        browser.wait_for(&format!("main#page-{name}")).await;
        let h1 = browser.text("h1").await;
        assert!(h1.contains(heading), "{path}: heading {h1:?}");
        browser.screenshot(name).await;
    }
}
