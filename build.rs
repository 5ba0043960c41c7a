//! Embeds the git commit the binary is built from (`OLLIM_GIT_COMMIT`, short hash, or
//! `unknown` outside a git checkout) for `--version`, and the release it is (`OLLIM_VERSION`:
//! `v0.2.0` on a `v*` tag, `v0.1.0+dev (abc1234)` past the nearest one, the crate's version when
//! there is no tag) for `/version` and the greeting. Only local `git` is run; the build reruns
//! when HEAD, the branch it points to or the tags move.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `v0.2.0` when HEAD is on a `v*` tag; `v0.1.0+dev (abc1234)` when it is past the nearest one
/// (or there is none: the crate's version then).
fn release(commit: &str) -> String {
    let short: String = commit.chars().take(7).collect();
    let described = git(&["describe", "--tags", "--long", "--match", "v*", "HEAD"]);
    // `v0.1.0-3-gabc1234`: tag, commits since, hash.
    let parsed = described.as_deref().and_then(|d| {
        let mut parts = d.rsplitn(3, '-');
        let _hash = parts.next()?;
        let ahead: u32 = parts.next()?.parse().ok()?;
        Some((parts.next()?.to_owned(), ahead))
    });
    match parsed {
        Some((tag, 0)) => tag,
        Some((tag, _)) => format!("{tag}+dev ({short})"),
        None => format!("v{}+dev ({short})", env!("CARGO_PKG_VERSION")),
    }
}

fn watch(path: PathBuf) {
    // Only existing files: a missing one would make cargo rerun this script on every build.
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=OLLIM_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=OLLIM_VERSION={}", release(&commit));
    println!("cargo:rerun-if-changed=build.rs");
    if let (Some(git_dir), Some(common)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        let (git_dir, common) = (Path::new(&git_dir), Path::new(&common));
        watch(git_dir.join("HEAD"));
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(common.join(branch));
        }
        watch(common.join("packed-refs"));
        watch(common.join("refs/tags"));
    }
}
