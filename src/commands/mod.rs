//! Every kb command, one file each. A command file holds:
//! - its arguments, one struct that is at once the clap arguments, the serde
//!   form of the MCP tool's arguments and their JSON Schema, so one doc
//!   comment is both the `--help` line and the schema's description;
//! - the typed request those arguments mean, checked once;
//! - `run(self, &mut Session)`, which returns a typed output and never prints;
//! - the output type (its serde form is the JSON contract) and its rendering
//!   for people.
//!
//! The registry at the end lists each command once; it generates the CLI's
//! subcommands and dispatch, and the MCP tool list and calls, so the two
//! front ends cannot drift apart. Adding a command: a file here with a type
//! implementing [`Command`], and one registry row.

pub(crate) mod document;
pub(crate) mod one_or_many;
pub(crate) mod scope;
pub(crate) mod sections;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{KbError, Result};
use crate::output::Render;
use crate::session::Session;

/// A command: its arguments type implements this.
pub(crate) trait Command: Sized {
    /// What the registry knows about the command.
    const SPEC: CommandSpec;
    /// The command's result; its JSON is the output contract, and its
    /// JSON Schema declares that contract.
    type Output: Serialize + JsonSchema + Outcome + 'static;
    /// Checks the arguments, runs the command and returns its result.
    fn run(self, session: &mut Session) -> Result<Self::Output>;
    /// The JSON Schema of what an MCP call returns ([`Outcome::mcp_json`]):
    /// the output's, unless the command gives MCP another form.
    fn mcp_output_schema() -> serde_json::Value {
        output_schema_of::<Self::Output>()
    }
}

/// Facts about a command that front ends act on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CommandSpec {
    /// The subcommand and MCP tool name.
    pub name: &'static str,
    /// The MCP tool's title, for people choosing tools in a client.
    pub title: &'static str,
    /// The MCP tool's description (the CLI's help comes from doc comments).
    pub summary: &'static str,
    pub output: OutputKind,
    pub mcp: Mcp,
}

/// How a command's result is shown by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputKind {
    /// A query: JSON on stdout unless `--format human` or stdout is a
    /// terminal (then `search.default_format`, human by default).
    Query,
    /// Work (add, init, reindex): a summary for people on stderr, and JSON
    /// on stdout with `--format json`.
    Report,
    /// Text for people (kb skill), whatever the format.
    Text,
}

/// Whether and how a command is offered as an MCP tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mcp {
    /// Not a tool.
    Hidden,
    /// A read-only tool.
    Read,
    /// A tool that changes the knowledge base (offered with --allow-write).
    Write { destructive: bool, idempotent: bool },
}

/// A command's result, whatever the command: JSON for the contract, text
/// for people, and whether the command ended in an error after all (an
/// interrupted `kb add` still reports what it did).
pub(crate) trait Outcome: Render {
    fn to_json(&self) -> Result<String>;
    fn failure(&self) -> Option<KbError> {
        None
    }
    /// The JSON an MCP call returns: a JSON object (MCP's structured
    /// content must be one), the same as [`Outcome::to_json`] unless the
    /// command gives MCP another form (a page of a list with its total).
    fn mcp_json(&self) -> Result<String> {
        self.to_json()
    }
}

/// Outputs that always succeed get [`Outcome`] from this.
macro_rules! plain_outcome {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::commands::Outcome for $t {
            fn to_json(&self) -> $crate::error::Result<String> {
                $crate::output::to_json(self)
            }
        })*
    };
}

/// Why a call over MCP failed before or while running.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The arguments do not parse (every problem, each with its field).
    Invalid(Vec<(String, String)>),
    /// The command ran and failed.
    Failed(KbError),
}

/// The JSON Schema of an output type as kb writes it: its fields with their
/// descriptions (the doc comments), a field required unless kb leaves it
/// out when it does not apply, nested types inlined.
pub(crate) fn output_schema_of<T: JsonSchema>() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

/// The JSON Schema of an arguments type, inlined (MCP clients want no
/// `$ref`s).
pub(crate) fn schema_of<T: JsonSchema>() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    if let Some(o) = v.as_object_mut() {
        // The Rust type name and its doc comment say nothing to a client;
        // the tool description does.
        o.remove("title");
        o.remove("description");
        o.entry("properties")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
    }
    v
}

