//! Settings, resolved once per process.
//!
//! Precedence, lowest to highest: built-in defaults < `<data_dir>/config.yaml`
//! < environment (`KB_DATA_DIR`, `KB_MODEL`, `KB_DEFAULT_TOP`, and `KB_` + the
//! upper-snake-case key path for every other key, e.g.
//! `KB_CHUNKING_MARKDOWN_MAX_TOKENS`) < command-line flags. The types and
//! defaults are here; `load` resolves them and remembers where each value
//! came from; `settings` declares every key with its meaning and default.

mod chunking;
mod load;
mod settings;

use std::path::PathBuf;

use crate::error::{KbError, Result};

pub use chunking::*;
pub use load::{env_name, expand_tilde, key_paths, CliOverrides, Source};
pub use settings::*;

impl Config {
    /// kb.db in the data directory, or the database file `--data-dir`
    /// named.
    pub fn db_path(&self) -> PathBuf {
        match &self.db_file {
            Some(file) => file.clone(),
            None => self.data_dir.join("kb.db"),
        }
    }

    pub fn errors_log_path(&self) -> PathBuf {
        self.data_dir.join("ingest-errors.log")
    }

    /// The config.yaml kb reads: the one in the data directory named by
    /// the flag, `KB_DATA_DIR` or the default, even when a `data_dir` key
    /// in it moves the rest.
    pub fn config_file(&self) -> PathBuf {
        self.config_path
            .clone()
            .unwrap_or_else(|| self.data_dir.join("config.yaml"))
    }

    /// Where the value of `key` (a dotted path) came from.
    pub fn source_of(&self, key: &str) -> Source {
        self.sources.get(key).cloned().unwrap_or(Source::Default)
    }

