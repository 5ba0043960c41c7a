//! Webhook specs: `webhooks/<name>.md`, what an external `POST /hook/<id>` may start (SPEC §3, §13).

use crate::jobs::{ModelChoice, UpdateMode};

/// A validated webhook spec.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookSpec {
    /// The id in the URL (`/hook/<id>`).
    pub id: String,
    /// JSON Schema the payload must satisfy.
    pub fields: serde_json::Value,
    /// Fresh session instead of a fork of the main one.
    pub isolated: bool,
    /// Model override.
    pub model: Option<ModelChoice>,
    /// Extended thinking on (default true).
    pub thinking: bool,
    /// Whether `ping_user` / `discord_embed` are available (default true).
    pub allow_ping: bool,
    /// Reporting mode.
    pub update_main_session: UpdateMode,
    /// Extra tool patterns.
    pub allowed_tools: Option<Vec<String>>,
    /// The prompt template with `{field}` placeholders (the markdown body).
    pub template: String,
}
