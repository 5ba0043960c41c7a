//! `make bench`: the project's figures, printed as lines for people to read and compare.
//! Nothing here is an assertion, and nothing reaches beyond 127.0.0.1.

mod actors;
mod conversation;
mod forks;
mod webhooks;

#[allow(dead_code)]
#[path = "../../tests/webhooks/harness.rs"]
mod webhook_harness;

#[allow(dead_code)]
#[path = "../../tests/support/mod.rs"]
mod support;

fn main() {
    println!(
        "ollim-bot benchmarks (release build, {} cores)",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    actors::bench_files_and_cron();
    let sys = actix::System::new();
    sys.block_on(async {
        actors::bench_try_use().await;
        actors::bench_scheduler().await;
        conversation::bench_conversation().await;
        forks::bench_forks().await;
        webhooks::bench_webhooks().await;
    });
}
