//! Skills: `skills/<name>/SKILL.md`, reusable instructions that jobs load by name (SPEC §3).

/// A validated skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Lowercase letters, digits and hyphens; equal to its directory's name.
    pub name: String,
    /// One line saying when to use it.
    pub description: String,
    /// Tool patterns the skill needs in background jobs.
    pub allowed_tools: Option<Vec<String>>,
    /// The markdown body: the instructions (may hold `` !`command` `` lines).
    pub instructions: String,
}
