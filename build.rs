//! Embeds the git commit the binary is built from (`OLLIM_GIT_COMMIT`, short hash, or
//! `unknown` outside a git checkout) for `--version` and `/version`. Only local `git` is run;
//! the build reruns when HEAD or the branch it points to moves.

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

fn watch(path: PathBuf) {
    // Only existing files: a missing one would make cargo rerun this script on every build.
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=OLLIM_GIT_COMMIT={commit}");
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
    }
}