    /// Checks what the types cannot say; the error names the key and where
    /// its value came from.
    fn validate(&self) -> Result<()> {
        let bad = |key: &str, why: &str| {
            let from = match self.source_of(key) {
                Source::Default => format!(
                    "set it in {} or with the environment variable {}",
                    self.config_file().display(),
                    env_name(key)
                ),
                other => format!("from {other}"),
            };
            Err(KbError::Config(format!("key `{key}` {why} ({from})")))
        };
        if !(1..=MAX_TOP).contains(&self.search.default_top) {
            return bad(
                "search.default_top",
                &format!("must be from 1 to {MAX_TOP}"),
            );
        }
        if !(self.search.rrf_k.is_finite() && self.search.rrf_k > 0.0) {
            return bad("search.rrf_k", "must be a positive number");
        }
        for (key, w) in self.search.weights.each() {
            if !(w.is_finite() && w >= 0.0) {
                return bad(key, "must be a number of at least 0");
            }
        }
        if self.search.weights.keyword + self.search.weights.vector <= 0.0 {
            return bad(
                "search.weights.vector",
                "and search.weights.keyword must not both be 0",
            );
        }
        if !(1..=MAX_CANDIDATES).contains(&self.search.candidates) {
            return bad(
                "search.candidates",
                &format!("must be from 1 to {MAX_CANDIDATES}"),
            );
        }
        if self.search.scale_depth > MAX_CANDIDATES {
            return bad(
                "search.scale_depth",
                &format!("must be from 0 to {MAX_CANDIDATES}"),
            );
        }
        if !(1..=MAX_RERANK_CANDIDATES).contains(&self.search.rerank_candidates) {
            return bad(
                "search.rerank_candidates",
                &format!("must be from 1 to {MAX_RERANK_CANDIDATES}"),
            );
        }
        let w = self.search.rerank_weight;
        if !(w.is_finite() && w >= 0.0) {
            return bad("search.rerank_weight", "must be a number of at least 0");
        }
        if self.search.feedback.chunks > 100 {
            return bad(
                "search.feedback.chunks",
                "must be at most 100 (0 turns feedback off)",
            );
        }
        let w = self.search.feedback.weight;
        if !(w.is_finite() && w >= 0.0) {
            return bad("search.feedback.weight", "must be a number of at least 0");
        }
        let e = &self.search.evidence;
        for (key, v) in [
            ("search.evidence.strong_cosine", e.strong_cosine),
            ("search.evidence.weak_cosine", e.weak_cosine),
            ("search.evidence.cosine_floor", e.cosine_floor),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return bad(key, "must be a cosine from 0 to 1");
            }
        }
        if !(e.strong_bm25.is_finite() && e.strong_bm25 >= 0.0) {
            return bad(
                "search.evidence.strong_bm25",
                "must be a number of at least 0",
            );
        }
        if e.strong_cosine > 0.0 && e.cosine_floor >= e.strong_cosine {
            return bad(
                "search.evidence.cosine_floor",
                "must be under search.evidence.strong_cosine",
            );
        }
        if self.embedding.batch_size == 0 {
            return bad("embedding.batch_size", "must be at least 1");
        }
        if self.ingestion.batch_size == 0 {
            return bad("ingestion.batch_size", "must be at least 1");
        }
        if self.ingestion.pdf_timeout_secs == 0 {
            return bad("ingestion.pdf_timeout_secs", "must be at least 1");
        }
        let langs = &self.ingestion.ocr_languages;
        let lang_ok =
            |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !langs.split('+').all(lang_ok) {
            return bad(
                "ingestion.ocr_languages",
                "must be Tesseract language codes joined by + (eng, eng+deu, chi_sim)",
            );
        }
        let c = &self.chunking;
        for (key, v) in [
            ("chunking.defaults.max_tokens", c.defaults.max_tokens),
            ("chunking.pdf.max_tokens", c.pdf.max_tokens),
            ("chunking.markdown.max_tokens", c.markdown.max_tokens),
            ("chunking.code.max_tokens", c.code.max_tokens),
            ("chunking.document.max_tokens", c.document.max_tokens),
            ("chunking.table.max_tokens", c.table.max_tokens),
            ("chunking.data.max_tokens", c.data.max_tokens),
        ] {
            if v < 16 {
                return bad(key, "must be at least 16");
            }
        }
        if c.defaults.overlap_tokens * 2 > c.defaults.max_tokens {
            return bad(
                "chunking.defaults.overlap_tokens",
                "must be at most half of chunking.defaults.max_tokens",
            );
        }
        if c.markdown.min_tokens > c.markdown.max_tokens {
            return bad(
                "chunking.markdown.min_tokens",
                "must not exceed chunking.markdown.max_tokens",
            );
        }
        if c.document.min_tokens > c.document.max_tokens {
            return bad(
                "chunking.document.min_tokens",
                "must not exceed chunking.document.max_tokens",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn env(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_without_file_or_env() {
        let dir = tempfile::tempdir().unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let c = Config::load_from(&cli, &env(&[])).unwrap();
        assert_eq!(c.search.default_top, 10);
        assert_eq!(c.embedding.model, "all-MiniLM-L6-v2-int8");
        assert_eq!(c.data_dir, dir.path());
    }

    #[test]
    fn precedence_default_file_env_cli() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.yaml"),
            "search:\n  default_top: 3\n  rrf_k: 10\nembedding:\n  model: from-file\nchunking:\n  markdown:\n    max_tokens: 300\n",
        )
        .unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let c = Config::load_from(&cli, &env(&[])).unwrap();
        assert_eq!(c.search.default_top, 3);
        assert_eq!(c.search.rrf_k, 10.0);
        assert_eq!(c.embedding.model, "from-file");
        assert_eq!(c.chunking.markdown.max_tokens, 300);
        assert_eq!(
            c.chunking.markdown.min_tokens, 50,
            "untouched keys keep defaults"
        );

        let e = env(&[
            ("KB_DEFAULT_TOP", "7"),
            ("KB_MODEL", "from-env"),
            ("KB_CHUNKING_MARKDOWN_MAX_TOKENS", "400"),
            ("KB_SEARCH_LOG", "false"),
            ("KB_UNRELATED_THING", "x"),
        ]);
        let c = Config::load_from(&cli, &e).unwrap();
        assert_eq!(c.search.default_top, 7);
        assert_eq!(c.embedding.model, "from-env");
        assert_eq!(c.chunking.markdown.max_tokens, 400);
        assert!(!c.search.log);
        assert_eq!(
            c.search.rrf_k, 10.0,
            "file value survives when env is silent"
        );
        // A list setting from the environment, as a YAML flow sequence.
        let lists = env(&[("KB_MCP_WRITE_ROOTS", "[~/inbox, /srv/notes]")]);
        let c = Config::load_from(&cli, &lists).unwrap();
        let home = dirs::home_dir().unwrap_or_default();
        assert_eq!(
            c.mcp.write_roots,
            [home.join("inbox"), PathBuf::from("/srv/notes")]
        );

        // The --data-dir flag beats KB_DATA_DIR.
        let mut e = e;
        e.insert("KB_DATA_DIR".into(), "/tmp/kb-test-elsewhere".into());
        let c = Config::load_from(&cli, &e).unwrap();
        assert_eq!(c.data_dir, dir.path());
        assert_eq!(c.source_of("data_dir"), Source::Flag("--data-dir".into()));
    }

    #[test]
    fn a_file_given_as_the_data_directory_is_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("kb-20260101T000000Z.db");
        std::fs::write(&copy, b"SQLite format 3\0").unwrap();
        std::fs::write(
            dir.path().join("config.yaml"),
            "search:\n  default_top: 4\n",
        )
        .unwrap();
        for (cli, env) in [
            (Some(copy.clone()), env(&[])),
            (None, env(&[("KB_DATA_DIR", copy.to_str().unwrap())])),
        ] {
            let c = Config::load_from(&CliOverrides { data_dir: cli }, &env).unwrap();
            assert_eq!(c.db_path(), copy);
            assert_eq!(c.data_dir, dir.path());
            assert_eq!(c.search.default_top, 4, "config.yaml beside the file");
        }
        // A folder, or a path not made yet, holds kb.db.
        let c = Config::load_from(
            &CliOverrides {
                data_dir: Some(dir.path().join("new")),
            },
            &env(&[]),
        )
        .unwrap();
        assert_eq!(c.db_path(), dir.path().join("new/kb.db"));
    }

