//! The Rust embedding path against an independent reference: vectors
//! computed once by a pure-numpy BERT forward pass from the same weights
//! (scripts/prepare_model.py --write-fixture), checked in as a fixture.

mod common;

use kb::config::{CliOverrides, Config};
use kb::embed::{model_spec, Embedder, ModelFiles};

fn load() -> Embedder {
    let dir = common::model_dir();
    let home = tempfile::tempdir().unwrap();
    let config = Config::load_from(
        &CliOverrides {
            data_dir: Some(home.path().into()),
            model: None,
        },
        &std::env::vars().collect(),
    )
    .unwrap();
    let spec = model_spec("all-MiniLM-L6-v2").unwrap();
    let files = ModelFiles::in_dir(&dir, &spec).unwrap();
    Embedder::load(&spec, &files, &config).unwrap()
}

/// The fixture's embedding of one item.
fn reference(item: &serde_json::Value) -> Vec<f32> {
    item["embedding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn embeddings_match_the_numpy_reference() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/reference_embeddings.json")).unwrap();
    let items = fixture["items"].as_array().unwrap();
    assert!(items.len() >= 5);
    let embedder = load();
    let texts: Vec<&str> = items.iter().map(|i| i["text"].as_str().unwrap()).collect();
    // As a batch (padding to the longest, sorted by length) ...
    let batch = embedder.embed_passages(&texts).unwrap();
    for (item, got) in items.iter().zip(&batch) {
        let want = reference(item);
        assert_eq!(got.len(), 384);
        let c = cosine(got, &want);
        assert!(c >= 0.999, "cosine {c} for {:?}", item["text"]);
        let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "L2-normalised");
    }
    // ... and one at a time (a query has no padding at all).
    for (item, text) in items.iter().zip(&texts) {
        let got = embedder.embed_query(text).unwrap();
        let want = reference(item);
        assert!(cosine(&got, &want) >= 0.999);
    }
}

#[test]
fn chunk_limit_leaves_room_for_special_tokens() {
    let embedder = load();
    assert_eq!(embedder.max_chunk_tokens(), 254);
    let counter = embedder.token_counter();
    // The counter does not truncate at the tokenizer.json's 128.
    let long = "word ".repeat(400);
    assert_eq!(counter.count(&long), 400);
}
