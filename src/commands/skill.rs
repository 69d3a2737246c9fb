//! `kb skill`: prints SKILL.md, the instructions for LLM tools.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

const SKILL_MD: &str = include_str!("../../SKILL.md");

/// Print SKILL.md, the instructions for LLM tools (kb skill > ~/.claude/skills/kb/SKILL.md)
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkillArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SkillOutput {
    /// SKILL.md, the instructions for LLM tools.
    pub content: &'static str,
}

impl Command for SkillArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "skill",
        title: "Instructions for LLM tools",
        summary: "SKILL.md, the instructions for LLM tools.",
        output: OutputKind::Text,
        mcp: Mcp::Hidden,
    };
    type Output = SkillOutput;

    fn run(self, _session: &mut Session) -> Result<SkillOutput> {
        Ok(SkillOutput { content: SKILL_MD })
    }
}

plain_outcome!(SkillOutput);

impl Render for SkillOutput {
    fn human(&self, _style: &Style) -> String {
        self.content.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::SKILL_MD;

    /// kb's own SKILL.md follows the Agent Skills format: only its
    /// top-level keys, a lower-case hyphenated name, a description of at
    /// most 1024 characters, and anything else under `metadata`.
    #[test]
    fn skill_md_follows_the_agent_skills_frontmatter() {
        let front = SKILL_MD
            .strip_prefix("---\n")
            .and_then(|s| s.split_once("\n---\n"))
            .map(|(f, _)| f)
            .expect("SKILL.md starts with a frontmatter block");
        let v: serde_norway::Value = serde_norway::from_str(front).unwrap();
        let map = v.as_mapping().unwrap();
        let allowed = [
            "name",
            "description",
            "license",
            "compatibility",
            "metadata",
            "allowed-tools",
        ];
        for key in map.keys() {
            let key = key.as_str().unwrap();
            assert!(allowed.contains(&key), "top-level key {key} belongs under metadata");
        }
        let name = v["name"].as_str().unwrap();
        assert!(name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
        let description = v["description"].as_str().unwrap();
        assert!(!description.is_empty() && description.chars().count() <= 1024);
        assert_eq!(
            v["metadata"]["version"].as_str(),
            Some(env!("CARGO_PKG_VERSION"))
        );
    }
}
