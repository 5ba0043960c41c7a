//! Webhook specs: `webhooks/<name>.md`, what an external `POST /hook/<id>` may start (SPEC §3, §13).
//!
//! Like routines, a spec is YAML frontmatter plus a markdown body (the prompt template). The
//! YAML `id` is the one in the URL, as in the original; the file name does not matter when
//! reading, and [`store::write`] names a new file `<id>.md`. `fields` is a JSON Schema written
//! as YAML and kept as JSON. The original never wrote these files; [`to_markdown`] writes the
//! same layout as the other kinds, with `fields` rendered as block YAML.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::jobs::frontmatter::{self, ParseError, Writer};
use crate::jobs::routine::validate_id;
use crate::jobs::run_limits::RunLimits;
use crate::jobs::settings_file::{parse_model, parse_subagent, parse_update_mode};
use crate::jobs::slug;
use crate::jobs::store::{self, Item, Loaded};
use crate::jobs::webhook_auth::{parse_auth, HookAuth, DEFAULT_RATE_LIMIT};
use crate::jobs::yaml_scalars::{Count, Flag, Text, TextList};
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
    /// Skills loaded into the prompt (SPEC §17).
    pub skills: Option<Vec<String>>,
    /// The subagent the job must delegate to (SPEC §17).
    pub subagent: Option<String>,
    /// Whether a reflection is written after the run (default true; SPEC §17).
    pub reflect: bool,
    /// The prompt template with `{field}` placeholders (the markdown body).
    pub template: String,
    /// How a sender proves itself (`auth`, `secret-env`; SPEC §20).
    pub auth: HookAuth,
    /// Requests accepted per minute (`rate-limit`, default 30).
    pub rate_limit: u32,
    /// *(ours, SPEC §19)* `max-cost` and `max-turns`: the bounds on one run.
    pub limits: RunLimits,
}

impl WebhookSpec {
    /// The spec as a background job with its settings (always in the background).
    pub fn job(&self) -> crate::jobs::Job {
        crate::jobs::Job::Webhook(crate::jobs::WebhookJob {
            id: crate::jobs::JobId(self.id.clone()),
            message: self.template.clone(),
            settings: crate::jobs::JobSettings {
                background: true,
                model: self.model,
                thinking: self.thinking,
                isolated: self.isolated,
                description: String::new(),
                update_main_session: self.update_main_session,
                allow_ping: self.allow_ping,
                allowed_tools: self.allowed_tools.clone(),
                skills: self.skills.clone(),
                reflect: self.reflect,
                subagent: self.subagent.clone(),
                gate: None,
                retries: crate::jobs::retries::DEFAULT_RETRIES,
                limits: self.limits,
            },
        })
    }

