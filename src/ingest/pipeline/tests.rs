//! The whole `kb add` pipeline on a real database in a temporary folder,
//! with the deterministic test embedder standing in for the model.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use std::sync::Arc;

use super::{IngestOptions, IngestSummary, Ingester, ModelSource};
use crate::config::Config;
use crate::db::{Database, OpenMode};
use crate::embed::{Embed, TestEmbedder};
use crate::error::{KbError, Result};
use crate::progress::Silent;

fn options(tags: &[&str], cancel: bool) -> IngestOptions {
    IngestOptions {
        tags: tags.iter().map(|t| t.to_string()).collect(),
        exclude: Vec::new(),
        progress: Arc::new(Silent),
        cancel: Arc::new(AtomicBool::new(cancel)),
        follow_external_links: false,
        follow_everywhere: false,
        reread: false,
    }
}

/// A knowledge base in a temporary folder, bound to the test embedder,
/// and a folder of documents to add.
struct Kb {
    _home: tempfile::TempDir,
    docs: PathBuf,
    config: Config,
    db: Database,
    embedder: Arc<TestEmbedder>,
}

impl Kb {
    fn new() -> Kb {
        // Not a dot-name: the walk skips hidden entries.
        let home = tempfile::Builder::new()
            .prefix("kb-pipeline")
            .tempdir()
            .unwrap();
        let docs = home.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let mut config = Config {
            data_dir: home.path().join("data"),
            ..Config::default()
        };
        config.ingestion.workers = 2;
        let db = Database::open(&config.db_path(), OpenMode::Create).unwrap();
        let embedder = Arc::new(TestEmbedder::default());
        db.bind_model(&embedder.binding().unwrap()).unwrap();
        Kb {
            _home: home,
            docs,
            config,
            db,
            embedder,
        }
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.docs.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    fn run(&self, model: ModelSource, tags: &[&str], cancel: bool) -> Result<IngestSummary> {
        Ingester::new(&self.config, &self.db, model)
            .run(std::slice::from_ref(&self.docs), &options(tags, cancel))
    }

    fn add(&self) -> IngestSummary {
        self.add_tagged(&[])
    }

    fn add_tagged(&self, tags: &[&str]) -> IngestSummary {
        self.run(ModelSource::Ready(self.embedder.clone()), tags, false)
            .unwrap()
    }

    /// What was embedded for every chunk (its header and text), by id.
    fn chunks(&self) -> HashMap<i64, String> {
        self.db
            .chunk_texts(0, 10_000)
            .unwrap()
            .into_iter()
            .map(|c| (c.id, c.input().into_owned()))
            .collect()
    }

    fn document_id(&self, name: &str) -> Option<i64> {
        let path = std::path::absolute(self.docs.join(name)).unwrap();
        self.db
            .document_id_by_path(&path.to_string_lossy())
            .unwrap()
    }

    fn errors_log(&self) -> String {
        std::fs::read_to_string(self.config.errors_log_path()).unwrap_or_default()
    }
}

const GUIDE: &str = "---\ntags: [gardening]\n---\n# Tomatoes\n\nWater tomatoes at the root every morning.\n\n## Pests\n\nAphids gather under the leaves; rinse them off with soapy water.\n";
const NOTE: &str = "Call the plumber about the kitchen sink on Tuesday.\n";
const PYTHON: &str = "def harvest(plants):\n    \"\"\"Pick the ripe ones.\"\"\"\n    return [p for p in plants if p.ripe]\n\n\nclass Greenhouse:\n    def heat(self):\n        pass\n";
const BASH: &str = "#!/bin/sh\n# Waters the garden.\nwater() {\n  echo splash\n}\nwater\n";

fn mixed_folder(kb: &Kb) {
    kb.write("guide.md", GUIDE);
    kb.write("todo.txt", NOTE);
    kb.write("src/garden.py", PYTHON);
    kb.write("bin/water", BASH);
}

#[test]
fn a_folder_becomes_documents_and_chunks_with_vectors() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let s = kb.add();
    assert_eq!(
        (s.added, s.failed, s.skipped, s.empty),
        (4, 0, 0, 0),
        "{s:?}"
    );
    assert!(!s.interrupted);
    let by_type: Vec<(&str, usize)> = s
        .by_type
        .iter()
        .map(|(t, c)| (t.as_str(), c.documents))
        .collect();
    assert_eq!(by_type, [("code", 2), ("markdown", 1), ("note", 1)]);
    assert_eq!(kb.db.document_count().unwrap(), 4);
    assert_eq!(kb.db.chunk_count().unwrap(), s.chunks as i64);
    assert!(s.chunks >= 5, "{s:?}");

