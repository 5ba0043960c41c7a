//! `ollim-bot tasks list|show|add|done|delete|update`: Google Tasks (SPEC §4, §15, §17), on
//! the list `--list` names, else the `google_task_list` config key (`@default`).
//!
//! ```text
//! ollim-bot tasks list [--all] [--list ID]
//! ollim-bot tasks show ID [--list ID]
//! ollim-bot tasks add "Buy milk" [--due 2026-02-24] [--notes "2%"] [--list ID]
//! ollim-bot tasks done ID [--list ID]
//! ollim-bot tasks delete ID [--list ID]
//! ollim-bot tasks update ID [--title "…"] [--due YYYY-MM-DD] [--notes "…"] [--list ID]
//! ```
//!
//! Task titles and notes are printed inside an `UNTRUSTED` fence (SPEC §20).

use clap::Subcommand;
use ollim_actors::google::confirm::DeleteTarget;
use ollim_actors::google::tasks;

use super::google::Google;

/// Tasks subcommands.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// Show open tasks (with --all, completed ones too); [+] marks a task with notes.
    List {
        /// Include completed and hidden tasks.
        #[arg(long)]
        all: bool,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
    /// One task in full: title, status, due date, notes, id.
    Show {
        /// The task's id (from `tasks list`).
        id: String,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
    /// Add a task.
    Add {
        /// The task's title.
        title: String,
        /// Due date, YYYY-MM-DD.
        #[arg(long)]
        due: Option<String>,
        /// Notes.
        #[arg(long)]
        notes: Option<String>,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
    /// Mark a task completed.
    Done {
        /// The task's id (from `tasks list`).
        id: String,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
    /// Delete a task (run by the agent: asks the owner to confirm on Discord first).
    Delete {
        /// The task's id (from `tasks list`).
        id: String,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
    /// Change a task's title, due date or notes.
    Update {
        /// The task's id (from `tasks list`).
        id: String,
        /// New title.
        #[arg(long)]
        title: Option<String>,
        /// New due date, YYYY-MM-DD.
        #[arg(long)]
        due: Option<String>,
        /// New notes.
        #[arg(long)]
        notes: Option<String>,
        /// Task list id (google_task_list unless given).
        #[arg(long)]
        list: Option<String>,
    },
}

/// Runs a tasks subcommand, printing its lines.
pub fn run(cmd: TasksCommand, google: &Google) -> anyhow::Result<()> {
    let due = |d: &Option<String>| d.as_deref().map(tasks::parse_due).transpose();
    match cmd {
        TasksCommand::List { all, list } => {
            let list = google.task_list(list)?;
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                let items = tasks::list(&rest, &list, all).await?;
                if items.is_empty() {
                    println!("no tasks");
                    return Ok(());
                }
                let lines: Vec<String> = items.iter().map(tasks::Task::line).collect();
                google.print_outside("google tasks", &lines)
            })
        }
        TasksCommand::Show { id, list } => {
            let list = google.task_list(list)?;
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                let task = tasks::get(&rest, &list, &id).await?;
                google.print_outside("google task", &task.details())
            })
        }
        TasksCommand::Add {
            title,
            due: d,
            notes,
            list,
        } => {
            let date = due(&d)?;
            let list = google.task_list(list)?;
            if title.trim().is_empty() {
                anyhow::bail!("a task needs a title");
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                let task = tasks::insert(&rest, &list, &title, date, notes.as_deref()).await?;
                let shown = date.map_or_else(|| "(no due)".to_owned(), |d| d.to_string());
                println!("added {}: {shown} -- {title}", task.id);
                Ok(())
            })
        }
        TasksCommand::Done { id, list } => {
            let list = google.task_list(list)?;
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                tasks::complete(&rest, &list, &id).await?;
                println!("completed {id}");
                Ok(())
            })
        }
        TasksCommand::Delete { id, list } => {
            let list = google.task_list(list)?;
            let target = DeleteTarget::Task {
                list: Some(list.clone()),
                id: id.clone(),
            };
            if super::delete_ask::handled_for_agent(target)? {
                return Ok(());
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                tasks::delete(&rest, &list, &id).await?;
                println!("deleted {id}");
                Ok(())
            })
        }
        TasksCommand::Update {
            id,
            title,
            due: d,
            notes,
            list,
        } => {
            let date = due(&d)?;
            let list = google.task_list(list)?;
            if title.is_none() && date.is_none() && notes.is_none() {
                anyhow::bail!("provide at least one of --title, --due, --notes");
            }
            google.block_on(async {
                let rest = google.api.rest(google.now).await?;
                tasks::update(&rest, &list, &id, title.as_deref(), date, notes.as_deref()).await?;
                println!("updated {id}");
                Ok(())
            })
        }
    }
}
