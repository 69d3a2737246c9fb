//! The BEIR dataset files: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use kb::error::{KbError, Result};

/// One corpus document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CorpusDoc {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) text: String,
}

/// An error in a dataset file, naming the file and the 1-based line.
pub(crate) fn bad_input(path: &Path, line: usize, msg: impl std::fmt::Display) -> KbError {
    KbError::Usage(format!("{}:{line}: {msg}", path.display()))
}

/// Calls `f` with each non-blank line of a text file and its 1-based number.
pub(crate) fn for_each_line(
    path: &Path,
    mut f: impl FnMut(usize, &str) -> Result<()>,
) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KbError::PathNotFound(path.to_path_buf()),
        _ => KbError::io(path, e),
    })?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => bad_input(path, i + 1, "not valid UTF-8"),
            _ => KbError::io(path, e),
        })?;
        if !line.trim().is_empty() {
            f(i + 1, &line)?;
        }
    }
    Ok(())
}

/// Parses one JSON Lines record into its object.
pub(crate) fn json_object(
    path: &Path,
    line: usize,
    text: &str,
) -> Result<serde_json::Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad_input(path, line, "expected a JSON object")),
        Err(e) => Err(bad_input(path, line, format!("invalid JSON: {e}"))),
    }
}

/// A string field of a record; ids may also be numbers. A missing or null
/// field is `None`.
pub(crate) fn text_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &Path,
    line: usize,
) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(bad_input(
            path,
            line,
            format!("field \"{key}\" must be a string"),
        )),
    }
}

pub(crate) fn required_id(
    obj: &serde_json::Map<String, Value>,
    path: &Path,
    line: usize,
) -> Result<String> {
    match text_field(obj, "_id", path, line)? {
        Some(id) if !id.is_empty() => Ok(id),
        _ => Err(bad_input(path, line, "missing or empty \"_id\"")),
    }
}

/// Reads corpus.jsonl, refusing duplicate ids.
pub(crate) fn load_corpus(path: &Path) -> Result<Vec<CorpusDoc>> {
    let mut docs = Vec::new();
    let mut seen = HashSet::new();
    for_each_line(path, |line, text| {
        let obj = json_object(path, line, text)?;
        let id = required_id(&obj, path, line)?;
        if !seen.insert(id.clone()) {
            return Err(bad_input(path, line, format!("duplicate _id {id:?}")));
        }
        docs.push(CorpusDoc {
            title: text_field(&obj, "title", path, line)?.unwrap_or_default(),
            text: text_field(&obj, "text", path, line)?.unwrap_or_default(),
            id,
        });
        Ok(())
    })?;
    if docs.is_empty() {
        return Err(bad_input(path, 1, "the corpus has no documents"));
    }
    Ok(docs)
}

/// Reads queries.jsonl into id -> text.
pub(crate) fn load_queries(path: &Path) -> Result<HashMap<String, String>> {
    let mut queries = HashMap::new();
    for_each_line(path, |line, text| {
        let obj = json_object(path, line, text)?;
        let id = required_id(&obj, path, line)?;
        let text = text_field(&obj, "text", path, line)?.unwrap_or_default();
        queries.insert(id, text);
        Ok(())
    })?;
    Ok(queries)
}

/// Relevance judgements: query id -> (document id -> grade).
pub(crate) type Qrels = BTreeMap<String, HashMap<String, i64>>;

/// Reads a qrels TSV (`query-id corpus-id score`, the header line optional).
pub(crate) fn load_qrels(path: &Path) -> Result<Qrels> {
    let mut qrels = Qrels::new();
    let mut first = true;
    for_each_line(path, |line, text| {
        let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
        let is_header = std::mem::take(&mut first) && fields.first() == Some(&"query-id");
        if is_header {
            return Ok(());
        }
        let [query, doc, grade] = fields[..] else {
            return Err(bad_input(
                path,
                line,
                format!(
                    "expected 3 tab-separated fields (query-id, corpus-id, score), found {}",
                    fields.len()
                ),
            ));
        };
        let grade: i64 = grade
            .parse()
            .map_err(|_| bad_input(path, line, format!("score {grade:?} is not an integer")))?;
        qrels
            .entry(query.to_string())
            .or_default()
            .insert(doc.to_string(), grade);
        Ok(())
    })?;
    if qrels.is_empty() {
        return Err(bad_input(path, 1, "no relevance judgements"));
    }
    Ok(qrels)
}

