//! The inspection commands: list, tag, info, remove, show, outline, open,
//! stats, and match snippets; an agent-style session end to end.

use crate::common::{fixture_tree, long_guide, write, Kb};
use serde_json::Value;

fn setup() -> (Kb, std::path::PathBuf) {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    write(
        &docs.join("manual.md"),
        "# Manual\n\nIntro text.\n\n## Install\n\nRun the installer.\nThen reboot.\n\n\
         ### Linux\n\nUse the package.\n\n## Usage\n\nType commands.\n\n## Install\n\nSecond install section.\n",
    );
    long_guide(&docs);
    kb.add(&[&docs]);
    (kb, docs)
}

fn doc_id(kb: &Kb, needle: &str) -> i64 {
    let list = kb.json(&["list", "--search", needle]);
    list[0]["id"].as_i64().unwrap()
}

#[test]
fn agent_session_end_to_end() {
    let (kb, docs) = setup();
    let s = kb.json(&["search", "canoe", "--top", "1"]);
    let hit = &s["results"][0];
    assert!(
        hit["snippet"].as_str().unwrap().contains("[MATCH]canoe"),
        "{hit}"
    );
    assert_eq!(hit["source"]["section"], "Long guide > Canoes");
    let chunk = hit["chunk_id"].as_i64().unwrap().to_string();
    let show = kb.json(&["show", &chunk, "--context", "1"]);
    assert_eq!(
        show["chunk"]["chunk_id"].as_i64().unwrap().to_string(),
        chunk
    );
    assert_eq!(show["document"]["title"], "Long guide");
    assert_eq!(show["before"].as_array().unwrap().len(), 1, "{show}");
    assert_eq!(show["after"].as_array().unwrap().len(), 1, "{show}");
    assert!(show["before"][0]["text"]
        .as_str()
        .unwrap()
        .contains("kayak"));
    assert!(show["after"][0]["text"]
        .as_str()
        .unwrap()
        .contains("paddle"));

    let s = kb.json(&["search", "how do I install git?", "--top", "3"]);
    let hit = &s["results"][0];
    assert!(
        hit["snippet"].as_str().unwrap().contains("[MATCH]"),
        "{hit}"
    );
    let doc = hit["source"]["document_id"].as_i64().unwrap().to_string();

    let outline = kb.json(&["outline", &doc]);
    let headings: Vec<&str> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        headings,
        vec![
            "Git Admin Guide",
            "Installation",
            "Configuration",
            "Aliases"
        ]
    );
    let outline = kb.json(&["outline", &doc, "--level", "2"]);
    assert_eq!(outline["items"].as_array().unwrap().len(), 3);

    let section = kb.json(&["show", &doc, "--section", "configuration"]);
    let content = section["content"].as_str().unwrap();
    assert!(content.starts_with("## Configuration"));
    assert!(
        content.contains("### Aliases"),
        "subsections belong to the section"
    );

    let open = kb.json(&["open", &doc, "--max-lines", "3"]);
    assert_eq!(open["file_status"], "unchanged");
    let text = open["content"].as_str().unwrap();
    assert_eq!(text.lines().count(), 4);
    assert!(text.ends_with("more lines)"), "{text}");
    let by_path = kb.json(&["open", docs.join("git.md").to_str().unwrap()]);
    assert_eq!(by_path["document"]["id"].as_i64().unwrap().to_string(), doc);
}

#[test]
fn sections_match_case_insensitively_and_suggest() {
    let (kb, docs) = setup();
    let manual = docs.join("manual.md");
    let m = manual.to_str().unwrap();
    let out = kb
        .cmd()
        .args(["show", m, "--section", "  INSTALL — whatever it says  "])
        .output()
        .unwrap();
    assert!(out.status.success());
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(
        warning.contains("2 headings match") && warning.contains("--occurrence"),
        "{warning}"
    );
    // With JSON output, the warning is a JSON line too.
    let line: Value = serde_json::from_str(warning.trim()).unwrap();
    assert!(
        line["warning"]
            .as_str()
            .unwrap()
            .starts_with("2 headings match"),
        "{line}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Both matches are in the JSON, with their lines; the first is shown.
    let lines: Vec<u64> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [5, 18], "{v}");
    assert_eq!(v["occurrence"], 1, "{v}");
    let content = v["content"].as_str().unwrap();
    assert!(
        content.contains("Run the installer") && content.contains("### Linux"),
        "{content}"
    );
    assert!(!content.contains("Usage"), "{content}");

    let v = kb.json(&["show", m, "--section", "usage"]);
    assert_eq!(v["content"], "## Usage\n\nType commands.");
    assert_eq!(v["matches"].as_array().unwrap().len(), 1, "{v}");
    let second = kb.json(&["show", m, "--section", "install", "--occurrence", "2"]);
    assert_eq!(
        second["content"], "## Install\n\nSecond install section.",
        "{second}"
    );
    assert_eq!(
        (second["line"].as_u64(), second["occurrence"].as_u64()),
        (Some(18), Some(2))
    );
    let e = kb.error(&["show", m, "--section", "install", "--occurrence", "3"], 1);
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("from 1 to 2") && msg.contains("5, 18"),
        "{msg}"
    );

    let v = kb.json(&[
        "show",
        m,
        "--section",
        "Install — quick start",
        "--max-lines",
        "2",
    ]);
    assert!(v["truncated_lines"].as_u64().unwrap() > 0);
    assert!(v["content"].as_str().unwrap().ends_with("more lines)"));

    let e = kb.error(&["show", m, "--section", "instal"], 1);
    assert_eq!(e["code"], "E_SECTION_NOT_FOUND");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("Did you mean") && msg.contains("Install"),
        "{msg}"
    );
    // Two headings with one text are suggested once.
    assert_eq!(e["suggestions"], serde_json::json!(["Install"]), "{e}");
}

