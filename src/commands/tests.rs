//! Unit tests of the commands through a session with the deterministic
//! test embedder (no model files): each command's JSON shape is pinned by a
//! golden file under src/commands/golden/ (field names and types; values
//! vary), and the commands behave as the front ends rely on.
//!
//! `KB_UPDATE_GOLDEN=1 cargo test --lib commands::` rewrites the golden
//! files after a deliberate, additive change to the contract.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{json, Value};

use super::{run_json, CommandArgs, Outcome};
use crate::config::{CliOverrides, Config};
use crate::embed::{Embed, TestEmbedder};
use crate::output::Style;
use crate::session::{ModelProvider, Session, SessionKind};

/// A knowledge base in a temporary folder, with a copy of the example
/// corpus to index.
struct Fixture {
    dir: tempfile::TempDir,
    embedder: Arc<TestEmbedder>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/corpus");
        copy_dir(&corpus, &dir.path().join("corpus"));
        Fixture {
            dir,
            embedder: Arc::new(TestEmbedder::default()),
        }
    }

    fn corpus(&self) -> PathBuf {
        self.dir.path().join("corpus")
    }

    fn config(&self) -> Config {
        let cli = CliOverrides {
            data_dir: Some(self.dir.path().join("data")),
        };
        let mut config = Config::load_from(&cli, &Default::default()).unwrap();
        // Unit tests never load ONNX Runtime (kb doctor would): the test
        // embedder needs none.
        config.embedding.onnxruntime = Some(self.dir.path().join("no-runtime.so"));
        config
    }

    fn session(&self, kind: SessionKind) -> Session {
        Session::new(self.config(), kind, Arc::new(AtomicBool::new(false)))
            .with_models(ModelProvider::Fixed(self.embedder.clone()))
    }

    /// Runs a command line (without `kb`) in a one-shot session.
    fn run(&self, args: &[&str]) -> crate::error::Result<Box<dyn Outcome>> {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Line {
            #[command(subcommand)]
            command: CommandArgs,
        }
        let line = Line::try_parse_from(std::iter::once("kb").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        line.command.run(&mut self.session(SessionKind::OneShot))
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self
            .run(args)
            .unwrap_or_else(|e| panic!("kb {args:?}: {e}"));
        serde_json::from_str(&out.to_json().unwrap()).unwrap()
    }

    /// A knowledge base bound to the test embedder, with only the folder
    /// `name` of `files` (name, text) added; returns the folder.
    fn with_files(name: &str, files: &[(&str, &str)]) -> (Fixture, PathBuf) {
        let f = Fixture::new();
        f.json(&["init"]);
        let dir = f.dir.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, text) in files {
            std::fs::write(dir.join(file), text).unwrap();
        }
        f.json(&["add", dir.to_str().unwrap()]);
        (f, dir)
    }

    /// Runs a tool call as after Ctrl-C (the stop flag set) and checks it
    /// stops with `E_INTERRUPTED`.
    fn stopped_by_ctrl_c(&self, tool: &str, args: Value) {
        let stop = Arc::new(AtomicBool::new(true));
        let mut session = Session::new(self.config(), SessionKind::OneShot, stop);
        match run_json(tool, args, &mut session).unwrap() {
            Err(super::CallError::Failed(crate::error::KbError::Interrupted)) => {}
            Err(e) => panic!("{tool}: {e:?}"),
            Ok(_) => panic!("{tool} ran to its end"),
        }
    }

    /// A knowledge base bound to the test embedder, with the corpus added.
    fn indexed() -> Fixture {
        let f = Fixture::new();
        f.json(&["init"]);
        f.json(&["add", f.corpus().to_str().unwrap(), "--tags", "example"]);
        f
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Checks that `v` is what `schema` declares: every required field there,
/// no field the schema does not declare, each of its declared type.
/// Returns the first difference, as a path and what is wrong there.
fn conforms(v: &Value, schema: &Value, path: &str) -> Result<(), String> {
    if schema == &Value::Bool(true) {
        return Ok(());
    }
    if let Some(branches) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        let errors: Vec<String> = branches
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| conforms(v, b, path).err())
            .collect();
        return if errors.len() < branches.as_array().unwrap().len() {
            Ok(())
        } else {
            Err(errors.join("; or "))
        };
    }
    if let Some(options) = schema.get("enum") {
        if !options.as_array().unwrap().contains(v) {
            return Err(format!("{path}: {v} is not one of {options}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let allowed: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = allowed.contains(&kind) || (kind == "integer" && allowed.contains(&"number"));
        if !ok {
            return Err(format!("{path}: a {kind} where the schema says {t}"));
        }
    }
    match v {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            // A map of the user's own keys (frontmatter): any key.
            let free = props.is_none() && schema.get("additionalProperties").is_none();
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let r = r.as_str().unwrap();
                if !map.contains_key(r) {
                    return Err(format!("{path}.{r}: required, and missing"));
                }
            }
            for (k, x) in map {
                let declared = props
                    .and_then(|p| p.get(k))
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                match declared {
                    Some(s) => conforms(x, s, &format!("{path}.{k}"))?,
                    None if free => {}
                    None => return Err(format!("{path}.{k}: not declared in the schema")),
                }
            }
            Ok(())
        }
        Value::Array(items) => match schema.get("items") {
            Some(s) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, x)| conforms(x, s, &format!("{path}[{i}]"))),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Every property path a schema declares, with whether it is required:
/// `results[].source.page_end (optional)`.
fn declared_fields(schema: &Value, path: &str, out: &mut Vec<String>) {
    for branch in ["anyOf", "oneOf"] {
        for b in schema
            .get(branch)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            declared_fields(b, path, out);
        }
    }
    if let Some(items) = schema.get("items") {
        declared_fields(items, &format!("{path}[]"), out);
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (k, s) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let p = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        let how = if required.contains(&k.as_str()) {
            ""
        } else {
            " (optional)"
        };
        out.push(format!("{p}{how}"));
        declared_fields(s, &p, out);
    }
}

/// Compares a command's declared output schema with its golden file: a
/// field removed, renamed or made optional fails; `KB_UPDATE_GOLDEN=1`
/// rewrites the file after a deliberate, additive change.
fn golden(name: &str) -> Value {
    // The contract is the fields and their types; wording is not.
    fn without_descriptions(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("description");
                map.values_mut().for_each(without_descriptions);
            }
            Value::Array(items) => items.iter_mut().for_each(without_descriptions),
            _ => {}
        }
    }
    let mut schema = super::output_schema(name).unwrap();
    without_descriptions(&mut schema);
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/commands/golden")
        .join(format!("{name}.schema.json"));
    let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    if std::env::var_os("KB_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return schema;
    }
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (KB_UPDATE_GOLDEN=1 writes it)", path.display())),
    )
    .unwrap();
    let (mut before, mut now) = (Vec::new(), Vec::new());
    declared_fields(&want, "", &mut before);
    declared_fields(&schema, "", &mut now);
    let lost: Vec<&String> = before.iter().filter(|f| !now.contains(f)).collect();
    assert!(
        lost.is_empty(),
        "the JSON contract of `kb {name}` lost fields (removed, renamed or made optional): \
         {lost:?}; fields may be added, never removed or renamed"
    );
    assert_eq!(
        schema,
        want,
        "the declared JSON of `kb {name}` changed; after a deliberate, additive change \
         KB_UPDATE_GOLDEN=1 cargo test --lib commands:: rewrites {}",
        path.display()
    );
    schema
}

/// A command's real output, checked against its declared schema.
fn check(name: &str, v: &Value) {
    let schema = super::output_schema(name).unwrap();
    if let Err(e) = conforms(v, &schema, name) {
        panic!("`kb {name}` printed what its schema does not declare: {e}\n{v:#}");
    }
}

#[test]
fn every_command_has_a_pinned_declared_contract() {
    for spec in super::SPECS {
        golden(spec.name);
    }
}

