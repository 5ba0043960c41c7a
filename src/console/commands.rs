//! Console commands: `/help`, `/ping-budget [capacity] [refill_rate]`, `/schedule`,
//! `/updates`. Anything else is a message for the conversation.

use ollim_actors::pending_updates::Peek;
use ollim_actors::ping_budget::{Configure, FullStatus};
use ollim_actors::scheduler::Upcoming;
use ollim_actors::supervisor::Handles;

const HELP: &str = "\
commands:
  /ping-budget [capacity] [refill_rate]   show or set the ping budget
  /schedule                               registered routines and reminders, next fire first
  /updates                                background updates waiting for the conversation
  /help                                   this list";

/// Answers one input line; `None` for a blank line.
pub async fn handle(line: &str, h: &Handles) -> Option<String> {
    if line.is_empty() {
        return None;
    }
    let mut words = line.split_whitespace();
    let reply = match words.next().unwrap_or_default() {
        "/help" => HELP.to_owned(),
        "/ping-budget" => ping_budget(words.collect(), h).await,
        "/schedule" => match h.scheduler.send(Upcoming).await {
            Ok(jobs) if jobs.is_empty() => "no routines or reminders".to_owned(),
            Ok(jobs) => jobs
                .iter()
                .map(|j| {
                    let when = j
                        .next
                        .map(|t| t.to_rfc3339())
                        .unwrap_or_else(|| "never".to_owned());
                    let bg = if j.background { " [bg]" } else { "" };
                    format!("  {}  {when}{bg}  {}", j.id, j.rel_path)
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("the scheduler did not answer: {e}"),
        },
        "/updates" => match h.pending_updates.send(Peek).await {
            Ok(u) if u.is_empty() => "no pending updates".to_owned(),
            Ok(u) => u
                .iter()
                .map(|u| format!("- [{}] {}", u.ts, u.message))
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("the pending-updates queue did not answer: {e}"),
        },
        cmd if cmd.starts_with('/') => format!("unknown command {cmd}; /help lists them"),
        _ => "-# the conversation is not connected in this build yet; /help lists what works"
            .to_owned(),
    };
    Some(reply)
}

async fn ping_budget(args: Vec<&str>, h: &Handles) -> String {
    if args.is_empty() {
        return match h.ping_budget.send(FullStatus).await {
            Ok(s) => s,
            Err(e) => format!("the ping budget did not answer: {e}"),
        };
    }
    let parse = |s: Option<&&str>| s.map(|v| v.parse::<u32>()).transpose();
    let (Ok(capacity), Ok(refill_rate)) = (parse(args.first()), parse(args.get(1))) else {
        return "usage: /ping-budget [capacity] [refill_rate minutes] (whole numbers)".to_owned();
    };
    match h
        .ping_budget
        .send(Configure {
            capacity,
            refill_rate,
        })
        .await
    {
        Ok(outcome) => outcome.to_string(),
        Err(e) => format!("the ping budget did not answer: {e}"),
    }
}
