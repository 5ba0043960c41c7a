//! The grant in the original's format (Python google-auth `Credentials.to_json()`): used as
//! written, refreshed when expired and rewritten byte-compatibly; `invalid_grant` removes it and
//! leaves the marker the bot reports.

use serde_json::Value;

use crate::harness::{expiry_in, Setup};

#[test]
fn an_expired_original_token_is_refreshed_and_rewritten_in_the_originals_format() {
    let s = Setup::connected();
    let (old_access, refresh) = s.fake.grant();
    s.write_token(
        &s.fake
            .token_file(&old_access, &refresh, "2026-01-05T08:00:00.482913Z"),
    );
    s.fake.add_task("Buy milk", None, false);
    assert_eq!(s.run(&["tasks", "list"]).lines().len(), 1);

    let refreshes = s.fake.requests_to("/token");
    assert_eq!(refreshes.len(), 1, "one refresh");
    let form = refreshes[0].form();
    assert_eq!(form["grant_type"], "refresh_token");
    assert_eq!(form["refresh_token"], refresh);
    assert_eq!(form["client_id"], crate::support::fake_google::CLIENT_ID);

    let written = s.token();
    let parsed: Value = serde_json::from_str(&written).unwrap();
    let new_access = parsed["token"].as_str().unwrap();
    assert_ne!(new_access, old_access);
    let expiry = parsed["expiry"].as_str().unwrap();
    assert_eq!(
        written,
        s.fake.token_file(new_access, &refresh, expiry),
        "same keys, order, spacing and refresh token as google-auth writes"
    );
    let expires = chrono::DateTime::parse_from_rfc3339(expiry).unwrap();
    let in_an_hour = chrono::Utc::now() + chrono::Duration::seconds(3599);
    assert!(
        (expires.with_timezone(&chrono::Utc) - in_an_hour)
            .num_seconds()
            .abs()
            < 60,
        "{expiry}"
    );
    let api = &s.fake.requests_to("/tasks/")[0];
    assert_eq!(
        api.authorization.as_deref(),
        Some(format!("Bearer {new_access}").as_str())
    );
    let leftovers: Vec<_> = s
        .snapshot()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "the rewrite is atomic: {leftovers:?}");

    s.run(&["tasks", "list"]).lines();
    assert_eq!(
        s.fake.requests_to("/token").len(),
        1,
        "the refreshed token is used as is"
    );
}

#[test]
fn without_a_client_file_the_tokens_own_token_uri_refreshes_it() {
    let s = Setup::connected();
    std::fs::remove_file(s.state("credentials.json")).unwrap();
    let (access, refresh) = s.fake.grant();
    s.write_token(&s.fake.token_file(&access, &refresh, &expiry_in(-5)));
    assert_eq!(s.run(&["tasks", "list"]).lines(), ["no tasks"]);
    assert_eq!(s.fake.requests_to("/token").len(), 1);
}

#[test]
fn invalid_grant_removes_the_token_and_leaves_the_marker_for_the_bot() {
    let s = Setup::connected();
    let (access, refresh) = s.fake.grant();
    s.write_token(&s.fake.token_file(&access, &refresh, &expiry_in(-5)));
    s.fake.revoke(&refresh);
    let err = s.run(&["tasks", "list"]).failure();
    assert!(
        err.contains("revoked") && err.contains("/google-auth"),
        "{err}"
    );
    assert!(!s.state("token.json").exists(), "the revoked grant is gone");
    assert!(
        s.state("google_auth_revoked").exists(),
        "the marker is left"
    );
    assert!(
        s.fake.requests_to("/tasks/").is_empty(),
        "no API call was made"
    );

    let err = s.run(&["cal", "today"]).failure();
    assert!(err.contains("not connected"), "{err}");
}

#[test]
fn a_refresh_that_cannot_reach_google_changes_nothing() {
    let s = Setup::connected();
    let (access, refresh) = s.fake.grant();
    let closed = closed_port();
    s.write_token(&s.fake.token_file(&access, &refresh, &expiry_in(-5)));
    let client = s.fake.client_file().replace(
        &s.fake.token_uri(),
        &format!("http://127.0.0.1:{closed}/token"),
    );
    std::fs::write(s.state("credentials.json"), client).unwrap();
    let before = s.snapshot();
    let err = s.run(&["tasks", "list"]).failure();
    assert!(
        err.contains("could not reach Google's token endpoint"),
        "{err}"
    );
    assert_eq!(s.snapshot(), before, "nothing written");
}

/// A port nothing listens on.
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