fn call<A>(args: serde_json::Value, session: &mut Session) -> Result<Box<dyn Outcome>, CallError>
where
    A: Command + DeserializeOwned,
{
    // The path names the argument at fault (`lines` for a bad range).
    let parsed: A = serde_path_to_error::deserialize(args).map_err(|e| {
        let field = match e.path().to_string() {
            root if root == "." => String::new(),
            path => path,
        };
        CallError::Invalid(vec![(field, e.into_inner().to_string())])
    })?;
    let before = session.write_count();
    match parsed
        .run(session)
        .and_then(|out| session.check_written(before).map(|()| out))
    {
        Ok(out) => Ok(Box::new(out)),
        Err(e) => Err(CallError::Failed(session.name_db_in(e))),
    }
}

/// The registry: one row per command, in the order of `kb --help` and of
/// the MCP tool list.
macro_rules! registry {
    ($( $variant:ident($module:ident :: $args:ident) ),* $(,)?) => {
        $(pub(crate) mod $module;)*

        /// The command of a parsed command line.
        #[derive(Debug, clap::Subcommand)]
        pub(crate) enum CommandArgs {
            $( $variant($module::$args), )*
        }

        impl CommandArgs {
            pub(crate) fn spec(&self) -> &'static CommandSpec {
                match self {
                    $( CommandArgs::$variant(_) => &<$module::$args as Command>::SPEC, )*
                }
            }

            /// Runs the command; errors name the session's database.
            pub(crate) fn run(self, session: &mut Session) -> Result<Box<dyn Outcome>> {
                let before = session.write_count();
                let out: Result<Box<dyn Outcome>> = match self {
                    $( CommandArgs::$variant(a) => a.run(session).map(|o| Box::new(o) as Box<dyn Outcome>), )*
                };
                out.and_then(|o| session.check_written(before).map(|()| o))
                    .map_err(|e| session.name_db_in(e))
            }
        }

        /// Every command's registry facts, in order.
        pub(crate) const SPECS: &[CommandSpec] = &[ $( <$module::$args as Command>::SPEC, )* ];

        /// The JSON Schema of a command's arguments (the MCP input schema).
        pub(crate) fn args_schema(name: &str) -> Option<serde_json::Value> {
            $( if name == <$module::$args as Command>::SPEC.name {
                return Some(schema_of::<$module::$args>());
            } )*
            None
        }

        /// The JSON Schema of a command's output (its JSON contract).
        pub(crate) fn output_schema(name: &str) -> Option<serde_json::Value> {
            $( if name == <$module::$args as Command>::SPEC.name {
                return Some(output_schema_of::<<$module::$args as Command>::Output>());
            } )*
            None
        }

        /// The JSON Schema of what a command's MCP tool returns.
        pub(crate) fn mcp_output_schema(name: &str) -> Option<serde_json::Value> {
            $( if name == <$module::$args as Command>::SPEC.name {
                return Some(<$module::$args as Command>::mcp_output_schema());
            } )*
            None
        }

        /// Runs a command from JSON arguments (an MCP call); `None` for an
        /// unknown name.
        pub(crate) fn run_json(
            name: &str,
            args: serde_json::Value,
            session: &mut Session,
        ) -> Option<Result<Box<dyn Outcome>, CallError>> {
            $( if name == <$module::$args as Command>::SPEC.name {
                return Some(call::<$module::$args>(args, session));
            } )*
            None
        }
    };
}

registry! {
    Search(search::SearchArgs),
    Show(show::ShowArgs),
    Outline(outline::OutlineArgs),
    Open(open::OpenArgs),
    List(list::ListArgs),
    Sources(sources::SourcesArgs),
    Tags(tags::TagsArgs),
    Status(status::StatusArgs),
    Add(add::AddArgs),
    Update(update::UpdateArgs),
    Remove(remove::RemoveArgs),
    Init(init::InitArgs),
    Reindex(reindex::ReindexArgs),
    Tag(tag::TagArgs),
    Info(info::InfoArgs),
    Stats(stats::StatsArgs),
    Skill(skill::SkillArgs),
    Config(config::ConfigArgs),
    Doctor(doctor::DoctorArgs),
    Backup(backup::BackupArgs),
    Restore(restore::RestoreArgs),
}

#[cfg(test)]
mod tests;

/// The registry facts of the command named `name`.
pub(crate) fn spec(name: &str) -> Option<&'static CommandSpec> {
    SPECS.iter().find(|s| s.name == name)
}