    // Every chunk has the vector of its own header and text (groups span documents,
    // so a slip in the offsets would pair a chunk with another's vector).
    let chunks = kb.chunks();
    let mut seen = 0;
    kb.db
        .for_each_vector(|id, v| {
            let want = kb.embedder.embed_passages(&[chunks[&id].as_str()]).unwrap();
            assert_eq!(v, want[0].as_slice(), "chunk {id}: {}", chunks[&id]);
            seen += 1;
        })
        .unwrap();
    assert_eq!(seen, chunks.len());
    assert!(kb.db.chunks_without_vectors(10).unwrap().is_empty());

    // What the parsers found reaches the documents.
    let guide = kb.db.document(kb.document_id("guide.md").unwrap()).unwrap();
    let guide = guide.unwrap();
    assert_eq!(guide.summary.title, "Tomatoes");
    assert_eq!(guide.summary.tags, ["gardening"]);
    assert_eq!(guide.metadata.headings[1].text, "Pests");
    let script = kb.db.document(kb.document_id("bin/water").unwrap());
    assert_eq!(script.unwrap().unwrap().language.as_deref(), Some("bash"));
    assert!(chunks.values().any(|t| t.contains("def harvest")));
}

#[test]
fn a_rerun_skips_unchanged_files_and_reindexes_edited_ones() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let first = kb.add();
    let before = kb.chunks();

    let again = kb.add();
    assert_eq!((again.added, again.updated, again.skipped), (0, 0, 4));
    assert_eq!(again.chunks, 0);
    assert_eq!(kb.chunks(), before, "nothing rewritten");

    // Touched (new mtime, same bytes): still skipped, the new mtime kept.
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(kb.docs.join("guide.md"))
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let touched = kb.add();
    assert_eq!((touched.added, touched.updated, touched.skipped), (0, 0, 4));
    let guide = kb.db.document(kb.document_id("guide.md").unwrap());
    let recorded = guide.unwrap().unwrap().file_mtime.unwrap();
    let hour_ago_secs = hour_ago.duration_since(SystemTime::UNIX_EPOCH).unwrap();
    assert_eq!(recorded, hour_ago_secs.as_secs() as i64);

    // Edited: re-indexed under the same document, old text gone.
    let id = kb.document_id("todo.txt").unwrap();
    kb.write("todo.txt", "Book the dentist for the cracked molar.\n");
    let edited = kb.add();
    assert_eq!((edited.added, edited.updated, edited.skipped), (0, 1, 3));
    assert_eq!(kb.document_id("todo.txt"), Some(id));
    let texts = kb.chunks();
    assert!(texts.values().any(|t| t.contains("dentist")));
    assert!(!texts.values().any(|t| t.contains("plumber")));
    assert_eq!(kb.db.document_count().unwrap(), first.added as i64);
}

/// Read again on request: every unchanged file is re-indexed under its
/// document, none skipped, and the knowledge base holds what it held.
#[test]
fn a_reread_reads_unchanged_files_again() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let first = kb.add();
    let before = kb.chunks();
    let id = kb.document_id("todo.txt");
    let opts = IngestOptions {
        reread: true,
        ..options(&[], false)
    };
    let again = Ingester::new(&kb.config, &kb.db, ModelSource::Ready(kb.embedder.clone()))
        .run(std::slice::from_ref(&kb.docs), &opts)
        .unwrap();
    assert_eq!((again.added, again.updated, again.skipped), (0, 4, 0));
    assert_eq!(kb.document_id("todo.txt"), id);
    let mut texts: Vec<String> = kb.chunks().into_values().collect();
    let mut was: Vec<String> = before.into_values().collect();
    texts.sort();
    was.sort();
    assert_eq!(texts, was);
    assert_eq!(kb.db.document_count().unwrap(), first.added as i64);
}

