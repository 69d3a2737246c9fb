//! A parsed document's chunks as the database stores them: each with the
//! header it is embedded with (`text::header`), its document title and
//! section for the keyword index's own columns, and the extra searchable
//! forms of its numbers, identifiers and CJK text (`text::terms`).

use std::path::Path;

use super::{file_title, ParsedDocument};
use crate::db::{Database, NewChunk};
use crate::document::DocType;
use crate::embed::TokenCounter;
use crate::error::Result;
use crate::text::header::{compose, document_line, file_name_words, fit_header, HEADER_TOKENS};
use crate::text::terms::index_terms;

/// The title a document is searched and embedded by: its own title, or
/// its file name as words when it has none (the parsers fall back to the
/// file name). A PDF's title is often a form's boilerplate ("FORM 10-K",
/// "UNITED STATES SECURITIES AND EXCHANGE COMMISSION") while its file
/// name says what it is (`3M_2018_10K.pdf`): the file name's words follow
/// its title when the title lacks some of them.
pub fn search_title(title: &str, path: &Path, doc_type: Option<DocType>) -> String {
    let words = file_name_words(&file_title(path));
    if title.is_empty() || title == file_title(path) {
        return words;
    }
    let lower = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let in_title = lower(title);
    let named = lower(&words).iter().all(|w| in_title.contains(w));
    if doc_type.is_some_and(DocType::has_pages) && !named {
        format!("{title} ({words})")
    } else {
        title.to_string()
    }
}

/// A chunk's header: its document line, cut to fit [`HEADER_TOKENS`] and
/// the room the chunk and its code context leave under `max_tokens` (the
/// model's limit), then the code context.
fn header(
    title: &str,
    section: Option<&str>,
    code_context: Option<&str>,
    text: &str,
    text_tokens: usize,
    max_tokens: usize,
    tokens: &TokenCounter,
) -> String {
    let code_tokens = code_context.map_or(0, |c| tokens.count(c));
    // Two tokens of slack for the separators the tokenizer may count.
    let room = max_tokens.saturating_sub(text_tokens + code_tokens + 2);
    let line = document_line(title, section, text);
    let line = fit_header(line, HEADER_TOKENS.min(room), |s| tokens.count(s));
    compose(&line, code_context)
}

/// The chunks to store. With `headers` off, only a code chunk's own
/// context lines are embedded before its text. `max_tokens` is the most
/// the model reads of one chunk.
pub fn stored_chunks(
    doc: &ParsedDocument,
    path: &Path,
    headers: bool,
    tokens: &TokenCounter,
    max_tokens: usize,
) -> Vec<NewChunk> {
    let title = search_title(&doc.title, path, doc.doc_type);
    doc.chunks
        .iter()
        .map(|c| {
            let context = if headers {
                header(
                    &title,
                    c.meta.section.as_deref(),
                    c.context.as_deref(),
                    &c.text,
                    c.token_count,
                    max_tokens,
                    tokens,
                )
            } else {
                c.context.clone().unwrap_or_default()
            };
            NewChunk {
                text: c.text.clone(),
                token_count: c.token_count,
                metadata: c.meta.clone(),
                context,
                doc_title: title.clone(),
                section: section_words(&c.meta),
                terms: terms(c, doc.doc_type),
            }
        })
        .collect()
}

/// The keyword-indexed words of a chunk's section: the section its text
/// starts in, and the one it runs into, whose text it holds too.
fn section_words(meta: &crate::document::ChunkMeta) -> String {
    let section = meta.section.iter().chain(&meta.runs_into);
    section.map(String::as_str).collect::<Vec<_>>().join(" > ")
}

/// The extra keyword-indexed words of a chunk: the extra forms of its
/// text, and the context it is embedded with where that says what the
/// text means (a table piece's caption and header row). A code chunk's
/// context is its class, whose words would rank every method of it.
fn terms(c: &super::Chunk, doc_type: Option<DocType>) -> String {
    let mut terms = index_terms(&c.text);
    if let Some(ctx) = c
        .context
        .as_deref()
        .filter(|_| doc_type != Some(DocType::Code))
    {
        for t in [ctx.to_string(), index_terms(ctx)] {
            if !t.is_empty() {
                if !terms.is_empty() {
                    terms.push(' ');
                }
                terms.push_str(&t);
            }
        }
    }
    terms
}

