//! How errors reach the user: as JSON (`{"error", "code", "exit_code",
//! ...}` on stderr) whenever the command's output would have been JSON, so
//! an agent can always parse them, and as text for a person at a terminal.

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use serde_json::json;

use crate::commands::{self, OutputKind};
use crate::config::OutputFormat;
use crate::text::similar;

/// Errors follow an explicit `--format`/`--json`; else a terminal gets
/// text, and a pipe gets the format the output would have had.
pub(super) fn error_format(explicit: Option<OutputFormat>, output: OutputFormat) -> OutputFormat {
    match explicit {
        Some(f) => f,
        None if std::io::stderr().is_terminal() => OutputFormat::Human,
        None => output,
    }
}

/// What a command line that did not parse was probably asking for: an
/// explicit format, and the kind of command (for its default format).
fn intent(args: &[OsString]) -> (Option<OutputFormat>, OutputKind) {
    let mut explicit = None;
    let mut kind = None;
    let mut it = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => explicit = Some(OutputFormat::Json),
            "--format" => explicit = it.next().and_then(|v| parse_format(&v)).or(explicit),
            "--data-dir" => {
                it.next();
            }
            "--" => break,
            a if a.starts_with("--format=") => {
                explicit = parse_format(&a["--format=".len()..]).or(explicit)
            }
            a if a.starts_with('-') => {}
            name if kind.is_none() => {
                kind = Some(match commands::spec(name) {
                    Some(spec) => spec.output,
                    // An unknown (mistyped) command: answer as a query would.
                    None if name == "mcp" => OutputKind::Text,
                    None => OutputKind::Query,
                });
            }
            _ => {}
        }
    }
    (explicit, kind.unwrap_or(OutputKind::Query))
}

fn parse_format(v: &str) -> Option<OutputFormat> {
    match v {
        "json" => Some(OutputFormat::Json),
        "human" => Some(OutputFormat::Human),
        _ => None,
    }
}

/// A command line clap could not parse, shown in the format the command
/// would have used; help and version are not errors.
pub(super) fn usage_error(mut e: clap::Error, args: &[OsString]) -> i32 {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    closest_flag(&mut e, args);
    if let Some(plain) = number_error(&e, args).or_else(|| not_utf8(&e, args)) {
        e = plain;
    }
    let (explicit, kind) = intent(args);
    let output = match kind {
        OutputKind::Query => OutputFormat::Json,
        OutputKind::Report | OutputKind::Text => OutputFormat::Human,
    };
    match error_format(explicit, output) {
        OutputFormat::Json => eprintln!("{}", usage_json(&e)),
        OutputFormat::Human => {
            let _ = e.print();
        }
    }
    1
}

/// An unknown flag's suggestion counts a swap of two letters as one typo
/// (clap would offer `--type` for `--tpo`; `--top` is what was meant).
fn closest_flag(e: &mut clap::Error, args: &[OsString]) {
    if e.kind() != ErrorKind::UnknownArgument {
        return;
    }
    let Some(ContextValue::String(asked)) = e.get(ContextKind::InvalidArg).cloned() else {
        return;
    };
    let asked = asked.split('=').next().unwrap_or_default().to_string();
    if !asked.starts_with("--") {
        return;
    }
    let root = <super::Cli as clap::CommandFactory>::command();
    let name = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy())
        .find(|a| root.find_subcommand(a.as_ref()).is_some());
    let command = match &name {
        Some(n) => root.find_subcommand(n.as_ref()).unwrap_or(&root),
        None => &root,
    };
    let flags: Vec<String> = command
        .get_arguments()
        .chain(root.get_arguments())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    if let Some(best) = similar::closest(&asked, flags.iter().map(String::as_str), 1).first() {
        e.insert(
            ContextKind::SuggestedArg,
            ContextValue::String((*best).to_string()),
        );
        // The usage line clap printed shows its own guess: show ours.
        let flag = best.trim_start_matches("--");
        let arg = command
            .get_arguments()
            .chain(root.get_arguments())
            .find(|a| a.get_long() == Some(flag));
        let value = arg
            .filter(|a| a.get_action().takes_values())
            .and_then(|a| a.get_value_names().and_then(|v| v.first().cloned()))
            .map(|v| format!(" <{v}>"))
            .unwrap_or_default();
        let mut cmd = command.clone().bin_name(match &name {
            Some(n) => format!("kb {n}"),
            None => "kb".to_string(),
        });
        let usage = cmd.render_usage().to_string();
        let usage = usage.replacen("[OPTIONS]", &format!("{best}{value}"), 1);
        e.insert(
            ContextKind::Usage,
            ContextValue::StyledStr(clap::builder::StyledStr::from(usage)),
        );
    }
}

