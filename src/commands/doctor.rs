//! `kb doctor`: checks what kb needs to work, each finding with a fix.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{file_status, FileStatus};
use super::{Command, CommandSpec, Mcp, Outcome, OutputKind};
use crate::embed::{runtime, ModelUse};
use crate::error::{KbError, Result};
use crate::output::{plural, Render, Style};
use crate::session::Session;

/// Check the ONNX Runtime library, the model files and their fingerprint, the PDF and OCR
/// engines, the database's integrity and whether it can be written, the keyword and vector
/// indexes, documents outside every added file and folder, and stale files; each problem comes
/// with a fix
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DoctorArgs {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    /// Works, but worth attention.
    Warning,
    /// Broken: kb cannot do part of its job.
    Fault,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Check {
    /// What was checked.
    pub name: &'static str,
    /// ok, warning or fault.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do about a warning or fault.
    pub fix: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct DoctorOutput {
    /// No check found a fault.
    pub healthy: bool,
    /// Each check with its finding.
    pub checks: Vec<Check>,
}

fn check(
    name: &'static str,
    status: Status,
    detail: impl Into<String>,
    fix: Option<&str>,
) -> Check {
    Check {
        name,
        status,
        detail: detail.into(),
        fix: fix.map(str::to_string),
    }
}

/// pdfium, the PDF engine: found and loadable. Without it PDFs fail (the
/// rest of kb works), so it is a warning.
fn pdf_engine_check(config: &crate::config::Config) -> Check {
    use crate::ingest::pdf::engine;
    let loaded = engine::locate(config).and_then(|p| engine::lock(&p).map(|_| p));
    match loaded {
        Ok(p) => check(
            "pdf engine",
            Status::Ok,
            format!("pdfium loaded from {}", p.display()),
            None,
        ),
        Err(e) => check(
            "pdf engine",
            Status::Warning,
            e,
            Some("kb init fetches libpdfium from the PyPI pypdfium2 wheel into ~/.cache/kb/pdfium (offline: in kb's source tree scripts/prepare_pdf.sh, or PDFIUM_DYNAMIC_LIB_PATH at a libpdfium you have)"),
        ),
    }
}

/// Tesseract for OCR, with the configured languages.
fn ocr_check(config: &crate::config::Config) -> Check {
    use crate::config::OcrMode;
    use crate::ingest::ocr;
    let i = &config.ingestion;
    if i.enable_ocr == OcrMode::Never {
        return check(
            "ocr",
            Status::Ok,
            "off (ingestion.enable_ocr: never): pages without text are counted, not read",
            None,
        );
    }
    let Some(tesseract) = ocr::locate(i.tesseract.as_deref()) else {
        return check(
            "ocr",
            Status::Warning,
            "no OCR engine: scanned PDF pages are counted, not read",
            Some(ocr::HOW_TO_INSTALL),
        );
    };
    match ocr::languages(&tesseract) {
        Err(e) => check("ocr", Status::Warning, e, Some(ocr::HOW_TO_INSTALL)),
        Ok(have) => {
            let missing: Vec<&str> = i
                .ocr_languages
                .split('+')
                .filter(|l| !have.iter().any(|h| h == l))
                .collect();
            if missing.is_empty() {
                check(
                    "ocr",
                    Status::Ok,
                    format!("{} (languages {})", tesseract.display(), i.ocr_languages),
                    None,
                )
            } else {
                check(
                    "ocr",
                    Status::Warning,
                    format!(
                        "{} has no data for {} (ingestion.ocr_languages); it has {}",
                        tesseract.display(),
                        missing.join(", "),
                        have.join(", ")
                    ),
                    Some("install the language data (Debian: apt install tesseract-ocr-LANG) or change ingestion.ocr_languages"),
                )
            }
        }
    }
}

/// Whether every document lies inside a file or folder given to `kb add`
/// (a knowledge base built by an older kb may hold files it reached
/// through links to elsewhere: `notes.md -> ~/.ssh/id_rsa`).
fn roots_check(db: &crate::db::Database) -> Result<Check> {
    let (gone, roots): (Vec<_>, Vec<_>) = db.roots()?.into_iter().partition(super::update::is_gone);
    if !gone.is_empty() {
        let shown: Vec<&str> = gone.iter().take(5).map(|r| r.path.as_str()).collect();
        return Ok(Check {
            name: "roots",
            status: Status::Warning,
            detail: format!(
                "{} given to kb add {} gone: {}{}",
                plural(gone.len() as u64, "file or folder", "files and folders"),
                if gone.len() == 1 { "is" } else { "are" },
                shown.join(", "),
                if gone.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            ),
            fix: Some(
                "if it moved, kb add its new place; then kb update --forget-missing (or kb \
                 remove --missing) forgets what is gone and drops its documents"
                    .into(),
            ),
        });
    }
    let unrooted: Vec<(i64, String)> = db
        .documents_without_root()?
        .into_iter()
        .filter(|(_, path)| !roots.iter().any(|r| r.holds(path)))
        .collect();
    if unrooted.is_empty() {
        return Ok(check(
            "roots",
            Status::Ok,
            format!(
                "every document lies inside the {} given to kb add",
                plural(roots.len() as u64, "file or folder", "files and folders")
            ),
            None,
        ));
    }
    if roots.is_empty() {
        return Ok(check(
            "roots",
            Status::Warning,
            format!(
                "the files and folders this knowledge base was built from are not recorded (an \
                 older kb built it), so kb cannot tell whether its {} lie inside them",
                plural(unrooted.len() as u64, "document", "documents")
            ),
            Some(
                "kb add each of your files and folders again (only what changed is re-indexed): \
                 kb records them, drops what came in through links to elsewhere, and kb doctor \
                 then names any document outside them",
            ),
        ));
    }
    let shown: Vec<&str> = unrooted.iter().take(5).map(|(_, p)| p.as_str()).collect();
    let ids: Vec<String> = unrooted.iter().map(|(id, _)| id.to_string()).collect();
    Ok(Check {
        name: "roots",
        status: Status::Warning,
        detail: format!(
            "{} outside every file and folder given to kb add (indexed by an older kb, perhaps \
             through a link): {}{}",
            plural(unrooted.len() as u64, "document lies", "documents lie"),
            shown.join(", "),
            if unrooted.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        ),
        fix: Some(format!(
            "if they belong to a folder you added before, kb add it again (kb records it); \
             otherwise remove them: kb remove {}",
            ids.join(" ")
        )),
    })
}

impl Command for DoctorArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "doctor",
        title: "Check the installation",
        summary: "Checks the runtime, the model, the database and its indexes.",
        output: OutputKind::Query,
        mcp: Mcp::Hidden,
    };
    type Output = DoctorOutput;

    fn run(self, session: &mut Session) -> Result<DoctorOutput> {
        let mut checks = Vec::new();
        checks.push(match runtime::ensure_loaded(session.config()) {
            Ok(_) => check(
                "runtime",
                Status::Ok,
                format!(
                    "ONNX Runtime loaded from {}",
                    runtime::loaded_path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ),
                None,
            ),
            Err(e) => check(
                "runtime",
                Status::Fault,
                e.to_string(),
                Some("kb init fetches ONNX Runtime from its PyPI wheel (offline: point ORT_DYLIB_PATH, or embedding.onnxruntime, at a libonnxruntime.so; in kb's source tree ./setup.sh does it)"),
            ),
        });
        checks.push(pdf_engine_check(session.config()));
        checks.push(ocr_check(session.config()));
        let db = match session.db() {
            Ok(db) => db,
            Err(e @ KbError::NoIndex(_)) => {
                checks.push(check(
                    "database",
                    Status::Warning,
                    e.to_string(),
                    Some("kb add PATH creates the knowledge base"),
                ));
                return Ok(DoctorOutput::of(checks));
            }
            Err(e) => {
                // Only a corrupt file needs a backup; the other reasons (a
                // read-only directory, permissions, a lock) say their fix.
                let fix = matches!(e, KbError::DbCorrupt { .. }).then_some(RESTORE);
                checks.push(check("database", Status::Fault, e.to_string(), fix));
                return Ok(DoctorOutput::of(checks));
            }
        };
        // A damaged page can fail any check that reads it: the report
        // still comes, with the database at fault.
        if let Err(e) = database_checks(session, db, &mut checks) {
            let detail = match e {
                KbError::DbCorrupt { .. } => e.to_string(),
                e => format!("{}: reading it failed: {e}", db.path().display()),
            };
            checks.push(check("database", Status::Fault, detail, Some(RESTORE)));
        }
        Ok(DoctorOutput::of(checks))
    }
}