/// Fills the headers, search titles and extra terms of chunks stored before
/// schema 4 (for `kb reindex`, which then re-embeds them). Returns how many
/// chunks it filled. Chunks whose header comes out empty are filled again
/// on a re-run, which changes nothing.
pub fn fill_missing_headers(
    db: &Database,
    tokens: &TokenCounter,
    max_tokens: usize,
) -> Result<usize> {
    let mut after = 0;
    let mut filled = 0;
    loop {
        let page = db.chunks_without_headers(after, 512)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        let tx = db.begin_write()?;
        for c in &page {
            let title = search_title(&c.title, Path::new(&c.path), None);
            let section = (!c.section.is_empty()).then_some(c.section.as_str());
            let text_tokens = tokens.count(&c.text);
            let header = header(
                &title,
                section,
                None,
                &c.text,
                text_tokens,
                max_tokens,
                tokens,
            );
            db.set_chunk_header(c.id, &header, &title, &index_terms(&c.text))?;
            filled += 1;
        }
        tx.commit()?;
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::Chunk;

    #[test]
    fn chunks_carry_header_title_section_and_terms() {
        let mut doc = ParsedDocument {
            title: "3M_2018_10K.pdf".into(),
            ..Default::default()
        };
        let mut c = Chunk::new(
            "Net sales rose in FY2018.".into(),
            5,
            Some("Results".into()),
        );
        c.meta.page = Some(40);
        doc.chunks.push(c);
        let path = Path::new("/x/3M_2018_10K.pdf");
        let stored = stored_chunks(&doc, path, true, &TokenCounter::Whitespace, 100);
        assert_eq!(stored[0].context, "3M 2018 10K — Results");
        assert_eq!(stored[0].doc_title, "3M 2018 10K");
        assert_eq!(stored[0].section, "Results");
        assert_eq!(stored[0].terms, "fy 2018");
        assert_eq!(stored[0].text, "Net sales rose in FY2018.");
        let plain = stored_chunks(&doc, path, false, &TokenCounter::Whitespace, 100);
        assert_eq!(plain[0].context, "");
    }

    /// A knowledge base from before schema 4 is upgraded: its keyword
    /// index gains the title and section columns at once, it is marked for
    /// `kb reindex`, and the headers are filled from what it stored.
    #[test]
    fn an_old_knowledge_base_is_upgraded_and_marked_for_reindex() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kb.db");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(include_str!("../../migrations/001_initial.sql"))
                .unwrap();
            conn.execute_batch(include_str!(
                "../../migrations/002_content_and_search_log.sql"
            ))
            .unwrap();
            conn.execute_batch(
                "INSERT INTO config VALUES ('schema_version', '2');
                 INSERT INTO documents (title, source_path, content_hash, doc_type)
                     VALUES ('3M_2018_10K.pdf', '/d/3M_2018_10K.pdf', 'h', 'pdf');
                 INSERT INTO chunks (document_id, chunk_index, text, metadata)
                     VALUES (1, 0, 'Net sales rose in FY2018.', '{\"section\":\"Results\"}');",
            )
            .unwrap();
        }
        let db = Database::open(&path, crate::db::OpenMode::Existing).unwrap();
        assert!(db.headers_pending().unwrap() && db.headers_to_fill().unwrap());
        let title_hits = db
            .keyword_search("\"10k\"", &Default::default(), &Default::default(), 10)
            .unwrap();
        assert_eq!(title_hits.len(), 1, "the title column is indexed at once");
        assert_eq!(
            fill_missing_headers(&db, &TokenCounter::Whitespace, 100).unwrap(),
            1
        );
        let c = &db.chunk_texts(0, 10).unwrap()[0];
        assert_eq!(c.context, "3M 2018 10K — Results");
        assert_eq!(
            c.input(),
            "3M 2018 10K — Results\n\nNet sales rose in FY2018."
        );
        let year_hits = db
            .keyword_search("\"2018\"", &Default::default(), &Default::default(), 10)
            .unwrap();
        assert_eq!(year_hits.len(), 1, "terms filled");
    }

    #[test]
    fn headers_fit_the_room_a_chunk_leaves() {
        let mut doc = ParsedDocument {
            title: "Annual report of the cooperative".into(),
            ..Default::default()
        };
        let text = vec!["word"; 95].join(" ");
        doc.chunks.push(Chunk::new(text.clone(), 95, None));
        doc.chunks.push(Chunk::new("short".into(), 1, None));
        let stored = stored_chunks(
            &doc,
            Path::new("r.md"),
            true,
            &TokenCounter::Whitespace,
            100,
        );
        // 100 - 95 - 2 of slack leaves three words of the title.
        assert_eq!(stored[0].context, "Annual report of");
        assert_eq!(stored[1].context, "Annual report of the cooperative");
    }

    #[test]
    fn real_titles_are_kept() {
        assert_eq!(
            search_title("SSH keys", Path::new("a/ssh.md"), None),
            "SSH keys"
        );
        assert_eq!(search_title("ssh.md", Path::new("a/ssh.md"), None), "ssh");
        let pdf = Some(DocType::Pdf);
        assert_eq!(
            search_title("FORM 10-K", Path::new("/f/PEPSICO_2022_10K.pdf"), pdf),
            "FORM 10-K (PEPSICO 2022 10K)"
        );
        assert_eq!(
            search_title(
                "Pepsico 2022 10K",
                Path::new("/f/PEPSICO_2022_10K.pdf"),
                pdf
            ),
            "Pepsico 2022 10K"
        );
    }
}
