//! The in-memory index must rank exactly as FTS5 does: the same chunks,
//! the same bm25 values to the bit, the same order among ties, the same
//! counts, with filters, other column weights, and after other writers
//! added and removed documents.

use std::collections::HashSet;

use super::*;
use crate::db::test_support::note;
use crate::db::{Filters, NewChunk, OpenMode};
use crate::search::query::keyword_phrases;

/// Words with stems in common, accents, CJK, numbers: a small vocabulary,
/// so that rows share words and many score alike.
const WORDS: &[&str] = &[
    "vitamin",
    "vitamins",
    "deficiency",
    "bone",
    "bones",
    "health",
    "healthy",
    "green",
    "tea",
    "cancer",
    "statin",
    "muscle",
    "pain",
    "gut",
    "bacteria",
    "obesity",
    "protein",
    "athletes",
    "running",
    "runs",
    "run",
    "café",
    "naïve",
    "東京",
    "2018",
    "fy2018",
    "parse_config",
    "the",
    "of",
    "and",
    "dose",
    "trial",
    "placebo",
    "risk",
];

/// A deterministic stream of numbers (an LCG).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[self.next(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Writes `docs` documents of a few chunks each; every third document is
/// markdown, every other tagged `even`; some chunks repeat another's text
/// (equal scores), some repeat a word many times (counts past 3).
fn write_docs(db: &Database, rng: &mut Lcg, from: usize, docs: usize) {
    for d in from..from + docs {
        let mut doc = note(&format!("/doc{d}"), "h");
        doc.title = rng.words(3);
        if d % 3 == 0 {
            doc.doc_type = crate::document::DocType::Markdown;
        }
        if d % 2 == 0 {
            doc.tags = vec!["even".into()];
        }
        let chunks: Vec<NewChunk> = (0..1 + rng.next(4))
            .map(|c| {
                let text = match rng.next(6) {
                    0 => "vitamin bone health".to_string(),
                    1 => format!("{} {}", "tea ".repeat(5 + c), rng.words(4)),
                    _ => {
                        let n = 4 + rng.next(30);
                        rng.words(n)
                    }
                };
                NewChunk {
                    text,
                    token_count: 1,
                    doc_title: doc.title.clone(),
                    section: if c % 2 == 0 {
                        rng.words(2)
                    } else {
                        String::new()
                    },
                    terms: if rng.next(3) == 0 {
                        "fy2018 2018 parseconfig".into()
                    } else {
                        String::new()
                    },
                    ..Default::default()
                }
            })
            .collect();
        db.write_document(&doc, &chunks, None).unwrap();
    }
}

fn database(dir: &std::path::Path) -> Database {
    Database::open(&dir.join("kb.db"), OpenMode::Create).unwrap()
}

/// Each phrase's one token, as the search asks for them.
fn tokens(db: &Database, phrases: &[String]) -> Vec<Vec<u8>> {
    query_tokens(db, phrases)
        .unwrap()
        .unwrap_or_else(|| panic!("{phrases:?} are not one token each"))
}

