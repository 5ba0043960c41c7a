//! Bad input gets a clear error, exit code 1, and writes nothing: corrupt files, bad dates,
//! unknown ids, an unreachable Google, Google refusing, busy or failing — Google's answers said
//! in plain words (what happened, what to do), never as a bare HTTP status.

use crate::harness::{expiry_in, Setup};
use crate::support::fake_google::Failure;
use crate::token::closed_port;

#[test]
fn not_connected_says_how_to_connect() {
    let s = Setup::with_client_file();
    let err = s.run(&["tasks", "list"]).failure();
    assert!(
        err.contains("not connected") && err.contains("/google-auth"),
        "{err}"
    );
    assert!(err.contains("credentials.json"), "{err}");
}

#[test]
fn corrupt_files_are_named_and_left_alone() {
    let s = Setup::connected();
    s.write_token("{\"token\": \"half");
    let before = s.snapshot();
    let err = s.run(&["gmail", "unread"]).failure();
    assert!(
        err.contains("token.json") && err.contains("/google-auth"),
        "{err}"
    );
    assert_eq!(s.snapshot(), before);

    let s = Setup::connected();
    let (access, refresh) = s.fake.grant();
    s.write_token(&s.fake.token_file(&access, &refresh, &expiry_in(-5)));
    std::fs::write(s.state("credentials.json"), "{\"installed\": 3}").unwrap();
    let before = s.snapshot();
    let err = s.run(&["cal", "today"]).failure();
    assert!(
        err.contains("credentials.json") && err.contains("Desktop app"),
        "{err}"
    );
    assert_eq!(s.snapshot(), before);
    assert!(s.fake.requests().is_empty(), "nothing was sent");
}

#[test]
fn bad_arguments_are_refused_before_anything_is_sent() {
    let s = Setup::connected();
    for (args, says) in [
        (
            &["tasks", "add", "x", "--due", "2026-02-30"][..],
            "is not a date",
        ),
        (
            &["tasks", "update", "t1", "--due", "soon"][..],
            "is not a date",
        ),
        (&["tasks", "update", "t1"][..], "at least one of"),
        (
            &[
                "cal",
                "add",
                "x",
                "--start",
                "2026-02-24 9am",
                "--end",
                "2026-02-24T10:00",
            ][..],
            "is not a time",
        ),
        (
            &[
                "cal",
                "add",
                "x",
                "--start",
                "2026-02-24T10:00",
                "--end",
                "2026-02-24T09:00",
            ][..],
            "--end must be after --start",
        ),
        (&["cal", "update", "e1"][..], "at least one of"),
        (&["cal", "upcoming", "--days", "0"][..], "--days"),
        (&["gmail", "unread", "--max", "0"][..], "--max"),
    ] {
        let err = s.run(args).failure();
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert!(
        s.fake.requests().is_empty(),
        "nothing was sent: {:#?}",
        s.fake.requests()
    );
}

/// The one line the command printed for a failure, without Google's machinery.
fn plain(err: &str) -> &str {
    assert!(!err.contains("HTTP"), "no HTTP status: {err}");
    assert!(
        !err.contains("Requested entity"),
        "not Google's wording: {err}"
    );
    err
}

#[test]
fn an_unknown_id_says_there_is_no_such_item_and_what_to_do() {
    let s = Setup::connected();
    for args in [
        &["tasks", "done", "nope"][..],
        &["tasks", "delete", "nope"][..],
        &["cal", "show", "nope"][..],
        &["gmail", "read", "nope"][..],
    ] {
        let err = s.run(args).failure();
        assert!(
            plain(&err).contains("no such item") && err.contains("list them again"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_refused_or_revoked_connection_says_what_to_do() {
    let s = Setup::connected();
    for (status, message, says) in [
        (
            401,
            "Request had invalid authentication credentials.",
            "/google-auth to reconnect",
        ),
        (403, "The caller does not have permission", "right account"),
        (403, "Rate Limit Exceeded", "try again in a minute"),
    ] {
        s.fake.fail_next(Failure {
            method: Some("GET"),
            path_contains: "/tasks/v1/",
            status,
            message,
        });
        let err = s.run(&["tasks", "list"]).failure();
        assert!(plain(&err).contains(says), "{status}: {err}");
        assert!(
            !err.contains(message),
            "Google's words stay in the log: {err}"
        );
    }
}

#[test]
fn busy_or_failing_google_and_no_google_at_all_are_clear_errors() {
    let mut s = Setup::connected();
    let before = s.snapshot();
    s.fake.fail_next(Failure {
        method: Some("GET"),
        path_contains: "/tasks/v1/",
        status: 429,
        message: "Quota exceeded for quota metric 'Queries'.",
    });
    let err = s.run(&["tasks", "list"]).failure();
    assert!(
        plain(&err).contains("limiting requests") && err.contains("try again in a minute"),
        "{err}"
    );
    assert!(!err.contains("429") && !err.contains("Quota"), "{err}");
    s.fake.fail_next(Failure {
        method: None,
        path_contains: "/calendar/v3/",
        status: 503,
        message: "",
    });
    let err = s.run(&["cal", "today"]).failure();
    assert!(
        plain(&err).contains("trouble right now") && err.contains("try again in a few minutes"),
        "{err}"
    );
    assert!(!err.contains("503"), "{err}");
    assert_eq!(s.snapshot(), before, "nothing written");

    s.api_base = format!("http://127.0.0.1:{}", closed_port());
    let err = s.run(&["tasks", "list"]).failure();
    assert!(err.contains("could not reach Google"), "{err}");
    s.api_base = "ftp://nowhere".into();
    let err = s.run(&["tasks", "list"]).failure();
    assert!(err.contains("OLLIM_GOOGLE_API_BASE"), "{err}");
    assert_eq!(s.snapshot(), before, "nothing written");
}
