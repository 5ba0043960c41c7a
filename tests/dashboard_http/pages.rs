//! The pages beside Today and Jobs — Runs, Memory, Updates, Spend, Webhooks, Health — over plain
//! HTTP against one real bot (the real `claude` CLI on the mock model): each shows the facts its
//! actors hold, and Memory's Undo changes `context.md` only through the same undo `/memory` uses,
//! only with the session's CSRF token from our own origin.

use std::time::{Duration, Instant};

use reqwest::header::ORIGIN;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::console_bot::{Bot, Home};
use crate::doors::{client, cookie_from, csrf_in, free_port, link_in, wait_listening};
use crate::support::home::background_reminder;
use crate::support::mock_model_api::{MockModelApi, ModelRequest, Reply};

/// The background reminder's id: it reports an update and ends with a cost.
const JOB: &str = "d3run001";
/// What it reports.
const UPDATE: &str = "D3-UPDATE: the ferns were watered";
const HOOK_SECRET: &str = "d3-hook-secret";
/// A webhook with one enum field (nothing for the screener to read).
const HOOK_SPEC: &str = "---\nid: \"ci\"\nfields:\n  type: object\n  required: [status]\n  properties:\n    status:\n      type: string\n      enum: [ok, failed]\n---\nCI finished: {status}.\n";
const FIRST: &str = "- D3-FIRST: Robin is moving in May\n";
const SECOND: &str = "- D3-SECOND: the dentist is on Friday\n";
const WAIT: Duration = Duration::from_secs(120);

/// Tool results the agent has had since the message holding `tag`; `None` when no message
/// holds it.
fn steps_after(req: &ModelRequest, tag: &str) -> Option<usize> {
    let messages = req.messages();
    let start = messages
        .iter()
        .position(|m| m["role"] == "user" && m.to_string().contains(tag))?;
    Some(
        messages[start..]
            .iter()
            .filter(|m| m["role"] == "user")
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_result")
            .count(),
    )
}

fn script(req: &ModelRequest, context_path: &str) -> Reply {
    if let Some(step) = steps_after(req, &format!("[reminder-bg:{JOB}]")) {
        return match step {
            0 => Reply::ToolUse {
                name: "mcp__discord__report_updates".into(),
                input: json!({ "message": UPDATE }),
            },
            _ => Reply::Text("watered".into()),
        };
    }
    if req.mentions("[webhook:ci]") {
        return Reply::Text("hook handled".into());
    }
    if !req.tool_results().is_empty() {
        return Reply::Text("noted in memory".into());
    }
    let text = req.latest_user_text();
    let write = |content: String| Reply::ToolUse {
        name: "Write".into(),
        input: json!({ "file_path": context_path, "content": content }),
    };
    if text.contains("remember one") {
        write(FIRST.to_owned())
    } else if text.contains("remember two") {
        write(format!("{FIRST}{SECOND}"))
    } else {
        Reply::Text("ok".into())
    }
}

