//! Headless Chromium driven over WebDriver: Debian's `chromedriver` on a free port of 127.0.0.1,
//! one session with its own profile directory, screenshots under
//! `<target>/dashboard-screenshots/`, and both processes killed when the [`Browser`] is dropped,
//! a panicking test included.

use std::ffi::OsStr;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::wd::{Capabilities, WebDriverCompatibleCommand};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

/// What to run when the browser is missing (Debian and Ubuntu package names).
pub const INSTALL: &str = "sudo apt-get install chromium chromium-driver";

/// Longest wait for chromedriver to listen, a page to load or an element to appear.
pub const LIMIT: Duration = Duration::from_secs(30);

/// The window every page is first drawn in (wide enough for the timeline).
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 900;

/// Flags for a headless Chromium on a machine without a network: without the background
/// networking ones its own connections are refused and it stalls.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// The browser's two programs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Programs {
    pub chromium: PathBuf,
    pub chromedriver: PathBuf,
}

/// Finds `chromium` and `chromedriver` in the directories of `path` (a `PATH` value); the
/// error names what is missing and how to install it.
pub fn find_programs(path: Option<&OsStr>) -> Result<Programs, String> {
    let look = |names: &[&str]| -> Option<PathBuf> {
        let dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect())?;
        names
            .iter()
            .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
            .find(|candidate| is_executable(candidate))
    };
    let chromium = look(&["chromium", "chromium-browser"]);
    let chromedriver = look(&["chromedriver"]);
    match (chromium, chromedriver) {
        (Some(chromium), Some(chromedriver)) => Ok(Programs {
            chromium,
            chromedriver,
        }),
        (chromium, chromedriver) => {
            let missing: Vec<&str> = [
                chromium.is_none().then_some("chromium"),
                chromedriver.is_none().then_some("chromedriver"),
            ]
            .into_iter()
            .flatten()
            .collect();
            Err(format!(
                "the dashboard's browser tests need headless Chromium and its WebDriver, and {} \
                 is not on PATH: install them with `{INSTALL}` (`make test` and .ci/run do it \
                 for you)",
                missing.join(" and ")
            ))
        }
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A free port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

/// Where screenshots go: `$CARGO_TARGET_DIR/dashboard-screenshots`, else the workspace's
/// `target/dashboard-screenshots`.
pub fn screenshot_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => workspace.join(dir),
        _ => workspace.join("target"),
    };
    target.join("dashboard-screenshots")
}

/// chromedriver, the Chromium it started, and the WebDriver session.
pub struct Browser {
    pub client: Client,
    driver: Child,
    /// The profile directory, unique to this browser: every process whose command line names
    /// it is this browser's.
    profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless session; a missing program fails the test with the
    /// command that installs it.
    pub async fn start() -> Browser {
        let programs =
            find_programs(std::env::var_os("PATH").as_deref()).unwrap_or_else(|e| panic!("{e}"));
        let profile = tempfile::tempdir().expect("a profile directory");
        let port = free_port();
        let log = profile.path().join("chromedriver.log");
        let driver = {
            use std::os::unix::process::CommandExt;
            Command::new(&programs.chromedriver)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own process group, so the drop can end chromedriver and Chromium at once.
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| panic!("start {}: {e}", programs.chromedriver.display()))
        };
        // Owned from here: a failure below still kills what started.
        let mut browser = Starting {
            driver: Some(driver),
            profile: Some(profile),
        };
        let deadline = std::time::Instant::now() + LIMIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = browser.driver().try_wait().ok().flatten() {
                panic!(
                    "chromedriver exited ({status}) before listening: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            assert!(
                std::time::Instant::now() < deadline,
                "chromedriver did not listen on 127.0.0.1:{port} within {LIMIT:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let data_dir = browser.profile().join("chromium");
        let mut args: Vec<String> = FLAGS.iter().map(|f| (*f).to_owned()).collect();
        args.push(format!("--user-data-dir={}", data_dir.display()));
        args.push(format!("--window-size={WIDTH},{HEIGHT}"));
        let mut caps = Capabilities::new();
        caps.insert(
            "goog:chromeOptions".to_owned(),
            json!({"binary": programs.chromium, "args": args}),
        );
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "no WebDriver session from chromedriver: {e}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            });
        let (driver, profile) = browser.hand_over();
        Browser {
            client,
            driver,
            profile,
        }
    }

    /// Opens `url` and waits for the element `css` to be there.
    pub async fn open(&self, url: &str, css: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
        self.wait_for(css).await;
    }

    /// Waits (up to [`LIMIT`]) for an element matching `css`.
    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        match self
            .client
            .wait()
            .at_most(LIMIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(found) => found,
            Err(e) => panic!(
                "no {css:?} on {} within {LIMIT:?} ({e}); the page:\n{}",
                self.url().await,
                self.client.source().await.unwrap_or_default()
            ),
        }
    }