/// What to do about a damaged kb.db.
const RESTORE: &str =
    "kb restore BACKUP (a copy kb backup wrote), or move kb.db away and run kb add again";

/// The checks of an open knowledge base, in order; an error stops them.
fn database_checks(
    session: &Session,
    db: &crate::db::Database,
    checks: &mut Vec<Check>,
) -> Result<()> {
    // SQLite may open a database read-only without a word (a file or
    // directory kb may not write, a header it may not write): every
    // write would then fail, so kb cannot do part of its job.
    if let Err(e) = db.writable() {
        checks.push(check(
            "database writes",
            Status::Fault,
            format!("opened read-only: {e}"),
            Some(
                "writes (kb add, kb remove, kb reindex) fail until this is fixed: give this \
                 user write permission on the file or directory named (kb writes kb.db, \
                 kb.db-wal and kb.db-shm), or for a damaged header restore kb.db from a \
                 backup (kb backup PATH copies what it holds into a new file)",
            ),
        ));
    }
    let problems = db.quick_check()?;
    checks.push(if problems == ["ok"] {
        check(
            "database",
            Status::Ok,
            format!("{}: integrity ok", db.path().display()),
            None,
        )
    } else {
        check(
            "database",
            Status::Fault,
            format!("{}: {}", db.path().display(), problems.join("; ")),
            Some(RESTORE),
        )
    });
    let counts = db.index_counts()?;
    checks.push(if counts.keyword_rows == counts.chunks {
        check(
            "keyword index",
            Status::Ok,
            format!("{} chunks indexed", counts.chunks),
            None,
        )
    } else {
        check(
            "keyword index",
            Status::Fault,
            format!(
                "{} chunks but {} rows in the keyword index",
                counts.chunks, counts.keyword_rows
            ),
            Some("remove and add again the documents concerned (kb remove, kb add)"),
        )
    });
    match db.model_binding()? {
        None => checks.push(check(
            "model",
            Status::Warning,
            "no embedding model bound: keyword search only",
            Some("kb init binds the default model"),
        )),
        Some(binding) => {
            checks.push(match session.bound_model(ModelUse::Queries) {
                Ok(model) => match model.embed_query("kb doctor") {
                    Ok(v) if v.len() == binding.embedding_dim => check(
                        "model",
                        Status::Ok,
                        format!(
                            "{} ({} dimensions){}",
                            binding.model_name,
                            binding.embedding_dim,
                            binding
                                .model_dir
                                .as_deref()
                                .map(|d| format!(" from {d}"))
                                .unwrap_or_default()
                        ),
                        None,
                    ),
                    Ok(v) => check(
                        "model",
                        Status::Fault,
                        format!(
                            "{} made {}-dimensional vectors, the index holds {}",
                            binding.model_name,
                            v.len(),
                            binding.embedding_dim
                        ),
                        Some("kb reindex"),
                    ),
                    Err(e) => check("model", Status::Fault, e.to_string(), Some("kb init")),
                },
                Err(e) => check(
                    "model",
                    Status::Fault,
                    e.to_string(),
                    Some(match e {
                        KbError::ModelMismatch(_) => {
                            "kb reindex (or restore what the message names: the model file, \
                             the setting)"
                        }
                        KbError::UnknownModel(_) => {
                            "set embedding.model where the message says to a model it lists, or \
                             unset it"
                        }
                        _ => "kb init (offline: kb init --model-dir DIR)",
                    }),
                ),
            });
            let missing = counts.chunks_without_vectors.unwrap_or(0);
            let reading_again = db.resplit_pending()?.is_some();
            checks.push(if missing == 0 {
                check(
                    "vectors",
                    Status::Ok,
                    format!("{} vectors", counts.vector_rows.unwrap_or(0)),
                    None,
                )
            } else {
                check(
                    "vectors",
                    Status::Fault,
                    format!(
                        "{} have no vector{}",
                        plural(missing as u64, "chunk", "chunks"),
                        if reading_again {
                            " (a reindex to a model that reads fewer tokens stopped while reading \
                             their documents again; keyword search finds them meanwhile)"
                        } else {
                            ""
                        }
                    ),
                    Some(if reading_again {
                        "kb reindex (it finishes reading them)"
                    } else {
                        "kb reindex"
                    }),
                )
            });
        }
    }
    if let Some(target) = db.unfinished_reindex()? {
        checks.push(if crate::db::WriterLock::held_elsewhere(db.path()) {
            // The lock says another kb writes, not which command.
            check(
                "reindex",
                Status::Ok,
                format!(
                    "a reindex to {target} is running, or was interrupted while another kb \
                     process writes now; the old index is in use until it ends"
                ),
                Some(&format!(
                    "if no kb reindex runs: kb reindex --model {target} (it continues where it \
                     stopped)"
                )),
            )
        } else {
            check(
                "reindex",
                Status::Warning,
                format!("a reindex to {target} was interrupted; the old index is in use"),
                Some(&format!(
                    "kb reindex --model {target} (with --model-dir DIR when the model is not in \
                     kb's cache; it continues where it stopped)"
                )),
            )
        });
    }
    checks.push(roots_check(db)?);
    let stale = db
        .document_files()?
        .into_iter()
        .filter(|f| file_status(&f.into()) != FileStatus::Unchanged)
        .count();
    checks.push(if stale == 0 {
        check("files", Status::Ok, "every indexed file is unchanged", None)
    } else {
        check(
            "files",
            Status::Warning,
            format!(
                "{} changed or gone since indexing",
                plural(stale as u64, "document's file", "documents' files")
            ),
            Some("kb add FOLDER refreshes them; kb remove --missing drops the gone ones"),
        )
    });
    Ok(())
}

impl DoctorOutput {
    fn of(checks: Vec<Check>) -> DoctorOutput {
        DoctorOutput {
            healthy: checks.iter().all(|c| c.status != Status::Fault),
            checks,
        }
    }
}

impl Outcome for DoctorOutput {
    fn to_json(&self) -> Result<String> {
        crate::output::to_json(self)
    }

    fn failure(&self) -> Option<KbError> {
        // The report beside the error holds each fault's detail and fix;
        // the error names the checks, so a long finding is not said twice.
        let faults: Vec<&str> = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Fault)
            .map(|c| c.name)
            .collect();
        (!faults.is_empty()).then(|| {
            KbError::Unhealthy(format!(
                "{} ({}); the report says what was found and how to fix it",
                plural(faults.len() as u64, "fault", "faults"),
                faults.join(", ")
            ))
        })
    }
}

impl Render for DoctorOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = String::new();
        for c in &self.checks {
            let status = match c.status {
                Status::Ok => "ok",
                Status::Warning => "warning",
                Status::Fault => "FAULT",
            };
            out.push_str(&format!("{status:<8} {:<14} {}\n", c.name, c.detail));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("{:<23} fix: {fix}\n", ""));
            }
        }
        out
    }
}
