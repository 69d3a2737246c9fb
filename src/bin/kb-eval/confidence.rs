//! How often a search says "no good match": for the benchmark's real
//! questions (they should almost never get it) and for off-topic and
//! nonsense queries run on the same knowledge base (they should). The
//! weak-match threshold (`search.evidence.weak_cosine`) is chosen between
//! the two; this prints the rates at it and at its neighbours, and the
//! best cosine each kind of query reaches.

use kb::db::Database;
use kb::embed::Embedder;
use kb::error::Result;
use kb::search::{Mode, SearchHit};

use crate::levers::Settings;

/// Queries about nothing a knowledge base of documents holds.
const NONSENSE: &[&str] = &[
    "qwxzv",
    "asdf jkl",
    "zxcvb nmqwe",
    "lorem ipsum dolor sit amet",
    "blorft snarg quibble",
    "aaaa bbbb cccc",
    "xyzzy plugh",
    "hjkl uiop",
];

/// Everyday questions far from medicine, finance filings and software.
const OFF_TOPIC: &[&str] = &[
    "recipe for chocolate cake",
    "how to tune a guitar",
    "best hiking trails in patagonia",
    "who won the 1998 world cup final",
    "plot of the movie inception",
    "knitting pattern for a wool scarf",
    "how to fold an origami crane",
    "rules for castling in chess",
    "lyrics of a famous lullaby",
    "when do swallows migrate south",
];

/// Everyday questions that share a word with config files and code
/// (dependencies, features, jobs, steps, release, test): on a folder of
/// data files a passage holding one of those words is their nearest.
const OFF_TOPIC_SHARED: &[&str] = &[
    "which dependencies does a happy family have",
    "what features make a good holiday cottage",
    "how do I package a gift nicely",
    "what jobs are open at the bakery",
    "steps to bake sourdough bread",
    "who are the authors of the harry potter books",
    "what categories of wine go with fish",
    "keywords for a wedding speech",
    "which edition of the world cup was the best",
    "description of a sunset over the ocean",
    "homepage of my favourite football club",
    "documentation needed for a passport renewal",
    "readme for assembling an ikea wardrobe",
    "license to drive a truck in france",
    "target heart rate for jogging",
    "release of a new album by the beatles",
    "matrix of a rubik's cube solution",
    "environment of the amazon rainforest",
    "build a snowman in the garden",
    "test for a driving exam",
];

/// Cosine thresholds reported beside the configured one.
const SWEEP: &[f64] = &[0.30, 0.35, 0.38, 0.40, 0.45];

/// One query's results as the threshold sees them.
struct Seen {
    hits: Vec<SearchHit>,
}

impl Seen {
    /// "No good match" at cosine `t` (as `SearchResponse::no_good_match`
    /// at the configured threshold).
    fn no_good_match(&self, t: f64) -> bool {
        self.hits.iter().all(|h| h.weak_at(t))
    }

    fn best_cosine(&self) -> f64 {
        self.hits
            .iter()
            .filter_map(|h| h.cosine.map(f64::from))
            .fold(0.0, f64::max)
    }
}

