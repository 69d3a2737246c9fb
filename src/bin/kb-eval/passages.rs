//! Known-item search: a passage copied from a document (a run of its words,
//! as a user pastes a sentence or an error message) is asked unquoted, and
//! a result must hold it. The passages are drawn from an existing
//! knowledge base's chunks, the same ones on every run (by hash, like the
//! halves), so any index can be its own test set.

use kb::config::{CliOverrides, Config};
use kb::db::{Database, OpenMode};
use kb::error::Result;
use kb::search::Mode;

use crate::halves::{fnv1a_64, Half};
use crate::levers::Settings;

/// A chunk's words are read this many at a time.
const PAGE: usize = 5000;

/// `kb-eval passages`: how often a passage copied from the knowledge base
/// comes back first.
#[derive(Debug, clap::Args)]
pub(crate) struct PassagesArgs {
    /// The data directory of a knowledge base already built (`kb add`,
    /// or another evaluation's)
    #[arg(long, value_name = "DIR")]
    data_dir: std::path::PathBuf,
    /// Local directory holding the model's ONNX file and tokenizer.json
    #[arg(long, value_name = "MODELDIR")]
    model_dir: Option<std::path::PathBuf>,
    /// Words in each passage; a list runs each length
    #[arg(long, value_delimiter = ',', default_value = "5,8,12")]
    words: Vec<usize>,
    /// Passages of each length
    #[arg(long, default_value_t = 200)]
    sample: usize,
    /// Search modes (keyword, vector, hybrid)
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "keyword,hybrid"
    )]
    modes: Vec<Mode>,
    #[command(flatten)]
    levers: crate::levers::Levers,
}

/// One passage: the chunk it was copied from and its words.
struct Passage {
    chunk: i64,
    text: String,
}

pub(crate) fn run(args: &PassagesArgs) -> Result<()> {
    let config = Config::load(&CliOverrides {
        data_dir: Some(args.data_dir.clone()),
    })?;
    let settings = Settings::of(&args.levers, &config)?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let needs_model = args.modes.iter().any(|m| m.uses_vector());
    let embedder = if needs_model {
        Some(crate::load_model(&config, args.model_dir.as_deref())?)
    } else {
        None
    };
    println!(
        "Passages copied from {} ({} chunks), asked unquoted; a hit holds the passage.\n\n\
         | words | mode | half | passages | hit@1 | hit@10 | MRR@10 |\n|--:|---|---|--:|--:|--:|--:|",
        args.data_dir.display(),
        db.chunk_count()?
    );
    for &words in &args.words {
        let passages = draw(&db, words, args.sample)?;
        for &mode in &args.modes {
            let ranks = passages
                .iter()
                .map(|p| {
                    let req = settings.request(&p.text, mode, 10, settings.base.max_per_document);
                    let embed = embedder.as_ref().map(|e| move |t: &str| e.embed_query(t));
                    let resp = settings.search(&db, &req, embed)?;
                    let held = normalized(&p.text);
                    Ok(resp
                        .hits
                        .iter()
                        .position(|h| normalized(&h.chunk.text).contains(&held)))
                })
                .collect::<Result<Vec<Option<usize>>>>()?;
            for half in Half::All.rows() {
                let of_half: Vec<Option<usize>> = passages
                    .iter()
                    .zip(&ranks)
                    .filter(|(p, _)| half.holds(&p.chunk.to_string()))
                    .map(|(_, r)| *r)
                    .collect();
                let n = of_half.len().max(1) as f64;
                let at = |k: usize| of_half.iter().filter(|r| r.is_some_and(|r| r < k)).count();
                let mrr: f64 = of_half.iter().flatten().map(|r| 1.0 / (r + 1) as f64).sum();
                println!(
                    "| {words} | {} | {} | {} | {:.3} | {:.3} | {:.3} |",
                    crate::mode_name(mode),
                    half.name(),
                    of_half.len(),
                    at(1) as f64 / n,
                    at(10) as f64 / n,
                    mrr / n
                );
            }
        }
    }
    Ok(())
}

/// Up to `sample` passages of `words` words of prose (every word but one
/// a plain word of letters): a run of words inside a chunk chosen by the
/// hash of its id and the length, the same on every run.
fn draw(db: &Database, words: usize, sample: usize) -> Result<Vec<Passage>> {
    let mut scored = Vec::new();
    let mut after = 0;
    loop {
        let page = db.chunk_texts(after, PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for chunk in page {
            let key = fnv1a_64(format!("{}:{words}", chunk.id).as_bytes());
            scored.push((key, chunk.id, chunk.text));
        }
    }
    scored.sort_unstable_by_key(|s| s.0);
    let mut out = Vec::new();
    for (key, chunk, text) in scored {
        if out.len() >= sample {
            break;
        }
        let all: Vec<&str> = text.split_whitespace().collect();
        if all.len() < words + 2 {
            continue;
        }
        let start = (key >> 32) as usize % (all.len() - words);
        let span = &all[start..start + words];
        let plain = span.iter().filter(|w| is_plain_word(w)).count();
        if plain + 1 >= words {
            out.push(Passage {
                chunk,
                text: span.join(" "),
            });
        }
    }
    Ok(out)
}

/// A word of letters, perhaps capitalised and followed by a mark of
/// punctuation.
fn is_plain_word(w: &str) -> bool {
    let w = w.trim_end_matches([',', '.', ';', ':']);
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_alphabetic) && chars.all(|c| c.is_lowercase())
}

/// Lower-cased words, each between single spaces: the passage and a
/// result's text compare so, whatever punctuation or line breaks lie
/// between words, and only whole words match.
fn normalized(s: &str) -> String {
    let words: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_compare_by_their_words() {
        assert_eq!(normalized("The value,\ncan't be"), " the value can t be ");
        assert!(
            normalized("x. The value, can't be set").contains(&normalized("the VALUE can't be"))
        );
        assert!(!normalized("other value").contains(&normalized("her value")));
        assert!(is_plain_word("Value,") && is_plain_word("value"));
        assert!(!is_plain_word("x1") && !is_plain_word("$5") && !is_plain_word("GNU"));
    }
}