    /// How many elements match `css` on the page as it is.
    pub async fn count(&self, css: &str) -> usize {
        self.client
            .find_all(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("find {css:?}: {e}"))
            .len()
    }

    /// The text of the first element matching `css` (waited for).
    pub async fn text(&self, css: &str) -> String {
        let found = self.wait_for(css).await;
        found
            .text()
            .await
            .unwrap_or_else(|e| panic!("text of {css:?}: {e}"))
    }

    /// Clicks the first element matching `css` (waited for).
    pub async fn click(&self, css: &str) {
        let found = self.wait_for(css).await;
        found
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css:?}: {e}"));
    }

    /// Clicks the element matching `css` (waited for) and waits until the page it was on is
    /// gone and the next one has loaded: a form's submit button, a link.
    pub async fn click_through(&self, css: &str) {
        let before = self
            .client
            .find(Locator::Css("html"))
            .await
            .unwrap_or_else(|e| panic!("the page before {css:?}: {e}"));
        self.click(css).await;
        let deadline = std::time::Instant::now() + LIMIT;
        // The old page's root goes stale once the browser has left it.
        while before.tag_name().await.is_ok() {
            assert!(
                std::time::Instant::now() < deadline,
                "clicking {css:?} left {} within {LIMIT:?}",
                self.url().await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.wait_for("body").await;
    }

    /// The current value of the form field matching `css` (waited for).
    pub async fn value(&self, css: &str) -> String {
        let found = self.wait_for(css).await;
        found
            .prop("value")
            .await
            .unwrap_or_else(|e| panic!("value of {css:?}: {e}"))
            .unwrap_or_default()
    }

    /// Replaces the text of the field matching `css` by typing `text` into it.
    pub async fn type_into(&self, css: &str, text: &str) {
        let found = self.wait_for(css).await;
        found
            .clear()
            .await
            .unwrap_or_else(|e| panic!("clear {css:?}: {e}"));
        found
            .send_keys(text)
            .await
            .unwrap_or_else(|e| panic!("type into {css:?}: {e}"));
    }

    /// The page's address now.
    pub async fn url(&self) -> String {
        self.client
            .current_url()
            .await
            .map(|u| u.to_string())
            .unwrap_or_else(|e| format!("(no address: {e})"))
    }

    /// The page's text (what a reader sees).
    pub async fn page_text(&self) -> String {
        self.text("body").await
    }

    /// Saves the whole page (the window grown to the page's height) as `<name>.png` in
    /// [`screenshot_dir`], and returns the file's path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        self.resize(WIDTH, HEIGHT).await;
        // The page's height, and what the window adds around the page (WebDriver scripts run
        // outside the page's CSP; the page itself needs no script).
        let sizes = self
            .client
            .execute(
                "const d = document.documentElement; return [Math.ceil(d.scrollHeight), \
                 window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];",
                vec![],
            )
            .await
            .unwrap_or_else(|e| panic!("measure the page {name}: {e}"));
        let size = |i: usize| sizes[i].as_u64().map_or(0, |n| n.min(20_000) as u32);
        let (page, extra_w, extra_h) = (size(0).clamp(200, 8000), size(1), size(2));
        self.resize(WIDTH + extra_w, page + extra_h).await;
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|e| panic!("screenshot of {name}: {e}"));
        self.resize(WIDTH, HEIGHT).await;
        save(name, &png)
    }

    /// Sets the window's size.
    async fn resize(&self, width: u32, height: u32) {
        self.client
            .set_window_size(width, height)
            .await
            .unwrap_or_else(|e| panic!("resize the window to {width}x{height}: {e}"));
    }

    /// Draws pages as a phone `width` CSS pixels wide would (`None`: as the window again),
    /// through the DevTools command chromedriver passes on (a window cannot be that narrow).
    pub async fn phone(&self, width: Option<u32>) {
        let command = match width {
            Some(width) => Cdp {
                method: "Emulation.setDeviceMetricsOverride",
                params: json!({"width": width, "height": 800, "deviceScaleFactor": 1,
                               "mobile": true}),
            },
            None => Cdp {
                method: "Emulation.clearDeviceMetricsOverride",
                params: json!({}),
            },
        };
        self.client
            .issue_cmd(command)
            .await
            .unwrap_or_else(|e| panic!("phone emulation {width:?}: {e}"));
    }

    /// The page's width in CSS pixels (a phone shrinks a wider page to fit, so its viewport
    /// says nothing: the document's scroll width does).
    pub async fn page_width(&self) -> u64 {
        let measured = self
            .client
            .execute("return document.documentElement.scrollWidth;", vec![])
            .await;
        match measured.as_ref().ok().and_then(|v| v.as_u64()) {
            Some(pixels) => pixels,
            None => panic!("measure the width of {}: {measured:?}", self.url().await),
        }
    }

    /// Saves the viewport as it is (no resizing) as `<name>.png` in [`screenshot_dir`].
    pub async fn screenshot_as_is(&self, name: &str) -> PathBuf {
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|e| panic!("screenshot of {name}: {e}"));
        save(name, &png)
    }

    /// Ends the session, then (in the drop) the processes.
    pub async fn close(self) {
        // A session that will not close is killed in the drop all the same.
        let _ = tokio::time::timeout(LIMIT, self.client.clone().close()).await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        end(&mut self.driver, self.profile.path());
    }
}

