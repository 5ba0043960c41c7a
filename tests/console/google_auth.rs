//! Google sign-in on the console, with a fake Google on 127.0.0.1: `/google-auth` finished by
//! the browser's redirect or by the pasted redirect URL (which never reaches the agent, and is
//! refused with a foreign state), without a client file, and the revoked notice told once.

use serde_json::Value;

use crate::bot::{Bot, Home};
use crate::google::{bot_with_google, hi};
use crate::support::fake_google::FakeGoogle;
use crate::support::mock_model_api::MockModelApi;

/// Runs `/google-auth` and returns the consent URL it showed.
async fn start_auth(bot: &mut Bot) -> String {
    bot.say("/google-auth").await;
    bot.expect("click to connect google:").await;
    let url = bot.expect("http").await;
    bot.expect("-# on another device? paste the redirect url here · 5 min timeout")
        .await;
    url.trim().to_owned()
}

/// The new grant is in token.json, in the original's format, from the fake's code exchange.
fn assert_connected(home: &Home, fake: &FakeGoogle) {
    let exchange = fake.requests_to("/token");
    assert_eq!(exchange.len(), 1, "{exchange:#?}");
    let form = exchange[0].form();
    assert_eq!(form["grant_type"], "authorization_code");
    assert!(form["code_verifier"].len() >= 43, "PKCE verifier sent");
    let written = std::fs::read_to_string(home.state("token.json")).expect("token.json written");
    let token: Value = serde_json::from_str(&written).unwrap();
    let expiry = token["expiry"].as_str().unwrap();
    assert_eq!(
        written,
        fake.consented_token_file(
            token["token"].as_str().unwrap(),
            token["refresh_token"].as_str().unwrap(),
            expiry
        ),
        "written as google-auth writes it"
    );
    assert!(token["refresh_token"]
        .as_str()
        .unwrap()
        .starts_with("1//fake-refresh-"));
}
#[tokio::test]
async fn google_auth_is_finished_by_the_browsers_redirect() {
    let mock = MockModelApi::start(hi()).await.unwrap();
    let fake = FakeGoogle::start();
    let home = Home::new();
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    let url = start_auth(&mut bot).await;
    let q: std::collections::HashMap<String, String> = url::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert_eq!(q["access_type"], "offline");
    assert!(q["redirect_uri"].starts_with("http://127.0.0.1:"));
    let redirect = fake.consent(&url).await;
    let page = reqwest::get(&redirect).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Auth complete"));
    bot.expect("google connected.").await;
    assert_connected(&home, &fake);
    bot.say("/google-auth").await;
    bot.expect("google already connected.").await;
    bot.finish().await;
}

#[tokio::test]
async fn a_pasted_redirect_finishes_google_auth_and_never_reaches_the_agent() {
    let mock = MockModelApi::start(hi()).await.unwrap();
    let fake = FakeGoogle::start();
    let home = Home::new();
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    let url = start_auth(&mut bot).await;
    let redirect = fake.consent(&url).await;
    let state = url::Url::parse(&redirect)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    bot.say(&redirect.replace(&state, "someone-elses-state"))
        .await;
    bot.expect("google auth refused").await;
    assert!(
        !home.state("token.json").exists(),
        "a foreign state connects nothing"
    );
    bot.say(&redirect).await;
    bot.expect("google connected.").await;
    assert_connected(&home, &fake);
    bot.say(&redirect).await;
    bot.expect("no google sign-in is waiting").await;
    bot.finish().await;
    let code = redirect
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    assert!(
        !mock
            .all_requests()
            .iter()
            .any(|r| r.mentions(code) || r.mentions("127.0.0.1:")),
        "the redirect never went to the model"
    );
}

#[tokio::test]
async fn google_auth_without_a_client_file_says_how_to_make_one() {
    let mock = MockModelApi::start(hi()).await.unwrap();
    let home = Home::new();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("/google-auth").await;
    let line = bot.expect("google credentials not found").await;
    assert!(line.contains("credentials.json"), "{line}");
    bot.expect("\"Desktop app\"").await;
    bot.finish().await;
}

#[tokio::test]
async fn a_grant_revoked_under_the_cli_is_told_once() {
    let mock = MockModelApi::start(hi()).await.unwrap();
    let fake = FakeGoogle::start();
    let home = Home::new();
    let (access, refresh) = fake.grant();
    home.write(
        "state/token.json",
        &fake.token_file(&access, &refresh, "2020-01-01T00:00:00Z"),
    );
    fake.revoke(&refresh);
    let mut bot = bot_with_google(&home, &mock, &fake).await;
    // The agent's own command, as a separate process on the same data directory.
    let cli = tokio::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(["tasks", "list"])
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_GOOGLE_API_BASE", fake.base_url())
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .await
        .unwrap();
    assert_eq!(cli.status.code(), Some(1));
    bot.expect("-# google auth revoked — use /google-auth to reconnect.")
        .await;
    assert!(
        !home.state("google_auth_revoked").exists(),
        "told once: the marker is gone"
    );
    assert!(!home.state("token.json").exists());
    let seen = bot.finish().await;
    let told = seen
        .iter()
        .filter(|l| l.contains("google auth revoked"))
        .count();
    assert_eq!(told, 1, "{seen:#?}");
}
