//! Logging in and Today: the one-time link opens Today with the routines on its timeline, and
//! a second use of the same link is refused.

use crate::browser::Browser;
use crate::fixtures::{EVENING, MORNING, STRETCH};

/// The CSS of a routine's fire marks on Today's timeline.
pub fn fire_marks(id: &str) -> String {
    format!("svg#timeline g.fire[data-job=\"{id}\"]")
}

/// Returns how many marks the two-hourly routine has.
pub async fn the_login_link_opens_today_with_the_routines_on_the_timeline(
    browser: &Browser,
    link: &str,
) -> usize {
    browser.open(link, "main#page-today").await;
    let at = url::Url::parse(&browser.url().await).expect("an address");
    assert_eq!(at.path(), "/", "the link lands on Today");
    assert!(
        at.query().is_none(),
        "the token is gone from the address: {at}"
    );
    assert!(
        browser.text("h1").await.contains("Today"),
        "{}",
        browser.page_text().await
    );
    browser.wait_for("svg#timeline").await;
    for id in [MORNING, STRETCH, EVENING] {
        assert!(
            browser.count(&fire_marks(id)).await >= 1,
            "routine {id} has no mark on the timeline"
        );
    }
    // Every two hours: twelve fire times in a day (eleven to thirteen with a DST change or
    // both ends of the window drawn).
    let stretch = browser.count(&fire_marks(STRETCH)).await;
    assert!(
        (11..=13).contains(&stretch),
        "{stretch} marks every two hours"
    );
    browser.screenshot("today").await;
    stretch
}

pub async fn the_login_links_second_use_is_refused(browser: &Browser, link: &str) {
    browser
        .client
        .goto(link)
        .await
        .unwrap_or_else(|e| panic!("open {link}: {e}"));
    let text = browser.page_text().await;
    assert!(
        text.contains("already used or has expired"),
        "the second use of the link: {text}"
    );
    assert_eq!(browser.count("main#page-today").await, 0, "{text}");
    browser.screenshot("login-refused").await;
}