/// A file name that is not UTF-8 (`caf\xe9.pdf` from an old Latin-1
/// disk): `kb add` takes it, a document argument cannot, so the error says
/// how kb spells it (its bytes as `\xHH`, as `kb list` shows the path) and
/// that the document's id works too.
fn not_utf8(e: &clap::Error, args: &[OsString]) -> Option<clap::Error> {
    if e.kind() != ErrorKind::InvalidUtf8 {
        return None;
    }
    let arg = args.iter().skip(1).find(|a| a.to_str().is_none())?;
    let spelled = crate::ingest::source_path::encode(std::path::Path::new(arg));
    Some(clap::Error::raw(
        ErrorKind::InvalidUtf8,
        format!(
            "{spelled}: not valid UTF-8; name the document as kb spells it, its bytes as \\xHH \
             (kb list shows the path: '{spelled}'), or by its id\n"
        ),
    ))
}

/// A number option given something else, said in the option's terms
/// (`--top takes a whole number from 1 to 4096`) rather than the number
/// parser's (`invalid digit found in string`): the range comes from the
/// command's argument schema, the one MCP validates against.
fn number_error(e: &clap::Error, args: &[OsString]) -> Option<clap::Error> {
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let source = std::error::Error::source(e)?;
    if !(source.is::<std::num::ParseIntError>() || source.is::<std::num::ParseFloatError>()) {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = arg.split([' ', '=']).next()?.to_string();
    let root = <super::Cli as clap::CommandFactory>::command();
    let name = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .find(|a| root.find_subcommand(a).is_some())?;
    let schema = commands::args_schema(&name)?;
    let field = flag.trim_start_matches('-').replace('-', "_");
    let prop = schema.get("properties")?.get(&field)?;
    let whole = match prop.get("type") {
        Some(serde_json::Value::String(t)) => t == "integer",
        Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => return None,
    };
    let bound = |k: &str| prop.get(k).and_then(serde_json::Value::as_f64);
    let range = match (bound("minimum"), bound("maximum")) {
        (Some(a), Some(b)) => format!(" from {a} to {b}"),
        (Some(a), None) => format!(" from {a} up"),
        _ => String::new(),
    };
    let given = match e.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(v)) => format!(" (got '{v}')"),
        _ => String::new(),
    };
    let what = if whole { "a whole number" } else { "a number" };
    let mut plain = clap::Error::raw(
        ErrorKind::ValueValidation,
        format!("{flag} takes {what}{range}{given}\n"),
    );
    if let Some(cmd) = root.find_subcommand(&name) {
        plain = plain.with_cmd(&cmd.clone().bin_name(format!("kb {name}")));
    }
    Some(plain)
}

