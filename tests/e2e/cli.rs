//! End-to-end tests of the real `kb` binary with the real model.

use crate::common::{self, fixture_tree, write, Kb};
use serde_json::Value;

fn titles(search: &Value) -> Vec<String> {
    search["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"]["title"].as_str().unwrap().to_string())
        .collect()
}

/// Pins the search JSON contract: these fields and types must never change.
fn assert_search_contract(v: &Value, fts: Option<bool>, vector: Option<bool>) {
    assert!(v["query"].is_string());
    assert!(v["total_matches"].is_u64());
    assert!(v["returned"].is_u64());
    let results = v["results"].as_array().expect("results is an array");
    assert_eq!(v["returned"].as_u64().unwrap() as usize, results.len());
    assert!(v["total_matches"].as_u64().unwrap() as usize >= results.len());
    for r in results {
        assert!(r["chunk_id"].is_i64());
        assert!(r["score"].is_f64());
        assert!(r["text"].as_str().is_some_and(|t| !t.is_empty()));
        let b = &r["score_breakdown"];
        assert!(b.is_object());
        for (key, ran) in [("fts", fts), ("vector", vector)] {
            match ran {
                Some(true) => assert!(b[key].is_number(), "{key} should be a number: {b}"),
                Some(false) | None => assert!(b[key].is_null(), "{key} should be null: {b}"),
            }
            assert!(b.as_object().unwrap().contains_key(key));
        }
        let s = &r["source"];
        assert!(s["document_id"].is_i64());
        assert!(s["title"].is_string());
        assert!(s["path"].is_string());
        assert!(["pdf", "markdown", "code", "note"].contains(&s["type"].as_str().unwrap()));
        assert!(s.as_object().unwrap().contains_key("page"));
        assert!(s["page"].is_null() || s["page"].is_u64());
        assert!(s["chunk_index"].is_i64());
        assert!(s["total_chunks"].is_i64());
        assert!(s["chunk_index"].as_i64().unwrap() < s["total_chunks"].as_i64().unwrap());
        assert!(s["tags"].as_array().unwrap().iter().all(Value::is_string));
    }
}

#[test]
fn add_then_search_with_the_json_contract() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let summary = kb.add(&[&docs]);
    assert_eq!(summary["added"], 3, "{summary}");
    assert_eq!(summary["failed"], 0, "{summary}");
    assert_eq!(summary["unsupported"], 1, "the svg: {summary}");
    assert!(summary["chunks"].as_u64().unwrap() >= 3);

    let v = kb.json(&["search", "how do I install git?"]);
    assert_search_contract(&v, Some(true), Some(true));
    assert_eq!(titles(&v)[0], "Git Admin Guide");
    let first = &v["results"][0];
    assert_eq!(first["source"]["tags"], serde_json::json!(["admin", "git"]));
    assert_eq!(first["source"]["type"], "markdown");
    // The guide's small sections share one chunk, labelled with the heading
    // they share (never one section's name for another's text), and cited
    // by its lines in the file.
    assert_eq!(first["source"]["section"], "Git Admin Guide");
    assert!(first["text"].as_str().unwrap().contains("## Installation"));
    let (start, end) = (
        first["source"]["line_start"].as_u64().unwrap(),
        first["source"]["line_end"].as_u64().unwrap(),
    );
    let file = std::fs::read_to_string(docs.join("git.md")).unwrap();
    let lines: Vec<&str> = file.lines().collect();
    assert_eq!(lines[start as usize - 1], "# Git Admin Guide");
    assert!(lines[end as usize - 1].contains("git co instead of git checkout"));

    // Hidden and git-ignored files are never indexed.
    let v = kb.json(&["search", "xylophone", "--fts-only"]);
    assert_eq!(v["returned"], 0, "{v}");

    // Keyword-only and vector-only modes null the other side.
    let v = kb.json(&["search", "dentist appointment", "--fts-only"]);
    assert_search_contract(&v, Some(true), None);
    assert_eq!(titles(&v)[0], "dentist.txt");
    let v = kb.json(&["search", "when can I see the tooth doctor", "--vec-only"]);
    assert_search_contract(&v, None, Some(true));
    assert_eq!(
        titles(&v)[0],
        "dentist.txt",
        "semantic match without shared words"
    );
    assert!(
        v["results"][0]["score_breakdown"]["cosine"]
            .as_f64()
            .unwrap()
            > 0.3
    );
}