#[test]
fn headings_with_dashes_and_typos_are_reachable() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("ssh.md"),
        "# SSH keys\n\n## Generating a key — ed25519 only\n\nRun ssh-keygen -t ed25519.\n\n\
         ## Deploying the key\n\nCopy it with ssh-copy-id.\n\n## Using ssh-agent\n\nStart the agent.\n",
    );
    kb.add(&[&docs]);
    let ssh = docs.join("ssh.md");
    let ssh = ssh.to_str().unwrap();
    // As outline prints it, with other dashes or spacing, or only the part
    // before the dash.
    for asked in [
        "Generating a key — ed25519 only",
        "generating a key - ed25519 only",
        "Generating a key–ed25519 only",
        "Generating a key —ed25519 only",
        "Generating a key",
    ] {
        let v = kb.json(&["show", ssh, "--section", asked]);
        assert_eq!(
            v["heading"], "Generating a key — ed25519 only",
            "{asked}: {v}"
        );
        assert!(v["content"].as_str().unwrap().contains("ssh-keygen"), "{v}");
    }
    assert_eq!(
        kb.json(&["show", ssh, "--section", "using ssh–agent"])["heading"],
        "Using ssh-agent"
    );
    for (typo, meant) in [
        ("Deployng the key", "Deploying the key"),
        ("Generating a kye", "Generating a key — ed25519 only"),
        // A typo in the first word of a longer heading.
        ("Deployng", "Deploying the key"),
    ] {
        let e = kb.error(&["show", ssh, "--section", typo], 1);
        assert_eq!(e["code"], "E_SECTION_NOT_FOUND", "{e}");
        assert_eq!(e["suggestions"][0], meant, "{typo}: {e}");
    }
}

