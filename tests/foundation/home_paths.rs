//! `~` and `$HOME` at the start of a path setting mean the home, read from `.env` (which no shell
//! expands) and from the environment (a systemd `Environment=` line is not a shell either).

use std::path::Path;
use std::process::{Command, Output};

fn add_routine(cwd: &Path, home: &Path, env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .args(["routine", "add", "--cron", "0 8 * * *", "-m", "Morning"])
        .current_dir(cwd)
        .env("HOME", home)
        .env("OLLIM_TIMEZONE", "UTC")
        .env_remove("OLLIM_DATA_DIR")
        .envs(env.iter().copied())
        .output()
        .expect("run ollim-bot")
}

fn routines_in(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("routines")).map_or(0, |d| d.count())
}

#[test]
fn a_tilde_data_dir_in_dot_env_is_under_the_home() {
    let tmp = tempfile::tempdir().unwrap();
    let (cwd, home) = (tmp.path().join("checkout"), tmp.path().join("home"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(cwd.join(".env"), "OLLIM_DATA_DIR=~/x\n").unwrap();
    let out = add_routine(&cwd, &home, &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(routines_in(&home.join("x")), 1, "the routine is in $HOME/x");
    assert!(
        !cwd.join("~").exists(),
        "no directory named ~ in the checkout"
    );
}

#[test]
fn a_home_variable_in_the_environment_is_the_home() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for (written, dir) in [("$HOME/y", "y"), ("${HOME}/z", "z"), ("~/w", "w")] {
        let out = add_routine(tmp.path(), &home, &[("OLLIM_DATA_DIR", written)]);
        assert!(out.status.success(), "{written}: {out:?}");
        assert_eq!(routines_in(&home.join(dir)), 1, "{written}");
    }
    assert!(!tmp.path().join("$HOME").exists() && !tmp.path().join("~").exists());
}