/// A document read by an older version of its kind's reader is read again
/// (keeping the vectors of its chunks that read as before); the others are
/// skipped, and once read it is skipped too.
#[test]
fn a_document_an_older_reader_read_is_read_again() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.add();
    let id = kb.document_id("todo.txt");
    kb.db
        .conn()
        .execute(
            "UPDATE documents SET reader_version = 0 WHERE id = ?1",
            [id],
        )
        .unwrap();
    let again = kb.add();
    assert_eq!(
        (again.read_again, again.updated, again.skipped),
        (1, 1, 3),
        "{again:?}"
    );
    assert_eq!(again.unchanged_chunks, again.chunks, "it reads as before");
    assert_eq!(kb.document_id("todo.txt"), id);
    let third = kb.add();
    assert_eq!((third.read_again, third.updated, third.skipped), (0, 0, 4));
}

/// A file moved keeps its vectors under its new path: the document of the
/// same content the move leaves behind gives them before it is removed.
#[test]
fn a_moved_file_keeps_its_vectors() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.add();
    std::fs::create_dir(kb.docs.join("docs")).unwrap();
    std::fs::rename(kb.docs.join("guide.md"), kb.docs.join("docs/guide.md")).unwrap();
    let moved = kb.add();
    assert_eq!((moved.added, moved.removed), (1, 1), "{moved:?}");
    assert!(moved.chunks > 0);
    assert_eq!(moved.unchanged_chunks, moved.chunks, "{moved:?}");
}

#[test]
fn an_edit_in_the_second_a_file_was_indexed_is_seen() {
    let kb = Kb::new();
    kb.write("todo.txt", "Call the plumber.\n");
    // Written in the second it is read: a later write in that second
    // leaves the same size and mtime.
    let second = SystemTime::now();
    let stamp = |at: SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(kb.docs.join("todo.txt"))
            .unwrap()
            .set_modified(at)
            .unwrap();
    };
    stamp(second);
    assert_eq!(kb.add().added, 1);
    kb.write("todo.txt", "Call the dentist.\n");
    stamp(second);
    let edited = kb.add();
    assert_eq!((edited.updated, edited.skipped), (1, 0), "{edited:?}");
    assert!(kb.chunks().values().any(|t| t.contains("dentist")));
    // Read again when its mtime is a second before the read: recorded.
    stamp(second - Duration::from_secs(2));
    let again = kb.add();
    assert_eq!((again.updated, again.skipped), (0, 1), "{again:?}");
    let id = kb.document_id("todo.txt").unwrap();
    assert!(kb.db.document(id).unwrap().unwrap().file_mtime.is_some());
}

#[test]
fn a_deleted_file_is_pruned() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.add();
    std::fs::remove_file(kb.docs.join("src/garden.py")).unwrap();
    let s = kb.add();
    assert_eq!((s.removed, s.skipped), (1, 3), "{s:?}");
    assert_eq!(kb.document_id("src/garden.py"), None);
    assert_eq!(kb.db.document_count().unwrap(), 3);
    assert!(!kb.chunks().values().any(|t| t.contains("harvest")));
}

#[test]
fn binary_and_empty_files_are_counted_and_logged() {
    let kb = Kb::new();
    kb.write("good.md", GUIDE);
    kb.write("photo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00");
    kb.write("empty.txt", b"");
    kb.write("blank.md", "  \n\n\t\n");
    let s = kb.add();
    assert_eq!((s.added, s.failed, s.empty), (1, 1, 2), "{s:?}");
    let log = kb.errors_log();
    for (file, reason) in [
        ("photo.md", "binary content (NUL bytes) in a text file"),
        ("empty.txt", "empty file: nothing to index"),
        ("blank.md", "empty file: nothing to index"),
    ] {
        assert!(
            log.lines().any(|l| l.contains(file) && l.ends_with(reason)),
            "{file} not logged with {reason}:\n{log}"
        );
    }
    // Not indexed means not remembered: the next run says so again.
    let again = kb.add();
    assert_eq!((again.skipped, again.failed, again.empty), (1, 1, 2));
}

