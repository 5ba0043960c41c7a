//! One bot, every door: the assertions share it (each bot start costs seconds of CI).

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Timelike;
use reqwest::header::{HeaderMap, CONTENT_SECURITY_POLICY, HOST, LOCATION, ORIGIN, SET_COOKIE};
use reqwest::redirect::Policy;
use reqwest::StatusCode;

use crate::console_bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// The fixture routine's description: data that must never reach a visitor without a session.
const SECRET_NAME: &str = "Water the ferns";

/// A routine firing every hour at a minute half an hour away from now (New York, the harness's
/// zone): marks on today's timeline, and no run while the test goes on.
fn routine() -> String {
    let minute = (chrono::Utc::now().minute() + 30) % 60;
    format!(
        "---\nid: ferns\ncron: \"{minute} * * * *\"\ndescription: {SECRET_NAME}\nbackground: true\n---\nCheck the ferns.\n"
    )
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    probe.local_addr().expect("its address").port()
}

/// Waits until `port` accepts connections on 127.0.0.1.
pub async fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "the dashboard never listened on 127.0.0.1:{port}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .no_proxy()
        .build()
        .expect("a client")
}

/// The link in a line like `dashboard login (…): http://127.0.0.1:P/login?token=T`.
pub fn link_in(line: &str) -> String {
    let at = line
        .find("http://")
        .unwrap_or_else(|| panic!("no link in {line:?}"));
    line[at..]
        .split_whitespace()
        .next()
        .expect("the link")
        .to_owned()
}

/// `ollim-bot dashboard` on `data`: its exit success and its output.
pub fn dashboard_command(data: &Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("dashboard")
        .env("OLLIM_DATA_DIR", data)
        .output()
        .expect("run ollim-bot dashboard");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The port is bound to 127.0.0.1 and nothing else: `/proc/net/tcp*` lists one listening
/// socket on it, local address 127.0.0.1.
fn listening_addresses(port: u16) -> Vec<String> {
    let mut found = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state)) = (fields.get(1), fields.get(3)) else {
                continue;
            };
            // 0A: LISTEN.
            let Some((addr, p)) = local.split_once(':') else {
                continue;
            };
            if *state == "0A" && u16::from_str_radix(p, 16).ok() == Some(port) {
                found.push(addr.to_owned());
            }
        }
    }
    found
}

pub fn cookie_from(headers: &HeaderMap) -> (String, String) {
    let set = headers
        .get(SET_COOKIE)
        .expect("the login sets a cookie")
        .to_str()
        .expect("ascii")
        .to_owned();
    let pair = set.split(';').next().expect("name=value").trim().to_owned();
    (pair, set)
}

pub fn csrf_in(html: &str) -> String {
    let at = html
        .find("name=\"csrf\" value=\"")
        .expect("a form with the CSRF token");
    let rest = &html[at + "name=\"csrf\" value=\"".len()..];
    rest[..rest.find('"').expect("closing quote")].to_owned()
}