#[test]
fn filters_apply_before_ranking() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let v = kb.json(&["search", "install git", "--type", "note"]);
    assert!(v["returned"].as_u64().unwrap() >= 1);
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["source"]["type"], "note");
    }
    let v = kb.json(&["search", "database", "--tags", "git,admin"]);
    assert!(v["returned"].as_u64().unwrap() >= 1);
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["source"]["title"], "Git Admin Guide");
    }
    // A tag no document has would filter out everything: an error naming it.
    let e = kb.error(&["search", "database", "--tags", "git,nosuchtag"], 1);
    assert!(e["error"].as_str().unwrap().contains("'nosuchtag'"), "{e}");
    let v = kb.json(&["search", "git", "--top", "1"]);
    assert_eq!(v["returned"], 1);
}

/// `--reread` reads unchanged files again (what a newer kb reads better
/// reaches them), under the paths given to add, and under every path
/// update syncs; the knowledge base holds the same documents after.
#[test]
fn reread_reads_unchanged_files_again() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let before = kb.json(&["status"]);
    let notes = docs.join("notes");
    let notes = notes.display().to_string();
    let again = kb.json(&["add", &notes, "--reread", "--format", "json", "--quiet"]);
    assert_eq!(again["updated"], 1, "{again}");
    assert_eq!(again["skipped"], 0, "{again}");
    let all = kb.json(&["update", "--reread", "--format", "json", "--quiet"]);
    assert_eq!(all["updated"], 3, "{all}");
    assert_eq!(all["read_again"], 3, "{all}");
    let after = kb.json(&["status"]);
    assert_eq!(after["total_documents"], before["total_documents"]);
    assert_eq!(after["total_chunks"], before["total_chunks"]);

    // A document an older kb's reader read (as every document indexed
    // before readers were versioned) is read again by a plain update,
    // keeping its vectors; the others are passed by.
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    conn.execute(
        "UPDATE documents SET reader_version = 0 WHERE source_path LIKE '%dentist.txt'",
        [],
    )
    .unwrap();
    drop(conn);
    assert_eq!(kb.json(&["status"])["read_by_older_kb"], 1);
    // The human summary goes to stderr, beside the progress.
    let out = kb
        .cmd()
        .args(["update", "--format", "human"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("Updated 1 document (changed since indexed, or read again).")
            && said.contains("1 indexed file read again"),
        "{said}"
    );
    let again = kb.json(&["update", "--format", "json", "--quiet"]);
    assert_eq!(again["read_again"], 0, "{again}");
    assert_eq!(again["updated"], 0, "{again}");
    assert_eq!(kb.json(&["status"])["read_by_older_kb"], 0);
}

#[test]
fn readding_skips_unchanged_and_reindexes_changed() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let before = kb.json(&["status"]);

    let again = kb.add(&[&docs]);
    assert_eq!(again["added"], 0, "{again}");
    assert_eq!(again["updated"], 0, "{again}");
    assert_eq!(again["skipped"], 3, "{again}");
    assert_eq!(kb.json(&["status"])["total_chunks"], before["total_chunks"]);

    // Touching without changing content is still a skip. (kb keeps mtimes
    // in whole seconds: the rewritten file is dated a minute earlier than
    // it was indexed, rather than waiting for the clock to tick.)
    let dentist = docs.join("notes/dentist.txt");
    let text = std::fs::read_to_string(&dentist).unwrap();
    let indexed_at = std::fs::metadata(&dentist).unwrap().modified().unwrap();
    std::fs::write(&dentist, &text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&dentist)
        .unwrap()
        .set_modified(indexed_at - std::time::Duration::from_secs(60))
        .unwrap();
    let again = kb.add(&[&docs]);
    assert_eq!(again["skipped"], 3, "{again}");

    std::fs::write(
        &dentist,
        "The plumber comes on Thursday to fix the kitchen sink.\n",
    )
    .unwrap();
    let again = kb.add(&[&docs]);
    assert_eq!(again["updated"], 1, "{again}");
    assert_eq!(again["skipped"], 2, "{again}");
    // ("dentist" is the file name, a title word every chunk is found by.)
    let v = kb.json(&["search", "receptionist", "--fts-only"]);
    assert_eq!(v["returned"], 0, "old chunks are gone: {v}");
    let v = kb.json(&["search", "plumber kitchen sink", "--fts-only"]);
    assert_eq!(titles(&v)[0], "dentist.txt");
    assert_eq!(kb.json(&["status"])["documents"]["note"], 1);
}