/// Runs the real questions and the built-in off-topic and nonsense ones in
/// hybrid mode and returns the Markdown report.
pub(crate) fn report(
    db: &Database,
    embedder: &Embedder,
    settings: &Settings,
    real: &[&str],
    top: usize,
) -> Result<String> {
    let run = |queries: &[&str]| -> Result<Vec<Seen>> {
        queries
            .iter()
            .map(|q| {
                let req = settings.request(q, Mode::Hybrid, top, settings.base.max_per_document);
                let resp = settings.search(db, &req, Some(|t: &str| embedder.embed_query(t)))?;
                Ok(Seen { hits: resp.hits })
            })
            .collect()
    };
    let sets = [
        ("real questions", run(real)?),
        ("off-topic", run(OFF_TOPIC)?),
        ("off-topic, words of config files", run(OFF_TOPIC_SHARED)?),
        ("nonsense", run(NONSENSE)?),
    ];
    let configured = settings.base.weak_cosine;
    let mut out = format!(
        "\nNo good match (hybrid, top {top}; weak: not every query word in it and cosine under the threshold):\n\n\
         | queries | n | best cosine p10 | median | p90 | {} |\n|---|--:|--:|--:|--:|{}\n",
        SWEEP
            .iter()
            .map(|t| {
                let mark = if (t - configured).abs() < 1e-9 { " (configured)" } else { "" };
                format!("flagged at {t:.2}{mark}")
            })
            .collect::<Vec<_>>()
            .join(" | "),
        "--:|".repeat(SWEEP.len())
    );
    for (name, seen) in &sets {
        let mut best: Vec<f64> = seen.iter().map(Seen::best_cosine).collect();
        best.sort_by(f64::total_cmp);
        let q = |p: f64| {
            best.get(((best.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        let rates: Vec<String> = SWEEP
            .iter()
            .map(|t| {
                let n = seen.iter().filter(|s| s.no_good_match(*t)).count();
                format!("{:.3}", n as f64 / seen.len().max(1) as f64)
            })
            .collect();
        out.push_str(&format!(
            "| {name} | {} | {:.3} | {:.3} | {:.3} | {} |\n",
            seen.len(),
            q(0.1),
            q(0.5),
            q(0.9),
            rates.join(" | ")
        ));
    }
    if !SWEEP.iter().any(|t| (t - configured).abs() < 1e-9) {
        out.push_str(&format!(
            "\n(configured weak_cosine {configured} is not in the sweep)\n"
        ));
    }
    Ok(out)
}

/// `kb-eval confidence`: the flag rates on any folder (data files and code
/// among them), for questions a person wrote about it.
#[derive(Debug, clap::Args)]
pub(crate) struct ConfidenceArgs {
    /// The folder to index (as `kb add` would) and search
    folder: std::path::PathBuf,
    /// A file of real questions about the folder, one per line
    #[arg(long, value_name = "FILE")]
    questions: std::path::PathBuf,
    /// Where the evaluation's kb.db lives (created if missing; an existing
    /// one is reused as it is)
    #[arg(long, value_name = "DIR")]
    data_dir: std::path::PathBuf,
    /// Local directory holding the model's ONNX file and tokenizer.json
    #[arg(long, value_name = "MODELDIR")]
    model_dir: Option<std::path::PathBuf>,
    /// Results per question
    #[arg(long, default_value_t = 10)]
    top: usize,
    #[command(flatten)]
    levers: crate::levers::Levers,
}

pub(crate) fn run(args: &ConfidenceArgs) -> Result<()> {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    use kb::config::{CliOverrides, Config};
    use kb::db::OpenMode;
    use kb::error::KbError;
    use kb::ingest::pipeline::{IngestOptions, Ingester, ModelSource};

    let text =
        std::fs::read_to_string(&args.questions).map_err(|e| KbError::io(&args.questions, e))?;
    let real: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let config = Config::load(&CliOverrides {
        data_dir: Some(args.data_dir.clone()),
    })?;
    let settings = Settings::of(&args.levers, &config)?;
    let embedder = Arc::new(crate::load_model(&config, args.model_dir.as_deref())?);
    std::fs::create_dir_all(&args.data_dir).map_err(|e| KbError::io(&args.data_dir, e))?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    kb::embed::bind(&db, embedder.as_ref())?;
    if db.document_count()? == 0 {
        let model: Arc<dyn kb::embed::Embed> = embedder.clone();
        let s = Ingester::new(&config, &db, ModelSource::Ready(model)).run(
            std::slice::from_ref(&args.folder),
            &IngestOptions {
                tags: Vec::new(),
                exclude: Vec::new(),
                progress: Arc::new(kb::progress::Silent),
                cancel: Arc::new(AtomicBool::new(false)),
                follow_external_links: false,
                follow_everywhere: false,
                reread: false,
            },
        )?;
        eprintln!(
            "kb-eval: indexed {} documents, {} chunks",
            s.added, s.chunks
        );
    }
    let report = report(&db, &embedder, &settings, &real, args.top)?;
    println!(
        "{}: {} documents, {} chunks\n{report}",
        args.folder.display(),
        db.document_count()?,
        db.chunk_count()?,
    );
    Ok(())
}
