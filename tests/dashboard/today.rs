//! Logging in and Today: the one-time link opens Today with the routines on its timeline, and
//! a second use of the same link is refused.

use crate::browser::Browser;
use crate::fixtures::{DENTIST, EVENING, MORNING, STRETCH};

/// The CSS of a routine's fire marks on Today's timeline.
pub fn fire_marks(id: &str) -> String {
    format!("svg#timeline g.fire[data-job=\"{id}\"]")
}

pub async fn the_login_link_opens_today_with_the_routines_on_the_timeline(
    browser: &Browser,
    link: &str,
) {
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
    // Once a day each (one past, one to come), every two hours twelve times, the reminder once.
    for (id, marks) in [(MORNING, 1), (EVENING, 1), (STRETCH, 12), (DENTIST, 1)] {
        assert_eq!(
            browser.count(&fire_marks(id)).await,
            marks,
            "{id}'s marks on the timeline"
        );
    }
    // What is still to come names the reminder by its description.
    let text = browser.page_text().await;
    assert!(text.contains("Call the dentist"), "{text}");
    browser.screenshot("today").await;
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