#[test]
fn bad_files_are_logged_and_the_rest_indexed() {
    let kb = Kb::new();
    let docs = kb.home.path().join("bad");
    write(
        &docs.join("good.md"),
        "# Good\n\nA perfectly fine document about gardening tomatoes.\n",
    );
    std::fs::write(
        docs.join("binary.md"),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
    )
    .unwrap();
    std::fs::write(
        docs.join("latin1.txt"),
        b"caf\xe9 cr\xe8me br\xfbl\xe9e recipe notes\n",
    )
    .unwrap();
    std::fs::write(docs.join("empty.md"), b"").unwrap();
    std::fs::write(docs.join("blank.txt"), b"   \n\n").unwrap();
    let big = "# Big\n\n".to_string() + &"lorem ipsum dolor sit amet ".repeat(2_000_000);
    std::fs::write(docs.join("big.md"), big).unwrap();

    let s = kb.add(&[&docs]);
    assert_eq!(s["added"], 2, "good.md and latin1.txt: {s}");
    assert_eq!(s["failed"], 2, "binary.md and big.md: {s}");
    assert_eq!(s["empty"], 2, "{s}");
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    for (file, reason) in [
        ("binary.md", "binary"),
        ("big.md", "max_file_mb"),
        ("empty.md", "empty"),
        ("latin1.txt", "not UTF-8: read as windows-1252"),
    ] {
        assert!(
            log.lines().any(|l| l.contains(file) && l.contains(reason)),
            "{file} not logged with {reason}:\n{log}"
        );
    }
    let v = kb.json(&["search", "recipe notes", "--fts-only"]);
    assert_eq!(titles(&v)[0], "latin1.txt");
    let v = kb.json(&["search", "crème brûlée", "--fts-only"]);
    assert_eq!(titles(&v)[0], "latin1.txt", "{v}");
}

#[test]
fn unreadable_file_is_logged() {
    use std::os::unix::fs::PermissionsExt;
    let kb = Kb::new();
    let docs = kb.home.path().join("perm");
    write(
        &docs.join("ok.md"),
        "# Ok\n\nreadable text about bicycles\n",
    );
    let locked = docs.join("locked.md");
    write(&locked, "# Locked\n\nsecret text\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::read(&locked).is_ok(); // root ignores permissions
    let s = kb.add(&[&docs]);
    if readable_anyway {
        assert_eq!(s["added"], 2, "{s}");
    } else {
        assert_eq!(s["added"], 1, "{s}");
        assert_eq!(s["failed"], 1, "{s}");
        let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
        assert!(log.contains("locked.md"), "{log}");
    }
}

#[test]
fn hostile_queries_never_break_fts() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    for q in [
        "\"unbalanced",
        "NEAR(git config",
        "-git",
        "git*",
        "title:git",
        "(a OR b) AND NOT c",
        "日本語のテキスト",
        "'; DROP TABLE chunks; --",
        "***",
        "^git",
    ] {
        let v = kb.json(&["search", q, "--fts-only"]);
        assert_search_contract(&v, Some(true), None);
    }
}