#[test]
fn tags_on_a_rerun_reach_unchanged_documents() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.add();
    let s = kb.add_tagged(&["Project-X"]);
    assert_eq!((s.added, s.updated, s.skipped), (0, 0, 4), "{s:?}");
    let counts: HashMap<String, i64> = kb.db.tag_counts().unwrap().into_iter().collect();
    assert_eq!(counts["project-x"], 4, "{counts:?}");
    assert_eq!(counts["gardening"], 1, "frontmatter tags kept: {counts:?}");
}

/// Tags belong to the root: a later walk without `--tags` (kb update)
/// gives them to the files new under it, and leaves a tag taken off an
/// unchanged document off.
#[test]
fn a_roots_tags_reach_its_new_files() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.add_tagged(&["work"]);
    let note = kb.document_id("todo.txt").unwrap();
    kb.db.edit_tags(note, &[], &["work".to_string()]).unwrap();
    kb.write(
        "later.md",
        "# Later\n\nA file written after the folder was added.\n",
    );
    std::fs::rename(kb.docs.join("guide.md"), kb.docs.join("moved-guide.md")).unwrap();
    let s = kb.add();
    assert_eq!((s.added, s.removed), (2, 1), "{s:?}");
    let tags = |name: &str| {
        let id = kb.document_id(name).unwrap();
        kb.db.document(id).unwrap().unwrap().summary.tags
    };
    assert_eq!(tags("later.md"), ["work"]);
    assert_eq!(tags("moved-guide.md"), ["gardening", "work"]);
    assert!(tags("todo.txt").is_empty(), "a tag taken off stays off");
}

/// A file renamed and edited before the next `kb add` keeps the tags the
/// user gave it (not the ones its old front matter gave); a new file that
/// only shares some words with a removed one gets none of its tags.
#[test]
fn tags_follow_a_file_renamed_and_edited() {
    let kb = Kb::new();
    mixed_folder(&kb);
    kb.write(
        "boiler.md",
        "# Boiler\n\nThe boiler in the cellar is serviced every October by the \
         heating firm; its manual is in the drawer under the stairs.\n",
    );
    kb.add();
    for name in ["guide.md", "todo.txt", "boiler.md"] {
        let id = kb.document_id(name).unwrap();
        kb.db.edit_tags(id, &["house".to_string()], &[]).unwrap();
    }
    std::fs::remove_file(kb.docs.join("guide.md")).unwrap();
    kb.write(
        "garden/tomatoes.md",
        GUIDE
            .replace("tags: [gardening]", "tags: [vegetables]")
            .replace("every morning", "every morning and evening"),
    );
    std::fs::remove_file(kb.docs.join("todo.txt")).unwrap();
    kb.write(
        "chores.txt",
        "Call the plumber about the kitchen sink on Tuesday.\nBuy bread.\n",
    );
    std::fs::remove_file(kb.docs.join("boiler.md")).unwrap();
    kb.write(
        "radiators.md",
        "# Radiators\n\nBleed the radiators every autumn; the heating firm \
         shows how when the boiler is serviced.\n",
    );
    let s = kb.add();
    assert_eq!((s.added, s.removed), (3, 3), "{s:?}");
    let tags = |name: &str| {
        let id = kb.document_id(name).unwrap();
        kb.db.document(id).unwrap().unwrap().summary.tags
    };
    assert_eq!(tags("garden/tomatoes.md"), ["house", "vegetables"]);
    assert_eq!(tags("chores.txt"), ["house"]);
    assert!(
        tags("radiators.md").is_empty(),
        "{:?}",
        tags("radiators.md")
    );
}

