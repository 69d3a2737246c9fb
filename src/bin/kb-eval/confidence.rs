//! How often a search says "no good match": for the benchmark's real
//! questions (they should almost never get it) and for off-topic and
//! nonsense queries run on the same knowledge base (they should). The
//! weak-match threshold (`search.evidence.weak_cosine`) is chosen between
//! the two; this prints the rates at it and at its neighbours, and the
//! best cosine each kind of query reaches.

use kb::db::Database;
use kb::embed::Embedder;
use kb::error::Result;
use kb::search::{self, Mode, SearchHit};

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
                let resp = search::search(db, &req, Some(|t: &str| embedder.embed_query(t)))?;
                Ok(Seen { hits: resp.hits })
            })
            .collect()
    };
    let sets = [
        ("real questions", run(real)?),
        ("off-topic", run(OFF_TOPIC)?),
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
