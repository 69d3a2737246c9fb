//! What users of the peers expect to narrow and refresh a knowledge base:
//! search inside one document or a path, exact quoted phrases, `kb update`
//! for everything ever added, and `kb sources` for a tree of what is indexed.
use crate::common::{write, Kb};
use serde_json::Value;

fn files(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let p = r["source"]["path"].as_str().unwrap();
            p.rsplit('/').next().unwrap().to_string()
        })
        .collect()
}

fn corpus(kb: &Kb) -> std::path::PathBuf {
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("git/reset.md"),
        "# git reset\n\nUndo local changes.\n\n## Discard everything\n\n\
         Run `git reset --hard HEAD` to throw away every local change in the work tree.\n\n\
         ## Keep the files\n\nA soft reset moves the branch and keeps the files; nothing hard about it.\n",
    );
    write(
        &docs.join("git/stash.md"),
        "# git stash\n\nPut local changes aside and reset the work tree; bring them back later.\n",
    );
    write(
        &docs.join("ops/disks.md"),
        "# Disks\n\nA hard reset of the controller clears the RAID cache. Disks are hard to replace.\n",
    );
    write(
        &docs.join("ops/notes.txt"),
        "Reset the router when the link is down.\n",
    );
    docs
}

#[test]
fn search_inside_documents_and_paths() {
    let kb = Kb::new();
    let docs = corpus(&kb);
    kb.add(&[&docs]);
    let reset = docs.join("git/reset.md");
    let reset = reset.to_str().unwrap();

    // One document: only its chunks, as many as match.
    let v = kb.json(&["search", "reset local changes", "--document", reset]);
    let got = files(&v);
    assert!(
        !got.is_empty() && got.iter().all(|f| f == "reset.md"),
        "{v}"
    );
    // By id too, and two documents.
    let id = v["results"][0]["source"]["document_id"]
        .as_i64()
        .unwrap()
        .to_string();
    let disks = docs.join("ops/disks.md");
    let v = kb.json(&[
        "search",
        "hard reset",
        "--document",
        &id,
        "--document",
        disks.to_str().unwrap(),
    ]);
    let got = files(&v);
    assert!(
        got.contains(&"disks.md".to_string()) && got.contains(&"reset.md".to_string()),
        "{v}"
    );
    assert!(
        got.iter().all(|f| f == "reset.md" || f == "disks.md"),
        "{v}"
    );

    // A path glob: a file-name glob matches in any folder, a relative one from here.
    let v = kb.json(&["search", "reset", "--path", "*.txt"]);
    assert_eq!(files(&v), ["notes.txt"], "{v}");
    let out = kb
        .cmd()
        .current_dir(&docs)
        .args(["search", "reset", "--path", "git/**", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = files(&v);
    assert!(
        !got.is_empty() && got.iter().all(|f| f == "reset.md" || f == "stash.md"),
        "{v}"
    );

    // Nothing matches the glob, or no such document: errors that say so.
    let e = kb.error(&["search", "reset", "--path", "*.pdf"], 1);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("no indexed document's path matches *.pdf"),
        "{e}"
    );
    kb.error(&["search", "reset", "--document", "/nowhere/x.md"], 1);
}

#[test]
fn quoted_phrases_are_exact_for_the_keyword_ranker() {
    let kb = Kb::new();
    let docs = corpus(&kb);
    kb.add(&[&docs]);
    // Unquoted, "reset" and "hard" match three documents.
    let loose = files(&kb.json(&["search", "reset hard", "--fts-only"]));
    assert!(loose.contains(&"disks.md".to_string()), "{loose:?}");
    // Quoted: only where "reset" is followed by "hard".
    let exact = files(&kb.json(&["search", "\"reset --hard\"", "--fts-only"]));
    assert_eq!(exact, ["reset.md"], "{exact:?}");
    // Hybrid search keeps the phrase for the keyword side and still answers.
    let v = kb.json(&["search", "\"reset --hard\" discard"]);
    assert_eq!(files(&v)[0], "reset.md", "{v}");
}

#[test]
fn update_resyncs_every_root_and_sources_draws_the_tree() {
    let kb = Kb::new();
    let docs = corpus(&kb);
    let extra = kb.home.path().join("extra.md");
    write(&extra, "# Extra\n\nA lone file added by name.\n");
    kb.add(&[&docs.join("git"), &docs.join("ops"), &extra]);

    // Change one file, add one, remove one: `kb update` sees all three.
    write(
        &docs.join("git/stash.md"),
        "# git stash\n\nStash pop brings the changes back.\n",
    );
    write(
        &docs.join("ops/new.md"),
        "# New\n\nA new runbook about backups.\n",
    );
    std::fs::remove_file(docs.join("ops/notes.txt")).unwrap();
    let out = kb
        .cmd()
        .args(["update", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            s["added"].as_u64(),
            s["updated"].as_u64(),
            s["removed"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(s["roots"].as_array().unwrap().len(), 3, "{s}");
    assert!(s["missing_roots"].as_array().unwrap().is_empty(), "{s}");
    assert!(
        !kb.json(&["search", "backups runbook", "--fts-only"])["results"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // The tree: each added folder, its files, counts for folders not expanded.
    let v = kb.json(&["sources"]);
    let entries: Vec<(String, u64)> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["documents"].as_u64().unwrap(),
            )
        })
        .collect();
    let git = format!(
        "{}/",
        std::fs::canonicalize(docs.join("git")).unwrap().display()
    );
    assert!(entries.contains(&(git.clone(), 2)), "{v}");
    assert!(entries.contains(&("reset.md".to_string(), 1)), "{v}");
    assert_eq!(v["documents"], 5, "{v}");
    let human = kb
        .cmd()
        .args(["sources", "--limit", "5", "--format", "human"])
        .output()
        .unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.contains(&format!("\n{git}\n")) && text.contains("├── reset.md"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("more)"), "{text}");
    let v = kb.json(&[
        "sources",
        "--pattern",
        "*.md",
        "--dir",
        docs.join("ops").to_str().unwrap(),
    ]);
    assert_eq!(v["documents"], 2, "disks.md and new.md: {v}");

    // A folder that is gone is named and its documents kept.
    std::fs::remove_dir_all(docs.join("ops")).unwrap();
    let out = kb
        .cmd()
        .args(["update", "--format", "json"])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["missing_roots"].as_array().unwrap().len(), 1, "{s}");
}

fn listed(kb: &Kb) -> Vec<(String, Vec<String>)> {
    kb.json(&["list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let tags = d["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect();
            (path.rsplit('/').next().unwrap().to_string(), tags)
        })
        .collect()
}

fn update(kb: &Kb, extra: &[&str]) -> Value {
    let mut args = vec!["update", "--format", "json", "--quiet"];
    args.extend(extra);
    kb.json(&args)
}

/// Issue 54, item 1: `kb update` walks every root as `kb add` was told
/// to (its tags for new and moved files, links to outside followed), and
/// a root that is gone can be forgotten, after which neither update nor
/// doctor mentions it.
#[test]
fn update_keeps_what_add_was_told_and_forgets_gone_roots() {
    let kb = Kb::new();
    let home = kb.home.path();
    let work = home.join("work");
    write(
        &work.join("plan.md"),
        "# Plan\n\nShip the orbit planner in May.\n",
    );
    write(
        &home.join("elsewhere/shared.md"),
        "# Shared\n\nThe shared glossary of ground stations.\n",
    );
    let linked = home.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(home.join("elsewhere/shared.md"), linked.join("shared.md")).unwrap();
    kb.json(&[
        "add",
        work.to_str().unwrap(),
        "--tags",
        "project",
        "--format",
        "json",
        "-q",
    ]);
    let s = kb.json(&[
        "add",
        linked.to_str().unwrap(),
        "--follow-external-links",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(s["added"], 1, "{s}");

    // A new file and a moved one under the tagged folder.
    write(
        &work.join("later.md"),
        "# Later\n\nWritten after the folder was added.\n",
    );
    std::fs::create_dir_all(work.join("archive")).unwrap();
    std::fs::rename(work.join("plan.md"), work.join("archive/plan.md")).unwrap();
    let u = update(&kb, &[]);
    assert_eq!(
        (u["added"].as_u64(), u["removed"].as_u64()),
        (Some(2), Some(1)),
        "{u}"
    );
    let docs = listed(&kb);
    for name in ["later.md", "plan.md"] {
        let tags = &docs.iter().find(|d| d.0 == name).unwrap().1;
        assert_eq!(tags, &["project"], "{name}: {docs:?}");
    }
    // The linked file is still there: the root is walked following links.
    assert!(
        docs.iter().any(|d| d.0 == "shared.md"),
        "{docs:?} after {u}"
    );

    // A root that is gone: named by update and doctor until forgotten.
    std::fs::remove_dir_all(&linked).unwrap();
    let u = update(&kb, &[]);
    assert_eq!(u["missing_roots"].as_array().unwrap().len(), 1, "{u}");
    let doctor = |kb: &Kb| -> Value {
        let out = kb
            .cmd()
            .args(["doctor", "--format", "json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "roots")
            .cloned()
            .unwrap()
    };
    let roots = doctor(&kb);
    assert_eq!(roots["status"], "warning", "{roots}");
    assert!(
        roots["detail"].as_str().unwrap().contains("gone"),
        "{roots}"
    );
    let u = update(&kb, &["--forget-missing"]);
    assert_eq!(u["forgotten_roots"].as_array().unwrap().len(), 1, "{u}");
    assert!(u["missing_roots"].as_array().unwrap().is_empty(), "{u}");
    assert!(!listed(&kb).iter().any(|d| d.0 == "shared.md"));
    let roots = doctor(&kb);
    assert_eq!(roots["status"], "ok", "{roots}");
    assert!(
        roots["detail"].as_str().unwrap().contains(" 1 "),
        "counts only the root left: {roots}"
    );
    let u = update(&kb, &[]);
    assert!(u["missing_roots"].as_array().unwrap().is_empty(), "{u}");

    // kb remove --missing forgets gone roots too.
    std::fs::remove_dir_all(&work).unwrap();
    let r = kb.json(&["remove", "--missing"]);
    assert_eq!(r["forgotten_roots"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["removed"], 2, "{r}");
}

/// Issue 54, item 6: a file name (or the end of a path) names a document
/// and a relative glob finds a folder from any working directory.
#[test]
fn scope_works_from_any_working_directory() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("reports/q1-review.md"),
        "# Q1\n\nRevenue rose in the first quarter.\n",
    );
    write(
        &docs.join("reports/q2-review.md"),
        "# Q2\n\nRevenue fell in the second quarter.\n",
    );
    write(
        &docs.join("drafts/q1-review.md"),
        "# Q1 draft\n\nRevenue numbers to be checked.\n",
    );
    write(
        &docs.join("annual.md"),
        "# Annual\n\nRevenue for the year, quarter by quarter.\n",
    );
    kb.add(&[&docs]);
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        kb.cmd()
            .current_dir(elsewhere.path())
            .args(args)
            .output()
            .unwrap()
    };
    let json = |args: &[&str]| -> Value {
        let out = run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = json(&["search", "revenue", "--document", "annual.md"]);
    assert_eq!(files(&v), ["annual.md"], "{v}");
    let v = json(&["search", "revenue", "--document", "reports/q1-review.md"]);
    assert_eq!(files(&v), ["q1-review.md"], "{v}");
    assert!(v["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .contains("/reports/"));
    // Two documents end so: an error naming both.
    let out = run(&[
        "search",
        "revenue",
        "--document",
        "q1-review.md",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("reports/q1-review.md") && err.contains("drafts/q1-review.md"),
        "{err}"
    );
    let v = json(&["search", "revenue", "--path", "reports/**", "--top", "10"]);
    let got = files(&v);
    assert_eq!(got.len(), 2, "{v}");
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["source"]["path"].as_str().unwrap().contains("/reports/")));
    // Outline and open take a file name too.
    let v = json(&["outline", "annual.md"]);
    assert_eq!(v["items"][0]["text"], "Annual");
    // A path that climbs out is still refused, whatever its name.
    let out = run(&["open", "../annual.md", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
