//! `bg_fork_limit` bounds the CLI processes background work starts (SPEC §16: "concurrent
//! background CLIs, reflections included"): a burst of background jobs with reflections on
//! never has more than the limit's CLIs running beside the conversation's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration as StdDuration;

use ollim_actors::conversation::main_session::{ProcessRunning, Say};
use ollim_actors::conversation::surface::SurfaceEvent;
use ollim_actors::scheduling::job_runner::Runs;

use crate::rig::{bg_reminder, rig, Rig};
use crate::support::mock_model_api::Reply;

/// The name the CLI's processes carry in /proc (`comm`).
const CLI_COMM: &str = "claude";

/// Every live process: parent and `comm`.
fn processes() -> HashMap<u32, (u32, String)> {
    let mut out = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let mut rest = stat[close + 1..].split_whitespace();
        // A zombie has exited: it is no running CLI.
        if rest.next() == Some("Z") {
            continue;
        }
        if let Some(ppid) = rest.next().and_then(|p| p.parse().ok()) {
            out.insert(pid, (ppid, stat[open + 1..close].to_owned()));
        }
    }
    out
}

/// Whether `pid` is running (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|close| stat[close + 1..].split_whitespace().next() != Some("Z"))
    })
}

/// Whether `pid` runs with `HOME=home` (the rig's CLIs do; other tests' have their own HOME).
fn has_home(pid: u32, home: &Path) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let want = format!("HOME={}", home.display());
    env.split(|b| *b == 0).any(|v| v == want.as_bytes())
}

/// What `pid` runs, shortened: its arguments that say which kind of CLI it is.
fn described(pid: u32) -> String {
    let args = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<String> = args
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .filter(|a| a.starts_with("--") && !a.starts_with("--mcp-config"))
        .collect();
    format!("{pid}: {}", args.join(" "))
}

/// The `claude` processes of this rig running at one moment: descendants of this test process
/// whose HOME is the rig's, each CLI once (a `claude` whose parent is a `claude` is part of its
/// parent's CLI). Reading /proc takes a while: a CLI seen early in the scan may have exited by
/// the time a newer one is seen, so every one seen is looked at again after the scan; those
/// still running then were all running at once (each from when it was seen, which is before
/// any second look, until its second look).
fn rig_clis(home: &Path) -> Vec<u32> {
    let all = processes();
    let me = std::process::id();
    let is_cli = |pid: u32| all.get(&pid).is_some_and(|(_, comm)| comm == CLI_COMM);
    let descends = |mut pid: u32| {
        for _ in 0..64 {
            match all.get(&pid) {
                Some((ppid, _)) if *ppid == me => return true,
                Some((ppid, _)) if *ppid > 1 => pid = *ppid,
                _ => return false,
            }
        }
        false
    };
    all.iter()
        .filter(|(pid, (ppid, comm))| {
            comm == CLI_COMM && !is_cli(*ppid) && descends(**pid) && has_home(**pid, home)
        })
        .map(|(pid, _)| *pid)
        .collect::<Vec<_>>()
        .into_iter()
        .filter(|pid| alive(*pid))
        .collect()
}

/// What the sampler saw: the most CLIs at once (described), and how many looks.
struct Seen {
    most: Vec<String>,
    samples: usize,
}

/// Samples [`rig_clis`] every few milliseconds until stopped.
struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Seen>,
}

impl Sampler {
    fn start(home: PathBuf) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut seen = Seen {
                most: Vec::new(),
                samples: 0,
            };
            while !flag.load(Ordering::SeqCst) {
                let now = rig_clis(&home);
                if now.len() > seen.most.len() {
                    seen.most = now.into_iter().map(described).collect();
                }
                seen.samples += 1;
                std::thread::sleep(StdDuration::from_millis(5));
            }
            seen
        });
        Self { stop, thread }
    }

    fn finish(self) -> Seen {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().unwrap()
    }
}

async fn conversation_running(rig: &Rig) -> bool {
    let main = rig.handles.main_session.clone().unwrap();
    main.send(ProcessRunning).await.unwrap()
}

const LIMIT: usize = 3;
const JOBS: usize = 10;

/// Counted: every `claude` process of the rig, the conversation's included (it runs from
/// before the burst to after it). So at most `LIMIT` background CLIs — forks and reflection
/// models together — plus the conversation's.
#[actix_rt::test]
async fn a_burst_of_ten_jobs_with_reflections_never_runs_more_clis_than_the_limit_and_the_conversation(
) {
    let rig = rig(
        |req| {
            if req.latest_user_text().contains("[reminder-bg:") {
                Reply::SlowText {
                    chunks: vec!["checked".into()],
                    delay: StdDuration::from_millis(300),
                }
            } else {
                Reply::Text("hello".into())
            }
        },
        |data| {
            std::fs::create_dir_all(data.state()).unwrap();
            std::fs::write(
                data.state_file("config.json"),
                format!(r#"{{"bg_fork_limit": {LIMIT}}}"#),
            )
            .unwrap();
        },
    )
    .await;
    // A reflection's model takes a while, so it runs beside whatever else is running.
    rig.script_reflections(|_| Reply::SlowText {
        chunks: vec!["Done.".into()],
        delay: StdDuration::from_secs(1),
    });
    // The conversation's CLI, running throughout.
    rig.handles.main_session.clone().unwrap().do_send(Say {
        text: "good morning".into(),
        images: vec![],
    });
    rig.until("the conversation's answer", |r| {
        r.screen
            .events()
            .iter()
            .any(|e| matches!(e, SurfaceEvent::Reply(t) if t == "hello"))
    })
    .await;
    assert!(conversation_running(&rig).await);
    assert_eq!(
        rig_clis(&rig.home).len(),
        1,
        "only the conversation's CLI so far"
    );

    for n in 1..=JOBS {
        rig.write(
            &format!("reminders/burst{n}.md"),
            &bg_reminder(&format!("eeee{n:04}"), 1, "", "check the inbox"),
        );
    }
    rig.registered(JOBS).await;
    let sampler = Sampler::start(rig.home.clone());
    rig.advance_to(1);

    // Over when every fork has ended and every reflection is written.
    let deadline = tokio::time::Instant::now() + StdDuration::from_secs(300);
    let runs = loop {
        let runs = rig.handles.job_runner.send(Runs).await.unwrap();
        if runs.forks_finished == JOBS as u64 && runs.reflections_done == JOBS as u64 && runs.idle()
        {
            break runs;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the burst never ended: {runs:?}"
        );
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    };
    // The reflection's CLI may still be closing after its answer reached the runner.
    let closing = tokio::time::Instant::now() + StdDuration::from_secs(30);
    while rig_clis(&rig.home).len() > 1 && tokio::time::Instant::now() < closing {
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    let Seen { most, samples } = sampler.finish();
    println!(
        "at most {} CLIs at once over {samples} samples: {most:#?}",
        most.len()
    );

    assert_eq!(runs.reflections, JOBS as u64, "{runs:?}");
    assert_eq!(rig.reflection_requests().len(), JOBS, "one model turn each");
    assert!(
        conversation_running(&rig).await,
        "the conversation's CLI ran throughout"
    );
    assert!(
        samples > 10,
        "the tree was looked at throughout ({samples} samples)"
    );
    assert!(
        most.len() > 1,
        "background CLIs were seen beside the conversation's: {most:#?}"
    );
    assert!(
        most.len() <= LIMIT + 1,
        "{} CLIs ran at once, more than bg_fork_limit {LIMIT} + the conversation's: {most:#?}",
        most.len()
    );
}
