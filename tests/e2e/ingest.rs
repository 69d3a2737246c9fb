//! `kb add` on real folders: hostile files, interruption by kill -9, and
//! keeping the index in step with a folder that changes.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{self, write, Kb};
use kb::ingest::pdf::testpdf::{self, heading, para, TestPdf};

/// Path → chunk count of every indexed document.
fn indexed(kb: &Kb) -> BTreeMap<String, u64> {
    let v = kb.json(&["list"]);
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["chunk_count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn error_log(kb: &Kb) -> String {
    std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap_or_default()
}

fn assert_logged(log: &str, file: &str, reason: &str) {
    assert!(
        log.lines().any(|l| l.contains(file) && l.contains(reason)),
        "{file} not logged with \"{reason}\":\n{log}"
    );
}

#[test]
fn hostile_files_are_logged_and_the_good_ones_indexed() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let kb = Kb::new();
    let root = kb.home.path().join("hostile");
    write(
        &root.join("good.md"),
        "# Lighthouses\n\nThe keeper trimmed the lamp wick every evening at dusk.\n",
    );
    write(
        &root.join("good.txt"),
        "Shopping list: flour, yeast, sea salt and olive oil for the focaccia.\n",
    );
    // Binary content behind text extensions.
    std::fs::write(
        root.join("photo.md"),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    )
    .unwrap();
    std::fs::write(
        root.join("archive.txt"),
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00",
    )
    .unwrap();
    // Invalid UTF-8 is indexed with a warning.
    std::fs::write(
        root.join("legacy.txt"),
        b"ni\xf1o pe\xf1a jalape\xf1o salsa\n",
    )
    .unwrap();
    // A 100 MB text file (sparse, so the test stays cheap) is over the limit.
    let huge = std::fs::File::create(root.join("huge.txt")).unwrap();
    huge.set_len(100 * 1024 * 1024).unwrap();
    // Deeply nested directories.
    let mut deep = root.join("deep");
    for i in 0..40 {
        deep = deep.join(format!("level{i}"));
    }
    write(
        &deep.join("bottom.md"),
        "# Bottom\n\nThe submarine reached the trench floor at eleven kilometres.\n",
    );
    // A symlink loop and a dangling link.
    std::fs::create_dir_all(root.join("loop")).unwrap();
    symlink(&root, root.join("loop/back-to-root")).unwrap();
    symlink(root.join("nowhere.md"), root.join("dangling.md")).unwrap();
    // A FIFO with a document's name must not block the walk.
    assert!(std::process::Command::new("mkfifo")
        .arg(root.join("pipe.md"))
        .status()
        .unwrap()
        .success());
    // An unreadable file (root reads it anyway; then it is simply indexed).
    let locked = root.join("locked.md");
    write(&locked, "# Locked\n\nprivate words about the garden shed\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let locked_readable = std::fs::read(&locked).is_ok();
    // An unsupported file.
    write(&root.join("drawing.svg"), "<svg/>\n");
    // PDFs: a good one, then truncated, password-encrypted, and a
    // decompression bomb (4 GB of zeros in about 4 MB).
    let good_pdf = TestPdf::new()
        .page(vec![
            heading("Tide Tables", 18.0),
            para("High water at the harbour mouth comes fifty minutes later each day."),
        ])
        .page(vec![para("Spring tides follow the full and the new moon.")])
        .to_bytes();
    std::fs::create_dir_all(root.join("pdf")).unwrap();
    std::fs::write(root.join("pdf/tides.pdf"), &good_pdf).unwrap();
    std::fs::write(
        root.join("pdf/truncated.pdf"),
        &good_pdf[..good_pdf.len() / 2],
    )
    .unwrap();
    std::fs::write(
        root.join("pdf/locked.pdf"),
        TestPdf::new()
            .page(vec![para("secret")])
            .encrypted("hunter2"),
    )
    .unwrap();
    std::fs::write(
        root.join("pdf/bomb.pdf"),
        testpdf::decompression_bomb(4 << 30),
    )
    .unwrap();
    // Code: a good module, one with syntax errors (still indexed), and an
    // extensionless shell script recognised by its shebang.
    write(
        &root.join("code/ok.py"),
        "def moon_phase(day):\n    \"\"\"Phase of the moon on a day.\"\"\"\n    return day % 29.5\n",
    );
    write(
        &root.join("code/broken.py"),
        "def tide_height(:\n    return 3 +\n\nclass Harbour:\n    pass\n",
    );
    write(
        &root.join("code/ring-bell"),
        "#!/bin/sh\n# Rings the harbour bell.\nring() {\n  echo ding\n}\nring\n",
    );

    let s = kb.add(&[&root]);
    // good.md, good.txt, legacy.txt, bottom.md, tides.pdf, ok.py, broken.py,
    // ring-bell
    let good = 8 + usize::from(locked_readable);
    assert_eq!(s["added"], good, "{s}");
    assert_eq!(
        s["failed"],
        6 + usize::from(!locked_readable),
        "photo.md, archive.txt, huge.txt, truncated.pdf, locked.pdf, bomb.pdf: {s}"
    );
    assert!(
        s["walk_errors"].as_u64().unwrap() >= 2,
        "loop + dangling: {s}"
    );
    assert_eq!(s["unsupported"], 1, "{s}");
    let log = error_log(&kb);
    assert_logged(&log, "photo.md", "binary");
    assert_logged(&log, "archive.txt", "binary");
    assert_logged(&log, "huge.txt", "max_file_mb");
    assert_logged(&log, "legacy.txt", "not UTF-8: read as windows-1252");
    assert_logged(&log, "back-to-root", "loop");
    assert_logged(&log, "dangling.md", "skipped while walking");
    assert_logged(
        &log,
        "pipe.md",
        "skipped: a named pipe (FIFO), not a document",
    );
    assert_logged(&log, "truncated.pdf", "truncated or malformed PDF");
    assert_logged(&log, "locked.pdf", "encrypted PDF");
    assert_logged(&log, "bomb.pdf", "ran out of memory");
    assert_logged(&log, "broken.py", "syntax error");
    if !locked_readable {
        assert_logged(&log, "locked.md", "cannot read");
    }
    let hits = kb.json(&["search", "submarine trench", "--fts-only"]);
    assert!(hits["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .ends_with("level39/bottom.md"));
    let hits = kb.json(&["search", "spring tides full moon", "--fts-only"]);
    assert_eq!(hits["results"][0]["source"]["page"], 2, "{hits}");
    let hits = kb.json(&["search", "harbour bell", "--fts-only", "--type", "code"]);
    assert!(hits["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .ends_with("ring-bell"));
    // The loop did not index anything twice.
    assert_eq!(indexed(&kb).len(), good);
}

fn write_notes(dir: &Path, n: usize) {
    for i in 0..n {
        write(
            &dir.join(format!("part{}/note{i:03}.md", i % 7)),
            &format!(
                "# Note {i}\n\nEntry {i} of the river survey: water level, bridges, ferries.\n\n\
                 ## Details\n\n{}\n",
                format!("Measurement {i} taken at the old mill weir after the rains. ").repeat(8)
            ),
        );
    }
}

#[test]
fn kill_9_midway_then_rerun_matches_an_uninterrupted_run() {
    const NOTES: usize = 40;
    let interrupted = Kb::new();
    let reference = Kb::new();
    let docs = interrupted.home.path().join("survey");
    write_notes(&docs, NOTES);

    // Groups of 8 notes (one model batch each), held in the third batch.
    let mut child = interrupted.start_paused_with(
        &["add", "--quiet", docs.to_str().unwrap()],
        2,
        &[("KB_INGESTION_BATCH_SIZE", "8")],
    );
    // Wait until some documents are committed, then kill without warning.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let n = interrupted.json(&["status"])["total_documents"]
            .as_u64()
            .unwrap_or(0);
        if n > 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "nothing was written");
        assert!(child.is_running(), "kb add ended before it was killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = child.kill(); // SIGKILL
    assert!(!status.success(), "the run finished before it was killed");
    let partial = indexed(&interrupted).len();
    assert!(partial > 0 && partial < NOTES, "killed midway: {partial}");

    let rerun = interrupted.add(&[&docs]);
    assert_eq!(
        rerun["skipped"].as_u64().unwrap() as usize,
        partial,
        "{rerun}"
    );
    let full = reference.add(&[&docs]);
    assert_eq!(full["added"], NOTES);

    let after_kill = indexed(&interrupted);
    let uninterrupted = indexed(&reference);
    assert_eq!(after_kill, uninterrupted);
    let (a, b) = (interrupted.json(&["status"]), reference.json(&["status"]));
    assert_eq!(a["total_chunks"], b["total_chunks"]);
    assert_eq!(a["total_documents"], b["total_documents"]);
}

#[test]
fn readding_a_changed_folder_leaves_exactly_its_current_files() {
    let kb = Kb::new();
    let docs = kb.home.path().join("changing");
    write_notes(&docs, 12);
    write(
        &docs.join("extra/keep.txt"),
        "Remember the spare key under the flowerpot.\n",
    );
    let first = kb.add(&[&docs]);
    assert_eq!(first["added"], 13, "{first}");

    // Delete two files and a whole folder, edit one, add one.
    std::fs::remove_file(docs.join("part0/note000.md")).unwrap();
    std::fs::remove_file(docs.join("part1/note001.md")).unwrap();
    std::fs::remove_dir_all(docs.join("extra")).unwrap();
    write(
        &docs.join("part2/note002.md"),
        "# Note 2, rewritten\n\nThe survey moved upstream to the gravel pits.\n",
    );
    write(
        &docs.join("part3/new.md"),
        "# New\n\nA heron nests by the weir.\n",
    );
    let second = kb.add(&[&docs]);
    assert_eq!(second["removed"], 3, "{second}");
    assert_eq!(second["updated"], 1, "{second}");
    assert_eq!(second["added"], 1, "{second}");

    let mut on_disk: Vec<String> = walk(&docs);
    on_disk.sort();
    let in_index: Vec<String> = indexed(&kb).into_keys().collect();
    assert_eq!(in_index, on_disk);
    let hits = kb.json(&["search", "gravel pits", "--fts-only"]);
    assert!(hits["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .ends_with("note002.md"));
    assert_eq!(
        kb.json(&["search", "mill weir rains", "--fts-only", "--top", "50"])["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["source"]["path"]
                .as_str()
                .unwrap()
                .ends_with("note000.md"))
            .count(),
        0,
        "deleted files are gone from the index"
    );
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(std::path::absolute(&p).unwrap().display().to_string());
        }
    }
    out
}

#[test]
fn tags_of_a_run_apply_to_unchanged_documents_too() {
    let kb = Kb::new();
    let docs = kb.home.path().join("tagged");
    write_notes(&docs, 3);
    kb.add(&[&docs]);
    let out = kb.json(&[
        "add",
        docs.to_str().unwrap(),
        "--tags",
        "survey",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(out["skipped"], 3, "{out}");
    let v = kb.json(&["list", "--tag", "survey"]);
    assert_eq!(v.as_array().unwrap().len(), 3, "{v}");
}

#[test]
fn exclude_globs_and_kbignore_files_leave_things_out() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    common::write(
        &docs.join("keep.md"),
        "# Keep\n\nthe kept lighthouse note\n",
    );
    common::write(
        &docs.join("drafts/draft.md"),
        "# Draft\n\na drafted lighthouse note\n",
    );
    common::write(&docs.join("scratch.txt"), "a scratch lighthouse note\n");
    common::write(&docs.join(".kbignore"), "drafts/\n");
    let out = kb.json(&[
        "add",
        docs.to_str().unwrap(),
        "--exclude",
        "*.txt",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(out["added"], 1, "{out}");
    let v = kb.json(&["search", "lighthouse", "--fts-only"]);
    assert_eq!(v["returned"], 1, "{v}");
    let e = kb.error(&["add", docs.to_str().unwrap(), "--exclude", "["], 1);
    assert_eq!(e["code"], "E_USAGE");
    assert!(e["error"].as_str().unwrap().contains("--exclude"), "{e}");
}

/// `kb add PATH... --format json` with extra arguments → the summary.
fn add_with(kb: &Kb, path: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["add", path.to_str().unwrap(), "--format", "json", "--quiet"];
    args.extend_from_slice(extra);
    kb.json(&args)
}

fn hits(kb: &Kb, words: &str) -> u64 {
    kb.json(&["search", words, "--fts-only"])["returned"]
        .as_u64()
        .unwrap()
}

/// A folder of notes with a link to a file outside it, and one to a folder
/// outside it: what a downloaded repository with `notes.md -> ~/.ssh/id_rsa`
/// looks like.
fn folder_with_links_out(home: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::symlink;
    let docs = home.join("docs");
    write(
        &docs.join("lighthouse.md"),
        "# Lighthouse\n\nThe keeper trimmed the wick at dusk.\n",
    );
    let secret = home.join("private/credentials.txt");
    write(
        &secret,
        "aws_secret_access_key = xylophone-quartz-zebra-secret\n",
    );
    write(
        &home.join("private/more/diary.md"),
        "# Diary\n\nmarzipan confessions of the night\n",
    );
    symlink(&secret, docs.join("notes.md")).unwrap();
    symlink(home.join("private/more"), docs.join("more")).unwrap();
    (docs, secret)
}

#[test]
fn a_link_to_a_file_outside_the_added_folder_is_not_indexed_and_is_logged() {
    let kb = Kb::new();
    let (docs, secret) = folder_with_links_out(kb.home.path());
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(
        (s["added"].as_u64(), s["external_links"].as_u64()),
        (Some(1), Some(2)),
        "{s}"
    );
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 0);
    assert_eq!(hits(&kb, "marzipan confessions"), 0);
    let e = kb.error(&["open", secret.to_str().unwrap()], 1);
    assert_eq!(e["code"], "E_NOT_FOUND", "{e}");
    // The log names each link, where it leads and why it was skipped.
    let log = error_log(&kb);
    let target = std::fs::canonicalize(&secret).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("docs/notes.md"))
        .unwrap_or_else(|| panic!("the link is not logged:\n{log}"));
    assert!(
        line.contains(target.to_str().unwrap()) && line.contains("outside"),
        "{line}"
    );
    assert_logged(&log, "docs/more", "outside");
    // Re-adding changes nothing, and the link is not followed then either.
    let again = add_with(&kb, &docs, &[]);
    assert_eq!(
        (again["added"].as_u64(), again["skipped"].as_u64()),
        (Some(0), Some(1)),
        "{again}"
    );
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 0);
}

#[test]
fn an_opt_in_follows_links_outside_and_a_deleted_link_takes_its_document_along() {
    let kb = Kb::new();
    let (docs, _) = folder_with_links_out(kb.home.path());
    let s = add_with(&kb, &docs, &["--follow-external-links"]);
    assert_eq!(
        (s["added"].as_u64(), s["external_links"].as_u64()),
        (Some(3), Some(0)),
        "{s}"
    );
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 1);
    assert_eq!(hits(&kb, "marzipan confessions"), 1);
    // The links go: so do the documents that came in through them,
    // although their files are still there.
    std::fs::remove_file(docs.join("notes.md")).unwrap();
    std::fs::remove_file(docs.join("more")).unwrap();
    let s = add_with(&kb, &docs, &["--follow-external-links"]);
    assert_eq!(
        (s["removed"].as_u64(), s["skipped"].as_u64()),
        (Some(2), Some(1)),
        "{s}"
    );
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 0);
    assert_eq!(hits(&kb, "marzipan confessions"), 0);
    // The setting does the same as the flag.
    let (docs2, _) = folder_with_links_out(&kb.home.path().join("second"));
    let out = kb
        .cmd()
        .env("KB_INGESTION_FOLLOW_EXTERNAL_LINKS", "true")
        .args([
            "add",
            docs2.to_str().unwrap(),
            "--format",
            "json",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["added"], 3, "{s}");
}

#[test]
fn a_deleted_link_inside_the_added_folder_removes_its_document() {
    use std::os::unix::fs::symlink;
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("index.md"),
        "# Index\n\nthe map of the harbour\n",
    );
    // The target sits in a folder the walk leaves out: only the link
    // brings it in.
    write(&docs.join(".gitignore"), "archive/\n");
    write(
        &docs.join("archive/tides-1910.md"),
        "# Tides 1910\n\nthe great flood of the estuary in nineteen ten\n",
    );
    symlink(docs.join("archive/tides-1910.md"), docs.join("tides.md")).unwrap();
    // A link to a file the walk reaches anyway: one document per file.
    symlink(docs.join("index.md"), docs.join("start.md")).unwrap();
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(
        (s["added"].as_u64(), s["external_links"].as_u64()),
        (Some(2), Some(0)),
        "{s}"
    );
    assert_eq!(hits(&kb, "estuary flood"), 1);
    assert_eq!(indexed(&kb).len(), 2);
    std::fs::remove_file(docs.join("tides.md")).unwrap();
    std::fs::remove_file(docs.join("start.md")).unwrap();
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(
        (s["removed"].as_u64(), s["skipped"].as_u64()),
        (Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(hits(&kb, "estuary flood"), 0);
    assert_logged(&error_log(&kb), "tides-1910.md", "no walk");
}

/// The stale-document count of `kb status`.
fn stale(kb: &Kb) -> u64 {
    kb.json(&["status", "--format", "json"])["stale_documents"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_removed_link_makes_its_document_stale_until_the_next_update() {
    use std::os::unix::fs::symlink;
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("index.md"),
        "# Index\n\nthe map of the harbour\n",
    );
    // Only the link brings the target in (its folder is ignored).
    write(&docs.join(".gitignore"), "archive/\n");
    let target = docs.join("archive/tides-1910.md");
    write(
        &target,
        "# Tides 1910\n\nthe great flood of the estuary in nineteen ten\n",
    );
    symlink(&target, docs.join("tides.md")).unwrap();
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(s["added"], 2, "{s}");
    let target = std::fs::canonicalize(&target).unwrap();
    let target = target.to_str().unwrap();
    let info = |kb: &Kb| kb.json(&["info", target, "--format", "json"]);
    let search = |kb: &Kb| {
        let v = kb.json(&["search", "estuary flood", "--fts-only", "--format", "json"]);
        assert_eq!(v["returned"], 1, "{v}");
        v["results"][0].clone()
    };
    let files_check = |kb: &Kb| {
        let v = kb.json(&["doctor", "--format", "json"]);
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "files")
            .cloned()
            .unwrap_or_else(|| panic!("no files check: {v}"))
    };
    assert_eq!(stale(&kb), 0);
    assert_eq!(info(&kb)["file_status"], "unchanged");
    assert_eq!(search(&kb)["source"]["stale"], false);
    assert_eq!(files_check(&kb)["status"], "ok");

    // The link goes, the file stays: the next update drops the document,
    // so every report calls it gone now.
    std::fs::remove_file(docs.join("tides.md")).unwrap();
    assert!(Path::new(target).exists());
    assert_eq!(stale(&kb), 1);
    let i = info(&kb);
    assert_eq!(i["file_status"], "missing", "{i}");
    let r = search(&kb);
    assert_eq!(r["source"]["stale"], true, "{r}");
    assert_eq!(files_check(&kb)["status"], "warning");
    let open = kb.json(&["open", target, "--max-lines", "0", "--format", "json"]);
    assert_eq!(open["file_status"], "missing", "{open}");
    // A link put back to somewhere else does not bring it back.
    write(
        &docs.join("elsewhere.md"),
        "# Elsewhere\n\nsomething else\n",
    );
    symlink(docs.join("elsewhere.md"), docs.join("tides.md")).unwrap();
    assert_eq!(info(&kb)["file_status"], "missing");
    std::fs::remove_file(docs.join("tides.md")).unwrap();

    let s = kb.json(&["update", "--format", "json", "--quiet"]);
    assert_eq!(
        (s["removed"].as_u64(), s["added"].as_u64()),
        (Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(hits(&kb, "estuary flood"), 0);
    assert_eq!(stale(&kb), 0);
}

#[test]
fn links_between_added_folders_are_followed() {
    use std::os::unix::fs::symlink;
    let kb = Kb::new();
    let home = kb.home.path();
    write(
        &home.join("work/plan.md"),
        "# Plan\n\nthe quarterly plan of the bakery\n",
    );
    write(&home.join("notes/todo.md"), "# Todo\n\nbuy flour\n");
    symlink(home.join("work/plan.md"), home.join("notes/plan.md")).unwrap();
    // Before work/ is added, the link leads outside.
    let s = add_with(&kb, &home.join("notes"), &[]);
    assert_eq!(s["external_links"], 1, "{s}");
    add_with(&kb, &home.join("work"), &[]);
    let s = add_with(&kb, &home.join("notes"), &[]);
    assert_eq!(
        (s["external_links"].as_u64(), s["added"].as_u64()),
        (Some(0), Some(0)),
        "{s}"
    );
    assert_eq!(indexed(&kb).len(), 2);
    // Removing the link leaves the document work/ reaches: not stale.
    std::fs::remove_file(home.join("notes/plan.md")).unwrap();
    assert_eq!(stale(&kb), 0);
    let s = add_with(&kb, &home.join("notes"), &[]);
    assert_eq!(s["removed"], 0, "{s}");
    assert_eq!(hits(&kb, "quarterly bakery"), 1);
}

#[test]
fn documents_an_older_kb_took_through_a_link_are_named_by_doctor_and_pruned() {
    let kb = Kb::new();
    let (docs, secret) = folder_with_links_out(kb.home.path());
    // What an older kb did: follow the links, and record no roots.
    add_with(&kb, &docs, &["--follow-external-links"]);
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    conn.execute_batch("DELETE FROM document_roots; DELETE FROM roots;")
        .unwrap();
    drop(conn);
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 1);
    // kb doctor cannot judge without roots: it says how to record them.
    let check = |kb: &Kb| -> serde_json::Value {
        let v = kb.json(&["doctor"]);
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "roots")
            .cloned()
            .unwrap_or_else(|| panic!("no roots check: {v}"))
    };
    let c = check(&kb);
    assert_eq!(c["status"], "warning", "{c}");
    assert!(c["fix"].as_str().unwrap().contains("kb add"), "{c}");
    // Another folder is added: its root is recorded, and the documents
    // that lie outside every recorded root are listed with their removal.
    let other = kb.home.path().join("other");
    write(&other.join("a.md"), "# A\n\nanything\n");
    add_with(&kb, &other, &[]);
    let c = check(&kb);
    assert_eq!(c["status"], "warning", "{c}");
    let detail = c["detail"].as_str().unwrap();
    let target = std::fs::canonicalize(&secret).unwrap();
    assert!(detail.contains(target.to_str().unwrap()), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("kb remove "), "{c}");
    // The next add of the folder finds the links, does not follow them, and
    // drops what came in through them.
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(
        (s["removed"].as_u64(), s["external_links"].as_u64()),
        (Some(2), Some(2)),
        "{s}"
    );
    assert_eq!(hits(&kb, "xylophone quartz zebra"), 0);
    assert_eq!(hits(&kb, "marzipan confessions"), 0);
    assert_eq!(check(&kb)["status"], "ok");
}

#[test]
fn a_file_name_with_a_newline_stays_one_line_of_the_errors_log() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(&docs.join("fine.md"), "# Fine\n\nnothing to see\n");
    // An empty file (logged) whose name would forge a second entry.
    let name = "evil\n2030-01-01T00:00:00Z\tforged.md\tindexed fine.md";
    std::fs::write(docs.join(name), b"").unwrap();
    let s = add_with(&kb, &docs, &[]);
    assert_eq!(s["empty"], 1, "{s}");
    let log = error_log(&kb);
    assert_eq!(log.lines().count(), 1, "{log}");
    let fields: Vec<&str> = log.lines().next().unwrap().split('\t').collect();
    assert_eq!(fields.len(), 3, "{log}");
    assert!(
        fields[1].ends_with("docs/evil\\n2030-01-01T00:00:00Z\\tforged.md\\tindexed fine.md"),
        "{log}"
    );
}

#[test]
fn unsupported_files_are_named_with_why() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(&docs.join("guide.md"), "# Guide\n\nWords about tides.\n");
    write(&docs.join("part.stl"), "solid cube\n");
    write(&docs.join("sub/Makefile.bak2"), "all:\n");
    let s = kb.add(&[&docs]);
    assert_eq!(
        (s["added"].as_u64(), s["unsupported"].as_u64()),
        (Some(1), Some(2)),
        "{s}"
    );
    let files = s["unsupported_files"].as_array().unwrap();
    let named: Vec<(&str, &str)> = files
        .iter()
        .map(|f| {
            (
                f["extension"].as_str().unwrap(),
                f["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        named.contains(&("stl", "not indexed: .stl is not a type kb reads")),
        "{s}"
    );
    assert!(files
        .iter()
        .all(|f| f["path"].as_str().unwrap().starts_with('/') && f["named"] == false));
    let log = error_log(&kb);
    assert_logged(&log, "part.stl", "not indexed");
    assert_logged(&log, "Makefile.bak2", "not indexed");
    // In human output, grouped by extension.
    let out = kb
        .cmd()
        .args(["add", "--format", "human"])
        .arg(&docs)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("2 unsupported files skipped (.bak2 1, .stl 1)"),
        "{text}"
    );
    // A file named on the command line that kb cannot read: an error naming it and what kb reads.
    let e = kb.error(&["add", docs.join("part.stl").to_str().unwrap()], 1);
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("part.stl: not indexed: .stl is not a type kb reads (kb reads ")
            && msg.contains(".md"),
        "{e}"
    );
}
