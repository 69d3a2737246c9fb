//! Tags follow a moved file. A file moved or renamed under an added folder
//! is a new document and its old one goes; the tags a user gave the old one
//! (`kb tag`, `kb add --tag`) go to the new one this run added with the
//! same content, or, when the file was also edited, with the most nearly
//! the same words. A file's own tags (front matter) are its new version's
//! to give, so they are not carried. A folder given to `kb add` that is
//! renamed keeps its documents (as an unmounted drive's are kept): the
//! documents of the new name with the same content take their tags.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use crate::db::{Database, DocumentFile};
use crate::error::Result;

/// How much of two texts' word sequences must be shared (estimated
/// Jaccard similarity of their three-word shingles) for an edited file to
/// count as the moved one: at half, the new document is more the old one
/// than a different text, and a note rewritten past that is a new note.
const SAME_TEXT: f64 = 0.5;

/// Shingle hashes kept per text (the smallest: a bottom-k sketch, whose
/// overlap estimates the Jaccard similarity of the whole texts in O(k)
/// however long they are; exact for texts with fewer shingles).
const SKETCH: usize = 256;

/// Words per shingle: long enough that common words alone do not make two
/// texts alike, short enough that an edit changes few shingles.
const SHINGLE_WORDS: usize = 3;

/// Gives the tags of the documents `gone` (about to be removed) to the
/// documents this run added (ids not in `known`) that hold their content.
pub(super) fn carry_tags(db: &Database, gone: &[i64], known: &HashSet<i64>) -> Result<()> {
    let files = db.document_files()?;
    let added: Vec<&DocumentFile> = files.iter().filter(|f| !known.contains(&f.id)).collect();
    if added.is_empty() {
        return Ok(());
    }
    let mut sketches: Option<Vec<Vec<u64>>> = None;
    for old in files.iter().filter(|f| gone.contains(&f.id)) {
        let tags = user_tags(db, old.id)?;
        if tags.is_empty() {
            continue;
        }
        let same: Vec<i64> = added
            .iter()
            .filter(|f| f.content_hash == old.content_hash)
            .map(|f| f.id)
            .collect();
        let to = if same.is_empty() {
            let sketches = match &mut sketches {
                Some(s) => s,
                None => sketches.insert(sketch_all(db, &added)?),
            };
            let content = db.document(old.id)?.and_then(|d| d.content);
            let old_sketch = sketch(content.as_deref().unwrap_or(""));
            most_alike(&old_sketch, sketches)
                .map(|i| vec![added[i].id])
                .unwrap_or_default()
        } else {
            same
        };
        for id in to {
            db.add_tags(id, &tags)?;
        }
    }
    Ok(())
}

/// Gives the documents this run added (ids not in `known`) the tags of the
/// documents that hold the same content but whose files are missing: a
/// folder given to `kb add` renamed keeps its old documents (as an unmounted
/// drive's are kept) until `kb update --forget-missing`, and the new ones
/// take their tags before then.
pub(super) fn carry_from_missing(db: &Database, known: &HashSet<i64>) -> Result<()> {
    let files = db.document_files()?;
    let mut added: std::collections::HashMap<&str, Vec<i64>> = Default::default();
    for f in files.iter().filter(|f| !known.contains(&f.id)) {
        added.entry(f.content_hash.as_str()).or_default().push(f.id);
    }
    for old in files.iter().filter(|f| known.contains(&f.id)) {
        let Some(ids) = added.get(old.content_hash.as_str()) else {
            continue;
        };
        if std::fs::symlink_metadata(crate::ingest::source_path::decode(&old.path)).is_ok() {
            continue;
        }
        let tags = user_tags(db, old.id)?;
        for &id in ids.iter().filter(|_| !tags.is_empty()) {
            db.add_tags(id, &tags)?;
        }
    }
    Ok(())
}

/// The tags of a document but those its file gives.
fn user_tags(db: &Database, id: i64) -> Result<Vec<String>> {
    let Some(doc) = db.document(id)? else {
        return Ok(Vec::new());
    };
    let own: HashSet<&String> = doc.metadata.file_tags.iter().collect();
    Ok(doc
        .summary
        .tags
        .iter()
        .filter(|t| !own.contains(t))
        .cloned()
        .collect())
}

fn sketch_all(db: &Database, added: &[&DocumentFile]) -> Result<Vec<Vec<u64>>> {
    added
        .iter()
        .map(|f| {
            let content = db.document(f.id)?.and_then(|d| d.content);
            Ok(sketch(content.as_deref().unwrap_or("")))
        })
        .collect()
}

/// The index of the sketch most like `old`, when alike enough.
fn most_alike(old: &[u64], candidates: &[Vec<u64>]) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .map(|(i, s)| (i, similarity(old, s)))
        .filter(|&(_, j)| j >= SAME_TEXT)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The bottom-k sketch of a text: the smallest distinct hashes of its
/// lower-cased word shingles (of its words, when it has fewer), ascending.
fn sketch(text: &str) -> Vec<u64> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let width = SHINGLE_WORDS.min(words.len()).max(1);
    let mut hashes: Vec<u64> = words
        .windows(width)
        .map(|w| {
            let mut h = DefaultHasher::new();
            w.hash(&mut h);
            h.finish()
        })
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes.truncate(SKETCH);
    hashes
}

/// Estimated Jaccard similarity of two texts from their sketches: of the
/// smallest hashes of the union, the share both texts hold.
fn similarity(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut taken, mut both) = (0, 0, 0usize, 0usize);
    while taken < SKETCH && (i < a.len() || j < b.len()) {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                both += 1;
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), None) => i += 1,
            _ => j += 1,
        }
        taken += 1;
    }
    if taken == 0 {
        return 0.0;
    }
    both as f64 / taken as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "Call the plumber about the kitchen sink on Tuesday, and ask \
        whether the boiler needs its yearly service before the winter starts.";

    #[test]
    fn an_edited_text_is_alike_and_another_is_not() {
        let old = sketch(NOTE);
        let edited = sketch(&NOTE.replace("Tuesday", "Wednesday morning"));
        let other = sketch("The boiler manual says to bleed the radiators every autumn.");
        assert!(
            similarity(&old, &edited) >= SAME_TEXT,
            "{}",
            similarity(&old, &edited)
        );
        assert!(similarity(&old, &other) < 0.2);
        assert_eq!(similarity(&old, &old), 1.0);
        assert_eq!(most_alike(&old, &[other.clone(), edited]), Some(1));
        assert_eq!(most_alike(&old, &[other]), None);
        assert_eq!(similarity(&[], &[]), 0.0);
    }

    #[test]
    fn long_texts_compare_by_a_bounded_sketch() {
        let long: String = (0..20_000).map(|i| format!("word{i} ")).collect();
        let s = sketch(&long);
        assert_eq!(s.len(), SKETCH);
        let half: String = (0..10_000).map(|i| format!("word{i} ")).collect();
        let j = similarity(&s, &sketch(&half));
        assert!((0.35..0.65).contains(&j), "about a half: {j}");
        assert_eq!(sketch("one").len(), 1);
    }
}
