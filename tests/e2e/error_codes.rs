//! The error codes that the other tests do not reach: each has its exit
//! code and a message saying what to do.

use crate::common::{fixture_tree, model_dir, stderr_json, write, Kb};
use serde_json::Value;

#[test]
fn unknown_model_name() {
    let kb = Kb::empty();
    let e = kb.error(&["init", "--model", "gpt-17-ultra"], 1);
    assert_eq!(e["code"], "E_UNKNOWN_MODEL");
    assert!(
        e["error"].as_str().unwrap().contains("all-MiniLM-L6-v2"),
        "lists the known models"
    );
}

#[test]
fn unreachable_hub_is_a_download_error() {
    let kb = Kb::empty();
    // A closed local port: the download fails at once, without any network.
    let out = kb
        .cmd()
        .env_remove("HF_HUB_OFFLINE")
        .env("HF_HOME", kb.home.path().join("hf"))
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .args(["init", "--format", "json", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_DOWNLOAD");
    assert!(e["error"].as_str().unwrap().contains("--model-dir"));
}

#[test]
fn broken_model_file_is_a_model_error() {
    let kb = Kb::empty();
    let dir = kb.home.path().join("broken-model");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.onnx"), b"this is not an onnx graph").unwrap();
    for f in ["tokenizer.json", "config.json"] {
        std::fs::copy(model_dir().join(f), dir.join(f)).unwrap();
    }
    let e = kb.error(&["init", "--model-dir", dir.to_str().unwrap()], 2);
    assert_eq!(e["code"], "E_MODEL");
    assert!(e["error"].as_str().unwrap().contains("model.onnx"));
    let empty = kb.home.path().join("empty-model");
    std::fs::create_dir_all(&empty).unwrap();
    let e = kb.error(&["init", "--model-dir", empty.to_str().unwrap()], 1);
    assert_eq!(e["code"], "E_MODEL_MISSING");
    assert!(e["error"].as_str().unwrap().contains("tokenizer.json"));
}

#[test]
fn database_from_a_newer_kb() {
    let kb = Kb::new();
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    conn.execute(
        "UPDATE config SET value = '99' WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(conn);
    let e = kb.error(&["status"], 2);
    assert_eq!(e["code"], "E_DB_TOO_NEW");
    assert!(e["error"].as_str().unwrap().contains("upgrade kb"));
}

#[test]
fn ctrl_c_keeps_committed_work() {
    const NOTES: u64 = 40;
    let kb = Kb::new();
    let docs = kb.home.path().join("many");
    for i in 0..NOTES {
        write(
            &docs.join(format!("n{i:03}.txt")),
            &format!("Note {i} on rivers, bridges and the towns along them; entry number {i}. ")
                .repeat(6),
        );
    }
    // Groups of 8 notes (one model batch each), held in the third batch:
    // two groups are embedded and on their way to the database.
    let mut child = kb.start_paused_with(
        &["add", "--format", "json", "--quiet", docs.to_str().unwrap()],
        2,
        &[("KB_INGESTION_BATCH_SIZE", "8")],
    );
    // Interrupt once the first documents are committed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while kb.json(&["status"])["total_documents"]
        .as_u64()
        .unwrap_or(0)
        == 0
    {
        assert!(std::time::Instant::now() < deadline, "nothing was written");
        assert!(child.is_running(), "kb add ended before it was interrupted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Within 2 s and with exit 130 (Running::interrupt).
    let out = child.interrupt();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["interrupted"], true);
    let added = summary["added"].as_u64().unwrap();
    assert!(added > 0 && added < NOTES, "stopped midway: {summary}");
    // kb's error is its last word: nothing from ONNX Runtime's teardown
    // under the model batch still in flight follows it.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("onnxruntime"), "{stderr}");
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_INTERRUPTED");
    // What was committed is there; re-running finishes the job.
    assert_eq!(
        kb.json(&["status"])["documents"]["note"].as_u64().unwrap(),
        added
    );
    let again = kb.add(&[&docs]);
    assert_eq!(again["added"].as_u64().unwrap() + added, NOTES);
    assert_eq!(again["skipped"].as_u64().unwrap(), added);
    let _ = fixture_tree;
}

#[test]
fn unwritable_data_dir_is_an_io_error() {
    let kb = Kb::empty();
    // The data directory's place is taken by a regular file.
    std::fs::write(kb.data_dir(), b"not a directory").unwrap();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let e = kb.error(&["add", docs.to_str().unwrap()], 2);
    assert_eq!(e["code"], "E_IO");
    assert!(
        e["error"].as_str().unwrap().contains("data"),
        "names the path"
    );
    // A file that is no database is no data directory, for reads too
    // (an SQLite file would be the knowledge base itself).
    for args in [&["add", docs.to_str().unwrap()][..], &["status"]] {
        let e = kb.error(args, 2);
        assert_eq!(e["code"], "E_IO", "{args:?}: {e}");
        assert!(
            e["error"]
                .as_str()
                .unwrap()
                .contains("the data directory is a file"),
            "{args:?}: {e}"
        );
    }
    // A device, or a folder under a file, is no data directory either.
    let under = kb.data_dir().join("sub");
    for (dir, says) in [
        ("/dev/null", "a device"),
        (under.to_str().unwrap(), "lies under"),
    ] {
        for args in [&["status"][..], &["add", docs.to_str().unwrap()][..]] {
            let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kb"))
                .args(["--data-dir", dir, "--format", "json"])
                .args(args)
                .env("HOME", kb.home.path())
                .env_remove("KB_DATA_DIR")
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{dir} {args:?}: {e}");
            assert!(
                e.contains("E_IO") && e.contains(says),
                "{dir} {args:?}: {e}"
            );
        }
    }
}

#[test]
fn a_damaged_schema_is_a_database_error() {
    let kb = Kb::new();
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    conn.execute_batch("DROP TABLE document_tags; DROP TABLE tags;")
        .unwrap();
    drop(conn);
    let e = kb.error(&["tags"], 2);
    assert_eq!(e["code"], "E_DB");
    assert!(e["error"].as_str().unwrap().contains("tags"));
}

#[test]
fn a_runtime_path_the_user_named_is_used_or_is_the_error() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    // ORT_DYLIB_PATH (set by ./test.sh) points at a good copy; the
    // configured path must still win, and not loading it is the error.
    let out = kb
        .cmd()
        .env("KB_EMBEDDING_ONNXRUNTIME", "/nonexistent/libonnxruntime.so")
        .args(["search", "git", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_RUNTIME_MISSING");
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("/nonexistent/libonnxruntime.so"), "{msg}");
    assert!(msg.contains("embedding.onnxruntime"), "{msg}");
    // Keyword search needs no runtime.
    let out = kb
        .cmd()
        .env("KB_EMBEDDING_ONNXRUNTIME", "/nonexistent/libonnxruntime.so")
        .args(["search", "git", "--fts-only"])
        .output()
        .unwrap();
    assert!(out.status.success());
}
