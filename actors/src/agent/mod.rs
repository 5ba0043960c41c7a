//! What the agent is given and what it may do: its prompts, system prompt, subagents, skills
//! and memory (the context), and its tools, permissions and the fence around outside text (the
//! trust boundary, SPEC §20). Pure logic apart from the memory files; the actors above call it.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`prompts`] | every prompt the bot writes for the agent, as pure functions |
//! | [`system_prompt`] | the system prompt appended to the CLI's preset |
//! | [`subagents`] | the subagents the main agent delegates to |
//! | [`bundled_skills`] | the skills shipped with the bot |
//! | [`spec_docs`] | the format documents the agent reads |
//! | [`memory`] | `context.md`, the agent's living memory, and its versions |
//! | [`memory_flush`] | the silent `[memory-flush]` turn before a conversation is forgotten |
//! | [`memory_search`] | ranked search over memory, snapshots and reflections |
//! | [`untrusted_fence`] | the fence around email, calendar and webhook text |
//! | [`outside_reads`] | which forks read outside text (the "second hop") |
//! | [`webhook_screen`] | prompt-injection screening of webhook payloads |
//! | [`tools`] | the `discord` MCP server: the agent's tools and their refusals |
//! | [`permissions`] | tool restrictions, the approval policy and the file hooks |
//! | [`sandbox_rules`] | the OS sandbox's rules for each CLI child, generated from the trust rules |

pub mod bundled_skills;
pub mod memory;
pub mod memory_flush;
pub mod memory_search;
pub mod outside_reads;
pub mod permissions;
pub mod prompts;
pub mod sandbox_rules;
pub mod spec_docs;
pub mod subagents;
pub mod system_prompt;
pub mod tools;
pub mod untrusted_fence;
pub mod webhook_screen;