#[tokio::test]
async fn one_bot_holds_every_door() {
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .expect("mock");
    let home = Home::new();
    home.write("routines/ferns.md", &routine());
    let routine_file = home.data.join("routines/ferns.md");
    let port = free_port();
    let port_text = port.to_string();
    let mut bot = Bot::start_with(&home, &mock, &[("DASHBOARD_PORT", &port_text)]).await;
    wait_listening(port).await;
    let base = format!("http://127.0.0.1:{port}");
    let http = client();

    // Loopback only: one listening socket, on 127.0.0.1 (0100007F); another loopback address
    // of this machine is refused.
    assert_eq!(listening_addresses(port), vec!["0100007F".to_owned()]);
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.2", port))
            .await
            .is_err(),
        "only 127.0.0.1 answers"
    );

    // No cookie: the login page (401) on every page, never data.
    for path in [
        "/",
        "/jobs",
        "/jobs/new",
        "/jobs/ferns/edit",
        "/runs",
        "/memory",
        "/updates",
        "/spend",
        "/webhooks",
        "/health",
        "/nowhere",
    ] {
        let res = http.get(format!("{base}{path}")).send().await.expect("get");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path}");
        let body = res.text().await.expect("body");
        assert!(body.contains("id=\"page-login\""), "{path}: {body}");
        assert!(
            !body.contains(SECRET_NAME) && !body.contains("ferns"),
            "{path}: {body}"
        );
    }
    // A made-up cookie is no session.
    let res = http
        .get(format!("{base}/jobs"))
        .header("Cookie", "ollim_session=guessed")
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);

    // A foreign Host: 421, whatever the path.
    for path in ["/", "/login?token=x", "/static/dashboard.css"] {
        let res = http
            .get(format!("{base}{path}"))
            .header(HOST, "evil.example")
            .send()
            .await
            .expect("get");
        assert_eq!(res.status(), StatusCode::MISDIRECTED_REQUEST, "{path}");
    }
    let res = http
        .get(format!("{base}/"))
        .header(HOST, format!("evil.example:{port}"))
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), StatusCode::MISDIRECTED_REQUEST);

    // `/dashboard` in the console and `ollim-bot dashboard` each give a link; each works once.
    bot.say("/dashboard").await;
    let console_link = link_in(&bot.expect("/login?token=").await);
    let (ok, text) = dashboard_command(&home.data);
    assert!(ok, "ollim-bot dashboard: {text}");
    let command_link = link_in(&text);
    assert!(
        command_link.starts_with(&format!("{base}/login?token=")),
        "{command_link}"
    );
    assert_ne!(console_link, command_link);

    let first = http.get(&command_link).send().await.expect("login");
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        first.headers().get(LOCATION).and_then(|v| v.to_str().ok()),
        Some("/")
    );
    let (cookie, set_cookie) = cookie_from(first.headers());
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set_cookie.contains(flag), "{set_cookie}");
    }
    assert!(cookie.starts_with("ollim_session="), "{cookie}");
    let again = http.get(&command_link).send().await.expect("login again");
    assert_eq!(again.status(), StatusCode::FORBIDDEN);
    assert!(again.headers().get(SET_COOKIE).is_none());
    assert!(again
        .text()
        .await
        .expect("body")
        .contains("already used or has expired"));
    let other = http.get(&console_link).send().await.expect("console link");
    assert_eq!(
        other.status(),
        StatusCode::SEE_OTHER,
        "the console's link is its own"
    );
    let forged = http
        .get(format!("{base}/login?token=forged"))
        .send()
        .await
        .expect("forged");
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);

    // Signed in: Today shows the routine's fire times, with the security headers.
    let get = |path: &str| {
        http.get(format!("{base}{path}"))
            .header("Cookie", &cookie)
            .send()
    };
    let today = get("/").await.expect("today");
    assert_eq!(today.status(), StatusCode::OK);
    let csp = today
        .headers()
        .get(CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
        .expect("a CSP")
        .to_owned();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("script-src"),
        "{csp}"
    );
    for (name, value) in [
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
        ("cache-control", "no-store"),
    ] {
        assert_eq!(
            today.headers().get(name).and_then(|v| v.to_str().ok()),
            Some(value),
            "{name}"
        );
    }
    let html = today.text().await.expect("today's page");
    assert!(html.contains("<svg id=\"timeline\""), "{html}");
    assert!(
        html.contains("<g class=\"fire\" data-job=\"ferns\">"),
        "{html}"
    );
    assert!(!html.contains("<script"), "no script on the page");
    let css = get("/static/dashboard.css").await.expect("css");
    assert_eq!(css.status(), StatusCode::OK);

    // POSTs: another origin, no Origin, or no/wrong CSRF token → 403, and the file is as it was.
    let jobs = get("/jobs")
        .await
        .expect("jobs")
        .text()
        .await
        .expect("jobs page");
    assert!(
        jobs.contains("<tr id=\"job-ferns\" class=\"job\">"),
        "{jobs}"
    );
    let csrf = csrf_in(&jobs);
    let before = std::fs::read(&routine_file).expect("the routine file");
    let post = |origin: Option<&str>, form: &[(&str, &str)]| {
        let mut req = http
            .post(format!("{base}/jobs/ferns/pause"))
            .header("Cookie", &cookie)
            .form(form);
        if let Some(o) = origin {
            req = req.header(ORIGIN, o);
        }
        req.send()
    };
    let ours = base.clone();
    for (origin, form, why) in [
        (
            Some("http://evil.example"),
            vec![("csrf", csrf.as_str())],
            "foreign origin",
        ),
        (Some("null"), vec![("csrf", csrf.as_str())], "opaque origin"),
        (None, vec![("csrf", csrf.as_str())], "no origin"),
        (Some(ours.as_str()), vec![], "no token"),
        (Some(ours.as_str()), vec![("csrf", "forged")], "wrong token"),
    ] {
        let res = post(origin, &form).await.expect("post");
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{why}");
        assert_eq!(
            std::fs::read(&routine_file).expect("the routine file"),
            before,
            "{why}: the file is unchanged"
        );
    }
    // The same POST without a session: 401, nothing changed.
    let res = http
        .post(format!("{base}/jobs/ferns/pause"))
        .header(ORIGIN, &base)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(std::fs::read(&routine_file).expect("file"), before);

    // An edit with a bad cron is refused in the loader's words; the file is unchanged.
    let bad = "---\nid: ferns\ncron: \"0 25 * * *\"\ndescription: ferns\n---\nx\n";
    let res = http
        .post(format!("{base}/jobs/ferns/edit"))
        .header("Cookie", &cookie)
        .header(ORIGIN, &base)
        .form(&[
            ("csrf", csrf.as_str()),
            ("kind", "routine"),
            ("action", "save"),
            ("text", bad),
        ])
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.expect("edit page");
    assert!(
        page.contains("<p class=\"error\">not saved:")
            && page.contains("hour: 25 is out of range 0-23"),
        "{page}"
    );
    assert_eq!(std::fs::read(&routine_file).expect("file"), before);

    // The real thing: Pause writes `paused: true`, and Today drops the routine's marks.
    let res = post(Some(&base), &[("csrf", csrf.as_str())])
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::OK);
    let text = std::fs::read_to_string(&routine_file).expect("file");
    assert!(text.contains("paused: true"), "{text}");
    let html = get("/").await.expect("today").text().await.expect("page");
    assert!(
        !html.contains("class=\"fire\" data-job=\"ferns\""),
        "{html}"
    );

    bot.finish().await;
}
