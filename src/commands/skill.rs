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
pub struct SkillArgs {}

#[derive(Debug, Serialize)]
pub struct SkillOutput {
    pub content: &'static str,
}

impl Command for SkillArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "skill",
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