    #[test]
    fn kb_data_dir_env_and_tilde() {
        let c = Config::load_from(
            &CliOverrides::default(),
            &env(&[("KB_DATA_DIR", "/tmp/kb-test-nonexistent")]),
        )
        .unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/tmp/kb-test-nonexistent"));
        // Set but empty is unset: the default, not the working folder.
        let home = tempfile::tempdir().unwrap();
        let c = Config::load_with_home(
            &CliOverrides::default(),
            &env(&[("KB_DATA_DIR", "")]),
            Some(home.path().into()),
        )
        .unwrap();
        assert_eq!(c.data_dir, home.path().join(".kb"));
        assert_eq!(c.source_of("data_dir"), Source::Default);
        let home = PathBuf::from("/home/u");
        assert_eq!(
            expand_tilde(Path::new("~/.kb"), Some(&home)),
            PathBuf::from("/home/u/.kb")
        );
    }

    #[test]
    fn malformed_file_names_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.yaml");
        std::fs::write(&f, "search: [unclosed\n").unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let err = Config::load_from(&cli, &env(&[])).unwrap_err();
        assert_eq!(err.code(), "E_CONFIG");
        assert!(err.to_string().contains("config.yaml"), "{err}");
    }

    #[test]
    fn unknown_key_and_bad_value_name_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.yaml");
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        std::fs::write(&f, "search:\n  defualt_top: 3\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("search.defualt_top"), "{err}");
        assert!(err.contains("config.yaml"), "{err}");

        std::fs::write(&f, "chunking:\n  pdf:\n    strategy: magic\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("chunking.pdf.strategy"), "{err}");

        std::fs::write(&f, "search:\n  default_top: many\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("search.default_top"), "{err}");

        std::fs::write(&f, "").unwrap();
        let err = Config::load_from(&cli, &env(&[("KB_DEFAULT_TOP", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("search.default_top"), "{err}");

        let err = Config::load_from(&cli, &env(&[("KB_INGESTION_PDF_TIMEOUT_SECS", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("ingestion.pdf_timeout_secs"), "{err}");

        let err = Config::load_from(&cli, &env(&[("KB_SEARCH_CANDIDATES", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("search.candidates"), "{err}");

        let err = Config::load_from(&cli, &env(&[("KB_SEARCH_SCALE_DEPTH", "10001")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("search.scale_depth"), "{err}");
        let config = Config::load_from(&cli, &env(&[("KB_SEARCH_SCALE_DEPTH", "0")])).unwrap();
        assert_eq!(config.search.scale_depth, 0);
    }

    #[test]
    fn every_key_has_an_env_name_and_an_example_entry() {
        let example = include_str!("../../config.example.yaml");
        for key in key_paths() {
            let leaf = key.rsplit('.').next().unwrap();
            assert!(
                example.contains(&format!("{leaf}:")),
                "config.example.yaml does not document {key}"
            );
            assert!(env_name(&key).starts_with("KB_"));
        }
    }

    #[test]
    fn errors_name_the_source_once_and_suggest_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.yaml");
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        std::fs::write(&f, "search:\n  default_topp: 5\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("unknown key `search.default_topp`;"), "{err}");
        assert!(!err.contains("default_topp.default_topp"), "{err}");
        assert!(err.contains("did you mean `search.default_top`?"), "{err}");
        // A section misspelt is compared with the sections.
        std::fs::write(&f, "serch:\n  default_top: 5\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("did you mean `search`?"), "{err}");
        std::fs::write(&f, "").unwrap();

        let err = Config::load_from(&cli, &env(&[("KB_SEARCH_DEFAULT_TOP", "abc")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("KB_SEARCH_DEFAULT_TOP"), "{err}");
        assert!(!err.contains(".rs:"), "cites a Rust source location: {err}");

        let err = Config::load_from(&cli, &env(&[("KB_DEFAULT_TOP", "0")]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("the environment variable KB_DEFAULT_TOP"),
            "{err}"
        );
        assert!(!err.contains("config.yaml"), "{err}");
    }

    #[test]
    fn a_bad_value_is_named_with_what_the_key_takes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.yaml");
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let error = |yaml: &str| {
            std::fs::write(&file, yaml).unwrap();
            Config::load_from(&cli, &env(&[]))
                .err()
                .unwrap()
                .to_string()
        };
        for (yaml, takes) in [
            ("search:\n  rerank: true\n", "it takes `off`, or `on`"),
            (
                "search:\n  fusion: max\n",
                "`max` is not a valid value; it takes `rrf`, or `convex`",
            ),
            (
                "search:\n  max_per_document: -1\n",
                "it takes `auto`, or a whole number, not negative",
            ),
            (
                "search:\n  default_top: -3\n",
                "it takes a whole number, not negative",
            ),
            ("search:\n  weights:\n    keyword: x\n", "it takes a number"),
        ] {
            let e = error(yaml);
            assert!(e.contains(takes), "{yaml}: {e}");
            assert!(!e.contains("enum") && !e.contains("``"), "{yaml}: {e}");
        }
        // `~` sets nothing, as an empty file does.
        std::fs::write(&file, "~\n").unwrap();
        assert!(Config::load_from(&cli, &env(&[])).is_ok());
        // A link to nothing is named, not taken for no file.
        #[cfg(unix)]
        {
            std::fs::remove_file(&file).unwrap();
            std::os::unix::fs::symlink(dir.path().join("gone.yaml"), &file).unwrap();
            let e = Config::load_from(&cli, &env(&[]))
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains("link to a file that does not exist"), "{e}");
        }
    }

    #[test]
    fn a_data_dir_key_moves_the_database_not_the_file_that_set_it() {
        let home = tempfile::tempdir().unwrap();
        let elsewhere = home.path().join("elsewhere");
        let file = home.path().join(".kb/config.yaml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let key = format!(
            "data_dir: {}\nsearch:\n  default_top: 2\n",
            elsewhere.display()
        );
        std::fs::write(&file, key).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("config.yaml"), "search:\n  default_top: 7\n").unwrap();
        let load = |cli: &CliOverrides| {
            Config::load_with_home(cli, &env(&[]), Some(home.path().into())).unwrap()
        };
        let c = load(&CliOverrides::default());
        assert_eq!(c.db_path(), elsewhere.join("kb.db"));
        assert_eq!(c.config_file(), file, "the file read");
        assert_eq!(c.search.default_top, 2);
        // The flag wins over the key.
        let c = load(&CliOverrides {
            data_dir: Some(elsewhere.clone()),
        });
        assert_eq!(c.config_file(), elsewhere.join("config.yaml"));
        assert_eq!(c.search.default_top, 7);
    }

    #[test]
    fn a_tab_indenting_the_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let message = |yaml: &str| {
            std::fs::write(dir.path().join("config.yaml"), yaml).unwrap();
            Config::load_from(&cli, &env(&[])).unwrap_err().to_string()
        };
        let e = message("search:\n\tdefault_top: 5\n");
        assert!(
            e.contains("line 2") && e.ends_with("(a tab: indent with spaces)"),
            "{e}"
        );
        let e = message("search:\n  mode: [x\n");
        assert!(!e.contains("tab"), "{e}");
    }

    #[test]
    fn mistyped_variables_are_warned_about_and_sources_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.yaml"), "search:\n  rrf_k: 20\n").unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
        };
        let c = Config::load_from(
            &cli,
            &env(&[
                ("KB_SERCH_LOG", "false"),
                ("KB_DEFAULT_TOP", "4"),
                ("KB_CACHE_DIR", "/tmp/x"),
            ]),
        )
        .unwrap();
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("did you mean KB_SEARCH_LOG?"));
        assert!(c.search.log, "the typo changed nothing");
        assert_eq!(
            c.source_of("search.rrf_k"),
            Source::File(dir.path().join("config.yaml"))
        );
        assert_eq!(
            c.source_of("search.default_top"),
            Source::Environment("KB_DEFAULT_TOP".into())
        );
        assert_eq!(c.source_of("search.log"), Source::Default);
        assert_eq!(c.source_of("data_dir"), Source::Flag("--data-dir".into()));
    }
}
