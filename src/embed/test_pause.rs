//! A pause for the end-to-end tests, compiled only with the `e2e` feature
//! (never in a release build or `cargo install`): with
//! `KB_TEST_PAUSE_AFTER_BATCH=N`, the model's `N+1`-th passage batch
//! writes `kb-test: paused after batch N` to stderr and then keeps running
//! that same batch through the real model, again and again, so a test can
//! interrupt or kill kb at a known point, with a model batch in flight, as
//! Ctrl-C most often finds it. Everything the first `N` batches led to is
//! committed (or on its way to the writer). With `KB_TEST_RESUME_FILE=PATH`
//! the batch returns once that file exists, and kb carries on.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Embed, TokenCounter};
use crate::db::ModelBinding;
use crate::error::Result;

/// The variable that turns the pause on: batches to let through first.
pub const PAUSE_VAR: &str = "KB_TEST_PAUSE_AFTER_BATCH";
/// The file whose existence ends the pause.
pub const RESUME_VAR: &str = "KB_TEST_RESUME_FILE";

/// A pause nobody ends within this long is a test that lost its kb: it
/// exits rather than run the model forever.
const GIVE_UP: Duration = Duration::from_secs(300);

/// `model`, paused as `KB_TEST_PAUSE_AFTER_BATCH` says, or unchanged when
/// it is not set.
pub fn wrap(model: Arc<dyn Embed>) -> Arc<dyn Embed> {
    let Some(after) = std::env::var(PAUSE_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
    else {
        return model;
    };
    Arc::new(PauseAfterBatch {
        inner: model,
        after,
        resume: std::env::var_os(RESUME_VAR).map(PathBuf::from),
        calls: AtomicUsize::new(0),
    })
}

struct PauseAfterBatch {
    inner: Arc<dyn Embed>,
    after: usize,
    resume: Option<PathBuf>,
    calls: AtomicUsize,
}

impl PauseAfterBatch {
    fn pause(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "kb-test: paused after batch {}", self.after);
        let _ = stderr.flush();
        drop(stderr);
        let started = Instant::now();
        loop {
            let vectors = self.inner.embed_passages(texts)?;
            if self.resume.as_ref().is_some_and(|f| f.exists()) {
                return Ok(vectors);
            }
            if started.elapsed() > GIVE_UP {
                let _ = writeln!(
                    std::io::stderr(),
                    "kb-test: still paused after {GIVE_UP:?}; nobody interrupted or resumed kb"
                );
                // SAFETY: _exit only ends the process.
                unsafe { libc::_exit(3) }
            }
        }
    }
}

impl Embed for PauseAfterBatch {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn max_chunk_tokens(&self) -> usize {
        self.inner.max_chunk_tokens()
    }

    fn token_counter(&self) -> TokenCounter {
        self.inner.token_counter()
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        self.inner.embed_query(query)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if self.calls.fetch_add(1, Ordering::SeqCst) == self.after {
            return self.pause(texts);
        }
        self.inner.embed_passages(texts)
    }

    fn binding(&self) -> Result<ModelBinding> {
        self.inner.binding()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::TestEmbedder;

    #[test]
    fn passes_batches_through_until_the_pause_and_resumes_on_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let resume = dir.path().join("resume");
        std::fs::write(&resume, b"").unwrap();
        let inner: Arc<dyn Embed> = Arc::new(TestEmbedder::default());
        let paused = PauseAfterBatch {
            inner: inner.clone(),
            after: 2,
            resume: Some(resume),
            calls: AtomicUsize::new(0),
        };
        for _ in 0..4 {
            assert_eq!(
                paused.embed_passages(&["rivers", "bridges"]).unwrap(),
                inner.embed_passages(&["rivers", "bridges"]).unwrap()
            );
        }
        assert_eq!(paused.calls.load(Ordering::SeqCst), 4);
    }
}
