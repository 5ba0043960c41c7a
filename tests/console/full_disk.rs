//! A full disk *(ours, issue 28)*: the console bot's data directory on a small tmpfs that the
//! test mounts and fills. State writes (the ping budget here) and job files (`reminder add`)
//! fail with the file named and "No space left on device", the state files written before
//! still parse and no temporary file is left behind, the owner is told once however many
//! writes fail, and once space is back the next write works (and the owner hears so).
//!
//! Mounting needs root (CI runs as root): without it the test fails, saying why. What the
//! owner's commands answer on a full disk is in `full_disk_commands`, on the same set-up.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bot::{Bot, Home};
use crate::support::mock_model_api::{MockModelApi, Reply};

/// A tmpfs mounted on a directory, unmounted when dropped.
pub(crate) struct Tmpfs(PathBuf);

impl Tmpfs {
    pub(crate) fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Tmpfs(dir.to_path_buf()),
            Ok(o) => panic!(
                "this test needs to mount a tmpfs (run it as root, as CI does): mount said {:?} {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => panic!("this test needs to mount a tmpfs, and `mount` did not run: {e}"),
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a process still holding a file must not leave the mount behind.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system of `dir` with `dir/filler` until it is full.
pub(crate) fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    loop {
        match file.write_all(&chunk) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("filling the disk failed otherwise: {e}"),
        }
    }
    // Whatever part of a page is left goes too.
    while file.write_all(&[0u8; 512]).is_ok() {}
    path
}

/// `ollim-bot <args>` on the bot's data directory.
pub(crate) fn cli(home: &Home, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(args)
        .env("OLLIM_DATA_DIR", &home.data)
        .env("OLLIM_TIMEZONE", "America/New_York")
        .env("HOME", &home.home)
        .output()
        .unwrap()
}

fn reminder_add(home: &Home, message: &str) -> std::process::Output {
    cli(home, &["reminder", "add", "--delay", "30", "-m", message])
}

/// Reads lines until each of `needles` has been seen since the call, in whatever order they
/// come (a command's answer and a notice race); returns the line holding each.
pub(crate) async fn expect_each(bot: &mut Bot, needles: &[&str]) -> Vec<String> {
    let from = bot.seen.len();
    let found = |bot: &Bot, needle: &str| {
        bot.seen[from..]
            .iter()
            .find(|l| l.contains(needle))
            .cloned()
    };
    let mut lines = Vec::new();
    for needle in needles {
        let line = match found(bot, needle) {
            Some(line) => line,
            None => bot.expect(needle).await,
        };
        lines.push(line);
    }
    lines
}

/// Every JSON state file parses, and no temporary file is left in `state/`.
fn state_files_parse(home: &Home) {
    let mut seen = 0;
    for entry in std::fs::read_dir(home.data.join("state")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "a temporary file was left: {name}");
        if name == "sessions.json" {
            // The original's format: the main session's id as plain text.
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                !text.trim().is_empty() && !text.trim().contains(char::is_whitespace),
                "{name}: {text:?}"
            );
            seen += 1;
        } else if name.ends_with(".json") {
            let text = std::fs::read_to_string(&path).unwrap();
            serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("{name} does not parse any more ({e}): {text:?}"));
            seen += 1;
        }
    }
    assert!(seen > 0, "no state file was written before the disk filled");
}

/// The reminder files and their contents, by name.
pub(crate) fn reminder_files(home: &Home) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(home.data.join("reminders"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                text,
            )
        })
        .collect();
    files.sort();
    files
}

fn capacity(home: &Home) -> u64 {
    let text = std::fs::read_to_string(home.state("ping_budget.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["capacity"].as_u64().unwrap()
}

#[tokio::test]
async fn a_full_disk_fails_writes_by_name_keeps_old_state_tells_once_and_recovers() {
    let home = Home::new();
    // Dropped before `home`: unmounted before its directory is removed.
    let _disk = Tmpfs::mount(&home.data, "16m");
    let mock = MockModelApi::start(|_| Reply::Text("ok".into()))
        .await
        .unwrap();
    let mut bot = Bot::start(&home, &mock).await;
    bot.say("hello").await;
    bot.expect("ok").await;
    bot.say("/ping-budget 4 60").await;
    bot.expect("ping budget updated").await;
    assert_eq!(capacity(&home), 4);
    assert!(reminder_add(&home, "before").status.success());

    let filler = fill(&home.data);
    bot.say("/ping-budget 3 45").await;
    let [notice, refused] = <[String; 2]>::try_from(
        expect_each(&mut bot, &["the disk is full", "ping budget not updated"]).await,
    )
    .unwrap();
    // The command says it failed and why, rather than "updated".
    assert!(
        refused.contains("couldn't save") && refused.contains("No space left on device"),
        "{refused}"
    );
    // The first write refused names its file (the budget's, unless another write came first).
    assert!(
        notice.contains(&format!("{}/", home.data.display()))
            && notice.contains("could not be saved")
            && notice.contains("No space left on device"),
        "{notice}"
    );
    bot.say("/ping-budget 2 30").await;
    let refused = bot.expect("ping budget not updated").await;
    assert!(
        refused.contains(&home.state("ping_budget.json").display().to_string())
            && refused.contains("No space left on device")
            && refused.ends_with("nothing changed."),
        "{refused}"
    );
    bot.say("/ping-budget").await;
    let status = bot.expect("budget: ").await;
    assert!(
        status.contains("/4"),
        "the budget in memory is unchanged: {status}"
    );
    let reminders_before = reminder_files(&home);
    let refused = reminder_add(&home, "while full");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("No space left on device") && said.contains("/reminders/"),
        "{said}"
    );
    assert_eq!(
        reminder_files(&home),
        reminders_before,
        "no reminder written"
    );
    state_files_parse(&home);
    assert_eq!(capacity(&home), 4, "the last saved budget is still there");

    std::fs::remove_file(&filler).unwrap();
    bot.say("/ping-budget 5 90").await;
    expect_each(&mut bot, &["disk space is back", "ping budget updated"]).await;
    assert_eq!(capacity(&home), 5);
    assert!(reminder_add(&home, "after").status.success());
    state_files_parse(&home);
    let seen = bot.finish().await;
    let told = seen
        .iter()
        .filter(|l| l.contains("the disk is full"))
        .count();
    assert_eq!(told, 1, "told once: {seen:#?}");
}