    /// The payload fields the spec declares: the names under `fields.properties`. Only these
    /// are accepted in a payload and rendered into a prompt (SPEC §13).
    pub fn declared_fields(&self) -> Vec<&str> {
        self.fields["properties"]
            .as_object()
            .map(|props| props.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// True when `name` is one of [`Self::declared_fields`].
    pub fn declares(&self, name: &str) -> bool {
        self.fields["properties"]
            .as_object()
            .is_some_and(|props| props.contains_key(name))
    }
}

/// A webhook spec file's YAML as written, before validation (unknown keys are ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct WebhookSpecFile {
    /// `id`.
    pub id: Option<Text>,
    /// `fields`: a JSON Schema, written as YAML.
    pub fields: Option<serde_yaml::Value>,
    /// `isolated`.
    pub isolated: Option<Flag>,
    /// `model`.
    pub model: Option<Text>,
    /// `thinking`.
    pub thinking: Option<Flag>,
    /// `allow-ping`.
    #[serde(alias = "allow_ping")]
    pub allow_ping: Option<Flag>,
    /// `update-main-session`.
    #[serde(alias = "update_main_session")]
    pub update_main_session: Option<Text>,
    /// `allowed-tools`.
    #[serde(alias = "allowed_tools")]
    pub allowed_tools: Option<TextList>,
    /// `skills`.
    pub skills: Option<TextList>,
    /// `subagent`.
    pub subagent: Option<Text>,
    /// `reflect`.
    pub reflect: Option<Flag>,
    /// `auth`: bearer (default), standard or github.
    pub auth: Option<Text>,
    /// `secret-env`: the variable holding a signed hook's secret.
    #[serde(alias = "secret_env")]
    pub secret_env: Option<Text>,
    /// `rate-limit`: requests per minute.
    #[serde(alias = "rate_limit")]
    pub rate_limit: Option<Count>,
    /// `max-cost` *(ours)*.
    #[serde(alias = "max_cost")]
    pub max_cost: Option<Text>,
    /// `max-turns` *(ours)*.
    #[serde(alias = "max_turns")]
    pub max_turns: Option<Count>,
}

impl WebhookSpecFile {
    /// Checks the fields and builds the spec; `template` is the file's body.
    pub fn validate(self, template: &str) -> Result<WebhookSpec, ParseError> {
        let id = validate_id(self.id)?.0;
        let fields = self.fields.ok_or(ParseError::Missing { field: "fields" })?;
        let fields = serde_json::to_value(&fields).map_err(|e| ParseError::BadWebhookFields {
            reason: e.to_string(),
        })?;
        if !fields.is_object() {
            return Err(ParseError::BadWebhookFields {
                reason: "it is not a mapping".to_owned(),
            });
        }
        let env = |name: &str| std::env::var(name).ok();
        let auth = parse_auth(
            self.auth.as_ref().map(|t| t.0.as_str()),
            self.secret_env.as_ref().map(|t| t.0.as_str()),
            &env,
        )
        .map_err(|reason| ParseError::BadWebhookAuth { reason })?;
        let rate_limit = self.rate_limit.map_or(DEFAULT_RATE_LIMIT, |c| c.0);
        if rate_limit == 0 {
            return Err(ParseError::BadWebhookAuth {
                reason: "`rate-limit` must be at least 1 request a minute".to_owned(),
            });
        }
        Ok(WebhookSpec {
            id,
            fields,
            isolated: self.isolated.is_some_and(|f| f.0),
            model: parse_model(self.model)?,
            thinking: self.thinking.is_none_or(|f| f.0),
            allow_ping: self.allow_ping.is_none_or(|f| f.0),
            update_main_session: parse_update_mode(self.update_main_session)?,
            allowed_tools: self.allowed_tools.map(|l| l.0),
            skills: self.skills.map(|l| l.0),
            subagent: parse_subagent(self.subagent)?,
            reflect: self.reflect.is_none_or(|f| f.0),
            template: template.to_owned(),
            auth,
            rate_limit,
            limits: RunLimits::parse(self.max_cost, self.max_turns)?,
        })
    }
}

/// Parses a whole webhook spec file.
pub fn parse(text: &str) -> Result<WebhookSpec, ParseError> {
    let parts = frontmatter::split(text)?;
    frontmatter::parse_yaml::<WebhookSpecFile>(parts.yaml)?.validate(parts.body)
}

/// The file's bytes: keys in the original's field order (id, fields, isolated, model,
/// thinking, allow-ping, update-main-session, allowed-tools, then the later skills, subagent,
/// reflect, and ours: auth, secret-env, rate-limit, max-cost, max-turns), defaults left out, `fields` as
/// block YAML (see [`schema_yaml`]).
pub fn to_markdown(spec: &WebhookSpec) -> String {
    let mut w = Writer::new();
    w.text("id", &spec.id);
    w.block("fields", &schema_yaml(&spec.fields));
    if spec.isolated {
        w.flag("isolated", true);
    }
    if let Some(model) = spec.model {
        w.text("model", model.as_str());
    }
    if !spec.thinking {
        w.flag("thinking", false);
    }
    if !spec.allow_ping {
        w.flag("allow-ping", false);
    }
    if spec.update_main_session != UpdateMode::default() {
        w.text("update-main-session", spec.update_main_session.as_str());
    }
    if let Some(tools) = &spec.allowed_tools {
        w.list("allowed-tools", tools);
    }
    if let Some(skills) = &spec.skills {
        w.list("skills", skills);
    }
    if let Some(subagent) = &spec.subagent {
        w.text("subagent", subagent);
    }
    if !spec.reflect {
        w.flag("reflect", false);
    }
    if let Some(name) = spec.auth.secret_env() {
        w.text("auth", spec.auth.as_str());
        w.text("secret-env", name);
    }
    if spec.rate_limit != DEFAULT_RATE_LIMIT {
        w.number("rate-limit", spec.rate_limit);
    }
    spec.limits.write(&mut w);
    w.finish(&spec.template)
}

/// A JSON value as block YAML, two spaces per level, in the style of the rest of the file:
/// strings double-quoted (so YAML 1.1 readers such as the original's do not turn `yes` or
/// `on` into booleans), keys bare when they are plain words, list entries as `- ` lines
/// indented under their key like `allowed-tools`.
pub fn schema_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_object(&mut out, map, 0),
        Value::Array(items) if !items.is_empty() => write_array(&mut out, items, 0),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn write_object(out: &mut String, map: &serde_json::Map<String, Value>, indent: usize) {
    for (key, value) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&yaml_key(key));
        out.push(':');
        write_nested(out, value, indent + 2);
    }
}