/// A query to score, with its judgements.
pub(crate) struct JudgedQuery<'a> {
    pub(crate) id: &'a str,
    pub(crate) text: &'a str,
    pub(crate) qrels: &'a HashMap<String, i64>,
}

/// The queries that have qrels and at least one relevant document (as
/// trec_eval, queries without relevant documents are not scored).
pub(crate) fn judged_queries<'a>(
    queries: &'a HashMap<String, String>,
    qrels: &'a Qrels,
) -> Vec<JudgedQuery<'a>> {
    let mut out = Vec::new();
    let mut unknown = 0;
    for (id, judgements) in qrels {
        if !judgements.values().any(|&g| g > 0) {
            continue;
        }
        match queries.get(id) {
            Some(text) => out.push(JudgedQuery {
                id,
                text,
                qrels: judgements,
            }),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        eprintln!("kb-eval: warning: {unknown} queries in the qrels are not in queries.jsonl; they are skipped");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qrels(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    #[test]
    fn dataset_files_parse_and_errors_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus.jsonl");
        std::fs::write(
            &corpus,
            "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"body\"}\n\n{\"_id\": 7, \"text\": \"x\"}\n",
        )
        .unwrap();
        let docs = load_corpus(&corpus).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].id, "7");
        assert_eq!(docs[1].title, "");

        std::fs::write(&corpus, "{\"_id\": \"d1\"}\n{\"title\": \"no id\"}\n").unwrap();
        let err = load_corpus(&corpus).unwrap_err().to_string();
        assert!(
            err.contains("corpus.jsonl:2:") && err.contains("_id"),
            "{err}"
        );
        std::fs::write(&corpus, "{\"_id\": \"d1\"}\nnot json\n").unwrap();
        let err = load_corpus(&corpus).unwrap_err().to_string();
        assert!(err.contains("corpus.jsonl:2: invalid JSON"), "{err}");

        let tsv = dir.path().join("test.tsv");
        std::fs::write(&tsv, "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n").unwrap();
        let q = load_qrels(&tsv).unwrap();
        assert_eq!(q["q1"]["d1"], 2);
        assert_eq!(q["q1"].len(), 2);
        std::fs::write(&tsv, "query-id\tcorpus-id\tscore\nq1\td1\thigh\n").unwrap();
        let err = load_qrels(&tsv).unwrap_err().to_string();
        assert!(err.contains("test.tsv:2:") && err.contains("high"), "{err}");
        std::fs::write(&tsv, "q1 d1\n").unwrap();
        let err = load_qrels(&tsv).unwrap_err().to_string();
        assert!(
            err.contains("test.tsv:1:") && err.contains("3 tab-separated"),
            "{err}"
        );
        assert_eq!(
            load_qrels(&dir.path().join("missing.tsv"))
                .unwrap_err()
                .code(),
            "E_PATH_NOT_FOUND"
        );
    }

    #[test]
    fn judged_queries_skip_unjudged_and_unknown() {
        let queries: HashMap<String, String> = [("q1", "one"), ("q2", "two")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let mut all = Qrels::new();
        all.insert("q1".into(), qrels(&[("d1", 1)]));
        all.insert("q2".into(), qrels(&[("d1", 0)]));
        all.insert("q3".into(), qrels(&[("d1", 1)]));
        let judged = judged_queries(&queries, &all);
        assert_eq!(judged.len(), 1);
        assert_eq!(judged[0].id, "q1");
        assert_eq!(judged[0].text, "one");
    }
}