#[test]
fn list_filters_and_tag_editing() {
    let (kb, _docs) = setup();
    let all = kb.json(&["list"]);
    assert_eq!(all.as_array().unwrap().len(), 5);
    let ids: Vec<i64> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "ordered by id");
    for key in [
        "id",
        "title",
        "type",
        "tags",
        "chunk_count",
        "created_at",
        "path",
    ] {
        assert!(all[0].get(key).is_some(), "{key} missing");
    }
    assert_eq!(
        kb.json(&["list", "--type", "note"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        kb.json(&["list", "--tag", "GIT"]).as_array().unwrap().len(),
        1
    );
    assert_eq!(
        kb.json(&["list", "--search", "SQLITE"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        kb.json(&["list", "--type", "note", "--tag", "git"])
            .as_array()
            .unwrap()
            .len(),
        0
    );

    let id = doc_id(&kb, "sqlite").to_string();
    let v = kb.json(&["tag", &id, "--add", " Databases ,tips", "--remove", "nope"]);
    assert_eq!(v["tags"], serde_json::json!(["databases", "tips"]));
    let v = kb.json(&["tag", &id, "--remove", "tips"]);
    assert_eq!(v["tags"], serde_json::json!(["databases"]));
    let e = kb.error(&["tag", &id, "--add", " "], 1);
    assert_eq!(e["code"], "E_USAGE");
    let tags = kb.json(&["tags"]);
    assert!(
        tags.as_array().unwrap().iter().all(|t| t["name"] != "tips"),
        "unused tags go"
    );
}

#[test]
fn info_tracks_changed_and_missing_files_and_remove() {
    let (kb, docs) = setup();
    let dentist = docs.join("notes/dentist.txt");
    let id = doc_id(&kb, "dentist").to_string();
    let info = kb.json(&["info", &id]);
    assert_eq!(info["file_status"], "unchanged");
    assert_eq!(info["chunks"].as_array().unwrap().len(), 1);
    assert!(info["chunks"][0]["token_count"].as_i64().unwrap() > 10);

    std::fs::write(&dentist, "changed text entirely\n").unwrap();
    assert_eq!(kb.json(&["info", &id])["file_status"], "changed");
    assert_eq!(kb.json(&["status"])["stale_documents"], 1);
    std::fs::remove_file(&dentist).unwrap();
    assert_eq!(kb.json(&["info", &id])["file_status"], "missing");

    let before = kb.json(&["status"])["total_chunks"].as_i64().unwrap();
    let r = kb.json(&["remove", "--missing"]);
    assert_eq!(r["removed"], 1);
    assert_eq!(
        kb.json(&["status"])["total_chunks"].as_i64().unwrap(),
        before - 1
    );
    let e = kb.error(&["info", &id], 1);
    assert_eq!(e["code"], "E_NOT_FOUND");

    let git = docs.join("git.md");
    let r = kb.json(&["remove", git.to_str().unwrap()]);
    assert_eq!(r["removed"], 1);
    let v = kb.json(&["search", "git config user name", "--fts-only"]);
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["source"]["title"] != "Git Admin Guide"));
    let e = kb.error(&["remove", "99999"], 1);
    assert_eq!(e["code"], "E_NOT_FOUND");
}

#[test]
fn paths_must_resolve_to_indexed_documents() {
    let (kb, docs) = setup();
    let outside = kb.home.path().join("outside.md");
    write(&outside, "# Not indexed\n\nprivate\n");
    let escape = format!("{}/../outside.md", docs.display());
    let e = kb.error(&["open", &escape], 1);
    assert_eq!(e["code"], "E_PATH_ESCAPE");
    let link = docs.join("link.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let e = kb.error(&["open", link.to_str().unwrap()], 1);
    assert_eq!(e["code"], "E_PATH_ESCAPE");
    assert!(
        !e["error"].as_str().unwrap().contains("outside.md"),
        "where a link leads is not shown: {e}"
    );
    let e = kb.error(&["open", "/etc/passwd"], 1);
    assert_eq!(e["code"], "E_NOT_FOUND");
    // A file name finds the indexed document whose path ends with it, but
    // not when the name is a file in the working folder, which is not indexed.
    let here = tempfile::tempdir().unwrap();
    let in_here = |name: &str| {
        kb.cmd()
            .current_dir(here.path())
            .args(["open", name, "--format", "json"])
            .output()
            .unwrap()
    };
    assert!(in_here("manual.md").status.success());
    write(&here.path().join("manual.md"), "# Mine\n\nnot indexed\n");
    for name in ["manual.md", "./manual.md"] {
        let out = in_here(name);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let e: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(e["code"], "E_NOT_FOUND", "{e}");
        assert!(
            e["error"].as_str().unwrap().contains("is not indexed"),
            "{e}"
        );
    }
    // A path with .. that lands on an indexed document is fine.
    let ok = format!("{}/notes/../git.md", docs.display());
    let v = kb.json(&["open", &ok]);
    assert_eq!(v["document"]["title"], "Git Admin Guide");
    let e = kb.error(&["show", "424242"], 1);
    assert_eq!(e["code"], "E_NOT_FOUND");
    let e = kb.error(&["show", "abc"], 1);
    assert_eq!(e["code"], "E_USAGE");
}

#[test]
fn search_log_and_stats() {
    let (kb, _docs) = setup();
    for q in [
        "git config",
        "git config",
        "zzqx nothing here",
        "sqlite wal",
    ] {
        kb.json(&["search", q, "--fts-only"]);
    }
    kb.error(&["search", " "], 1);
    let s = kb.json(&["stats"]);
    assert_eq!(s["total_searches"], 4, "{s}");
    assert_eq!(s["top_queries"][0]["query"], "git config");
    assert_eq!(s["top_queries"][0]["count"], 2);
    assert_eq!(s["zero_result_queries"][0]["query"], "zzqx nothing here");
    assert!(s["latency_ms"]["p50"].as_f64().unwrap() >= 0.0);
    let human = kb
        .cmd()
        .args(["stats", "--format", "human"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("Most frequent"));
    kb.json(&["stats", "--clear"]);
    assert_eq!(kb.json(&["stats"])["total_searches"], 0);
    let out = kb
        .cmd()
        .env("KB_SEARCH_LOG", "false")
        .args(["search", "git"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        kb.json(&["stats"])["total_searches"],
        0,
        "search.log: false"
    );
}

#[test]
fn vector_only_hits_get_a_sentence_snippet() {
    let (kb, _docs) = setup();
    let v = kb.json(&[
        "search",
        "when can I see the tooth doctor",
        "--vec-only",
        "--top",
        "1",
    ]);
    let snippet = v["results"][0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("dentist"), "{snippet}");
}

#[test]
fn skill_prints_the_skill_file() {
    let kb = Kb::empty();
    let out = kb.cmd().arg("skill").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("---\nname: kb\ndescription: "), "{text}");
    assert_eq!(text, include_str!("../../SKILL.md"));
    // Asked for JSON, the declared contract.
    let out = kb.cmd().args(["skill", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], include_str!("../../SKILL.md"));
}
