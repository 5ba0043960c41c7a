//! Memory: the page shows `context.md` as the conversation last wrote it, and Undo reverts
//! that last change (the file and the page).

use crate::bot::Bot;
use crate::browser::Browser;
use crate::fixtures::{FIRST_MEMORY, NOTED, REMEMBER_FIRST, REMEMBER_SECOND, SECOND_MEMORY};
use crate::support::home::Home;

pub async fn undo_reverts_the_last_change(browser: &Browser, bot: &mut Bot, home: &Home) {
    let file = home.data.join("context.md");
    // Two changes by the conversation, each written with its Write tool and committed.
    bot.say(REMEMBER_FIRST).await;
    bot.expect(NOTED).await;
    bot.say(REMEMBER_SECOND).await;
    bot.expect(NOTED).await;
    assert_eq!(
        std::fs::read_to_string(&file).expect("context.md"),
        format!("{FIRST_MEMORY}\n{SECOND_MEMORY}\n")
    );
    browser.open(&bot.url("/memory"), "pre#context").await;
    let shown = browser.text("pre#context").await;
    assert!(
        shown.contains(FIRST_MEMORY) && shown.contains(SECOND_MEMORY),
        "{shown}"
    );
    browser.screenshot("memory").await;

    let undo = "main#page-memory form[action$=\"/memory/undo\"] button";
    assert_eq!(browser.text(undo).await, "Undo");
    browser.click_through(undo).await;
    let answer = browser.text("main#page-memory").await;
    assert!(answer.contains("undid"), "the answer to Undo: {answer}");
    // The page after the Undo shows the file as it was before the last change.
    browser.open(&bot.url("/memory"), "pre#context").await;
    let shown = browser.text("pre#context").await;
    assert!(
        shown.contains(FIRST_MEMORY) && !shown.contains(SECOND_MEMORY),
        "after Undo: {shown}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("context.md"),
        format!("{FIRST_MEMORY}\n"),
        "Undo reverted the last change"
    );
    browser.screenshot("memory-undone").await;
}
