//! Finding and loading pdfium, the PDF engine Chrome uses.
//!
//! kb binds `libpdfium` at run time (pdfium-render's dynamic bindings):
//! no prebuilt-binary download works offline, so the library comes from
//! the PyPI `pypdfium2` wheel (`scripts/prepare_pdf.sh`, run by
//! ./setup.sh, copies it to `~/.cache/kb/pdfium/`) or from the system.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use pdfium_render::prelude::Pdfium;

use crate::config::Config;

#[cfg(target_os = "macos")]
pub const LIB_NAME: &str = "libpdfium.dylib";
#[cfg(not(target_os = "macos"))]
pub const LIB_NAME: &str = "libpdfium.so";

/// The environment variable that names the library (what setup.sh and
/// test.sh export; `ingestion.pdfium` in config.yaml wins over it).
pub const ENV_VAR: &str = "PDFIUM_DYNAMIC_LIB_PATH";

/// Where kb looks for libpdfium, in order. A path the user named
/// (`ingestion.pdfium`, else `PDFIUM_DYNAMIC_LIB_PATH`) is the only place tried.
pub fn candidates(config: &Config) -> Vec<PathBuf> {
    if let Some(p) = &config.ingestion.pdfium {
        return vec![p.clone()];
    }
    if let Some(p) = std::env::var_os(ENV_VAR).filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(p)];
    }
    let mut out = vec![
        config.data_dir.join("lib").join(LIB_NAME),
        crate::embed::runtime::cache_dir()
            .join("pdfium")
            .join(LIB_NAME),
    ];
    let exe = std::env::current_exe().ok();
    if let Some(dir) = exe.as_deref().and_then(Path::parent) {
        out.push(dir.join(LIB_NAME));
        out.push(dir.join("../lib").join(LIB_NAME));
    }
    let system = [
        "/usr/local/lib",
        "/usr/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/opt/homebrew/lib",
    ];
    out.extend(system.map(|dir| Path::new(dir).join(LIB_NAME)));
    out
}

/// The first candidate that exists, or the message listing every place kb
/// looked (the library is loaded, and can still fail, where the PDF is read).
pub fn locate(config: &Config) -> Result<PathBuf, String> {
    let candidates = candidates(config);
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let named = if config.ingestion.pdfium.is_some() {
        " (the path ingestion.pdfium names; fix or unset it)"
    } else if std::env::var_os(ENV_VAR).is_some_and(|p| !p.is_empty()) {
        " (the path PDFIUM_DYNAMIC_LIB_PATH names; fix or unset it)"
    } else {
        ""
    };
    let tried: Vec<String> = candidates
        .iter()
        .map(|p| format!("  {} (not found)", p.display()))
        .collect();
    Err(missing_message(named, &tried))
}

fn missing_message(named: &str, tried: &[String]) -> String {
    format!(
        "PDF engine not found: kb reads PDFs with pdfium ({LIB_NAME}) and looked in{named}:\n{}\n\
         `kb init` fetches it from PyPI; or `pip download pypdfium2 --no-deps` and copy pypdfium2_raw/{LIB_NAME} out of the wheel to \
         ~/.cache/kb/pdfium/ (or point PDFIUM_DYNAMIC_LIB_PATH, or ingestion.pdfium in config.yaml, at it); \
         from kb's source tree, scripts/prepare_pdf.sh does this",
        tried.join("\n")
    )
}

/// pdfium, loaded once per process. pdfium is not thread-safe, so every
/// use goes through this lock.
static ENGINE: OnceLock<Result<Mutex<Pdfium>, String>> = OnceLock::new();

/// Loads the library at `path` (once per process; later calls reuse the
/// first load whatever path they name) and locks it for one document.
pub fn lock(path: &Path) -> Result<MutexGuard<'static, Pdfium>, String> {
    let engine = ENGINE.get_or_init(|| {
        let attempt = std::panic::catch_unwind(|| Pdfium::bind_to_library(path));
        match attempt {
            Ok(Ok(bindings)) => Ok(Mutex::new(Pdfium::new(bindings))),
            Ok(Err(e)) => Err(format!(
                "could not load the PDF engine {}: {e:?} (a libpdfium built for this system, \
                 from the pypdfium2 wheel, is needed)",
                path.display()
            )),
            Err(_) => Err(format!(
                "loading the PDF engine {} crashed (wrong version or architecture?)",
                path.display()
            )),
        }
    });
    let engine = engine.as_ref().map_err(Clone::clone)?;
    Ok(engine.lock().unwrap_or_else(|e| e.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_library_is_the_only_place_tried() {
        let mut c = Config::default();
        c.ingestion.pdfium = Some(PathBuf::from("/nowhere/libpdfium.so"));
        assert_eq!(candidates(&c), vec![PathBuf::from("/nowhere/libpdfium.so")]);
        let e = locate(&c).unwrap_err();
        assert!(e.contains("/nowhere/libpdfium.so (not found)"), "{e}");
        assert!(e.contains("ingestion.pdfium"), "{e}");
        assert!(e.contains("pypdfium2"), "{e}");
    }
}
