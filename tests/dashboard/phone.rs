//! Every page fits a phone's width: drawn 390 CSS pixels wide, no page is wider than the screen
//! (a wide table scrolls inside its own box), and each is saved as `phone-<page>.png`.

use crate::bot::Bot;
use crate::browser::Browser;
use crate::fixtures::EVENING;

pub async fn every_page_fits_a_phone(browser: &Browser, bot: &Bot) {
    let edit = format!("/jobs/{EVENING}/edit");
    let pages = [
        ("/", "today"),
        ("/jobs", "jobs"),
        (edit.as_str(), "edit"),
        ("/runs", "runs"),
        ("/memory", "memory"),
        ("/updates", "updates"),
        ("/spend", "spend"),
        ("/webhooks", "webhooks"),
        ("/health", "health"),
    ];
    const PHONE: u64 = 390;
    browser.phone(Some(PHONE as u32)).await;
    // The measure itself: a page made wider than a phone is seen as such.
    browser
        .open(
            "data:text/html,<meta name=viewport content='width=device-width'>\
             <div id=wide style='width:1000px'>wide</div>",
            "#wide",
        )
        .await;
    let wide = browser.page_width().await;
    assert!(wide >= 1000, "the width measure works: {wide}");
    let mut too_wide = Vec::new();
    for (path, name) in pages {
        browser.open(&bot.url(path), "main").await;
        let width = browser.page_width().await;
        if width > PHONE {
            too_wide.push(format!("{path}: {width} px wide on a {PHONE} px phone"));
        }
        browser.screenshot_as_is(&format!("phone-{name}")).await;
    }
    browser.phone(None).await;
    assert!(too_wide.is_empty(), "{too_wide:#?}");
}
