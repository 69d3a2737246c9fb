//! `kb reindex` builds new vectors beside the old ones: a kill -9 midway
//! leaves the old index working, and a re-run completes.

use crate::common::{self, write, Kb};

/// Notes of one chunk each: enough for four model batches (32 chunks, the
/// default embedding.batch_size), so each of the two runs stopped after its
/// first batch leaves work for the re-run.
const NOTES: usize = 120;

#[test]
fn killed_reindex_leaves_old_index_and_rerun_completes() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let topics = [
        "gardening",
        "astronomy",
        "cooking",
        "cycling",
        "chess",
        "sailing",
    ];
    for i in 0..NOTES {
        let t = topics[i % topics.len()];
        write(
            &docs.join(format!("note-{i:04}.txt")),
            &format!(
                "Note {i} about {t}. This is a longer paragraph about {t} so that every note has \
                 a realistic number of tokens for the embedding model to chew on; it mentions \
                 practice, equipment, history and a few personal observations about {t} number {i}."
            ),
        );
    }
    let s = kb.add(&[&docs]);
    assert_eq!(s["added"], NOTES);
    let before = kb.json(&["search", "telescope and planets"]);
    assert!(before["results"][0]["text"]
        .as_str()
        .unwrap()
        .contains("astronomy"));

    // Ctrl-C, with the second model batch in flight (the first is staged):
    // within 2 s, exit 130, one message, the old index kept.
    let out = kb.start_paused(&["reindex", "--quiet"], 1).interrupt();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("interrupted").count(), 1, "{stderr}");
    assert!(!stderr.contains("onnxruntime"), "{stderr}");
    assert_eq!(
        kb.json(&["search", "telescope and planets"])["results"],
        before["results"]
    );

    // kill -9, the same way: one more batch staged.
    let mut child = kb.start_paused(&["reindex", "--quiet"], 1);
    assert!(
        child.is_running(),
        "reindex finished before it could be killed; the corpus is too small for this test"
    );
    child.kill(); // SIGKILL

    // The old index answers exactly as before.
    let after = kb.json(&["search", "telescope and planets"]);
    assert_eq!(after["results"], before["results"]);
    let status = kb.json(&["status"]);
    assert_eq!(status["model_name"], "all-MiniLM-L6-v2");

    // A re-run continues and completes.
    let r = kb.json(&["reindex", "--format", "json", "--quiet"]);
    assert_eq!(r["chunks"], NOTES);
    let again = kb.json(&["search", "telescope and planets"]);
    assert_eq!(
        again["results"][0]["chunk_id"],
        before["results"][0]["chunk_id"]
    );
    let s = kb.json(&["status"]);
    assert_eq!(s["total_chunks"], NOTES);
}

/// A knowledge base from before context headers (as migration 006 leaves
/// it: headers empty, marked) is never mixed: `kb add` asks for `kb
/// reindex`, which fills the headers and re-embeds, and then adds work.
#[test]
fn headerless_chunks_are_reembedded_before_anything_is_added() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    common::fixture_tree(&docs);
    kb.add(&[&docs]);
    {
        let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
        conn.execute_batch(
            "UPDATE chunks SET context = '';
             INSERT INTO config(key, value) VALUES ('headers_pending', '1');",
        )
        .unwrap();
    }
    let more = kb.home.path().join("more");
    write(&more.join("new.md"), "# New\n\nA note added later.\n");
    let err = kb.error(&["add", more.to_str().unwrap()], 1);
    assert_eq!(err["code"], "E_MODEL_MISMATCH", "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("kb reindex"),
        "{err}"
    );

    let out = kb
        .cmd()
        .args(["search", "git", "--top", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("kb reindex"));

    kb.json(&["reindex", "--quiet", "--format", "json"]);
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    let (headerless, pending): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM chunks WHERE context = ''),
                    (SELECT count(*) FROM config WHERE key = 'headers_pending')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(pending, 0);
    let total: i64 = conn
        .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))
        .unwrap();
    assert!(
        headerless < total,
        "headers filled: {headerless} of {total} empty"
    );
    kb.add(&[&more]);
}

