//! Signed hooks and the limits every hook has (SPEC §20): a correctly signed GitHub and
//! Standard Webhooks request is accepted; a wrong signature, a stale timestamp, a replayed
//! delivery id (also after a restart), the request past the rate limit and a secret in the
//! query string are refused and start nothing.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use ring::hmac;
use serde_json::json;

use crate::harness::{post_with, Hooks, Verdict, CI_SPEC, SECRET};

const GH_ENV: &str = "OLLIM_TEST_GITHUB_HOOK_SECRET";
const GH_SECRET: &str = "gh-hook-secret";
const SW_ENV: &str = "OLLIM_TEST_STANDARD_HOOK_SECRET";
/// `whsec_` and the base64 of "standard-key".
const SW_SECRET: &str = "whsec_c3RhbmRhcmQta2V5";
const BODY: &str = r#"{"repo": "ollim-bot", "status": "ok"}"#;

fn spec(id: &str, keys: &str) -> String {
    CI_SPEC.replace("id: \"ci\"\n", &format!("id: \"{id}\"\n{keys}"))
}

fn github_signature(body: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, GH_SECRET.as_bytes());
    let tag = hmac::sign(&key, body.as_bytes());
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

fn standard_signature(id: &str, timestamp: i64, body: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, b"standard-key");
    let tag = hmac::sign(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    format!("v1,{}", BASE64.encode(tag.as_ref()))
}

async fn github(
    hooks: &Hooks,
    delivery: &str,
    signature: &str,
) -> (u16, String, serde_json::Value) {
    post_with(
        hooks.addr,
        "gh",
        &[
            ("X-GitHub-Event", "workflow_run"),
            ("X-GitHub-Delivery", delivery),
            ("X-Hub-Signature-256", signature),
        ],
        BODY.as_bytes(),
    )
    .await
}

async fn standard(hooks: &Hooks, id: &str, timestamp: i64, signature: &str) -> u16 {
    let ts = timestamp.to_string();
    post_with(
        hooks.addr,
        "sw",
        &[
            ("webhook-id", id),
            ("webhook-timestamp", &ts),
            ("webhook-signature", signature),
        ],
        BODY.as_bytes(),
    )
    .await
    .0
}

async fn signed_hooks() -> Hooks {
    std::env::set_var(GH_ENV, GH_SECRET);
    std::env::set_var(SW_ENV, SW_SECRET);
    Hooks::start(
        &[
            (
                "gh.md",
                &spec("gh", &format!("auth: github\nsecret-env: {GH_ENV}\n")),
            ),
            (
                "sw.md",
                &spec("sw", &format!("auth: standard\nsecret-env: {SW_ENV}\n")),
            ),
        ],
        Verdict::Safe,
    )
    .await
}

#[actix_rt::test]
async fn signed_deliveries_are_accepted_once_and_forged_or_stale_ones_start_nothing() {
    let hooks = signed_hooks().await;
    let now = hooks.clock.shared().now().timestamp();
    let good = github_signature(BODY);

    assert_eq!(
        github(&hooks, "d-1", &good).await.0,
        202,
        "a signed GitHub delivery"
    );
    let forged = github_signature(r#"{"repo": "other", "status": "ok"}"#);
    let (status, _, body) = github(&hooks, "d-2", &forged).await;
    assert_eq!(
        (status, &body["error"]),
        (401, &json!("signature does not match"))
    );
    let bearer_only = post_with(
        hooks.addr,
        "gh",
        &[
            ("Authorization", &format!("Bearer {SECRET}")),
            ("X-GitHub-Delivery", "d-3"),
        ],
        BODY.as_bytes(),
    )
    .await;
    assert_eq!(
        bearer_only.0, 401,
        "a signed hook does not take the bearer token"
    );

    let sig = standard_signature("msg-1", now, BODY);
    assert_eq!(
        standard(&hooks, "msg-1", now, &sig).await,
        202,
        "a signed Standard Webhook"
    );
    let stale = now - 6 * 60;
    let stale_sig = standard_signature("msg-2", stale, BODY);
    assert_eq!(
        standard(&hooks, "msg-2", stale, &stale_sig).await,
        401,
        "6 minutes old"
    );
    let wrong = standard_signature("msg-3", now, "{}");
    assert_eq!(
        standard(&hooks, "msg-3", now, &wrong).await,
        401,
        "signed another body"
    );

    // A replay answers 200 duplicate and starts nothing, before and after a restart.
    let (status, _, body) = github(&hooks, "d-1", &good).await;
    assert_eq!((status, body), (200, json!({"status": "duplicate"})));
    assert_eq!(standard(&hooks, "msg-1", now, &sig).await, 200);
    let hooks = hooks.restart().await;
    let (status, _, body) = github(&hooks, "d-1", &good).await;
    assert_eq!(
        (status, body),
        (200, json!({"status": "duplicate"})),
        "after a restart"
    );

    // A fresh delivery after all that: once the runner has decided three runs, the work the
    // requests could start is over, and only the accepted three reached a job.
    assert_eq!(github(&hooks, "d-4", &good).await.0, 202);
    hooks.decided(3).await;
    assert_eq!(
        hooks.recorder.jobs().len(),
        3,
        "only accepted deliveries start jobs"
    );
    hooks.stop().await;
}

#[actix_rt::test]
async fn the_request_past_the_rate_limit_waits_and_a_secret_in_the_url_is_refused() {
    let hooks = Hooks::start(&[("ci.md", CI_SPEC)], Verdict::Safe).await;
    let auth = format!("Bearer {SECRET}");
    let leaked = post_with(
        hooks.addr,
        &format!("ci?token={SECRET}"),
        &[("Authorization", &auth)],
        BODY.as_bytes(),
    )
    .await;
    assert_eq!(leaked.0, 400, "{leaked:?}");
    for n in 1..=30 {
        let (status, _, _) = post_with(
            hooks.addr,
            "ci",
            &[("Authorization", &auth)],
            BODY.as_bytes(),
        )
        .await;
        assert_eq!(status, 202, "request {n}");
    }
    let (status, head, body) = post_with(
        hooks.addr,
        "ci",
        &[("Authorization", &auth)],
        BODY.as_bytes(),
    )
    .await;
    assert_eq!(status, 429, "{body}");
    let retry = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("retry-after: ")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("no Retry-After: {head}"));
    assert_eq!(
        retry, "60",
        "the window frees in a minute on a clock that stood still"
    );
    // The thirty accepted ones are decided; the refused ones started nothing.
    hooks.decided(30).await;
    assert_eq!(hooks.recorder.until(30).await.len(), 30);
    hooks.stop().await;
}

