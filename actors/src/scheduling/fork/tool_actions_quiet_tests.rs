//! The checks that refuse a background fork's output and spend nothing — quiet hours, a text
//! the job already sent today — and which output marks the fork's run as pinged.

use std::sync::Arc;

use super::*;

#[actix_rt::test]
async fn in_quiet_hours_only_critical_output_goes_out_and_nothing_is_spent() {
    let setup = Setup::new();
    let window: QuietHours = "22:00-08:00".parse().unwrap();
    // 23:30 in New York.
    setup
        .clock
        .set(nine_am() + chrono::Duration::minutes(14 * 60 + 30));
    let fork = setup.fork("a1b2c3d4", Main::idle(Some(window), setup.clock.shared()));
    let quiet = Err(Refusal::QuietHours {
        until: "8:00 AM".into(),
    });
    assert_eq!(fork.send(ping("[bg] stretch", false)).await.unwrap(), quiet);
    let embed = ToolAction::Embed {
        embed: Embed {
            title: "Inbox".into(),
            description: None,
            color: EmbedColor::Blue,
            fields: vec![],
            buttons: vec![],
            footer: Some("bg".into()),
        },
        critical: false,
    };
    assert_eq!(fork.send(embed).await.unwrap(), quiet);
    assert_eq!(setup.tokens().await, 5, "a refusal spends nothing");
    assert!(pings(&setup.shown().await).is_empty());
    let urgent = fork.send(ping("[bg] the oven is on", true)).await.unwrap();
    assert_eq!(urgent, Ok(()), "critical goes through quiet hours");
    assert_eq!(pings(&setup.shown().await), ["[bg] the oven is on"]);
    assert_eq!(setup.tokens().await, 5);
    // At 8:00 the window is over.
    setup
        .clock
        .set(nine_am() + chrono::Duration::minutes(23 * 60));
    let morning = setup.fork("a1b2c3d4", Main::idle(Some(window), setup.clock.shared()));
    assert_eq!(
        morning.send(ping("[bg] stretch", false)).await.unwrap(),
        Ok(())
    );
    assert_eq!(setup.tokens().await, 4);
}

#[actix_rt::test]
async fn the_same_text_from_the_same_job_is_refused_for_a_day_spending_nothing() {
    let setup = Setup::new();
    let idle = |s: &Setup| Main::idle(None, s.clock.shared());
    let first = setup.fork("a1b2c3d4", idle(&setup));
    assert_eq!(
        first
            .send(ping("[bg] Drink some water", false))
            .await
            .unwrap(),
        Ok(())
    );
    assert_eq!(setup.tokens().await, 4);
    setup.clock.advance(chrono::Duration::hours(2));
    let before = setup.tokens().await;
    let again = setup.fork("a1b2c3d4", idle(&setup));
    let refused = again
        .send(ping("[bg]   drink SOME water\n", false))
        .await
        .unwrap();
    assert_eq!(
        refused,
        Err(Refusal::AlreadySentThis {
            sent_at: "9:00 AM".into()
        })
    );
    assert_eq!(setup.tokens().await, before, "the repeat spent nothing");
    // The same words from another job are news.
    let other = setup.fork("b2c3d4e5", idle(&setup));
    assert_eq!(
        other
            .send(ping("[bg] drink some water", false))
            .await
            .unwrap(),
        Ok(())
    );
    // The next evening it is still refused, with the day named; a day later it goes out.
    setup.clock.set(nine_am() + chrono::Duration::hours(23));
    let evening = setup.fork("a1b2c3d4", idle(&setup));
    let refused = evening
        .send(ping("[bg] drink some water", false))
        .await
        .unwrap();
    assert_eq!(
        refused,
        Err(Refusal::AlreadySentThis {
            sent_at: "9:00 AM yesterday".into()
        })
    );
    setup.clock.set(nine_am() + chrono::Duration::hours(24));
    let later = setup.fork("a1b2c3d4", idle(&setup));
    assert_eq!(
        later
            .send(ping("[bg] drink some water", false))
            .await
            .unwrap(),
        Ok(())
    );
    let sent = pings(&setup.shown().await);
    assert_eq!(sent.len(), 3, "{sent:?}");
}