#[test]
fn errors_have_codes_and_exit_codes() {
    let kb = Kb::new();
    let e = kb.error(&["search", "   "], 1);
    assert_eq!(e["code"], "E_EMPTY_QUERY");
    let e = kb.error(&["add", "/definitely/not/here"], 1);
    assert_eq!(e["code"], "E_PATH_NOT_FOUND");
    assert!(e["error"]
        .as_str()
        .unwrap()
        .contains("/definitely/not/here"));
    let e = kb.error(&["search", "x", "--type", "sheet-music"], 1);
    assert_eq!(e["code"], "E_USAGE");
    let e = kb.error(&["search"], 1);
    assert_eq!(e["code"], "E_USAGE");
    let e = kb.error(&["search", "x", "--top", "0"], 1);
    assert_eq!(e["code"], "E_USAGE");

    let fresh = Kb::empty();
    let e = fresh.error(&["search", "anything"], 1);
    assert_eq!(e["code"], "E_NO_INDEX");

    // A configured model other than the bound one is a mismatch.
    let out = kb
        .cmd()
        .env("KB_MODEL", "nomic-embed-text-v1.5")
        .args(["search", "git", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = common::stderr_json(&out);
    assert_eq!(e["code"], "E_MODEL_MISMATCH");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("all-MiniLM-L6-v2")
            && msg.contains("nomic-embed-text-v1.5")
            && msg.contains("kb reindex")
    );
}

#[test]
fn bad_config_names_file_and_key() {
    let kb = Kb::new();
    write(
        &kb.data_dir().join("config.yaml"),
        "search:\n  default_top: lots\n",
    );
    let e = kb.error(&["status"], 1);
    assert_eq!(e["code"], "E_CONFIG");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("search.default_top") && msg.contains("config.yaml"),
        "{msg}"
    );
    write(
        &kb.data_dir().join("config.yaml"),
        "chunking: {markdown: {max_tokens: [}\n",
    );
    let e = kb.error(&["status"], 1);
    assert!(e["error"].as_str().unwrap().contains("config.yaml"));
    write(
        &kb.data_dir().join("config.yaml"),
        "search:\n  default_top: 2\n",
    );
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let v = kb.json(&["search", "git"]);
    assert_eq!(v["returned"], 2, "config.yaml default_top applies");
    let out = kb
        .cmd()
        .env("KB_DEFAULT_TOP", "1")
        .args(["search", "git"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["returned"], 1, "environment beats config.yaml");
    let v = kb.json(&["search", "git", "--top", "3"]);
    assert_eq!(v["returned"], 3, "flag beats both");
}

#[test]
fn corrupt_databases_are_system_errors() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let db = kb.db_path();
    // Fold the WAL into the main file so truncation really loses pages.
    let bytes = std::fs::read(&db).unwrap();
    let garbage = kb.home.path().join("garbage.db");

    std::fs::write(&db, &bytes[..bytes.len() / 2]).unwrap();
    let _ = std::fs::remove_file(db.with_extension("db-wal"));
    let _ = std::fs::remove_file(db.with_extension("db-shm"));
    let out = kb
        .cmd()
        .args(["search", "git", "--fts-only", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = common::stderr_json(&out);
    assert_eq!(e["code"], "E_DB_CORRUPT");

    std::fs::write(&garbage, vec![0x42u8; 8192]).unwrap();
    std::fs::copy(&garbage, &db).unwrap();
    let e = kb.error(&["status"], 2);
    assert_eq!(e["code"], "E_DB_CORRUPT");
    assert!(e["error"].as_str().unwrap().contains("kb.db"));
    assert_eq!(
        std::fs::read(&db).unwrap(),
        vec![0x42u8; 8192],
        "never silently re-created"
    );

    let out = kb.cmd().args(["add"]).arg(&docs).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn status_and_tags_shapes() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let out = kb
        .cmd()
        .args([
            "add",
            "--tags",
            "Work, projects",
            "--format",
            "json",
            "--quiet",
        ])
        .arg(&docs)
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = kb.json(&["status"]);
    for key in ["pdf", "markdown", "code", "note"] {
        assert!(s["documents"][key].is_i64(), "{s}");
    }
    assert_eq!(s["documents"]["markdown"], 2);
    assert_eq!(s["documents"]["note"], 1);
    assert!(s["total_chunks"].as_i64().unwrap() >= 3);
    assert!(s["db_size_bytes"].as_u64().unwrap() > 0);
    assert_eq!(s["model_name"], "all-MiniLM-L6-v2");
    assert_eq!(s["embedding_dim"], 384);
    assert!(s["schema_version"].as_i64().unwrap() >= 1);

    let t = kb.json(&["tags"]);
    let tags: Vec<(String, i64)> = t
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().to_string(),
                x["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tags,
        vec![
            ("projects".to_string(), 3),
            ("work".to_string(), 3),
            ("admin".to_string(), 1),
            ("git".to_string(), 1)
        ]
    );
    let human = kb
        .cmd()
        .args(["tags", "--format", "human"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("projects"));
    let human = kb
        .cmd()
        .args(["status", "--format", "human"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("all-MiniLM-L6-v2"));
}

#[test]
fn human_search_layout() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let out = kb
        .cmd()
        .args(["search", "install git", "--format", "human", "--top", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Search: \"install git\" ("), "{text}");
    assert!(text.contains("showing top 2"), "{text}");
    assert!(text.contains("1. ["), "{text}");
    assert!(
        text.contains("git.md:5-17 §Git Admin Guide → §Installation [markdown] [admin, git]"),
        "{text}"
    );
    assert!(
        text.contains("chunk ") && text.contains("document "),
        "{text}"
    );
}

#[test]
fn readding_a_folder_prunes_deleted_files() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    std::fs::remove_file(docs.join("guides/sqlite.md")).unwrap();
    write(&docs.join("new.md"), "# New\n\nA new note about kites.\n");
    let s = kb.add(&[&docs]);
    assert_eq!(s["removed"], 1, "{s}");
    assert_eq!(s["added"], 1, "{s}");
    let list = kb.json(&["list"]);
    let titles: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    assert!(!titles.contains(&"SQLite tips"), "{titles:?}");
    assert!(titles.contains(&"New"));
    // Adding a single file never prunes anything else.
    let s = kb.add(&[&docs.join("new.md")]);
    assert_eq!(s["removed"], 0);
}

/// What the second new-user trial tripped over in messages and human output.
#[test]
fn messages_name_flags_tags_and_places_as_the_user_sees_them() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let msg = |args: &[&str]| kb.error(args, 1)["error"].as_str().unwrap().to_string();
    // An empty tag and a tag no document has are errors, the latter with the tag meant.
    assert!(msg(&["search", "git", "--tags", ""]).contains("empty tag"));
    let m = msg(&["search", "git", "--tags", "admn"]);
    assert!(
        m.contains("'admn'") && m.contains("did you mean: admin?"),
        "{m}"
    );
    // A swapped pair of letters suggests the flag meant.
    let e = kb.error(&["search", "git", "--tpo", "3"], 1);
    assert_eq!(e["suggestions"], serde_json::json!(["--top"]), "{e}");
    // Contradictions name the flags as typed.
    let m = msg(&["search", "git", "--mode", "keyword", "--vec-only"]);
    assert!(m.contains("--mode keyword contradicts --vec-only"), "{m}");
    // `show --section` in human output starts with what to cite.
    let human = |args: &[&str]| {
        let out = kb
            .cmd()
            .args(args)
            .args(["--format", "human"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let guide = docs.join("git.md");
    let guide = guide.to_str().unwrap();
    let shown = human(&["show", guide, "--section", "Installation"]);
    let first = shown.lines().next().unwrap();
    assert!(
        first.starts_with("Git Admin Guide (") && first.contains("§ Installation, lines "),
        "{shown}"
    );
    // The outline is headed by the title and the path, not an absolute path alone.
    let outline = human(&["outline", guide]);
    assert!(outline.starts_with("Git Admin Guide ("), "{outline}");
    // `kb config` says where the model caps a chunk size.
    let config = human(&["config"]);
    let pdf = config
        .lines()
        .find(|l| l.starts_with("chunking.pdf.max_tokens"))
        .unwrap();
    assert!(pdf.contains("chunks hold at most"), "{pdf}");
    // One stale document is one document.
    std::fs::write(docs.join("git.md"), "# Git Admin Guide\n\nchanged\n").unwrap();
    let status = human(&["status"]);
    assert!(status.contains("Stale: 1 document changed"), "{status}");
}

/// The README's JSON example is what kb prints: every field it shows is in
/// a real result, and no field of a real result is missing from it.
#[test]
fn the_readme_example_has_exactly_the_fields_of_a_real_result() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("$ kb search \"how do I make a new ssh key?\" --top 1 --json\n")
        .expect("the README's JSON search example");
    let block = &readme[start..];
    let json_start = block.find('\n').unwrap() + 1;
    let json_end = block.find("\n```").unwrap();
    let example: Value = serde_json::from_str(&block[json_start..json_end]).unwrap();

    let kb = Kb::new();
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/corpus");
    kb.cmd()
        .args(["add", "--tags", "example"])
        .arg(&corpus)
        .assert()
        .success();
    let real = kb.json(&["search", "how do I make a new ssh key?", "--top", "1"]);
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&example), keys(&real), "top level");
    let (e, r) = (&example["results"][0], &real["results"][0]);
    assert_eq!(keys(e), keys(r), "a result");
    assert_eq!(keys(&e["source"]), keys(&r["source"]), "its source");
    assert_eq!(keys(&e["score_breakdown"]), keys(&r["score_breakdown"]));
    assert_eq!(
        e["source"]["path"].as_str().unwrap().rsplit('/').next(),
        r["source"]["path"].as_str().unwrap().rsplit('/').next()
    );
}

/// Every `source.X` and `score_breakdown.X` that SKILL.md and the README
/// tell an agent to read is a field of the search contract.
#[test]
fn the_fields_skill_md_and_the_readme_name_exist() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/commands/golden/search.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let result = &schema["properties"]["results"]["items"]["properties"];
    for file in ["SKILL.md", "README.md"] {
        let text =
            std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for (object, rest) in [
            ("source", "`source."),
            ("score_breakdown", "`score_breakdown."),
        ] {
            for piece in text.split(rest).skip(1) {
                let field: String = piece
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                assert!(
                    result[object]["properties"].get(&field).is_some(),
                    "{file} names {object}.{field}, which search results do not have"
                );
            }
        }
    }
}

