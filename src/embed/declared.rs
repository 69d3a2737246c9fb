//! What a model directory says about itself in `kb-model.json` (written by
//! scripts/prepare_model.py beside the files it makes): which model it
//! holds, which earlier files of that model computed the same vectors and
//! which other ones (earlier builds it replaced), and which of ONNX
//! Runtime's graph fusions its vectors were made without. A
//! directory without the file (a hub download, a user's own export)
//! declares nothing.

use std::path::Path;

use serde::Deserialize;

/// The file's name in a model directory.
pub const FILE_NAME: &str = "kb-model.json";

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Declared {
    /// The models.toml name of the model the directory holds.
    #[serde(default)]
    pub model: Option<String>,
    /// Fingerprints of earlier files of this model that give the same
    /// vectors bit for bit: a knowledge base built with one of them needs
    /// no reindex.
    #[serde(default)]
    pub same_vectors_as: Vec<String>,
    /// Fingerprints of earlier builds of this model that the file replaced
    /// and whose vectors differ from its own: a knowledge base built with
    /// one needs `kb reindex`, and is told it was an upgrade.
    #[serde(default)]
    pub earlier_builds: Vec<String>,
    /// ONNX Runtime graph optimisers (by name) left out of the session, so
    /// it runs the kernels the vectors were made with.
    #[serde(default)]
    pub ort_disabled_optimizers: Vec<String>,
}

impl Declared {
    /// What `dir` declares; nothing when it has no readable kb-model.json.
    pub fn of(dir: &Path) -> Declared {
        std::fs::read_to_string(dir.join(FILE_NAME))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Whether vectors made with the file of `fingerprint` are this
    /// directory's vectors too.
    pub fn same_vectors(&self, fingerprint: &str) -> bool {
        self.same_vectors_as.iter().any(|f| f == fingerprint)
    }

    /// Whether the file of `fingerprint` is an earlier build of this model.
    pub fn replaced(&self, fingerprint: &str) -> bool {
        self.earlier_builds.iter().any(|f| f == fingerprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_prepare_model_writes_and_tolerates_less() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Declared::of(dir.path()), Declared::default());
        std::fs::write(
            dir.path().join(FILE_NAME),
            r#"{"model": "m-int8", "onnx_sha256": "ab", "same_vectors_as": ["69:c6"],
                "earlier_builds": ["68:b5"],
                "ort_disabled_optimizers": ["SkipLayerNormFusion"], "source_key": {}}"#,
        )
        .unwrap();
        let d = Declared::of(dir.path());
        assert_eq!(d.model.as_deref(), Some("m-int8"));
        assert!(d.same_vectors("69:c6") && !d.same_vectors("70:c6"));
        assert!(d.replaced("68:b5") && !d.replaced("69:c6") && !d.same_vectors("68:b5"));
        assert_eq!(d.ort_disabled_optimizers, ["SkipLayerNormFusion"]);
        std::fs::write(dir.path().join(FILE_NAME), r#"{"model": "m"}"#).unwrap();
        assert!(Declared::of(dir.path()).same_vectors_as.is_empty());
        std::fs::write(dir.path().join(FILE_NAME), "not json").unwrap();
        assert_eq!(Declared::of(dir.path()), Declared::default());
    }
}
