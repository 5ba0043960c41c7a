//! `make bench`: the project's figures, printed as lines for people to read and compare.
//! Nothing here is an assertion, and nothing reaches beyond 127.0.0.1.

mod actors;
mod background_load;
mod conversation;
mod dashboard;
mod discord;
mod forks;
mod google;
mod history;
mod history_corpus;
mod idle_release;
mod memory;
mod memory_size;
mod process_tree;
mod request_size;
mod sandbox;
mod webhooks;

#[allow(dead_code)]
#[path = "../../tests/webhooks/harness.rs"]
mod webhook_harness;

#[allow(dead_code)]
#[path = "../../tests/support/mod.rs"]
mod support;

/// Runs every section, or only those whose name contains an argument
/// (`cargo bench --bench bench -- webhooks`).
fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    println!(
        "ollim-bot benchmarks (release build, {} cores)",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    if wanted("files cron schedule") {
        actors::bench_files_and_cron();
    }
    if wanted("google tasks") {
        google::bench_google();
    }
    if wanted("history search sessions") {
        history::bench_history();
    }
    let sys = actix::System::new();
    sys.block_on(async {
        if wanted("budget try_use") {
            actors::bench_try_use().await;
        }
        if wanted("scheduler lateness") {
            actors::bench_scheduler().await;
        }
        if wanted("conversation") {
            conversation::bench_conversation().await;
        }
        if wanted("idle release") {
            idle_release::bench_idle_release().await;
        }
        if wanted("request size") {
            request_size::bench_request_size().await;
        }
        if wanted("memory size") {
            memory_size::bench_memory_size().await;
        }
        if wanted("sandbox") {
            sandbox::bench_sandbox().await;
        }
        if wanted("forks") {
            forks::bench_forks().await;
        }
        if wanted("background load bg_fork_limit") {
            background_load::bench_background_load().await;
        }
        if wanted("webhooks") {
            webhooks::bench_webhooks().await;
        }
        if wanted("memory search flush") {
            memory::bench_memory().await;
        }
        if wanted("discord") {
            discord::bench_discord().await;
        }
        if wanted("dashboard") {
            dashboard::bench_dashboard().await;
        }
    });
}