/// A folder given to kb add and renamed: its documents under the new name
/// take the tags of the old ones, which stay until forgotten.
#[test]
fn tags_follow_a_renamed_added_folder() {
    let kb = Kb::new();
    let project = kb.docs.join("proj-a");
    kb.write("proj-a/notes.md", "# Heron\n\nThe heron cluster notes.\n");
    let add = |p: &std::path::Path, tags: &[&str]| {
        Ingester::new(&kb.config, &kb.db, ModelSource::Ready(kb.embedder.clone()))
            .run(&[p.to_path_buf()], &options(tags, false))
            .unwrap()
    };
    add(&project, &["client-x"]);
    let id = kb.document_id("proj-a/notes.md").unwrap();
    kb.db.edit_tags(id, &["billable".to_string()], &[]).unwrap();
    let renamed = kb.docs.join("proj-a-2026");
    std::fs::rename(&project, &renamed).unwrap();
    assert_eq!(add(&renamed, &[]).added, 1);
    let moved = kb.document_id("proj-a-2026/notes.md").unwrap();
    let tags = kb.db.document(moved).unwrap().unwrap().summary.tags;
    assert_eq!(tags, ["billable", "client-x"]);
}

#[test]
fn cancel_before_start_stops_with_interrupted() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let s = kb
        .run(ModelSource::Ready(kb.embedder.clone()), &[], true)
        .unwrap();
    assert!(s.interrupted, "{s:?}");
    assert_eq!((s.added, s.chunks, s.removed), (0, 0, 0));
    assert_eq!(kb.db.document_count().unwrap(), 0);
}

#[test]
fn a_lazy_model_loads_once_and_only_when_a_file_needs_it() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let loads = Arc::new(AtomicUsize::new(0));
    let lazy = || {
        let loads = loads.clone();
        ModelSource::Lazy(Box::new(move || {
            loads.fetch_add(1, Ordering::SeqCst);
            Ok(std::sync::Arc::new(TestEmbedder::default()) as std::sync::Arc<dyn Embed>)
        }))
    };
    assert_eq!(kb.run(lazy(), &[], false).unwrap().added, 4);
    assert_eq!(
        loads.load(Ordering::SeqCst),
        1,
        "two parser threads, one load"
    );
    assert_eq!(kb.run(lazy(), &[], false).unwrap().skipped, 4);
    assert_eq!(loads.load(Ordering::SeqCst), 1, "nothing to index, no load");
}

#[test]
fn a_model_failure_stops_the_run() {
    let kb = Kb::new();
    mixed_folder(&kb);
    let broken = ModelSource::Lazy(Box::new(|| Err(KbError::Model("no model here".into()))));
    let err = kb.run(broken, &[], false).unwrap_err();
    assert!(
        matches!(&err, KbError::Model(m) if m == "no model here"),
        "{err}"
    );
    assert_eq!(kb.db.document_count().unwrap(), 0);
}

#[test]
fn a_missing_path_is_refused_before_anything_runs() {
    let kb = Kb::new();
    let gone = Path::new("/nonexistent/kb-pipeline-test");
    let err = Ingester::new(&kb.config, &kb.db, ModelSource::Ready(kb.embedder.clone()))
        .run(&[gone.to_path_buf()], &options(&[], false))
        .unwrap_err();
    assert!(matches!(err, KbError::PathNotFound(p) if p == gone));
}

/// An embedder that takes its time, like a real model on a busy machine.
struct SlowEmbedder(TestEmbedder);

impl Embed for SlowEmbedder {
    fn model_name(&self) -> &str {
        self.0.model_name()
    }
    fn dim(&self) -> usize {
        self.0.dim()
    }
    fn max_chunk_tokens(&self) -> usize {
        self.0.max_chunk_tokens()
    }
    fn token_counter(&self) -> crate::embed::TokenCounter {
        self.0.token_counter()
    }
    fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        self.0.embed_query(query)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        std::thread::sleep(Duration::from_millis(400));
        self.0.embed_passages(texts)
    }
    fn binding(&self) -> Result<crate::db::ModelBinding> {
        self.0.binding()
    }
}