fn write_array(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            // A container item starts on the dash's line: render it one level deeper and
            // put the dash where its first line's indentation was.
            Value::Object(map) if !map.is_empty() => {
                let mut inner = String::new();
                write_object(&mut inner, map, indent + 2);
                out.push_str(&inner[indent + 1..]);
            }
            Value::Array(inner_items) if !inner_items.is_empty() => {
                let mut inner = String::new();
                write_array(&mut inner, inner_items, indent + 2);
                out.push_str(&inner[indent + 1..]);
            }
            other => {
                out.push(' ');
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

/// After a `key:`: a scalar on the same line, a container on the following lines.
fn write_nested(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_object(out, map, indent);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_array(out, items, indent);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => frontmatter::quote(s),
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        other => other.to_string(),
    }
}

/// A key is written bare when YAML (1.1 or 1.2) would read it back as the same string.
fn yaml_key(key: &str) -> String {
    const WORDS: [&str; 11] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "=", "<<",
    ];
    let plain = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$' | '.'))
        && !WORDS.contains(&key.to_ascii_lowercase().as_str());
    if plain {
        key.to_owned()
    } else {
        frontmatter::quote(key)
    }
}

impl Item for WebhookSpec {
    const KIND: &'static str = "webhook spec";
    fn id(&self) -> &str {
        &self.id
    }
    /// Specs are named after their id (`webhooks/<id>.md`), the name in their URL.
    fn file_stem(&self) -> String {
        slug::file_stem(&self.id, &self.id)
    }
    fn from_markdown(text: &str) -> Result<Self, ParseError> {
        parse(text)
    }
    fn to_markdown(&self) -> String {
        to_markdown(self)
    }
}

/// Loads every spec in `webhooks/`, skipping (and logging) bad files.
pub fn load_specs(dir: &Path) -> Result<Loaded<WebhookSpec>, store::Error> {
    store::load_dir(dir)
}

/// The valid spec whose YAML `id` is `id`, if any (the first by file name).
pub fn find_spec(dir: &Path, id: &str) -> Result<Option<WebhookSpec>, store::Error> {
    Ok(load_specs(dir)?
        .into_items()
        .into_iter()
        .find(|spec| spec.id == id))
}

#[cfg(test)]
#[path = "webhook_spec_tests.rs"]
mod tests;