#[test]
fn every_command_prints_what_its_contract_declares() {
    let f = Fixture::new();
    check("init", &f.json(&["init"]));
    let corpus = f.corpus();
    check(
        "add",
        &f.json(&["add", corpus.to_str().unwrap(), "--tags", "example"]),
    );
    let search = f.json(&["search", "how do I rotate my ssh keys", "--top", "5"]);
    check("search", &search);
    let code = f.json(&["search", "prune old backups", "--type", "code"]);
    assert!(
        code["results"][0]["source"]["symbol_name"].is_string(),
        "{code}"
    );
    check("search", &code);
    check("search", &f.json(&["search", "sourdough", "--fts-only"]));
    let hit = &search["results"][0];
    let chunk = hit["chunk_id"].to_string();
    let doc = hit["source"]["document_id"].to_string();
    check("show", &f.json(&["show", &chunk, "--context", "1"]));
    let outline = f.json(&["outline", &doc]);
    check("outline", &outline);
    let heading = outline["items"][1]["text"].as_str().unwrap().to_string();
    check("show", &f.json(&["show", &doc, "--section", &heading]));
    check("open", &f.json(&["open", &doc, "--max-lines", "3"]));
    check("list", &f.json(&["list"]));
    check("tags", &f.json(&["tags"]));
    check("tag", &f.json(&["tag", &doc, "--add", "keys"]));
    check("info", &f.json(&["info", &doc]));
    check("status", &f.json(&["status"]));
    check("stats", &f.json(&["stats"]));
    check("reindex", &f.json(&["reindex"]));
    let skill = f.run(&["skill"]).unwrap();
    assert!(skill.human(&Style::PLAIN).contains("name: kb"));
    check("config", &f.json(&["config"]));
    let doctor = f.run(&["doctor"]).unwrap();
    check(
        "doctor",
        &serde_json::from_str(&doctor.to_json().unwrap()).unwrap(),
    );
    check("remove", &f.json(&["remove", &doc]));
    check("stats", &f.json(&["stats", "--clear"]));
}

#[test]
fn the_contract_check_catches_what_it_must() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": ["string", "null"]},
            "c": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}
        },
        "required": ["a", "b"]
    });
    assert!(conforms(&json!({"a": 1, "b": null, "c": ["x"]}), &schema, "v").is_ok());
    assert!(conforms(&json!({"a": 1}), &schema, "v")
        .unwrap_err()
        .contains("v.b"));
    assert!(conforms(&json!({"a": 1, "b": "s", "d": 0}), &schema, "v")
        .unwrap_err()
        .contains("v.d: not declared"));
    assert!(conforms(&json!({"a": "1", "b": null}), &schema, "v").is_err());
    assert!(conforms(&json!({"a": 1, "b": null, "c": ["z"]}), &schema, "v").is_err());
    let mut fields = Vec::new();
    declared_fields(&schema, "", &mut fields);
    assert_eq!(fields, ["a", "b", "c (optional)"]);
}