#[test]
fn cancel_returns_at_once_keeping_what_was_committed() {
    let kb = Kb::new();
    for i in 0..120 {
        kb.write(
            &format!("n{i:03}.txt"),
            format!("Note {i} about rivers and bridges, entry {i}."),
        );
    }
    let mut config = kb.config.clone();
    config.embedding.batch_size = 8;
    // Groups of 8 notes, one model batch each, so some are committed
    // before Ctrl-C (the parsers run far ahead: with the default groups of
    // 256 chunks all 120 notes would be one group, still in the model).
    config.ingestion.batch_size = 8;
    let opts = options(&[], false);
    let cancel = opts.cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1200));
        cancel.store(true, Ordering::SeqCst);
        std::time::Instant::now()
    });
    let model = ModelSource::Ready(Arc::new(SlowEmbedder(TestEmbedder::default())));
    let s = Ingester::new(&config, &kb.db, model)
        .run(std::slice::from_ref(&kb.docs), &opts)
        .unwrap();
    let returned = std::time::Instant::now();
    let cancelled_at = stopper.join().unwrap();
    assert!(s.interrupted, "{s:?}");
    assert!(
        returned.duration_since(cancelled_at) < Duration::from_millis(300),
        "the writer waited {:?} after Ctrl-C",
        returned.duration_since(cancelled_at)
    );
    assert!(s.added > 0 && s.added < 120, "{s:?}");
    assert_eq!(kb.db.document_count().unwrap() as usize, s.added);
    // A re-run finishes the job.
    let again = kb.add();
    assert_eq!(again.added + s.added, 120);
}

/// Which link each document is recorded as reached through: the one link
/// when only it leads there, none when the file is reached directly,
/// through two links, or by a root this run did not walk.
#[cfg(unix)]
#[test]
fn a_document_reached_only_through_a_link_keeps_that_link() {
    use crate::ingest::source_path::{canonical, encode};
    use std::os::unix::fs::symlink;
    let kb = Kb::new();
    kb.write("index.md", GUIDE);
    kb.write(".gitignore", "archive/\n");
    let tides = kb.write("archive/tides.md", "# Tides\n\nthe estuary floods\n");
    let twice = kb.write("archive/twice.md", "# Twice\n\nreached two ways\n");
    symlink(&tides, kb.docs.join("tides.md")).unwrap();
    symlink(kb.docs.join("index.md"), kb.docs.join("start.md")).unwrap();
    symlink(&twice, kb.docs.join("one.md")).unwrap();
    symlink(&twice, kb.docs.join("two.md")).unwrap();
    let docs = canonical(&kb.docs);
    let link_of = |file: &Path| {
        kb.db
            .find_document_by_path(&encode(&canonical(file)))
            .unwrap()
            .unwrap_or_else(|| panic!("no document for {}", file.display()))
            .via_link
    };
    kb.add();
    assert_eq!(link_of(&tides), Some(encode(&docs.join("tides.md"))));
    assert_eq!(link_of(&kb.docs.join("index.md")), None, "reached directly");
    assert_eq!(link_of(&twice), None, "two links");
    // Re-pointed: the new link is recorded.
    std::fs::remove_file(kb.docs.join("tides.md")).unwrap();
    symlink(&tides, kb.docs.join("tides-old.md")).unwrap();
    kb.add();
    assert_eq!(link_of(&tides), Some(encode(&docs.join("tides-old.md"))));
    // Reached directly now: cleared.
    std::fs::remove_file(kb.docs.join(".gitignore")).unwrap();
    kb.add();
    assert_eq!(link_of(&tides), None);

    // Another root reaches the file itself: a walk of this folder alone
    // cannot tell, and records no link.
    let other = Kb::new();
    let shared = other.write("shared/plan.md", "# Plan\n\nthe quarterly plan\n");
    let notes = other.docs.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    symlink(&shared, notes.join("plan.md")).unwrap();
    let add = |path: &Path| {
        Ingester::new(
            &other.config,
            &other.db,
            ModelSource::Ready(other.embedder.clone()),
        )
        .run(&[path.to_path_buf()], &options(&[], false))
        .unwrap()
    };
    add(&other.docs.join("shared"));
    add(&notes);
    let plan = other
        .db
        .find_document_by_path(&encode(&canonical(&shared)))
        .unwrap()
        .unwrap();
    assert_eq!(plan.via_link, None);
}