/// Issue 54, item 10: errors and help in the tool's own terms.
#[test]
fn errors_and_help_match_the_tool() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(&docs.join("broken.json"), "{\"a\": [1,\n");
    write(&docs.join("broken.toml"), "[package\nname = 1\n");
    // Every named file failed: exit 1, each file with its reason.
    let out = kb
        .cmd()
        .args(["add"])
        .arg(docs.join("broken.json"))
        .arg(docs.join("broken.toml"))
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed = summary["failed_files"].as_array().unwrap();
    assert_eq!(failed.len(), 2, "{summary}");
    assert!(failed
        .iter()
        .all(|f| f["reason"].as_str().unwrap().starts_with("invalid ")));
    assert!(common::stderr_json(&out)["error"]
        .as_str()
        .unwrap()
        .contains("broken.json"));
    // A folder with a broken file in it is no failure of the run.
    write(&docs.join("fine.md"), "# Fine\n\nA note that reads well.\n");
    kb.cmd().arg("add").arg(&docs).arg("-q").assert().success();

    // A number option given a word.
    let e = kb.error(&["search", "--top", "abc", "ssh"], 1);
    let m = e["error"].as_str().unwrap();
    assert!(
        m.starts_with("--top takes a whole number from 1 to 4096"),
        "{e}"
    );
    assert!(!m.contains("invalid digit"), "{e}");
    // A typo: the suggestion and the usage line agree.
    let e = kb.error(&["search", "--tpo", "3", "ssh"], 1);
    let m = e["error"].as_str().unwrap();
    assert_eq!(e["suggestions"], serde_json::json!(["--top"]), "{e}");
    assert!(
        m.contains("Usage: kb search --top <N>") && !m.contains("--type <TYPE>"),
        "{m}"
    );

    // The help names every document type.
    for args in [&["--help"][..], &["add", "--help"], &["outline", "--help"]] {
        let out = kb.cmd().args(args).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        for t in [
            "markdown",
            "note",
            "pdf",
            "doc",
            "slides",
            "html",
            "epub",
            "spreadsheet",
            "data",
            "image",
            "code",
        ] {
            assert!(
                help.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{t} "))),
                "{args:?} does not list {t}:\n{help}"
            );
        }
        assert!(help.contains(".toml") && help.contains(".pptx"), "{help}");
    }
}
