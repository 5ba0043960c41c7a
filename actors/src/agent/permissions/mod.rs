//! Tool restrictions and permissions (SPEC §6 "Tool restrictions", SPEC §11). Pure logic, no actor:
//! the sessions that hold a CLI process own a [`Policy`] each and ask their surface through
//! [`ApprovalRequest`].
//!
//! | file | owns |
//! | --- | --- |
//! | [`patterns`] | parsing `allowed-tools` patterns and [`validate`] at start |
//! | [`background`] | a background job's tool set: reply tools, defaults, policy, declarations |
//! | [`tool_policy`] | `tool-policy.yaml`: read, re-read on change, the last good one kept |
//! | [`matcher`] | [`is_allowed`]: does a call fall under an allow list |
//! | [`policy`] | the four modes, `state/` protection, session approvals: [`Policy::decide`] |
//! | [`approval`] | the question to the surface, its reactions and its 60 s limit |
//! | [`label`] | `Bash(rm x)` labels and the `~~…~~ — denied` line |
//! | [`modes`] | the modes in plain words for `/permissions`, and reading either spelling |
//! | [`root_rule`] | the CLI's refusal of `bypassPermissions` as root |
//! | [`read_scope`] | a background fork's Read/Glob/Grep held to its allowed set (a hook) |
//! | [`secret_reads`] | `.env`, `state/token.json`, the Google client, `/proc/*/environ`: refused to the file tools of every session |
//! | [`unsandboxed`] | the `ollim-bot` commands the OS sandbox lets out, and that nothing rides along with them |
//! | [`no_sandbox`] | Bash without the OS sandbox: one coarse, documented reading of the text |
//! | [`file_hooks`] | the hooks every session registers: `state/` writes denied, markdown committed |
//! | [`profile_writes`] | background forks' file tools refused writing `context.md`, `USER.md`, `IDENTITY.md` |
//! | [`routine_validator`] | the file hook's check of routine and reminder writes (refused when unloadable, warnings passed on) |
//! | `edit_scope` | which file edits `acceptEdits` approves: inside the data directory, not hidden |
//! | `file_rules`, `glob` | what path rules cover; wildcard matching |
//!
//! With the OS sandbox in force (`sandbox_rules` beside this module, SPEC §20) the kernel is the
//! boundary for what a Bash command reads, writes and reaches — secrets, `state/`, a background
//! job's memory and profile, the network — and no Bash text is judged for it. What the sandbox
//! cannot express stays here: the file tools (Read, Write, Edit, Grep run inside the CLI,
//! outside any sandbox: `secret_reads`, `read_scope`, `file_hooks`, `profile_writes`), which
//! tools and commands a session may run at all (`matcher`, `policy`, `approval`), what may ride
//! out of the sandbox with our own commands (`unsandboxed`), and whether a routine file loads
//! (`routine_validator`). Without the sandbox (`off`, or `auto` where bubblewrap or socat is
//! missing) a Bash command meets only `no_sandbox`'s coarse rule: a courtesy, not a boundary.

pub mod approval;
pub mod background;
mod edit_scope;
pub mod file_hooks;
mod file_rules;
mod glob;
pub mod label;
pub mod matcher;
pub mod modes;
pub mod no_sandbox;
pub mod patterns;
pub mod policy;
pub mod profile_writes;
pub mod read_scope;
pub mod root_rule;
pub mod routine_validator;
pub mod secret_reads;
pub mod tool_policy;
pub mod unsandboxed;

pub use approval::{
    ask_surface, cancelled_text, expired_text, prompt_text, ApprovalAnswer, ApprovalRequest, Asker,
    APPROVAL_EMOJI, APPROVAL_TIMEOUT,
};
pub use background::{
    background_tools, conversation_tools, Declared, UnsafeTools, BG_REPLY_TOOLS, DEFAULT_BG_TOOLS,
    MAIN_SESSION_TOOLS,
};
pub use edit_scope::edit_stays_home;
pub use file_hooks::FileHooks;
pub use file_rules::{is_file_write_tool, is_state_path, FILE_WRITE_TOOLS};
pub use label::{denied_line, failed_label, short_tool_name, struck_through, tool_label};
pub use matcher::is_allowed;
pub use patterns::{validate, ToolPattern, Validated};
pub use policy::{reasons, state_write_denial, Decision, Policy};
pub use root_rule::{bypass_refused, bypass_refused_as_root, BYPASS_REFUSED_AS_ROOT};