/// clap's whole message (without the `error: ` prefix) with its
/// suggestions and the accepted values as arrays.
fn usage_json(e: &clap::Error) -> serde_json::Value {
    let rendered = e.render().to_string();
    let message = rendered.trim().trim_start_matches("error: ").to_string();
    let strings = |kind: ContextKind| -> Vec<String> {
        match e.get(kind) {
            Some(ContextValue::String(s)) => vec![s.clone()],
            Some(ContextValue::Strings(v)) => v.clone(),
            Some(ContextValue::StyledStr(s)) => vec![s.to_string()],
            Some(ContextValue::StyledStrs(v)) => v.iter().map(|s| s.to_string()).collect(),
            _ => Vec::new(),
        }
    };
    let mut suggestions = Vec::new();
    for kind in [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedValue,
    ] {
        suggestions.extend(strings(kind));
    }
    let mut v = json!({
        "error": message,
        "code": "E_USAGE",
        "exit_code": 1,
        "suggestions": suggestions,
    });
    let valid = strings(ContextKind::ValidValue);
    if !valid.is_empty() {
        v["valid_values"] = json!(valid);
    }
    if let Some(invalid) = strings(ContextKind::InvalidValue).pop() {
        v["invalid_value"] = json!(invalid);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    fn parse_err(a: &[&str]) -> serde_json::Value {
        let e = super::super::Cli::try_parse_from(args(a)).unwrap_err();
        usage_json(&e)
    }

    #[test]
    fn intent_reads_the_command_and_the_format() {
        assert_eq!(
            intent(&args(&["kb", "--data-dir", "x", "search", "--fts-onyl"])),
            (None, OutputKind::Query)
        );
        assert_eq!(
            intent(&args(&["kb", "add", "--format", "json", "--bogus"])),
            (Some(OutputFormat::Json), OutputKind::Report)
        );
        assert_eq!(
            intent(&args(&["kb", "add", "--json"])).0,
            Some(OutputFormat::Json)
        );
    }

    #[test]
    fn a_swapped_pair_of_letters_suggests_the_flag_meant() {
        let line = args(&["kb", "search", "--tpo", "3", "ssh"]);
        let mut e = super::super::Cli::try_parse_from(line.clone()).unwrap_err();
        closest_flag(&mut e, &line);
        let v = usage_json(&e);
        assert_eq!(v["suggestions"], json!(["--top"]), "{v}");
        let m = v["error"].as_str().unwrap();
        assert!(m.contains("'--top'"), "{v}");
        // The usage line shows the flag suggested, not clap's guess.
        assert!(m.contains("Usage: kb search --top <N>"), "{m}");
        assert!(!m.contains("--type"), "{m}");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_name_that_is_not_utf8_is_spelled_as_kb_shows_it() {
        use std::os::unix::ffi::OsStringExt;
        let line = vec![
            OsString::from("kb"),
            OsString::from("info"),
            OsString::from_vec(b"caf\xe9.pdf".to_vec()),
        ];
        let e = super::super::Cli::try_parse_from(line.clone()).unwrap_err();
        let e = not_utf8(&e, &line).expect("an invalid UTF-8 error");
        let m = usage_json(&e)["error"].as_str().unwrap().to_string();
        assert!(m.contains("'caf\\xE9.pdf'") && m.contains("its id"), "{m}");
    }

    #[test]
    fn a_number_option_says_what_it_takes() {
        let line = args(&["kb", "search", "--top", "abc", "ssh"]);
        let e = super::super::Cli::try_parse_from(line.clone()).unwrap_err();
        let e = number_error(&e, &line).unwrap();
        let v = usage_json(&e);
        let m = v["error"].as_str().unwrap();
        assert!(
            m.starts_with("--top takes a whole number from 1 to 4096 (got 'abc')"),
            "{v}"
        );
        assert!(!m.contains("invalid digit"), "{v}");
        let line = args(&["kb", "search", "x", "--threshold", "high"]);
        let e = super::super::Cli::try_parse_from(line.clone()).unwrap_err();
        let m = usage_json(&number_error(&e, &line).unwrap())["error"].to_string();
        assert!(m.contains("--threshold takes a number from 0 up"), "{m}");
        let line = args(&["kb", "open", "x", "--max-lines", "ten"]);
        let e = super::super::Cli::try_parse_from(line.clone()).unwrap_err();
        let m = usage_json(&number_error(&e, &line).unwrap())["error"].to_string();
        assert!(
            m.contains("--max-lines takes a whole number from 0 up"),
            "{m}"
        );
    }

    #[test]
    fn usage_errors_carry_the_whole_message_and_suggestions() {
        let e = parse_err(&["kb", "search", "--fts-onyl", "ssh"]);
        assert_eq!(e["code"], "E_USAGE");
        assert!(e["error"].as_str().unwrap().contains("--fts-onyl"), "{e}");
        assert_eq!(e["suggestions"], json!(["--fts-only"]), "{e}");

        let e = parse_err(&["kb", "search"]);
        assert!(e["error"].as_str().unwrap().contains("<QUERY>"), "{e}");

        let e = parse_err(&["kb", "search", "q", "--type", "md"]);
        assert_eq!(e["invalid_value"], "md", "{e}");
        assert!(e["valid_values"]
            .as_array()
            .unwrap()
            .contains(&json!("markdown")));

        let e = parse_err(&["kb", "serch", "q"]);
        assert_eq!(e["suggestions"], json!(["search"]), "{e}");
    }

    #[test]
    fn flags_are_never_taken_for_the_query() {
        use super::super::CliCommand;
        let e = super::super::Cli::try_parse_from(args(&["kb", "search", "--json"]));
        assert!(e.is_err(), "--json is a flag, so the query is missing");
        let cli = super::super::Cli::try_parse_from(args(&["kb", "search", "foo", "bar"])).unwrap();
        match cli.command {
            CliCommand::Kb(commands::CommandArgs::Search(s)) => {
                assert_eq!(s.query_text(), "foo bar")
            }
            other => panic!("{other:?}"),
        }
        let cli =
            super::super::Cli::try_parse_from(args(&["kb", "search", "--", "-v", "flag"])).unwrap();
        match cli.command {
            CliCommand::Kb(commands::CommandArgs::Search(s)) => {
                assert_eq!(s.query_text(), "-v flag")
            }
            other => panic!("{other:?}"),
        }
        // Words that only look like short options are query words; real
        // options stay options wherever they are.
        let line = super::super::query_words_last(args(&[
            "kb",
            "--data-dir",
            "d",
            "search",
            "-git",
            "-n",
            "3",
            "rebase",
            "--fts-only",
        ]));
        let cli = super::super::Cli::try_parse_from(line).unwrap();
        match cli.command {
            CliCommand::Kb(commands::CommandArgs::Search(s)) => {
                assert_eq!(s.query_text(), "-git rebase");
                assert_eq!(s.top, Some(3));
                assert!(s.fts_only);
            }
            other => panic!("{other:?}"),
        }
        let line = super::super::query_words_last(args(&["kb", "search", "--fts-onyl", "ssh"]));
        assert!(super::super::Cli::try_parse_from(line).is_err());
        // `-q` only where it means something (the commands that show a
        // progress bar).
        assert!(super::super::Cli::try_parse_from(args(&["kb", "status", "-q"])).is_err());
        assert!(super::super::Cli::try_parse_from(args(&["kb", "list", "-q"])).is_err());
        assert!(super::super::Cli::try_parse_from(args(&["kb", "add", "x", "-q"])).is_ok());
        // A guessed one-letter flag is no query word either, wherever it is.
        for guess in [["kb", "search", "ssh", "-q"], ["kb", "search", "-v", "ssh"]] {
            let line = super::super::query_words_last(args(&guess));
            let e = super::super::Cli::try_parse_from(line).unwrap_err();
            let e = usage_json(&e);
            assert!(
                e["error"]
                    .as_str()
                    .unwrap()
                    .contains("unexpected argument '-"),
                "{e}"
            );
        }
    }
}
