//! Console commands: the conversation's slash commands (SPEC §12: `/clear`, `/compact`,
//! `/cost`, `/model`, `/thinking`, `/interrupt`), `/ping-budget [capacity] [refill_rate]` (with
//! the quiet hours), and ours: `/schedule`, `/updates`, `/snooze 15m|1h|tomorrow` and the
//! routine commands (`/routines`, `/run`, `/pause`, `/resume`, in [`super::routines`]),
//! `/usage [days]` (what the assistant cost, SPEC §19);
//! `/google-auth` and the Google buttons go to the Google account.

use chrono_tz::Tz;
use ollim_actors::agent::tools::ButtonClick;
use ollim_actors::bot::supervisor::Handles;
use ollim_actors::conversation::main_session::PressButton;
use ollim_actors::conversation::main_session::{Command, ForkButton, QuietHoursNow};
use ollim_actors::google::account::{GoogleClick, PressGoogleButton, StartConsent};
use ollim_actors::records::pending_updates::Peek;
use ollim_actors::records::ping_budget::{Configure, FullStatus};
use ollim_actors::records::snooze::SnoozeChoice;
use ollim_actors::records::usage::render::{self, JobList};
use ollim_actors::records::usage::{report, GetReport};
use ollim_actors::scheduling::routines_view::{self, RoutineClick};
use ollim_actors::scheduling::scheduler::Upcoming;

const HELP: &str = "\
commands:
  /setup                                  guided setup: names, personality, about you
  /clear                                  drop the conversation and start fresh
  /compact [instructions]                 compact the conversation
  /cost                                   what this run has cost
  /model [opus|sonnet|haiku]              show or switch the model
  /thinking [off|adaptive|8000|32000|64000]
                                          show or switch extended thinking
  /interrupt                              stop the answer in progress
  /config [key] [value]                   show or change the runtime settings
  /fork [topic]                           branch the conversation into an interactive fork
  /permissions [MODE]                     show or switch: don't ask, ask first, allow file
                                          edits or allow everything (inside a fork: that
                                          fork only; dontAsk, default, acceptEdits and
                                          bypassPermissions work too)
  /button N                               press button N of the last embed
  /snooze 15m|1h|tomorrow                 snooze the newest [bg] ping or reminder: the same
                                          prompt again in 15 minutes, an hour, or at 9:00
  /save | /report | /exit-fork            end the fork: keep it as the conversation, queue a
                                          summary for it, or discard it
  /ping-budget [capacity] [refill_rate]   show or set the ping budget (and the quiet hours)
  /usage [days]                           what the assistant cost: today, 7 and 30 days (or
                                          that many), conversation and jobs, tokens
  /google-auth                            connect Google (Tasks, Calendar, Gmail); paste the
                                          redirect url here when the browser is elsewhere
  /routines                               routines: next fire, last outcome, paused; what runs
                                          and what waits for a background slot
  /run ID | /pause ID | /resume ID        run a routine now, pause it, resume it
  /schedule                               registered routines and reminders, next fire first
  /updates                                background updates waiting for the conversation
  /memory [undo]                          the assistant's memory (context.md): its size and
                                          last change; undo reverts that change
  /dashboard                              a one-time login link to the dashboard (works
                                          once, for 10 minutes)
  /version                                the bot's version and commit, the claude CLI's
  /help                                   this list
  /quit                                   leave (so does end of input)";

/// The conversation command a line names, if any.
fn conversation_command(cmd: &str, rest: &str) -> Option<Command> {
    let optional = (!rest.is_empty()).then(|| rest.to_owned());
    Some(match cmd {
        "/clear" => Command::Clear,
        "/compact" => Command::Compact(optional),
        "/cost" => Command::Cost,
        "/interrupt" => Command::Interrupt,
        "/fork" => Command::Fork(optional),
        "/permissions" => Command::Permissions(optional),
        "/save" => Command::EndFork(ForkButton::Save),
        "/report" => Command::EndFork(ForkButton::Report),
        "/exit-fork" => Command::EndFork(ForkButton::Exit),
        "/config" => {
            let mut words = rest.splitn(2, char::is_whitespace);
            let key = words.next().filter(|k| !k.is_empty()).map(str::to_owned);
            let value = words
                .next()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty());
            Command::Config { key, value }
        }
        "/model" => Command::Model(optional),
        "/thinking" => Command::Thinking(optional),
        _ => return None,
    })
}

