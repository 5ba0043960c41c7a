//! Resident memory of a process and everything under it, read from /proc: one sample sums the
//! VmRSS of the root and all its descendants; a [`Sampler`] thread keeps the peak over a run.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration as StdDuration;

use crate::conversation::rss_kib;

/// The name the CLI's processes carry in /proc (`comm`).
const CLI_COMM: &str = "claude";

/// One look at the tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// The root's own resident memory.
    pub root_kib: u64,
    /// The root and every descendant, summed.
    pub total_kib: u64,
    /// How many CLI processes are in the tree.
    pub clis: usize,
    /// The largest one CLI process with its own descendants.
    pub largest_cli_kib: u64,
}

/// Parent of each live (not zombie) process, and its `comm`.
fn processes() -> HashMap<u32, (u32, String)> {
    let mut out = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_owned();
        let mut rest = stat[close + 1..].split_whitespace();
        // A zombie has exited and holds no memory; it is not a running CLI.
        if rest.next() == Some("Z") {
            continue;
        }
        let ppid = rest.next().and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            out.insert(pid, (ppid, comm));
        }
    }
    out
}

/// `root` and its descendants.
fn tree(all: &HashMap<u32, (u32, String)>, root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, (ppid, _)) in all {
        children.entry(*ppid).or_default().push(pid);
    }
    let (mut out, mut stack) = (Vec::new(), vec![root]);
    while let Some(pid) = stack.pop() {
        out.push(pid);
        stack.extend(children.get(&pid).into_iter().flatten());
    }
    out
}

/// `VmSize` and `VmRSS` of `pid`, in KiB.
fn vm_of(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some((field("VmSize:")?, field("VmRSS:")?))
}

/// Samples `root`'s tree once.
pub fn sample(root: u32) -> Sample {
    let all = processes();
    let members = tree(&all, root);
    let is_cli = |p: &u32| all.get(p).is_some_and(|(_, comm)| comm == CLI_COMM);
    // A CLI starts its helpers (git, a shell) by vfork: until the helper execs, a child that
    // still reads as the CLI runs in its parent's address space (the same VmSize and VmRSS to
    // the KiB). It is not a CLI of its own and holds no memory of its own.
    let parent_of = |p: &u32| all.get(p).map(|(ppid, _)| *ppid);
    let is_copy = |p: &u32| is_cli(p) && parent_of(p).is_some_and(|pp| is_cli(&pp));
    let rss: HashMap<u32, u64> = members
        .iter()
        .map(|&p| {
            let shares_parent = is_copy(&p)
                && parent_of(&p).is_some_and(|pp| {
                    let own = vm_of(p);
                    own.is_some() && own == vm_of(pp)
                });
            let kib = if shares_parent { Some(0) } else { rss_kib(p) };
            (p, kib.unwrap_or(0))
        })
        .collect();
    let clis: Vec<u32> = members
        .iter()
        .copied()
        .filter(|p| is_cli(p) && !is_copy(p))
        .collect();
    let largest_cli_kib = clis
        .iter()
        .map(|&c| {
            tree(&all, c)
                .iter()
                .map(|p| rss.get(p).copied().unwrap_or(0))
                .sum()
        })
        .max()
        .unwrap_or(0);
    Sample {
        root_kib: rss.get(&root).copied().unwrap_or(0),
        total_kib: rss.values().sum(),
        clis: clis.len(),
        largest_cli_kib,
    }
}

/// The peaks seen over a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Peaks {
    pub root_kib: u64,
    pub total_kib: u64,
    pub clis: usize,
    pub largest_cli_kib: u64,
    pub samples: usize,
}

/// A thread sampling a tree every 50 ms until [`Sampler::stop`].
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Peaks>,
}

impl Sampler {
    pub fn start(root: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut peaks = Peaks::default();
            while !flag.load(Ordering::Relaxed) {
                let s = sample(root);
                peaks.root_kib = peaks.root_kib.max(s.root_kib);
                peaks.total_kib = peaks.total_kib.max(s.total_kib);
                peaks.clis = peaks.clis.max(s.clis);
                peaks.largest_cli_kib = peaks.largest_cli_kib.max(s.largest_cli_kib);
                peaks.samples += 1;
                std::thread::sleep(StdDuration::from_millis(50));
            }
            peaks
        });
        Sampler { stop, thread }
    }

    pub fn stop(self) -> Peaks {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

pub fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}
