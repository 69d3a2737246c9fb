//! A new user's first ten minutes, scripted: the model ./setup.sh prepared
//! is found without flags, the first `kb add` binds it, agents get JSON
//! (errors included) and flags are never taken for the query.

use std::path::PathBuf;

use crate::common::{fixture_tree, model_dir_int8, stderr_json, Kb};
use serde_json::Value;

/// A kb cache laid out as ./setup.sh leaves it (the model under
/// `models/NAME`), for a user whose HOME is the test's.
fn prepared_cache(kb: &Kb) -> PathBuf {
    let cache = kb.home.path().join("cache");
    let models = cache.join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::os::unix::fs::symlink(model_dir_int8(), models.join("all-MiniLM-L6-v2-int8")).unwrap();
    cache
}

fn run(kb: &Kb, cache: &PathBuf, args: &[&str]) -> std::process::Output {
    kb.cmd()
        .env("KB_CACHE_DIR", cache)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn init_and_first_add_find_the_prepared_model_offline() {
    let kb = Kb::empty();
    let cache = prepared_cache(&kb);
    let out = run(&kb, &cache, &["init", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The default model is the int8 copy.
    assert_eq!(v["model_name"], "all-MiniLM-L6-v2-int8");
    // Again, plainly: the recorded directory (or the cache) is found.
    let again = run(&kb, &cache, &["init"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("already initialised"));

    // Another data dir, no init: the first add binds the model itself.
    let other = Kb::empty();
    let docs = other.home.path().join("docs");
    fixture_tree(&docs);
    let out = run(
        &other,
        &cache,
        &["add", docs.to_str().unwrap(), "--format", "json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("using all-MiniLM-L6-v2-int8 from"));
    let out = run(
        &other,
        &cache,
        &["search", "--json", "how", "do", "I", "install", "git"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["query"], "how do I install git",
        "unquoted words are one query"
    );
    assert_eq!(v["mode"], "hybrid");
    assert_eq!(v["results"][0]["source"]["title"], "Git Admin Guide");
    assert_eq!(v["results"][0]["source"]["stale"], false);
    // The query from stdin.
    let out = other
        .cmd()
        .env("KB_CACHE_DIR", &cache)
        .args(["search", "-", "--fts-only"])
        .write_stdin("dentist appointment\n")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["query"], "dentist appointment");
    assert!(v["returned"].as_u64().unwrap() > 0);
    // ONNX Runtime's telemetry is off: nothing is written under the user's
    // cache by it.
    assert!(
        !other.home.path().join(".cache/Microsoft").exists(),
        "ONNX Runtime wrote telemetry under ~/.cache/Microsoft"
    );
}

#[test]
fn a_first_add_without_a_model_leaves_nothing_behind() {
    let kb = Kb::empty();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let e = kb.error(&["add", docs.to_str().unwrap()], 1);
    assert_eq!(e["code"], "E_MODEL_MISSING");
    assert!(e["error"].as_str().unwrap().contains("kb init"), "{e}");
    assert!(!e["error"].as_str().unwrap().contains("./setup.sh"), "{e}");
    assert!(!kb.db_path().exists(), "an unusable kb.db was created");
}

#[test]
fn agents_get_json_errors_and_flags_stay_flags() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    // No --format: stdout is a pipe, so the error is JSON.
    let out = kb
        .cmd()
        .args(["search", "--fts-onyl", "git"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_USAGE");
    assert_eq!(e["suggestions"][0], "--fts-only", "{e}");
    let out = kb
        .cmd()
        .args(["search", "git", "--type", "md"])
        .output()
        .unwrap();
    let e = stderr_json(&out);
    assert_eq!(e["invalid_value"], "md");
    assert!(e["valid_values"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v == "markdown"));
    let out = kb.cmd().args(["search", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "--json is not a query");
    assert!(stderr_json(&out)["error"]
        .as_str()
        .unwrap()
        .contains("<QUERY>"));
    // A guessed one-letter flag is an error, never a query word.
    let out = kb
        .cmd()
        .args(["search", "git", "-q", "--fts-only"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "-q is not a query word");
    assert!(stderr_json(&out)["error"]
        .as_str()
        .unwrap()
        .contains("'-q'"));
    // Hyphen words are still a query when they are no option.
    let v = kb.json(&["search", "-git", "--fts-only"]);
    assert_eq!(v["query"], "-git");
    // `search.default_format: human` is for a person at a terminal: a
    // script or an agent reading a pipe still gets JSON.
    let out = kb
        .cmd()
        .env("KB_SEARCH_DEFAULT_FORMAT", "human")
        .args(["search", "git", "--fts-only"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["returned"].as_u64().unwrap() > 0, "{v}");
    // A person at a terminal gets text by default; the same command in a
    // pipe gets JSON. `script` gives the command a terminal.
    let out = std::process::Command::new("script")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .args(["-qec"])
        .arg(format!(
            "{} --data-dir {} search git --fts-only",
            assert_cmd::cargo::cargo_bin("kb").display(),
            kb.data_dir().display()
        ))
        .arg("/dev/null")
        .output()
        .expect("script (util-linux) gives kb a terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Search: \"git\"") && !text.trim_start().starts_with('{'),
        "{text}"
    );
    // A missing section suggests headings, as an array too.
    let doc = docs.join("git.md");
    let out = kb
        .cmd()
        .args(["show", doc.to_str().unwrap(), "--section", "instal"])
        .output()
        .unwrap();
    assert_eq!(stderr_json(&out)["suggestions"][0], "Installation");
}

#[test]
fn completions_man_page_config_and_doctor() {
    let kb = Kb::new();
    let out = kb.cmd().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--fts-only"));
    let out = kb.cmd().arg("man").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(".TH kb 1"));

    let out = kb
        .cmd()
        .env("KB_DEFAULT_TOP", "4")
        .env("KB_SERCH_LOG", "false")
        .args(["config"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean KB_SEARCH_LOG?"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = v["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == "search.default_top")
        .unwrap();
    assert_eq!(top["value"], 4);
    assert_eq!(top["source"], "environment");
    assert_eq!(top["from"], "KB_DEFAULT_TOP");

    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let healthy = kb.cmd().arg("doctor").output().unwrap();
    assert_eq!(
        healthy.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&healthy.stdout)
    );
    let v: Value = serde_json::from_slice(&healthy.stdout).unwrap();
    assert_eq!(v["healthy"], true, "{v}");
    // Damage the file's pages: doctor names the fault and exits 2.
    let db = kb.db_path();
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    for b in &mut bytes[page * 2..page * 6] {
        *b = 0x5a;
    }
    std::fs::write(&db, bytes).unwrap();
    let damaged = kb.cmd().arg("doctor").output().unwrap();
    assert_eq!(
        damaged.status.code(),
        Some(2),
        "{}\n{}",
        String::from_utf8_lossy(&damaged.stdout),
        String::from_utf8_lossy(&damaged.stderr)
    );
    let e = stderr_json(&damaged);
    assert!(
        ["E_UNHEALTHY", "E_DB_CORRUPT"].contains(&e["code"].as_str().unwrap()),
        "{e}"
    );
    // It names the fault: the database check and what SQLite found.
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("database") || msg.contains("corrupt"), "{e}");
}