fn expression(phrases: &[String]) -> String {
    phrases
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// Compares the index with FTS5 on `queries` under every filter and
/// weighting and several limits.
fn assert_ranks_as_fts5(db: &Database, index: &KeywordIndex, queries: &[String]) {
    let filters = [
        Filters::default(),
        Filters {
            doc_type: Some(crate::document::DocType::Markdown),
            ..Default::default()
        },
        Filters {
            tags: vec!["even".into()],
            ..Default::default()
        },
    ];
    let weightings = [
        ColumnWeights::default(),
        ColumnWeights {
            text: 0.3,
            title: 0.7,
            section: 1.3,
            terms: 0.1,
        },
    ];
    let mut compared = 0;
    for q in queries {
        let phrases = keyword_phrases(q, true);
        if phrases.is_empty() {
            continue;
        }
        let expr = expression(&phrases);
        let toks = tokens(db, &phrases);
        for f in &filters {
            let allowed = Allowed::of(db, f).unwrap();
            for w in &weightings {
                for (limit, depth) in [(1, 0), (7, 3), (7, 40), (60, 600), (100_000, 0)] {
                    let ours = index.rank(&toks, w, &allowed, (limit, depth));
                    // The score at the depth, as FTS5 ranks them (0 when
                    // fewer matched).
                    let at_depth = (depth > 0).then(|| {
                        let deep = db.keyword_search(&expr, f, w, depth).unwrap();
                        deep.get(depth - 1).map_or(0.0, |h| h.bm25)
                    });
                    assert_eq!(ours.bottom, at_depth, "{q:?}, depth {depth}, {f:?}");
                    let theirs: Vec<(i64, f64)> = db
                        .keyword_search(&expr, f, w, limit)
                        .unwrap()
                        .into_iter()
                        .map(|h| (h.chunk_id, h.bm25))
                        .collect();
                    assert_eq!(
                        ours.hits, theirs,
                        "query {q:?} ({expr}), limit {limit}, {f:?}, {w:?}"
                    );
                    assert_eq!(ours.total, db.keyword_count(&expr, f).unwrap(), "{q:?}");
                    let some: Vec<i64> = (1..400).step_by(3).collect();
                    assert_eq!(
                        ours.matched.among(&some),
                        db.keyword_matches_among(&expr, &some).unwrap()
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

fn queries(rng: &mut Lcg) -> Vec<String> {
    let mut q: Vec<String> = (0..25).map(|i| rng.words(1 + i % 6)).collect();
    q.push("vitamin bone health".into());
    q.push("tea".into());
    q.push("Running runs RUN".into());
    q.push("FY2018 report".into());
    q.push("a word nowhere zzyzx".into());
    q
}

#[test]
fn ranks_exactly_as_fts5() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let mut rng = Lcg(7);
    write_docs(&db, &mut rng, 0, 120);
    let index = KeywordIndex::load(&db).unwrap();
    assert_eq!(index.len(), db.chunk_ids().unwrap().len());
    let q = queries(&mut rng);
    assert_ranks_as_fts5(&db, &index, &q);
}

#[test]
fn a_refreshed_index_ranks_as_fts5_and_as_a_fresh_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let mut rng = Lcg(11);
    write_docs(&db, &mut rng, 0, 100);
    let mut index = KeywordIndex::load(&db).unwrap();
    // Another writer removes some documents, rewrites one and adds more.
    let gone: Vec<i64> = (0..10)
        .map(|d| {
            db.find_document_by_path(&format!("/doc{d}"))
                .unwrap()
                .unwrap()
                .id
        })
        .collect();
    db.remove_documents(&gone).unwrap();
    write_docs(&db, &mut rng, 50, 1);
    write_docs(&db, &mut rng, 100, 12);
    let outcome = index.refresh(&db).unwrap();
    let Refreshed::Updated { added, removed } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(added > 0 && removed > 0, "{outcome:?}");
    let q = queries(&mut rng);
    assert_ranks_as_fts5(&db, &index, &q);
    let fresh = KeywordIndex::load(&db).unwrap();
    let toks = tokens(&db, &keyword_phrases("vitamin tea bones", true));
    assert_eq!(
        index
            .rank(&toks, &ColumnWeights::default(), &Allowed::All, (50, 0))
            .hits,
        fresh
            .rank(&toks, &ColumnWeights::default(), &Allowed::All, (50, 0))
            .hits
    );
    assert_eq!(
        index.refresh(&db).unwrap(),
        Refreshed::Updated {
            added: 0,
            removed: 0
        }
    );

    // Removing most of it compacts the lists.
    let many: Vec<i64> = (10..90)
        .filter_map(|d| db.find_document_by_path(&format!("/doc{d}")).unwrap())
        .map(|d| d.id)
        .collect();
    db.remove_documents(&many).unwrap();
    index.refresh(&db).unwrap();
    assert_eq!(index.removed, 0, "compacted");
    assert_eq!(index.ids.len(), index.len());
    assert_ranks_as_fts5(&db, &index, &q);
}

#[test]
fn a_chunk_rewritten_in_place_asks_for_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let mut rng = Lcg(3);
    write_docs(&db, &mut rng, 0, 20);
    let mut index = KeywordIndex::load(&db).unwrap();
    let id = db.chunk_ids().unwrap()[3];
    db.set_chunk_header(id, "", "a much longer title than before", "")
        .unwrap();
    assert_eq!(index.refresh(&db).unwrap(), Refreshed::Reload);
}

#[test]
fn only_phrases_of_one_token_are_ranked_here() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let one = |p: &[&str]| {
        let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
        query_tokens(&db, &p).unwrap()
    };
    assert_eq!(
        one(&["Running", "café", "東京"]),
        Some(vec![
            b"run".to_vec(),
            b"cafe".to_vec(),
            "東京".as_bytes().to_vec()
        ])
    );
    assert_eq!(one(&["two words"]), None);
    assert_eq!(one(&["..."]), None);
}

#[test]
fn rows_found_by_galloping() {
    let ids: Vec<i64> = (0..1000).map(|i| i * 3).collect();
    for from in [0, 1, 10, 500, 999] {
        for id in [0i64, 3, 2997, 1500, 1501, 3000] {
            let expected = ids.iter().position(|&x| x == id).filter(|&p| p >= from);
            assert_eq!(find_row(&ids, from, id), expected, "from {from} id {id}");
        }
    }
    assert_eq!(find_row(&[], 0, 5), None);
    // The table by id finds the same rows, dense or not.
    for ids in [ids.clone(), (0..1000).collect::<Vec<i64>>()] {
        let lookup = RowLookup::new(&ids);
        for from in [0, 1, 10, 500, 999] {
            for id in [0i64, 3, 500, 2997, 1500, 1501, 3000, -4] {
                assert_eq!(lookup.find(&ids, from, id), find_row(&ids, from, id));
            }
        }
    }
    assert!(matches!(
        RowLookup::new(&[1, 2, 3]),
        RowLookup::Dense { .. }
    ));
    assert!(matches!(RowLookup::new(&[1, 1_000_000]), RowLookup::Sparse));
    let unique: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len());
}