/// A file for `send_file`.
fn file(name: &str) -> ToolAction {
    ToolAction::File(crate::agent::tools::SentFile {
        path: format!("/data/{name}").into(),
        name: name.to_owned(),
        caption: None,
        critical: false,
        bytes: crate::agent::tools::files::FileBytes(Arc::new(b"notes".to_vec())),
    })
}

#[actix_rt::test]
async fn a_critical_file_goes_out_in_quiet_hours_like_a_critical_ping() {
    let setup = Setup::new();
    let window: QuietHours = "22:00-08:00".parse().unwrap();
    setup
        .clock
        .set(nine_am() + chrono::Duration::minutes(14 * 60 + 30));
    let fork = setup.fork("a1b2c3d4", Main::idle(Some(window), setup.clock.shared()));
    let refused = fork.send(file("notes.txt")).await.unwrap();
    assert!(
        matches!(refused, Err(Refusal::QuietHours { .. })),
        "{refused:?}"
    );
    let ToolAction::File(mut critical) = file("alarm.txt") else {
        unreachable!()
    };
    critical.critical = true;
    assert_eq!(fork.send(ToolAction::File(critical)).await.unwrap(), Ok(()));
    let files = setup
        .shown()
        .await
        .iter()
        .filter(|e| matches!(e, SurfaceEvent::File { .. }))
        .count();
    assert_eq!(files, 1);
}

#[actix_rt::test]
async fn only_output_that_passed_every_check_marks_its_run_as_pinged() {
    let setup = Setup::new();
    let window: QuietHours = "22:00-08:00".parse().unwrap();
    // 23:30 in New York: a ping, an embed's words and a file are all refused for quiet hours.
    setup
        .clock
        .set(nine_am() + chrono::Duration::minutes(14 * 60 + 30));
    let quiet = |s: &Setup| Main::idle(Some(window), s.clock.shared());
    let (night, run) = setup.fork_with_run("a1b2c3d4", quiet(&setup)).await;
    let refused = night.send(ping("[bg] stretch", false)).await.unwrap();
    assert!(
        matches!(refused, Err(Refusal::QuietHours { .. })),
        "{refused:?}"
    );
    let refused = night.send(file("notes.txt")).await.unwrap();
    assert!(
        matches!(refused, Err(Refusal::QuietHours { .. })),
        "{refused:?}"
    );
    assert!(!setup.pinged(&run), "a refused ping or file marks nothing");
    // At 8:00 the same fork's ping passes: now the run is marked, before it is shown.
    setup
        .clock
        .set(nine_am() + chrono::Duration::minutes(23 * 60));
    assert_eq!(
        night.send(ping("[bg] stretch", false)).await.unwrap(),
        Ok(())
    );
    assert!(setup.pinged(&run));
    // The next run of the job repeats the text: refused as a repeat, its run unmarked; its
    // file (never compared with earlier output) goes out and marks it.
    setup.clock.advance(chrono::Duration::hours(1));
    let (again, second) = setup.fork_with_run("a1b2c3d4", quiet(&setup)).await;
    let repeat = again.send(ping("[bg] Stretch", false)).await.unwrap();
    assert!(
        matches!(repeat, Err(Refusal::AlreadySentThis { .. })),
        "{repeat:?}"
    );
    assert!(!setup.pinged(&second), "a refused repeat marks nothing");
    assert_eq!(again.send(file("notes.txt")).await.unwrap(), Ok(()));
    assert!(setup.pinged(&second));
    let files = setup
        .shown()
        .await
        .iter()
        .filter(|e| matches!(e, SurfaceEvent::File { .. }))
        .count();
    assert_eq!(files, 1, "only the file that passed was shown");
}