/// The run history's lines.
fn runs(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.state("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

struct Site {
    http: reqwest::Client,
    base: String,
    cookie: String,
}

impl Site {
    async fn get(&self, path: &str) -> (StatusCode, String) {
        let res = self
            .http
            .get(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .send()
            .await
            .expect("get");
        let status = res.status();
        (status, res.text().await.expect("body"))
    }

    /// The page at `path` once `ready` holds for it; fails after [`WAIT`].
    async fn until(&self, path: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let (status, html) = self.get(path).await;
            assert_eq!(status, StatusCode::OK, "{path}: {html}");
            if ready(&html) {
                return html;
            }
            assert!(Instant::now() < deadline, "{path}: never {what}: {html}");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    async fn post(
        &self,
        path: &str,
        origin: Option<&str>,
        form: &[(&str, &str)],
    ) -> (StatusCode, String) {
        let mut req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .form(form);
        if let Some(o) = origin {
            req = req.header(ORIGIN, o);
        }
        let res = req.send().await.expect("post");
        let status = res.status();
        (status, res.text().await.expect("body"))
    }
}

/// `<main id="page-<name>">` with `<h1><title></h1>`.
fn is_page(html: &str, name: &str, title: &str) -> bool {
    html.contains(&format!("<main id=\"page-{name}\">"))
        && html.contains(&format!("<h1>{title}</h1>"))
}

/// The rows of `html` that start with `<tr class="run" data-job="<job>"`.
fn run_rows<'a>(html: &'a str, job: &str) -> Vec<&'a str> {
    let start = format!("<tr class=\"run\" data-job=\"{job}\"");
    html.match_indices(&start)
        .map(|(at, _)| {
            let rest = &html[at..];
            &rest[..rest.find("</tr>").unwrap_or(rest.len())]
        })
        .collect()
}

/// The text of the first `<td class="cost">` in `row`.
fn cost_in(row: &str) -> &str {
    let at = row.find("<td class=\"cost\">").expect("a cost cell") + "<td class=\"cost\">".len();
    &row[at..at + row[at..].find("</td>").expect("cell end")]
}

async fn post_hook(port: u16, auth: Option<&str>, body: &str) -> u16 {
    let mut req = client()
        .post(format!("http://127.0.0.1:{port}/hook/ci"))
        .header("Content-Type", "application/json")
        .body(body.to_owned());
    if let Some(a) = auth {
        req = req.header("Authorization", a);
    }
    req.send().await.expect("post hook").status().as_u16()
}

#[tokio::test]
async fn each_page_shows_what_its_actors_hold_and_undo_goes_through_memorys_own_path() {
    let home = Home::new();
    let context = home.data.join("context.md");
    let context_path = context.display().to_string();
    let mock = MockModelApi::start(move |req| script(req, &context_path))
        .await
        .expect("mock");
    home.write(
        "reminders/water.md",
        &background_reminder(3, JOB, "water the ferns"),
    );
    home.write("webhooks/ci.md", HOOK_SPEC);
    let port = free_port();
    let hook_port = free_port();
    let (port_text, hook_text) = (port.to_string(), hook_port.to_string());
    let mut bot = Bot::start_with(
        &home,
        &mock,
        &[
            ("DASHBOARD_PORT", &port_text),
            ("WEBHOOK_PORT", &hook_text),
            ("WEBHOOK_SECRET", HOOK_SECRET),
        ],
    )
    .await;
    wait_listening(port).await;
    wait_listening(hook_port).await;
    bot.say("/dashboard").await;
    let link = link_in(&bot.expect("/login?token=").await);
    let http = client();
    let login = http.get(&link).send().await.expect("login");
    assert_eq!(login.status(), StatusCode::SEE_OTHER);
    let (cookie, _) = cookie_from(login.headers());
    let site = Site {
        http,
        base: format!("http://127.0.0.1:{port}"),
        cookie,
    };

    // Runs: the background reminder's run, with the cost the CLI reported.
    let html = site
        .until("/runs", "the reminder's run", |h| {
            run_rows(h, JOB).iter().any(|r| r.contains("outcome ok"))
        })
        .await;
    assert!(is_page(&html, "runs", "Runs"), "{html}");
    let line = runs(&home)
        .into_iter()
        .find(|r| r["job"] == JOB)
        .expect("the run's line");
    let cost = line["cost_usd"].as_f64().expect("a cost on the line");
    assert!(cost > 0.0, "{line}");
    let row = run_rows(&html, JOB)[0];
    assert_eq!(cost_in(row), format!("${cost:.4}"), "{row}");
    let turns = line["turns"].as_u64().expect("turns");
    assert!(
        row.contains(&format!("<td class=\"turns\">{turns}</td>")),
        "{row}"
    );
    // The filter keeps one job's rows.
    let (_, only) = site.get(&format!("/runs?job={JOB}")).await;
    assert_eq!(run_rows(&only, JOB).len(), 1, "{only}");
    let (_, other) = site.get("/runs?job=nothing1").await;
    assert!(run_rows(&other, JOB).is_empty(), "{other}");
    assert!(other.contains("no runs of nothing1"), "{other}");
    // Its reflection (written after the run closes) and its transcript.
    let run_id = line["run"].as_str().expect("run id").to_owned();
    let html = site
        .until("/runs", "the run's reflection", |h| {
            run_rows(h, JOB).first().is_some_and(|r| {
                !r.contains("<td class=\"wide reflection\"><span class=\"note\">—")
            })
        })
        .await;
    let row = run_rows(&html, JOB)[0];
    let transcript = format!("/runs/{run_id}/transcript");
    assert!(row.contains(&format!("href=\"{transcript}\"")), "{row}");
    let (status, page) = site.get(&transcript).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("report_updates"), "{page}");
    let (status, _) = site.get("/runs/nosuchrun/transcript").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Updates: what it reported, not yet read by the conversation.
    let (status, html) = site.get("/updates").await;
    assert_eq!(status, StatusCode::OK);
    assert!(is_page(&html, "updates", "Updates"), "{html}");
    assert!(html.contains(UPDATE), "{html}");

    // Spend: today's jobs against the daily cap, and the job's own line.
    let (_, html) = site.get("/spend").await;
    assert!(is_page(&html, "spend", "Spend"), "{html}");
    let today = format!("${cost:.4} of $10.00");
    assert!(html.contains(&today), "{today}: {html}");
    assert!(html.contains(&format!("data-job=\"{JOB}\"")), "{html}");
    assert!(html.contains("<svg id=\"spend-chart\""), "{html}");

    // Webhooks: the spec, each answer, and what the accepted one did.
    assert_eq!(post_hook(hook_port, None, r#"{"status":"ok"}"#).await, 401);
    let bearer = format!("Bearer {HOOK_SECRET}");
    assert_eq!(
        post_hook(hook_port, Some(&bearer), r#"{"status":"maybe"}"#).await,
        400
    );
    assert_eq!(
        post_hook(hook_port, Some(&bearer), r#"{"status":"ok"}"#).await,
        202
    );
    let html = site
        .until("/webhooks", "the hook's run", |h| {
            !run_rows(h, "ci").is_empty()
        })
        .await;
    assert!(is_page(&html, "webhooks", "Webhooks"), "{html}");
    assert!(html.contains("id=\"hook-ci\""), "{html}");
    for answer in [
        "401</span> unauthorized",
        "400</span>",
        "202</span> accepted",
    ] {
        assert!(html.contains(answer), "{answer}: {html}");
    }

    // Health: doctor's checks, as the command runs them.
    let (_, html) = site.get("/health").await;
    assert!(is_page(&html, "health", "Health"), "{html}");
    assert!(html.contains("id=\"health-summary\""), "{html}");
    assert!(
        html.contains("<b>PASS</b>") && html.contains("claude cli"),
        "{html}"
    );

    // Memory: two changes by the conversation; Undo reverts the last, once, and only with
    // the session's token from our own origin.
    bot.say("remember one").await;
    bot.expect("noted in memory").await;
    bot.say("remember two").await;
    bot.expect("noted in memory").await;
    let (_, html) = site.get("/memory").await;
    assert!(is_page(&html, "memory", "Memory"), "{html}");
    assert!(
        html.contains(&format!("<pre id=\"context\">{FIRST}{SECOND}</pre>")),
        "{html}"
    );
    let csrf = csrf_in(&html);
    let change = {
        let at = html
            .find("name=\"change\" value=\"")
            .expect("Undo names its change")
            + "name=\"change\" value=\"".len();
        html[at..at + html[at..].find('"').expect("quote")].to_owned()
    };
    let two = format!("{FIRST}{SECOND}");
    for (origin, form, why) in [
        (
            Some(site.base.as_str()),
            vec![("change", change.as_str())],
            "no token",
        ),
        (
            Some("http://evil.example"),
            vec![("csrf", csrf.as_str()), ("change", change.as_str())],
            "foreign origin",
        ),
    ] {
        let (status, _) = site.post("/memory/undo", origin, &form).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{why}");
        assert_eq!(
            std::fs::read_to_string(&context).expect("context.md"),
            two,
            "{why}"
        );
    }
    let form = [("csrf", csrf.as_str()), ("change", change.as_str())];
    let (status, html) = site.post("/memory/undo", Some(&site.base), &form).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains(&format!("undid {change}")), "{html}");
    assert_eq!(
        std::fs::read_to_string(&context).expect("context.md"),
        FIRST
    );
    let (_, html) = site.get("/memory").await;
    assert!(
        html.contains(&format!("<pre id=\"context\">{FIRST}</pre>")),
        "{html}"
    );
    // The same form again names a change that is no longer the last: nothing changes.
    let (_, html) = site.post("/memory/undo", Some(&site.base), &form).await;
    assert!(html.contains("nothing undone"), "{html}");
    assert_eq!(
        std::fs::read_to_string(&context).expect("context.md"),
        FIRST
    );
    // Search finds what is remembered.
    let (_, html) = site.get("/memory?q=Robin").await;
    assert!(html.contains("<code>context.md:1</code>"), "{html}");

    bot.finish().await;
}
