//! Reading a `tokenizer.json` quickly. The `tokenizers` crate reads its
//! model section through an untagged enum that buffers the whole section
//! twice, once as serde content and once as a JSON value, before it builds
//! the vocabulary: about 17 ms of CPU for MiniLM's 30,522 word pieces, on
//! the path of every one-shot `kb search`, and seconds for a multilingual
//! vocabulary. Here the model section is read straight into its model
//! (word-piece and unigram models, the kinds kb's models use; any other
//! kind goes through the crate's own reader), and the rest of the file is
//! assembled as the crate's own reader does.

use serde::Deserialize;
use serde_json::value::RawValue;
use tokenizers::models::unigram::Unigram;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::{
    AddedToken, DecoderWrapper, ModelWrapper, NormalizerWrapper, PaddingParams,
    PostProcessorWrapper, PreTokenizerWrapper, Tokenizer, TokenizerBuilder, TruncationParams,
};

/// The sections of a `tokenizer.json`, the model left unread.
#[derive(Deserialize)]
struct Sections<'a> {
    version: Option<String>,
    truncation: Option<TruncationParams>,
    padding: Option<PaddingParams>,
    /// Each with its id, which the model's vocabulary decides (the
    /// crate's reader only warns when they differ).
    #[serde(default)]
    added_tokens: Vec<AddedToken>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Option<PreTokenizerWrapper>,
    #[serde(borrow)]
    model: &'a RawValue,
    decoder: Option<DecoderWrapper>,
    post_processor: Option<PostProcessorWrapper>,
}

/// The model section's kind, its vocabulary skipped.
#[derive(Deserialize)]
struct ModelKind<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a str>,
}

/// The tokenizer a `tokenizer.json`'s text describes, as
/// `Tokenizer::from_str` reads it.
pub fn parse(json: &str) -> Result<Tokenizer, String> {
    let sections: Sections = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if let Some(v) = sections.version.as_deref().filter(|v| *v != "1.0") {
        return Err(format!("Unknown tokenizer version '{v}'"));
    }
    let model = model(sections.model.get())?;
    let builder = TokenizerBuilder::<
        ModelWrapper,
        NormalizerWrapper,
        PreTokenizerWrapper,
        PostProcessorWrapper,
        DecoderWrapper,
    >::new()
    .with_model(model)
    .with_truncation(sections.truncation)
    .with_padding(sections.padding)
    .with_normalizer(sections.normalizer)
    .with_pre_tokenizer(sections.pre_tokenizer)
    .with_decoder(sections.decoder)
    .with_post_processor(sections.post_processor);
    let mut tokenizer = builder.build().map_err(|e| e.to_string())?;
    tokenizer
        .add_tokens(sections.added_tokens)
        .map_err(|e| e.to_string())?;
    Ok(Tokenizer::from(tokenizer))
}

/// The model section read straight into its model.
fn model(raw: &str) -> Result<ModelWrapper, String> {
    let kind: ModelKind = serde_json::from_str(raw).map_err(|e| e.to_string())?;
    let model = match kind.kind {
        Some("WordPiece") => serde_json::from_str::<WordPiece>(raw).map(ModelWrapper::from),
        Some("Unigram") => serde_json::from_str::<Unigram>(raw).map(ModelWrapper::from),
        _ => serde_json::from_str::<ModelWrapper>(raw),
    };
    model.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// A word-piece tokenizer in the layout BERT models ship.
    const WORD_PIECE: &str = r###"{
  "version": "1.0",
  "truncation": {"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 0},
  "padding": null,
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 11, "content": "<note>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false}
  ],
  "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
  "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "page": 4, "##s": 5, "cite": 6, "the": 7, "右": 8, "café": 9, "cafe": 10}}
}"###;

    /// A unigram tokenizer in the layout sentencepiece models ship.
    const UNIGRAM: &str = r###"{
  "version": "1.0",
  "truncation": null,
  "padding": null,
  "added_tokens": [
    {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 7, "content": "<mask>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true}
  ],
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Nmt"}, {"type": "NFKC"}]},
  "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true},
  "post_processor": null,
  "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true},
  "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": false,
    "vocab": [["<unk>", 0.0], ["\u2581", -2.0], ["\u2581pa", -3.0], ["ge", -3.5], ["\u2581page", -2.5], ["s", -4.0], ["\u2581頁", -5.0]]}
}"###;

    fn same_encodings(json: &str, texts: &[&str]) {
        let ours = parse(json).unwrap();
        let theirs = Tokenizer::from_str(json).unwrap();
        for text in texts {
            for special in [false, true] {
                let a = ours.encode(*text, special).unwrap();
                let b = theirs.encode(*text, special).unwrap();
                assert_eq!(a.get_ids(), b.get_ids(), "{text:?}");
                assert_eq!(a.get_tokens(), b.get_tokens(), "{text:?}");
                assert_eq!(a.get_offsets(), b.get_offsets(), "{text:?}");
            }
        }
        assert_eq!(ours.get_vocab(true), theirs.get_vocab(true));
        let truncation = |t: &Tokenizer| t.get_truncation().map(|t| t.max_length);
        assert_eq!(truncation(&ours), truncation(&theirs));
    }

    #[test]
    fn a_word_piece_file_reads_as_the_crate_reads_it() {
        same_encodings(
            WORD_PIECE,
            &[
                "Pages cite the page",
                "CAFÉ <note> 右 unknown",
                "",
                "  the\tpages  ",
            ],
        );
    }

    #[test]
    fn a_unigram_file_reads_as_the_crate_reads_it() {
        same_encodings(UNIGRAM, &["page pages", "頁 <mask> x", ""]);
    }

    #[test]
    fn another_model_kind_and_bad_files_read_as_the_crate_reads_them() {
        let word_level = WORD_PIECE.replace(
            r#""type": "WordPiece", "unk_token""#,
            r#""type": "WordLevel", "unk_token""#,
        );
        same_encodings(&word_level, &["the page"]);
        assert!(parse(&WORD_PIECE.replace(r#""1.0""#, r#""2.0""#)).is_err());
        assert!(parse("{}").is_err());
        assert!(parse("not json").is_err());
    }
}