/// After an interrupted switch to another model, `kb doctor` names the
/// command that finishes it (no internal fingerprint), and a bare `kb
/// reindex` finishes the switch instead of re-embedding with the old model.
#[test]
fn an_interrupted_switch_is_finished_as_doctor_says() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    for i in 0..NOTES {
        write(
            &docs.join(format!("note-{i:04}.txt")),
            &format!("Note {i}: a paragraph about tides, harbours and the moon, number {i}."),
        );
    }
    kb.add(&[&docs]);
    let cache = kb.home.path().join("cache");
    std::fs::create_dir_all(cache.join("models")).unwrap();
    std::os::unix::fs::symlink(
        common::model_dir_int8(),
        cache.join("models/all-MiniLM-L6-v2-int8"),
    )
    .unwrap();
    let cache = cache.to_str().unwrap();
    let env = [("KB_CACHE_DIR", cache)];
    let out = kb
        .start_paused_with(
            &["reindex", "--model", "all-MiniLM-L6-v2-int8", "--quiet"],
            1,
            &env,
        )
        .interrupt();
    assert_eq!(out.status.code(), Some(130));
    let doctor = kb
        .cmd()
        .env("KB_CACHE_DIR", cache)
        .args(["doctor", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "reindex")
        .unwrap_or_else(|| panic!("{v}"))
        .clone();
    assert_eq!(
        check["fix"],
        "kb reindex --model all-MiniLM-L6-v2-int8 (with --model-dir DIR when the model is not in \
         kb's cache; it continues where it stopped)",
        "{check}"
    );
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("a reindex to all-MiniLM-L6-v2-int8 was interrupted;"),
        "no fingerprint: {check}"
    );
    // A bare reindex finishes the switch.
    let out = kb
        .cmd()
        .env("KB_CACHE_DIR", cache)
        .args(["reindex", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(kb.json(&["status"])["model_name"], "all-MiniLM-L6-v2-int8");

    // A model name models.toml does not know is that error, not a mismatch.
    let out = kb
        .cmd()
        .env("KB_MODEL", "bogus")
        .args(["search", "tides", "--format", "json"])
        .output()
        .unwrap();
    let e = common::stderr_json(&out);
    assert_eq!(e["code"], "E_UNKNOWN_MODEL", "{e}");
    assert!(!e["error"].as_str().unwrap().contains("reindex"), "{e}");
}

/// From multilingual-e5-small (512 tokens) to all-MiniLM-L6-v2 (256): a
/// document cut into chunks of e5's length is read again and chunked for
/// MiniLM, so every chunk is one the model reads to its end.
#[test]
fn a_switch_to_a_model_that_reads_less_reads_long_documents_again() {
    let Some(multilingual) = common::model_dir_multilingual() else {
        return;
    };
    let kb = Kb::empty();
    let int8 = common::model_dir_int8();
    let cache = kb.model_cache(&[
        ("multilingual-e5-small-q4", &multilingual),
        ("all-MiniLM-L6-v2-int8", &int8),
    ]);
    let run = |args: &[&str]| kb.json_cached(&cache, args);
    run(&["init", "--model", "multilingual-e5-small-q4"]);
    let docs = kb.home.path().join("docs");
    let crops = [
        "wheat", "barley", "oats", "rye", "maize", "millet", "sorghum", "rice",
    ];
    let mut long = String::from("# Field notes\n\n");
    for (i, crop) in crops.iter().cycle().take(24).enumerate() {
        long.push_str(&format!(
            "Season {i}: the {crop} plots were sown late, watered twice a week and weeded by \
             hand; yields were recorded by row and compared with the previous season.\n"
        ));
    }
    long.push_str("Finally, the old lighthouse keeper repaired the rowing boat's cracked oar.\n");
    write(&docs.join("field-notes.md"), &long);
    write(
        &docs.join("short.md"),
        "# Canoe\n\nA short note on canoes.\n",
    );
    run(&["add", docs.to_str().unwrap()]);
    let chunks = || run(&["open", "field-notes.md"])["document"]["total_chunks"].clone();
    let before = chunks();
    let v = run(&["reindex", "--model", "all-MiniLM-L6-v2-int8"]);
    assert_eq!(v["model_name"], "all-MiniLM-L6-v2-int8", "{v}");
    assert_eq!(v["read_again"], 1, "{v}");
    assert_eq!(v["not_read_again"], serde_json::json!([]), "{v}");
    let after = chunks();
    assert!(
        after.as_u64().unwrap() > before.as_u64().unwrap(),
        "{before} chunks of e5's length, {after} of MiniLM's"
    );
    let status = run(&["status"]);
    assert_eq!(status["model_name"], "all-MiniLM-L6-v2-int8", "{status}");
}
