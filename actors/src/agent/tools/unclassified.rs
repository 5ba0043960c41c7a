//! The check of the tools a CLI release lists at start (`system/init`) against the table of
//! [`super::offer`]: a tool it does not classify is a new release's, named once in the log.

use std::sync::atomic::{AtomicBool, Ordering};

use super::offer::built_in_row;
use super::schema::{ToolName, SERVER_NAME};

/// The tools in a `system/init` list that the table does not classify (another MCP server's
/// tools are the user's own and not ours to classify).
pub fn unclassified(init_tools: &[String]) -> Vec<String> {
    init_tools
        .iter()
        .filter(|name| match name.strip_prefix("mcp__") {
            Some(rest) => match rest.strip_prefix(&format!("{SERVER_NAME}__")) {
                Some(tool) => ToolName::parse(tool).is_none(),
                None => false,
            },
            None => built_in_row(name).is_none(),
        })
        .cloned()
        .collect()
}

/// Set once the unclassified tools have been logged, so a new CLI release is named once per run.
static UNCLASSIFIED_LOGGED: AtomicBool = AtomicBool::new(false);

/// Logs, once per run, the tools of a `system/init` list the table does not classify.
pub fn note_init_tools(init_tools: &[String]) {
    if UNCLASSIFIED_LOGGED.load(Ordering::Relaxed) {
        return;
    }
    let unknown = unclassified(init_tools);
    if !unknown.is_empty() && !UNCLASSIFIED_LOGGED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            tools = ?unknown,
            "the claude cli offers tools the bot's tool table does not classify (a new cli release?); \
             no session is offered them unless tool-policy.yaml or a job names them"
        );
    }
}