#[test]
fn search_finds_by_keyword_and_by_vector_and_logs() {
    let f = Fixture::indexed();
    for mode in ["hybrid", "keyword", "vector"] {
        let v = f.json(&["search", "ssh keys", "--mode", mode]);
        assert_eq!(v["mode"], mode);
        assert!(v["returned"].as_u64().unwrap() > 0, "{mode}: {v}");
        assert!(v["results"][0]["source"]["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("example")));
    }
    let kw = f.json(&["search", "sourdough", "--fts-only"]);
    assert!(kw["results"][0]["score_breakdown"]["cosine"].is_null());
    assert!(kw["results"][0]["snippet"]
        .as_str()
        .unwrap()
        .contains("[MATCH]"));
    let stats = f.json(&["stats"]);
    assert_eq!(stats["searches_by_source"]["cli"], 4, "{stats}");
    let err = f.run(&["search", "   "]).err().unwrap();
    assert_eq!(err.code(), "E_EMPTY_QUERY");
}

/// A tool call through the MCP argument path: its JSON output.
fn call(s: &mut Session, name: &str, args: Value) -> Value {
    let out = run_json(name, args, s)
        .unwrap()
        .unwrap_or_else(|e| panic!("{e:?}"));
    serde_json::from_str(&out.to_json().unwrap()).unwrap()
}

#[test]
fn a_removal_waits_for_the_writer_before_it() {
    let f = Fixture::indexed();
    let documents = f.json(&["status"])["total_documents"].as_i64().unwrap();
    let db_path = f.dir.path().join("data/kb.db");
    let held = crate::db::WriterLock::acquire(&db_path, &AtomicBool::new(false), |_| {}).unwrap();
    // Ctrl-C while it waits: nothing is removed.
    f.stopped_by_ctrl_c("remove", json!({"documents": [1]}));
    assert_eq!(f.json(&["status"])["total_documents"], documents);
    drop(held);
    f.json(&["remove", "1"]);
    assert_eq!(f.json(&["status"])["total_documents"], documents - 1);
}

#[test]
fn every_outline_item_of_code_is_a_section_show_finds() {
    let (f, _) = Fixture::with_files(
        "scripts",
        &[
            (
                "deploy.sh",
                "#!/bin/sh\necho deploying config\nrsync -a build/ /srv/app/\n",
            ),
            (
                "funcs.sh",
                "#!/bin/sh\ndeploy() {\n  echo hi\n}\n\nbackup() {\n  tar czf x.tgz .\n}\n",
            ),
        ],
    );
    for file in ["deploy.sh", "funcs.sh"] {
        let v = f.json(&["outline", file]);
        for item in v["items"].as_array().unwrap() {
            let section = item["text"].as_str().unwrap();
            let shown = f.run(&["show", file, "--section", section]);
            assert!(
                shown.is_ok(),
                "{file}: outline lists {section}, show cannot find it"
            );
        }
    }
    assert_eq!(
        f.json(&["outline", "funcs.sh"])["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_renamed_file_keeps_the_tags_its_document_had() {
    let (f, dir) = Fixture::with_files(
        "notes",
        &[
            ("t2.md", "# Tide tables\nHigh water at noon.\n"),
            ("copy.md", "# Tide tables\nHigh water at noon.\n"),
        ],
    );
    f.json(&[
        "tag",
        dir.join("t2.md").to_str().unwrap(),
        "--add",
        "manual2",
    ]);
    std::fs::rename(dir.join("t2.md"), dir.join("t2-renamed.md")).unwrap();
    f.json(&["update"]);
    let tags = |file: &str| {
        f.json(&[
            "show",
            dir.join(file).to_str().unwrap(),
            "--section",
            "Tide tables",
        ])["document"]["tags"]
            .clone()
    };
    assert_eq!(tags("t2-renamed.md"), json!(["manual2"]));
    // A document that was there before with the same text is another file.
    assert_eq!(tags("copy.md"), json!([]));
}

#[test]
fn a_comma_separates_tags_over_mcp_as_on_the_command_line() {
    let (f, dir) = Fixture::with_files("notes", &[("a.md", "# A\nPlums and pears.\n")]);
    let mut server = f.session(SessionKind::Server);
    let more = dir.join("b.md");
    std::fs::write(&more, "# B\nApples.\n").unwrap();
    call(
        &mut server,
        "add",
        json!({"paths": [more], "tags": "team,urgent"}),
    );
    let names: Vec<Value> = f
        .json(&["tags"])
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("team"), json!("urgent")]);
    let v = f.json(&["search", "apples", "--fts-only", "--tags", "team,urgent"]);
    assert_eq!(v["results"][0]["source"]["title"], "B", "{v}");
}

#[test]
fn mcp_arguments_run_the_same_commands() {
    let f = Fixture::indexed();
    let mut server = f.session(SessionKind::Server);
    let cli = f.json(&["search", "ssh keys", "--top", "3"]);
    let mcp = call(
        &mut server,
        "search",
        json!({"query": "ssh keys", "top": 3}),
    );
    assert_eq!(mcp["results"], cli["results"]);
    let doc = cli["results"][0]["source"]["document_id"].clone();
    let outline = call(&mut server, "outline", json!({"document": doc}));
    assert_eq!(outline, f.json(&["outline", &doc.to_string()]));
    // Meaning checks name the argument at fault.
    let err = run_json("show", json!({"section": "x"}), &mut server)
        .unwrap()
        .err()
        .unwrap();
    match err {
        super::CallError::Failed(e) => assert_eq!(e.field(), Some("document")),
        other => panic!("{other:?}"),
    }
    assert!(run_json("frobnicate", json!({}), &mut server).is_none());
    // The warm model loaded once; a second search reuses it.
    call(&mut server, "search", json!({"query": "backups"}));
    assert_eq!(server.counters().model_loads, 1);
    assert_eq!(server.counters().vector_loads, 1);
}

#[test]
fn an_agent_adds_only_under_the_added_roots_or_write_roots() {
    let f = Fixture::indexed();
    let outside = f.dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("token.toml"), "token = \"s3cr3t\"\n").unwrap();
    let inside = f.corpus().join("agent.md");
    std::fs::write(&inside, "# Agent\n\nWritten by an agent.\n").unwrap();
    let add = |s: &mut Session, p: &Path| run_json("add", json!({"paths": [p]}), s).unwrap();
    let mut server = f.session(SessionKind::Server);
    match add(&mut server, &outside.join("token.toml")) {
        Err(super::CallError::Failed(e)) => {
            assert_eq!(e.code(), "E_WRITE_REFUSED");
            assert!(e.to_string().contains("mcp.write_roots"), "{e}");
        }
        other => panic!("{:?}", other.map(|o| o.to_json().unwrap())),
    }
    // A path outside is refused the same whether it exists or not, and by
    // the name it was given, never where a link leads.
    let link = f.corpus().join("notes-elsewhere");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let absent_outside = f.corpus().join("../elsewhere/absent.toml");
    for p in [
        outside.join("absent.toml"),
        absent_outside,
        link.join("token.toml"),
    ] {
        match add(&mut server, &p) {
            Err(super::CallError::Failed(e)) => {
                assert_eq!(e.code(), "E_WRITE_REFUSED", "{}", p.display());
                let target = outside.join("token.toml").display().to_string();
                assert!(!e.to_string().contains(&target), "{e}");
            }
            other => panic!("{}: {:?}", p.display(), other.map(|o| o.to_json().unwrap())),
        }
    }
    // Inside, a missing file is named as missing.
    match add(&mut server, &f.corpus().join("absent.md")) {
        Err(super::CallError::Failed(e)) => assert_eq!(e.code(), "E_PATH_NOT_FOUND"),
        other => panic!("{:?}", other.map(|o| o.to_json().unwrap())),
    }
    // One path as a string, as models write it; none at all is refused.
    let one = run_json(
        "add",
        json!({"paths": inside, "exclude": "*.pdf"}),
        &mut server,
    );
    assert!(one.unwrap().is_ok());
    let none = run_json("add", json!({"paths": []}), &mut server).unwrap();
    assert!(format!("{:?}", none.err()).contains("at least one"));
    // The user's roots for agents, from the configuration.
    let mut config = f.config();
    config.mcp.write_roots = vec![outside.clone()];
    let mut server = Session::new(
        config,
        SessionKind::Server,
        Arc::new(AtomicBool::new(false)),
    )
    .with_models(ModelProvider::Fixed(f.embedder.clone()));
    assert!(add(&mut server, &outside.join("token.toml")).is_ok());
    // The command line is not confined.
    let other = f.dir.path().join("other.md");
    std::fs::write(&other, "# Other\n\nNamed by the user.\n").unwrap();
    assert_eq!(f.json(&["add", other.to_str().unwrap()])["added"], 1);
}

#[test]
fn a_server_sees_another_process_add_and_remove() {
    let f = Fixture::indexed();
    let mut server = f.session(SessionKind::Server);
    let before = call(
        &mut server,
        "search",
        json!({"query": "zeppelin mooring", "mode": "vector"}),
    );
    assert!(!before["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["text"].as_str().unwrap().contains("zeppelin")));
    let new = f.corpus().join("airships.txt");
    std::fs::write(&new, "Zeppelin mooring masts held airships at Lakehurst.").unwrap();
    f.json(&["add", new.to_str().unwrap()]);
    let after = call(
        &mut server,
        "search",
        json!({"query": "zeppelin mooring", "mode": "vector"}),
    );
    assert!(
        after["results"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Zeppelin"),
        "{after}"
    );
    assert_eq!(server.counters().vector_refreshes, 1);
    f.json(&["remove", new.to_str().unwrap()]);
    let gone = call(
        &mut server,
        "search",
        json!({"query": "zeppelin mooring", "mode": "vector"}),
    );
    assert!(!gone["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["text"].as_str().unwrap().contains("Zeppelin")));
}

#[test]
fn a_server_ranks_keywords_in_memory_as_fts5_does() {
    let f = Fixture::indexed();
    let mut server = f.session(SessionKind::Server);
    // The first search starts the load in the background (and asks FTS5).
    call(
        &mut server,
        "search",
        json!({"query": "ssh", "mode": "keyword"}),
    );
    let wait_for_index = |s: &Session| {
        for _ in 0..500 {
            if s.keyword_index().unwrap().is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the keyword index did not load");
    };
    wait_for_index(&server);
    let same_as_cli = |s: &mut Session| {
        for q in [
            "ssh keys",
            "backup strategy restic",
            "rotate",
            "install git",
            "zeppelin",
        ] {
            for (mode, extra) in [
                ("keyword", vec![]),
                ("hybrid", vec![]),
                ("keyword", vec!["--tags", "example"]),
                ("keyword", vec!["--type", "markdown"]),
                ("keyword", vec!["--max-per-document", "0", "--top", "50"]),
            ] {
                let mut args = vec!["search", q, "--mode", mode];
                args.extend(extra.iter().copied());
                let cli = f.json(&args);
                let mut mcp_args = json!({"query": q, "mode": mode});
                for pair in extra.chunks(2) {
                    let key = pair[0].trim_start_matches("--").replace('-', "_");
                    let value: Value = match pair[1].parse::<u64>() {
                        Ok(n) => json!(n),
                        Err(_) if key == "tags" => json!([pair[1]]),
                        Err(_) => json!(pair[1]),
                    };
                    mcp_args[key.as_str()] = value;
                }
                let mcp = call(s, "search", mcp_args);
                assert_eq!(mcp["results"], cli["results"], "{args:?}");
                assert_eq!(mcp["total_matches"], cli["total_matches"], "{args:?}");
            }
        }
    };
    same_as_cli(&mut server);
    assert_eq!(server.counters().keyword_loads, 1);
    // Another process adds and removes documents: the index follows.
    let new = f.corpus().join("airships.txt");
    std::fs::write(
        &new,
        "Zeppelin mooring masts held airships; ssh keys rotate.",
    )
    .unwrap();
    f.json(&["add", new.to_str().unwrap()]);
    same_as_cli(&mut server);
    assert!(server.counters().keyword_refreshes >= 1);
    f.json(&["remove", new.to_str().unwrap()]);
    same_as_cli(&mut server);
    // And so does this session's own writing.
    std::fs::write(&new, "Zeppelin hangars and ssh.").unwrap();
    run_json(
        "add",
        json!({"paths": [new.to_str().unwrap()]}),
        &mut server,
    )
    .unwrap()
    .unwrap();
    same_as_cli(&mut server);
    assert_eq!(
        server.counters().keyword_loads,
        1,
        "refreshed, not reloaded"
    );
}

#[test]
fn a_code_hit_s_section_opens_with_show_section() {
    let f = Fixture::indexed();
    let v = f.json(&[
        "search",
        "prune old backups",
        "--type",
        "code",
        "--max-per-document",
        "0",
    ]);
    let hit = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"]["symbol_kind"] == "function")
        .unwrap_or_else(|| panic!("no function hit: {v}"));
    let doc = hit["source"]["document_id"].to_string();
    let symbol = hit["source"]["symbol_name"].as_str().unwrap();
    // The section as search shows it, its last part, and the symbol name.
    let section = hit["source"]["section"].as_str().unwrap();
    let last = section.rsplit(" > ").next().unwrap();
    for asked in [section, last, symbol] {
        let s = f.json(&["show", &doc, "--section", asked]);
        assert!(
            s["content"]
                .as_str()
                .unwrap()
                .contains(symbol.rsplit('.').next().unwrap()),
            "{asked}: {s}"
        );
    }
}

#[test]
fn list_and_open_page_through_long_results() {
    let f = Fixture::indexed();
    let all = f.json(&["list"]);
    let n = all.as_array().unwrap().len();
    assert!(n > 5);
    let page = f.json(&["list", "--limit", "2", "--offset", "1"]);
    assert_eq!(page.as_array().unwrap().len(), 2);
    assert_eq!(page[0]["id"], all[1]["id"]);
    // 0 is no limit (as in sources), never an empty page that pages on.
    assert_eq!(
        f.json(&["list", "--limit", "0"]).as_array().unwrap().len(),
        n
    );
    let mut server = f.session(SessionKind::Server);
    let out = run_json("list", json!({"limit": 0}), &mut server)
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_str(&out.mcp_json().unwrap()).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), n, "{v}");
    assert!(v["next_offset"].is_null(), "{v}");
    let doc = all[0]["id"].to_string();
    let whole = f.json(&["open", &doc]);
    let part = f.json(&["open", &doc, "--lines", "2:3"]);
    let lines: Vec<&str> = whole["content"].as_str().unwrap().lines().collect();
    assert_eq!(part["content"], lines[1..3].join("\n"));
    assert_eq!(
        (part["first_line"].as_u64(), part["last_line"].as_u64()),
        (Some(2), Some(3))
    );
    let err = f.run(&["open", &doc, "--pages", "1"]).err().unwrap();
    assert_eq!(err.field(), Some("pages"), "pages are for PDFs");
    // Over MCP a call returns a bounded amount unless it asks for more.
    let mut server = f.session(SessionKind::Server);
    let out = run_json("list", json!({}), &mut server).unwrap().unwrap();
    let listed: Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), n.min(100));
}

#[test]
fn inspection_errors_have_their_codes() {
    let f = Fixture::indexed();
    assert_eq!(
        f.run(&["show", "999999"]).err().unwrap().code(),
        "E_NOT_FOUND"
    );
    assert_eq!(
        f.run(&["show", "notes", "--section", "x"])
            .err()
            .unwrap()
            .code(),
        "E_NOT_FOUND"
    );
    assert_eq!(
        f.run(&["open", "../../etc/passwd"]).err().unwrap().code(),
        "E_PATH_ESCAPE"
    );
    assert_eq!(
        f.run(&["tag", "1"]).err().unwrap().code(),
        "E_USAGE",
        "tag needs --add or --remove"
    );
    let empty = Fixture::new();
    assert_eq!(empty.run(&["status"]).err().unwrap().code(), "E_NO_INDEX");
    assert_eq!(
        empty
            .run(&["search", "x", "--fts-only"])
            .err()
            .unwrap()
            .code(),
        "E_NO_INDEX"
    );
}

/// The message reaches MCP clients too: it names what both front ends
/// call the listing of headings, and no command line.
#[test]
fn a_section_without_a_near_heading_points_to_the_outline_for_both_front_ends() {
    let f = Fixture::indexed();
    let doc = f.corpus().join("http-caching.md");
    let err = f
        .run(&["show", doc.to_str().unwrap(), "--section", "qqqqqqqqqqqqqq"])
        .err()
        .unwrap();
    assert_eq!(err.code(), "E_SECTION_NOT_FOUND");
    assert!(err.suggestions().is_empty(), "{err}");
    let message = err.to_string();
    assert!(message.contains("`outline`"), "{message}");
    assert!(
        !message.contains("`kb ") && !message.contains("DOC"),
        "{message}"
    );
}

#[test]
fn human_renderings_say_what_the_json_says() {
    let f = Fixture::indexed();
    let text = |args: &[&str]| f.run(args).unwrap().human(&Style::PLAIN);
    let search = text(&["search", "ssh keys", "--top", "2"]);
    assert!(search.starts_with("Search: \"ssh keys\""), "{search}");
    assert!(search.contains("1. ["), "{search}");
    assert!(!search.contains("[MATCH]"), "{search}");
    assert!(text(&["status"]).contains("Model: kb-test-embedder (64 dimensions)"));
    assert!(text(&["tags"]).starts_with("example"));
    assert!(text(&["list"]).contains("[markdown] [example]"));
    let add = text(&["add", f.corpus().to_str().unwrap()]);
    assert!(add.starts_with("Added 0 documents. 0 failed."), "{add}");
}

/// `open --pages` shows the marker that opens each page it shows, and
/// none of a page it does not show.
#[test]
fn open_pages_shows_the_markers_of_its_pages_only() {
    use crate::ingest::pdf::testpdf::{para, TestPdf};
    if !crate::ingest::pdf::testpdf::available_for_tests() {
        return;
    }
    let f = Fixture::indexed();
    let pdf = f.dir.path().join("pdfs/five.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    let mut doc = TestPdf::new().title("Five pages");
    for n in 1..=4 {
        doc = doc.page(vec![para(&format!(
            "This is the text of page {n} of four."
        ))]);
    }
    std::fs::write(&pdf, doc.to_bytes()).unwrap();
    f.json(&["add", pdf.to_str().unwrap()]);
    let content = |pages: &str| {
        let v = f.json(&["open", pdf.to_str().unwrap(), "--pages", pages]);
        v["content"].as_str().unwrap().to_string()
    };
    let two = content("2:3");
    assert!(two.starts_with("--- page 2 ---"), "{two}");
    assert!(
        two.contains("--- page 3 ---") && !two.contains("page 4"),
        "{two}"
    );
    let first = content("1");
    assert!(!first.contains("--- page"), "{first}");
}

/// Issue 11 item 6: every output that shows a chunk cites where it is
/// (lines for text and code, pages with `page_end` for a PDF paragraph
/// that runs onto the next page), and `show --section` says where the
/// section ends and, for a PDF, on which page it is.
#[test]
fn citations_carry_lines_and_pages_everywhere() {
    use crate::ingest::pdf::testpdf::{heading, para, TestPdf};
    if !crate::ingest::pdf::testpdf::available_for_tests() {
        return;
    }
    let f = Fixture::indexed();
    let pdf = f.dir.path().join("pdfs/orchard.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::write(
        &pdf,
        TestPdf::new()
            .title("Orchard notes")
            .page(vec![
                heading("1 Grafting", 16.0),
                para(
                    "Whip and tongue grafting joins a scion to a rootstock of the same \
                     width; cut both at a long slant, then make the tongue and fit the two \
                     so the cambium layers touch along one side, wrap the union firmly with \
                     grafting tape and",
                ),
            ])
            .page(vec![para(
                "seal the tip of the scion with wax so that it does not dry out before \
                 the quincunx buds break.",
            )])
            .to_bytes(),
    )
    .unwrap();
    f.json(&["add", pdf.parent().unwrap().to_str().unwrap()]);

    let v = f.json(&["search", "quincunx", "--fts-only", "--type", "pdf"]);
    let src = &v["results"][0]["source"];
    assert_eq!(
        (src["page"].as_u64(), src["page_end"].as_u64()),
        (Some(1), Some(2)),
        "{v}"
    );
    let hit = f.run(&["search", "quincunx", "--fts-only", "--type", "pdf"]);
    let text = hit.unwrap().human(&Style::PLAIN);
    assert!(text.contains("(p.1-2)"), "{text}");
    let chunk = v["results"][0]["chunk_id"].to_string();
    let doc = src["document_id"].to_string();
    let shown = f.json(&["show", &chunk]);
    assert_eq!(shown["chunk"]["page_end"], 2, "{shown}");
    let info = f.json(&["info", &doc]);
    assert_eq!(info["chunks"][0]["page_end"], 2, "{info}");
    let section = f.json(&["show", &doc, "--section", "1 Grafting"]);
    assert_eq!(section["page"], 1, "{section}");
    assert!(
        section["line_end"].as_u64() >= section["line"].as_u64(),
        "{section}"
    );

    // Markdown: the neighbours of `show --context` and `info`'s chunks
    // carry their lines too.
    let v = f.json(&["search", "using ssh-agent", "--fts-only"]);
    let chunk = v["results"][0]["chunk_id"].to_string();
    let shown = f.json(&["show", &chunk, "--context", "1"]);
    for c in std::iter::once(&shown["chunk"])
        .chain(shown["before"].as_array().unwrap())
        .chain(shown["after"].as_array().unwrap())
    {
        assert!(
            c["line_start"].as_u64().unwrap() <= c["line_end"].as_u64().unwrap(),
            "{shown}"
        );
    }
    assert!(!shown["before"].as_array().unwrap().is_empty(), "{shown}");
    let doc = v["results"][0]["source"]["document_id"].to_string();
    let info = f.json(&["info", &doc]);
    assert!(
        info["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["line_start"].is_u64()),
        "{info}"
    );
}

/// Issue 11 items 9 and 11: a search result says when its file changed or
/// is gone, `total_matches` counts what passes `--threshold`, and `kb show`
/// numbers chunks from 1 as `kb info` does.
#[test]
fn results_say_stale_threshold_counts_and_chunks_number_from_one() {
    let f = Fixture::indexed();
    let query = [
        "search",
        "ssh agent keys",
        "--fts-only",
        "--max-per-document",
        "0",
    ];
    let v = f.json(&query);
    let path = v["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(v["results"][0]["source"]["stale"], false, "{v}");

    // --threshold: total_matches counts the candidates that pass it.
    let scores: Vec<f64> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(scores.len() >= 3, "{v}");
    let cut = scores[1];
    let mut args = query.to_vec();
    let cut_text = cut.to_string();
    args.extend(["--threshold", &cut_text]);
    let cut_v = f.json(&args);
    let kept = cut_v["results"].as_array().unwrap().len() as u64;
    assert!(kept >= 2 && (kept as usize) < scores.len(), "{cut_v}");
    assert_eq!(cut_v["total_matches"].as_u64(), Some(kept), "{cut_v}");
    assert!(v["total_matches"].as_u64().unwrap() > kept, "{v}");

    // `kb show` counts chunks from 1: the first chunk is "1 of N".
    let first = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"]["chunk_index"] == 0)
        .expect("a first chunk among the hits");
    let shown = f
        .run(&["show", &first["chunk_id"].to_string()])
        .unwrap()
        .human(&Style::PLAIN);
    let total = first["source"]["total_chunks"].as_u64().unwrap();
    assert!(shown.contains(&format!("1 of {total}]")), "{shown}");

    // The file changes, then goes: its results say so.
    std::fs::write(
        &path,
        "# Rewritten\n\nNothing about ssh agent keys any more.\n",
    )
    .unwrap();
    let v = f.json(&query);
    let hit = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"]["path"] == path.as_str())
        .expect("the changed file's old chunks still match");
    assert_eq!(hit["source"]["stale"], true, "{v}");
    std::fs::remove_file(&path).unwrap();
    let v = f.json(&query);
    assert_eq!(v["results"][0]["source"]["stale"], true, "{v}");
    let text = f.run(&query).unwrap().human(&Style::PLAIN);
    assert!(
        text.contains("file changed or gone since indexing"),
        "{text}"
    );
}

/// Every field of every command's JSON says what it is (the descriptions
/// are docs/json.md's field tables).
#[test]
fn every_output_field_is_described() {
    fn walk(schema: &Value, path: &str, missing: &mut Vec<String>) {
        for key in ["anyOf", "oneOf"] {
            for b in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                walk(b, path, missing);
            }
        }
        if let Some(items) = schema.get("items") {
            walk(items, &format!("{path}[]"), missing);
        }
        for (k, s) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let p = format!("{path}.{k}");
            // A map keyed by document type lists every type; its own
            // description says what the values are.
            let type_key = k.parse::<crate::document::DocType>().is_ok()
                && schema.get("description").is_some();
            if s.get("description").is_none() && !type_key {
                missing.push(p.clone());
            }
            walk(s, &p, missing);
        }
    }
    let mut missing = Vec::new();
    for spec in super::SPECS {
        walk(
            &super::output_schema(spec.name).unwrap(),
            spec.name,
            &mut missing,
        );
    }
    assert!(
        missing.is_empty(),
        "fields without a doc comment: {missing:#?}"
    );
}

#[test]
fn list_search_matches_plain_text_in_any_case() {
    let (f, _) = Fixture::with_files(
        "names",
        &[
            ("a.md", "# ÉTÉ Résumé\n\nSome text.\n"),
            ("b.md", "# my_notes\n\nSome text.\n"),
            ("c.md", "# my-notes\n\nSome text.\n"),
        ],
    );
    let titles = |needle: &str| -> Vec<String> {
        let v = f.json(&["list", "--search", needle]);
        v.as_array()
            .unwrap()
            .iter()
            .map(|d| d["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(titles("été"), ["ÉTÉ Résumé"]);
    assert_eq!(titles("RÉSUMÉ"), ["ÉTÉ Résumé"]);
    assert_eq!(titles("my_notes"), ["my_notes"]);
    assert!(titles("%").is_empty());
}

#[test]
fn a_document_named_twice_is_removed_and_listed_once() {
    let f = Fixture::indexed();
    let list = f.json(&["list"]);
    let doc = &list[0];
    let id = doc["id"].to_string();
    let path = doc["path"].as_str().unwrap().to_string();
    let v = f.json(&["remove", &id, &path, &id]);
    assert_eq!(v["removed"], 1, "{v}");
    assert_eq!(v["documents"].as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn a_removed_file_stays_out_until_it_is_added_by_name() {
    let (f, dir) = Fixture::with_files(
        "notes",
        &[
            ("keep.md", "# Keep\nApples.\n"),
            ("drop.md", "# Drop\nPears.\n"),
        ],
    );
    let drop = dir.join("drop.md");
    let count = || f.json(&["list"]).as_array().unwrap().len();
    let v = f.json(&["remove", drop.to_str().unwrap()]);
    assert_eq!(v["kept_out"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(f.json(&["status"])["kept_out"], v["kept_out"]);
    let v = f.json(&["update"]);
    assert_eq!(
        (v["added"].as_u64(), v["kept_out"].as_u64()),
        (Some(0), Some(1)),
        "{v}"
    );
    let text = f.run(&["update"]).unwrap().human(&Style::PLAIN);
    assert!(
        text.contains("1 file kept out (removed with kb remove"),
        "{text}"
    );
    let v = f.json(&["add", dir.to_str().unwrap()]);
    assert_eq!(count(), 1, "adding the folder again leaves it out");
    assert_eq!(v["kept_out"], 1, "{v}");
    let v = f.json(&["add", drop.to_str().unwrap()]);
    assert_eq!(v["added"], 1, "{v}");
    let v = f.json(&["update"]);
    assert_eq!(
        (v["removed"].as_u64(), v["kept_out"].as_u64()),
        (Some(0), Some(0)),
        "{v}"
    );
    assert_eq!(count(), 2);
    // Kept out, then deleted: `remove --missing` forgets it, so a new file
    // of that name is indexed.
    f.json(&["remove", drop.to_str().unwrap()]);
    std::fs::remove_file(&drop).unwrap();
    f.json(&["remove", "--missing"]);
    std::fs::write(&drop, "# New\nQuinces.\n").unwrap();
    assert_eq!(f.json(&["update"])["added"], 1);

    // A file added by name only is forgotten as a root with its document.
    let (g, other) = Fixture::with_files("other", &[("x.md", "# X\nPlums.\n")]);
    let lone = f.dir.path().join("lone.md");
    std::fs::write(&lone, "# Lone\nFigs.\n").unwrap();
    f.json(&["add", lone.to_str().unwrap()]);
    let v = f.json(&["remove", lone.to_str().unwrap()]);
    assert!(v["kept_out"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(v["forgotten_roots"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(f.json(&["update"])["added"], 0);
    assert_eq!(count(), 2);
    // A document whose file is gone is not kept out of anything.
    std::fs::remove_file(other.join("x.md")).unwrap();
    let v = g.json(&["remove", "--missing"]);
    assert!(v["kept_out"].as_array().unwrap().is_empty(), "{v}");
}

#[test]
fn adding_only_a_device_fails_and_names_it() {
    let f = Fixture::indexed();
    let out = f.run(&["add", "/dev/null"]).unwrap();
    let e = out.failure().expect("nothing was indexed: a failure");
    assert_eq!(e.code(), "E_USAGE");
    assert!(e.to_string().contains("/dev/null: not a file"), "{e}");
    // Beside a folder it is only counted.
    let out = f
        .run(&["add", f.corpus().to_str().unwrap(), "/dev/null"])
        .unwrap();
    assert!(out.failure().is_none());
}

#[test]
fn an_emptied_folder_is_kept_like_a_gone_one() {
    let f = Fixture::indexed();
    let before = f.json(&["list"]).as_array().unwrap().len();
    // A drive unmounted: the folder is there, and empty.
    let away = f.dir.path().join("away");
    std::fs::rename(f.corpus(), &away).unwrap();
    std::fs::create_dir(f.corpus()).unwrap();
    let v = f.json(&["update"]);
    assert_eq!(v["missing_roots"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["removed"], 0, "{v}");
    assert_eq!(f.json(&["list"]).as_array().unwrap().len(), before);
    // Mounted again: nothing to do.
    std::fs::remove_dir(f.corpus()).unwrap();
    std::fs::rename(&away, f.corpus()).unwrap();
    let v = f.json(&["update"]);
    assert!(v["missing_roots"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!((&v["added"], &v["removed"]), (&json!(0), &json!(0)), "{v}");
}

#[test]
fn names_stay_on_one_line_in_human_output() {
    let (f, _) = Fixture::with_files("odd", &[("new\nline.txt", "tide tables for the harbour\n")]);
    for args in [&["list"][..], &["info", "1"], &["show", "1"]] {
        let text = f.run(args).unwrap().human(&Style::PLAIN);
        assert!(text.contains("new\\nline.txt"), "{args:?}: {text}");
        assert!(!text.contains("new\nline"), "{args:?}: {text}");
    }
    let e = f.run(&["tag", "1", "--add", "a\nb"]).err().unwrap();
    assert_eq!(e.code(), "E_USAGE");
}

#[test]
fn a_restore_is_the_backup_whatever_log_the_old_file_left() {
    use crate::db::{Database, OpenMode};
    let f = Fixture::indexed();
    let kb_db = f.dir.path().join("data/kb.db");
    let backup = f.dir.path().join("monday.db");
    f.json(&["backup", backup.to_str().unwrap()]);
    let documents = f.json(&["status"])["total_documents"].as_i64().unwrap();
    // Later writes still in the write-ahead log when the machine stopped.
    let reader = rusqlite::Connection::open(&kb_db).unwrap();
    reader
        .execute_batch("BEGIN; SELECT count(*) FROM documents;")
        .unwrap();
    let later = f.dir.path().join("later.md");
    std::fs::write(&later, "# Later\nA note written after the backup.\n").unwrap();
    f.json(&["add", later.to_str().unwrap()]);
    let log = std::fs::read(f.dir.path().join("data/kb.db-wal")).unwrap();
    drop(reader);
    std::fs::write(f.dir.path().join("data/kb.db-wal"), log).unwrap();

    let v = f.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(v["documents"], documents, "{v}");
    assert_eq!(f.json(&["status"])["total_documents"], documents);
    // The knowledge base replaced is kept whole, later note and all.
    let replaced = PathBuf::from(v["replaced"].as_str().unwrap());
    let old = Database::open(&replaced, OpenMode::Existing).unwrap();
    assert_eq!(old.document_count().unwrap(), documents + 1);

    // What is not a sound backup changes nothing: another program's
    // database with tables of the same names, too.
    let junk = f.dir.path().join("junk.db");
    std::fs::write(&junk, "not a database").unwrap();
    let foreign = f.dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE documents(x); CREATE TABLE chunks(y);")
        .unwrap();
    for bad in [&junk, &foreign, &kb_db, &f.dir.path().join("none.db")] {
        let e = f.run(&["restore", bad.to_str().unwrap()]).err().unwrap();
        assert_eq!(e.exit_code(), 1, "{bad:?}: {e}");
    }
    assert_eq!(f.json(&["status"])["total_documents"], documents);
    let aside = std::fs::read_dir(f.dir.path().join("data"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("kb.db.replaced") && n.ends_with('Z'))
        .count();
    assert_eq!(
        aside, 1,
        "only the one restore moved a knowledge base aside"
    );

    // A copy used since (its own log not yet folded in) comes back whole;
    // a log left beside a deleted kb.db is not replayed onto it.
    let used = f.dir.path().join("used.db");
    f.json(&["backup", used.to_str().unwrap()]);
    let holder = rusqlite::Connection::open(&used).unwrap();
    holder
        .execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             DELETE FROM documents WHERE id = (SELECT max(id) FROM documents);",
        )
        .unwrap();
    assert!(
        std::fs::metadata(f.dir.path().join("used.db-wal"))
            .unwrap()
            .len()
            > 0
    );
    std::fs::remove_file(&kb_db).unwrap();
    std::fs::write(f.dir.path().join("data/kb.db-wal"), b"stale log").unwrap();
    let v = f.json(&["restore", used.to_str().unwrap()]);
    assert_eq!(v["documents"], documents - 1, "{v}");
    assert!(v["replaced"].is_null(), "{v}");
    drop(holder);
    assert_eq!(f.json(&["status"])["total_documents"], documents - 1);
}

#[test]
fn path_globs_add_up_and_documents_with_paths_narrow() {
    let f = Fixture::new();
    f.json(&["init"]);
    let docs = f.dir.path().join("docs");
    for (file, text) in [
        (
            "guides/setup.md",
            "# Setup\nInstall the config tool first.\n",
        ),
        (
            "code/main.go",
            "package main\n// config loader\nfunc LoadConfig() {}\n",
        ),
        ("code/notes.md", "# Notes\nThe config lives in one file.\n"),
    ] {
        let path = docs.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    f.json(&["add", docs.to_str().unwrap()]);
    let files = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["search", "config", "--fts-only"];
        all.extend_from_slice(args);
        let v = f.json(&all);
        let mut names: Vec<String> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["source"]["path"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        names.sort();
        names.dedup();
        names
    };
    // One glob matches under any folder named guides, the other by name.
    assert_eq!(files(&["--path", "guides/*"]), ["setup.md"]);
    assert_eq!(
        files(&["--path", "*.go", "--path", "guides/*"]),
        ["main.go", "setup.md"]
    );
    // A document named and a glob: the documents named that match it.
    assert_eq!(
        files(&[
            "--document",
            "setup.md",
            "--document",
            "notes.md",
            "--path",
            "code/*"
        ]),
        ["notes.md"]
    );
    let e = f
        .run(&[
            "search",
            "config",
            "--document",
            "setup.md",
            "--path",
            "*.go",
        ])
        .err()
        .unwrap();
    assert_eq!(e.code(), "E_NOT_FOUND", "{e}");
}

#[test]
fn a_decomposed_query_finds_what_its_composed_form_finds() {
    let (f, _) = Fixture::with_files(
        "accents",
        &[
            (
                "cafe.md",
                "# Notes\nEl señor Muñoz escribió su résumé en el café.\n",
            ),
            (
                "other.md",
                "# Other\nYou're sure the regex module is imported as re.\n",
            ),
        ],
    );
    for (composed, decomposed) in [
        ("Muñoz", "Mun\u{303}oz"),
        ("résumé", "re\u{301}sume\u{301}"),
    ] {
        let titles = |q: &str| -> Vec<String> {
            let v = f.json(&["search", q, "--fts-only"]);
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["source"]["title"].as_str().unwrap().to_string())
                .collect()
        };
        let want = titles(composed);
        assert_eq!(want, ["Notes"], "{composed}");
        assert_eq!(titles(decomposed), want, "{decomposed:?}");
    }
}

#[test]
fn a_stopped_restore_changes_nothing_and_the_next_clears_what_a_killed_one_left() {
    let f = Fixture::indexed();
    let data = f.dir.path().join("data");
    let backup = f.dir.path().join("copy.db");
    f.json(&["backup", backup.to_str().unwrap()]);
    let later = f.dir.path().join("later.md");
    std::fs::write(&later, "# Later\nA note written after the backup.\n").unwrap();
    f.json(&["add", later.to_str().unwrap()]);
    let documents = f.json(&["status"])["total_documents"].as_i64().unwrap();
    // Ctrl-C before the copy is in place: the knowledge base is as it was.
    f.stopped_by_ctrl_c("restore", json!({"backup": backup}));
    assert_eq!(f.json(&["status"])["total_documents"], documents);
    // A restore killed while copying left its copy (process 999999 is gone).
    let dead = data.join("kb.db.restoring-999999");
    std::fs::write(&dead, vec![0u8; 4096]).unwrap();
    std::fs::write(data.join("kb.db.restoring-999999-journal"), b"x").unwrap();
    let v = f.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(v["documents"], documents - 1, "{v}");
    let left: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("restoring"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A damaged copy is named so, not "not a knowledge base".
    let cut = f.dir.path().join("cut.db");
    let bytes = std::fs::read(&backup).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = f.run(&["restore", cut.to_str().unwrap()]).err().unwrap();
    assert_eq!(e.exit_code(), 1, "{e}");
    assert!(e.to_string().contains("not a sound SQLite database"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_restore_through_a_linked_kb_db_replaces_the_file_it_leads_to() {
    let f = Fixture::indexed();
    let data = f.dir.path().join("data");
    let backup = f.dir.path().join("copy.db");
    f.json(&["backup", backup.to_str().unwrap()]);
    let documents = f.json(&["status"])["total_documents"].as_i64().unwrap();
    // The database on another disk, kb.db a link to it.
    let elsewhere = f.dir.path().join("big-disk");
    std::fs::create_dir(&elsewhere).unwrap();
    let real = elsewhere.join("kb.db");
    std::fs::rename(data.join("kb.db"), &real).unwrap();
    let _ = std::fs::remove_file(data.join("kb.db-wal"));
    let _ = std::fs::remove_file(data.join("kb.db-shm"));
    std::os::unix::fs::symlink(&real, data.join("kb.db")).unwrap();
    let later = f.dir.path().join("later.md");
    std::fs::write(&later, "# Later\nA note written after the backup.\n").unwrap();
    f.json(&["add", later.to_str().unwrap()]);

    let v = f.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(v["documents"], documents, "{v}");
    let link = std::fs::symlink_metadata(data.join("kb.db")).unwrap();
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert_eq!(f.json(&["status"])["total_documents"], documents);
    let replaced = PathBuf::from(v["replaced"].as_str().unwrap());
    assert_eq!(
        replaced.parent(),
        Some(elsewhere.canonicalize().unwrap().as_path())
    );
    let old = crate::db::Database::open(&replaced, crate::db::OpenMode::Existing).unwrap();
    assert_eq!(old.document_count().unwrap(), documents + 1);
}

#[test]
fn doctor_reports_a_damaged_page_instead_of_failing() {
    let f = Fixture::indexed();
    let kb_db = f.dir.path().join("data/kb.db");
    let (root, page): (usize, usize) = {
        let c = rusqlite::Connection::open(&kb_db).unwrap();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        let root: i64 = c
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'chunks'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let page: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (root as usize, page as usize)
    };
    let mut bytes = std::fs::read(&kb_db).unwrap();
    bytes[(root - 1) * page..root * page].fill(0x5a);
    std::fs::write(&kb_db, bytes).unwrap();
    let out = f.run(&["doctor"]).unwrap();
    // The error names the check at fault; its finding is in the report
    // only, once, on one line.
    let e = out.failure().expect("a fault").to_string();
    // (Unit tests load no ONNX Runtime: the runtime check faults too.)
    assert!(e.contains("faults (") && e.contains("database)"), "{e}");
    let v: Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
    let fault = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "database" && c["status"] == "fault");
    let fault = fault.unwrap_or_else(|| panic!("{v}"));
    assert!(fault["fix"].as_str().unwrap().contains("kb restore"), "{v}");
    let detail = fault["detail"].as_str().unwrap();
    assert!(
        !detail.contains('\n') && !detail.contains("***"),
        "{detail}"
    );
}

#[test]
fn config_caps_chunk_sizes_by_the_model_the_knowledge_base_is_bound_to() {
    let f = Fixture::indexed();
    let cap = |model: &str| {
        let db = crate::db::Database::open(
            &f.dir.path().join("data/kb.db"),
            crate::db::OpenMode::Existing,
        )
        .unwrap();
        db.set_config("model_name", model).unwrap();
        drop(db);
        let v = f.json(&["config"]);
        let setting = v["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == "chunking.defaults.max_tokens")
            .unwrap()
            .clone();
        setting["effective"].clone()
    };
    // 256 tokens less the two special ones and the header's reserve.
    let minilm = 256 - 2 - crate::text::header::HEADER_RESERVE;
    assert_eq!(cap("all-MiniLM-L6-v2"), json!(minilm));
    // A 512-token model reads the default 512-token chunks less its
    // header: the cap follows the bound model, not the configured one.
    let e5 = 512 - 2 - crate::text::header::HEADER_RESERVE;
    assert_eq!(cap("multilingual-e5-small"), json!(e5));
}

#[test]
fn a_knowledge_base_replaced_under_a_session_is_neither_written_nor_read() {
    let f = Fixture::indexed();
    let kb_db = f.dir.path().join("data/kb.db");
    let copy = f.dir.path().join("copy.db");
    f.json(&["backup", copy.to_str().unwrap()]);
    let mut server = f.session(SessionKind::Server);
    let documents = |s: &mut Session| call(s, "status", json!({}))["total_documents"].clone();
    let before = documents(&mut server);
    let later = f.dir.path().join("later.md");
    std::fs::write(&later, "# Later\nWritten after the copy.\n").unwrap();
    f.json(&["add", later.to_str().unwrap()]);
    assert_ne!(documents(&mut server), before);
    // The copy put in kb.db's place: the server reads it, not the old file.
    for sidecar in ["kb.db-wal", "kb.db-shm"] {
        let _ = std::fs::remove_file(f.dir.path().join("data").join(sidecar));
    }
    std::fs::rename(&copy, &kb_db).unwrap();
    server.forget_replaced_db();
    assert_eq!(documents(&mut server), before);

    // A command that wrote to a kb.db deleted meanwhile fails.
    let one = f.session(SessionKind::OneShot);
    let start = one.write_count();
    one.db().unwrap();
    one.mark_written();
    assert!(one.check_written(start).is_ok());
    std::fs::remove_file(&kb_db).unwrap();
    std::fs::write(f.dir.path().join("data/kb.db-wal"), b"log").unwrap();
    let e = one.check_written(start).err().unwrap();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("deleted or replaced"), "{e}");
    // The deleted file's log is not left for the next kb.db made here.
    assert!(!f.dir.path().join("data/kb.db-wal").exists());
    assert!(
        one.check_written(one.write_count()).is_ok(),
        "nothing written since"
    );
}

#[test]
fn an_empty_knowledge_base_reads_plainly() {
    let f = Fixture::new();
    f.json(&["init"]);
    let text = |args: &[&str]| f.run(args).unwrap().human(&Style::PLAIN);
    assert_eq!(text(&["sources"]), "No documents.\n");
    let stats = text(&["stats"]);
    assert!(stats.starts_with("Searches: 0 "), "{stats}");
    assert!(!stats.contains("null"), "{stats}");
}

#[test]
fn an_impl_block_is_its_own_section() {
    let (f, dir) = Fixture::with_files(
        "code",
        &[(
            "server.rs",
            "pub struct Server {\n    port: u16,\n}\n\nimpl Server {\n    pub fn start(&self) {}\n}\n",
        )],
    );
    let file = dir.join("server.rs");
    let file = file.to_str().unwrap();
    let shown = |section: &str| {
        let v = f.json(&["show", file, "--section", section]);
        v["content"].as_str().unwrap().to_string()
    };
    // As search results name it.
    assert!(shown("impl Server").starts_with("impl Server {"));
    assert!(shown("Server").starts_with("pub struct Server {"));
    assert!(shown("Server.start").contains("pub fn start"));
}

#[test]
fn a_tag_taken_out_of_a_files_front_matter_leaves_the_document() {
    let f = Fixture::new();
    f.json(&["init"]);
    let dir = f.dir.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    let note = dir.join("trip.md");
    let write = |tags: &str| {
        std::fs::write(
            &note,
            format!("---\ntags: [{tags}]\n---\n# Trip\n\nPack the tent and the stove.\n"),
        )
        .unwrap()
    };
    write("alpha, beta");
    f.json(&["add", dir.to_str().unwrap(), "--tags", "run"]);
    f.json(&["tag", "1", "--add", "mine"]);
    write("alpha, gamma");
    f.json(&["add", dir.to_str().unwrap()]);
    let v = f.json(&["info", "1"]);
    let mut tags: Vec<&str> = v["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    tags.sort_unstable();
    assert_eq!(tags, ["alpha", "gamma", "mine", "run"], "{v}");
    let all = f.json(&["tags"]);
    assert!(!all.to_string().contains("beta"), "{all}");
}

#[test]
fn open_over_mcp_refuses_lines_and_pages_together() {
    let f = Fixture::indexed();
    let mut server = f.session(SessionKind::Server);
    let e = run_json(
        "open",
        json!({"document": 1, "lines": "1:2", "pages": "1"}),
        &mut server,
    )
    .unwrap()
    .err()
    .expect("lines and pages together are refused");
    assert!(format!("{e:?}").contains("not both"), "{e:?}");
}

#[test]
fn two_backups_into_one_folder_get_two_names() {
    let f = Fixture::indexed();
    let folder = f.dir.path().join("backups");
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.to_str().unwrap();
    // Within a second most often; a number tells the second one apart.
    let a = f.json(&["backup", folder]);
    let b = f.json(&["backup", folder]);
    assert_ne!(a["path"], b["path"], "{a} {b}");
    assert_eq!(std::fs::read_dir(folder).unwrap().count(), 2);
}

#[test]
fn a_reindex_to_a_model_that_reads_less_splits_long_chunks_again() {
    let words = |n: usize, w: &str| vec![w; n].join(" ");
    let long = format!("{} harbour lighthouse.", words(150, "river"));
    let (mut f, dir) = Fixture::with_files(
        "notes",
        &[
            ("long.txt", long.as_str()),
            ("gone.txt", &format!("{} quay.", words(150, "bridge"))),
            ("short.txt", "A short note on canoes."),
        ],
    );
    let open = || {
        crate::db::Database::open(
            &f.dir.path().join("data/kb.db"),
            crate::db::OpenMode::Existing,
        )
        .unwrap()
    };
    let before = open().chunk_count().unwrap();
    std::fs::remove_file(dir.join("gone.txt")).unwrap();
    f.embedder = Arc::new(TestEmbedder::reading(100));
    let v = f.json(&["reindex"]);
    assert_eq!(v["read_again"], 1, "{v}");
    let gone = v["not_read_again"].as_array().unwrap();
    assert!(
        gone.len() == 1 && gone[0].as_str().unwrap().ends_with("gone.txt"),
        "{v}"
    );
    let db = open();
    // The long note is in chunks the model reads whole, every chunk has a
    // vector, and nothing is left to do.
    let limit = crate::ingest::chunk_token_limit(&f.config(), 98);
    let counter = f.embedder.token_counter();
    let long_chunks: Vec<String> = db
        .chunk_texts(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|c| c.text.contains("harbour") || c.text.contains("river"))
        .map(|c| c.text)
        .collect();
    assert!(long_chunks.len() > 1, "{long_chunks:?}");
    assert!(long_chunks.iter().all(|t| counter.count(t) <= limit));
    assert!(db.chunk_count().unwrap() > before);
    assert!(db.chunks_without_vectors(10).unwrap().is_empty());
    assert_eq!(db.resplit_pending().unwrap(), None);
    // The next reindex with the same model has nothing to read again.
    let v = f.json(&["reindex"]);
    assert_eq!(v["read_again"], 0, "{v}");
    assert_eq!(v["chunks"], db.chunk_count().unwrap(), "{v}");
    // The gone file back as it was: the next add reads it again, in chunks
    // the model reads whole.
    std::fs::write(
        dir.join("gone.txt"),
        format!("{} quay.", words(150, "bridge")),
    )
    .unwrap();
    let v = f.json(&["add", dir.to_str().unwrap()]);
    assert_eq!(v["updated"], 1, "{v}");
    let bridge: Vec<String> = db
        .chunk_texts(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|c| c.text.contains("bridge"))
        .map(|c| c.text)
        .collect();
    assert!(bridge.len() > 1, "{bridge:?}");
    assert!(bridge.iter().all(|t| counter.count(t) <= limit));
}

#[test]
fn a_reindex_stopped_while_reading_documents_again_finishes_on_its_next_run() {
    let long = format!("{} harbour.", vec!["river"; 150].join(" "));
    let (mut f, _dir) = Fixture::with_files("notes", &[("long.txt", long.as_str())]);
    f.embedder = Arc::new(TestEmbedder::reading(100));
    let db = crate::db::Database::open(
        &f.dir.path().join("data/kb.db"),
        crate::db::OpenMode::Existing,
    )
    .unwrap();
    // As after the swap: bound to the new model, the long note's chunks
    // without vectors, the re-read still to do.
    let skip: std::collections::HashSet<i64> = db
        .chunk_texts(0, 100)
        .unwrap()
        .iter()
        .map(|c| c.document_id)
        .collect();
    db.begin_reindex(&f.embedder.binding().unwrap()).unwrap();
    db.finish_reindex(&f.embedder.binding().unwrap(), &skip)
        .unwrap();
    assert_eq!(
        db.resplit_pending().unwrap().as_deref(),
        Some(TestEmbedder::NAME)
    );
    assert!(!db.chunks_without_vectors(10).unwrap().is_empty());
    let v = f.json(&["reindex"]);
    assert_eq!(
        (v["read_again"].clone(), v["chunks"].clone()),
        (json!(1), json!(0)),
        "{v}"
    );
    assert_eq!(v["previous_model"], TestEmbedder::NAME, "{v}");
    assert!(db.chunks_without_vectors(10).unwrap().is_empty());
    assert_eq!(db.resplit_pending().unwrap(), None);
}

/// A path named on the command line that leads nowhere (a dangling link,
/// a loop) is refused naming the path; a FIFO named alone fails, and
/// neither becomes an added file for later syncs.
#[test]
fn named_paths_that_are_no_documents_are_refused_and_not_kept() {
    let f = Fixture::indexed();
    let odd = f.dir.path().join("odd");
    std::fs::create_dir_all(&odd).unwrap();
    let dangling = odd.join("dangling.md");
    std::os::unix::fs::symlink(odd.join("nowhere.md"), &dangling).unwrap();
    let looped = odd.join("l1");
    std::os::unix::fs::symlink(odd.join("l2"), &looped).unwrap();
    std::os::unix::fs::symlink(&looped, odd.join("l2")).unwrap();
    for p in [&dangling, &looped] {
        let e = f.run(&["add", p.to_str().unwrap()]).err().expect("refused");
        assert!(e.to_string().contains("leads to nothing"), "{e}");
        assert!(e.to_string().contains(p.to_str().unwrap()), "{e}");
    }
    let fifo = odd.join("pipe.md");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = f.run(&["add", fifo.to_str().unwrap()]).unwrap();
    let e = out.failure().expect("nothing was indexed");
    assert!(e.to_string().contains("FIFO"), "{e}");
    let sources = f.json(&["sources"]).to_string();
    assert!(!sources.contains("odd/"), "{sources}");
}

/// A quoted phrase is in every result, also the ones the vector ranker
/// found by meaning; the count is of the chunks holding it.
#[test]
fn a_quoted_phrase_is_in_every_result_in_every_mode() {
    let f = Fixture::indexed();
    for mode in ["hybrid", "vector", "keyword"] {
        let v = f.json(&["search", "\"once per session\" ssh keys", "--mode", mode]);
        let results = v["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{mode}: {v}");
        for r in results {
            let text = r["text"].as_str().unwrap().to_lowercase();
            let words: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            assert!(
                words.windows(3).any(|w| w == ["once", "per", "session"]),
                "{mode}: {text}"
            );
        }
        assert_eq!(v["total_matches"], results.len(), "{mode}: {v}");
    }
}