/// Writes `png` as `<name>.png` in [`screenshot_dir`].
fn save(name: &str, png: &[u8]) -> PathBuf {
    let dir = screenshot_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

/// A Chrome DevTools command, sent through chromedriver's `goog/cdp/execute`.
#[derive(Debug)]
struct Cdp {
    method: &'static str,
    params: serde_json::Value,
}

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({"cmd": self.method, "params": self.params});
        (http::Method::POST, Some(body.to_string()))
    }
}

/// The processes while the session is being made: killed on a panic before it exists.
struct Starting {
    driver: Option<Child>,
    profile: Option<tempfile::TempDir>,
}

impl Starting {
    fn driver(&mut self) -> &mut Child {
        self.driver
            .as_mut()
            .expect("chromedriver until handed over")
    }

    fn profile(&self) -> &Path {
        self.profile
            .as_ref()
            .expect("the profile until handed over")
            .path()
    }

    fn hand_over(&mut self) -> (Child, tempfile::TempDir) {
        (
            self.driver.take().expect("handed over once"),
            self.profile.take().expect("handed over once"),
        )
    }
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let (Some(driver), Some(profile)) = (self.driver.as_mut(), self.profile.as_ref()) {
            end(driver, profile.path());
        }
    }
}

/// Kills chromedriver's process group and every process started with `profile` on its command
/// line (a Chromium that left the group), then reaps chromedriver.
fn end(driver: &mut Child, profile: &Path) {
    let group = driver.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals a process group; it touches no memory.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    for pid in processes_naming(profile) {
        // SAFETY: as above, one process.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    let _ = driver.wait();
}

/// The pids whose command line mentions `path`.
fn processes_naming(path: &Path) -> Vec<libc::pid_t> {
    let needle = path.as_os_str().as_encoded_bytes();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmd| cmd.windows(needle.len()).any(|w| w == needle))
        })
        .collect()
}

#[test]
fn missing_programs_fail_with_the_command_that_installs_them() {
    let empty = tempfile::tempdir().expect("an empty directory");
    let err = find_programs(Some(empty.path().as_os_str())).expect_err("nothing to find");
    assert!(err.contains(INSTALL), "{err}");
    assert!(err.contains("chromium and chromedriver"), "{err}");
    let err = find_programs(None).expect_err("no PATH at all");
    assert!(err.contains(INSTALL), "{err}");
    // Only the driver there: the message names the browser alone.
    let bin = empty.path().join("chromedriver");
    std::fs::write(&bin, "#!/bin/sh\n").expect("write a stand-in");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let err = find_programs(Some(empty.path().as_os_str())).expect_err("no chromium");
    assert!(err.contains("and chromium is not on PATH"), "{err}");
}
