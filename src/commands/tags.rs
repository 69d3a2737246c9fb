//! `kb tags`: every tag with its document count.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

/// Every tag with the number of documents carrying it
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TagsArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TagCount {
    /// The tag.
    pub name: String,
    /// Documents carrying it.
    pub count: i64,
}

/// Most used first.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(transparent)]
pub(crate) struct TagsOutput(pub Vec<TagCount>);

/// The tags as an MCP call returns them: MCP's structured content is an
/// object.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TagsObject<'a> {
    /// Every tag, most used first.
    pub tags: &'a [TagCount],
}

impl Command for TagsArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "tags",
        title: "List tags",
        summary: "Every tag with the number of documents carrying it, most used first: \
                  {tags: [{name, count}]}.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = TagsOutput;

    fn run(self, session: &mut Session) -> Result<TagsOutput> {
        Ok(TagsOutput(
            session
                .db()?
                .tag_counts()?
                .into_iter()
                .map(|(name, count)| TagCount { name, count })
                .collect(),
        ))
    }

    fn mcp_output_schema() -> serde_json::Value {
        super::output_schema_of::<TagsObject>()
    }
}

impl super::Outcome for TagsOutput {
    fn to_json(&self) -> Result<String> {
        crate::output::to_json(self)
    }

    fn mcp_json(&self) -> Result<String> {
        crate::output::to_json(&TagsObject { tags: &self.0 })
    }
}

impl Render for TagsOutput {
    fn human(&self, _style: &Style) -> String {
        if self.0.is_empty() {
            return "No tags.\n".into();
        }
        let width = self.0.iter().map(|t| t.name.len()).max().unwrap_or(0);
        self.0
            .iter()
            .map(|t| format!("{:<width$}  {}\n", t.name, t.count))
            .collect()
    }
}
