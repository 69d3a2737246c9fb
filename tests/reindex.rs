//! `kb reindex` builds new vectors beside the old ones: a kill -9 midway
//! leaves the old index working, and a re-run completes.

mod common;

use common::{write, Kb};

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
    for i in 0..600 {
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
    assert_eq!(s["added"], 600);
    let before = kb.json(&["search", "telescope and planets"]);
    assert!(before["results"][0]["text"]
        .as_str()
        .unwrap()
        .contains("astronomy"));

    let mut child = kb.spawn(&["reindex", "--quiet"]);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "reindex finished before it could be killed; the corpus is too small for this test"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // The old index answers exactly as before.
    let after = kb.json(&["search", "telescope and planets"]);
    assert_eq!(after["results"], before["results"]);
    let status = kb.json(&["status"]);
    assert_eq!(status["model_name"], "all-MiniLM-L6-v2");

    // A re-run continues and completes.
    let r = kb.json(&["reindex", "--format", "json", "--quiet"]);
    assert_eq!(r["chunks"], 600);
    let again = kb.json(&["search", "telescope and planets"]);
    assert_eq!(
        again["results"][0]["chunk_id"],
        before["results"][0]["chunk_id"]
    );
    let s = kb.json(&["status"]);
    assert_eq!(s["total_chunks"], 600);
}