#[actix_rt::test]
async fn a_spec_whose_secret_variable_is_unset_is_not_served() {
    let hooks = Hooks::start(
        &[(
            "gh.md",
            &spec("gh", "auth: github\nsecret-env: OLLIM_TEST_NEVER_SET\n"),
        )],
        Verdict::Safe,
    )
    .await;
    let (status, _, _) = github(&hooks, "d-1", &github_signature(BODY)).await;
    assert_eq!(
        status, 401,
        "the spec did not load: the hook is unknown to an unsigned caller"
    );
    assert!(hooks.recorder.jobs().is_empty());
    hooks.stop().await;
}

/// A spec for GitHub's `workflow_run` events that declares only what it wants, nested too.
const GH_RUN_SPEC: &str = "---\nid: \"ghrun\"\nauth: github\nsecret-env: OLLIM_TEST_GITHUB_HOOK_SECRET\nfields:\n  type: object\n  properties:\n    action:\n      type: string\n      enum: [requested, in_progress, completed]\n    workflow_run:\n      type: object\n      properties:\n        name:\n          type: string\n          maxLength: 100\n        conclusion:\n          type: string\n          maxLength: 40\n---\nA workflow run is {action}.\n";

#[actix_rt::test]
async fn a_whole_github_event_keeps_only_what_the_spec_declares_and_its_ping_starts_nothing() {
    std::env::set_var(GH_ENV, GH_SECRET);
    let hooks = Hooks::start(&[("ghrun.md", GH_RUN_SPEC)], Verdict::Safe).await;
    let send = |event: &'static str, delivery: &'static str, body: String| {
        let addr = hooks.addr;
        async move {
            let signature = github_signature(&body);
            post_with(
                addr,
                "ghrun",
                &[
                    ("X-GitHub-Event", event),
                    ("X-GitHub-Delivery", delivery),
                    ("X-Hub-Signature-256", &signature),
                ],
                body.as_bytes(),
            )
            .await
        }
    };
    // GitHub's first delivery is a ping with fields no spec declares.
    let ping =
        json!({"zen": "Keep it logically awesome.", "hook_id": 7, "hook": {"type": "Repository"}});
    let (status, _, body) = send("ping", "p-1", ping.to_string()).await;
    assert_eq!((status, body), (200, json!({"status": "pong"})));

    // A real event repeats the repository and the sender and runs past the bearer hooks' 10 KB.
    let event = json!({
        "action": "completed",
        "workflow_run": {
            "name": "build-and-test",
            "conclusion": "failure",
            "head_commit": {"message": "UNDECLARED-COMMIT-MESSAGE"},
        },
        "repository": {"full_name": "o/r", "description": "x".repeat(30_000)},
        "sender": {"login": "UNDECLARED-SENDER"},
    })
    .to_string();
    assert!(event.len() > 10 * 1024);
    let (status, _, body) = send("workflow_run", "r-1", event).await;
    assert_eq!(status, 202, "{body}");
    hooks.decided(1).await;
    let jobs = hooks.recorder.until(1).await;
    assert_eq!(jobs.len(), 1, "the ping started nothing");
    let prompt = &jobs[0].prompt;
    assert!(prompt.contains("A workflow run is completed."), "{prompt}");
    assert!(
        prompt.contains("build-and-test") && prompt.contains("failure"),
        "{prompt}"
    );
    for dropped in [
        "UNDECLARED-COMMIT-MESSAGE",
        "UNDECLARED-SENDER",
        "xxxxxxxxxx",
    ] {
        assert!(
            !prompt.contains(dropped),
            "{dropped} reached the prompt: {prompt}"
        );
    }
    hooks.stop().await;
}