/// What the console has shown that a command can press.
#[derive(Debug, Clone, Copy)]
pub struct Pressable<'a> {
    /// The custom ids of the last embed's buttons (`/button N`).
    pub buttons: &'a [String],
    /// The newest snooze (`/snooze`).
    pub snooze: Option<&'a str>,
}

/// Answers one `/command` line; `None` when there is nothing to print.
pub async fn handle(line: &str, h: &Handles, shown: Pressable<'_>, tz: Tz) -> Option<String> {
    if let Some(reply) = super::routines::handle(line, h, tz).await {
        return Some(reply);
    }
    let buttons = shown.buttons;
    let (cmd, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    if cmd == "/snooze" {
        let main = h.main_session.as_ref()?;
        let Some(choice) = SnoozeChoice::from_word(rest) else {
            return Some("usage: /snooze 15m|1h|tomorrow".to_owned());
        };
        let Some(id) = shown.snooze else {
            return Some("nothing to snooze yet.".to_owned());
        };
        let click = ButtonClick::Snooze {
            choice,
            id: id.to_owned(),
        };
        let press = PressButton {
            custom_id: click.custom_id(),
        };
        return Some(
            main.send(press)
                .await
                .unwrap_or_else(|e| format!("the conversation did not answer: {e}")),
        );
    }
    if cmd == "/button" {
        let main = h.main_session.as_ref()?;
        let picked = rest
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| buttons.get(i));
        let Some(custom_id) = picked else {
            return Some(format!(
                "usage: /button N (1-{} for the last embed)",
                buttons.len()
            ));
        };
        if let Some(click) = RoutineClick::from_custom_id(custom_id) {
            return Some(routines_view::press(click, &h.scheduler).await);
        }
        if let Some(click) = GoogleClick::from_custom_id(custom_id) {
            let Some(google) = h.google.as_ref() else {
                return Some("failed: google is not available in this run.".to_owned());
            };
            return Some(
                google
                    .send(PressGoogleButton(click))
                    .await
                    .unwrap_or_else(|e| format!("failed: the google account did not answer ({e})")),
            );
        }
        let press = PressButton {
            custom_id: custom_id.clone(),
        };
        return main.send(press).await.ok().filter(|r| !r.is_empty());
    }
    if let Some(command) = conversation_command(cmd, rest.trim()) {
        let main = h.main_session.as_ref()?;
        let reply = main
            .send(command)
            .await
            .unwrap_or_else(|e| format!("the conversation did not answer: {e}"));
        return (!reply.is_empty()).then_some(reply);
    }
    let mut words = line.split_whitespace();
    let reply = match words.next().unwrap_or_default() {
        "/help" => HELP.to_owned(),
        "/google-auth" => match &h.google {
            Some(google) => match google.send(StartConsent).await {
                Ok(answer) => answer.to_string(),
                Err(e) => format!("the google account did not answer: {e}"),
            },
            None => "google is not available in this run.".to_owned(),
        },
        "/version" => crate::version::release().to_owned(),
        "/ping-budget" => ping_budget(words.collect(), h).await,
        "/usage" => usage(words.next(), h).await,
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
        other => format!("unknown command {other}; /help lists them"),
    };
    Some(reply)
}

async fn usage(days: Option<&str>, h: &Handles) -> String {
    let days = match days.map(report::parse_days).transpose() {
        Ok(days) => days,
        Err(e) => return format!("usage: /usage [days] ({e})"),
    };
    match h.usage_log.send(GetReport { days }).await {
        Ok(Ok(report)) => render::text(&report, JobList::Top(render::TOP_JOBS)),
        Ok(Err(e)) => format!("could not add up the usage: {e}"),
        Err(e) => format!("the usage log did not answer: {e}"),
    }
}

async fn ping_budget(args: Vec<&str>, h: &Handles) -> String {
    if args.is_empty() {
        let status = match h.ping_budget.send(FullStatus).await {
            Ok(s) => s,
            Err(e) => format!("the ping budget did not answer: {e}"),
        };
        let Some(main) = &h.main_session else {
            return status;
        };
        return match main.send(QuietHoursNow).await {
            Ok(quiet) => format!("{status}\n{}", quiet.status_line()),
            Err(e) => format!("{status}\nquiet hours: the conversation did not answer ({e})"),
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
