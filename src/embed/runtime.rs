//! Finding and loading the ONNX Runtime shared library.
//!
//! kb loads libonnxruntime at run time (ort's `load-dynamic`), because
//! prebuilt-binary downloads do not work offline. The library comes from the
//! PyPI `onnxruntime` wheel (./setup.sh fetches it) or the system.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::config::Config;
use crate::error::{KbError, Result};

#[cfg(target_os = "macos")]
pub const LIB_NAME: &str = "libonnxruntime.dylib";
#[cfg(not(target_os = "macos"))]
pub const LIB_NAME: &str = "libonnxruntime.so";

static ENVIRONMENT: OnceLock<
    std::result::Result<(PathBuf, ort::environment::Environment), String>,
> = OnceLock::new();

/// The directory of kb's own download cache (`$KB_CACHE_DIR`, default
/// `~/.cache/kb`), where ./setup.sh puts the runtime and the model.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("KB_CACHE_DIR") {
        return PathBuf::from(d);
    }
    dirs::cache_dir()
        .unwrap_or_else(|| PathBuf::from(".cache"))
        .join("kb")
}

/// Keeps ONNX Runtime from writing its telemetry (a device id and an event
/// queue under `~/.cache/Microsoft/DeveloperTools/.onnxruntime/`): on
/// Linux it starts them while creating its environment, before the API's
/// `DisableTelemetryEvents` can run, unless `ORT_DISABLE_TELEMETRY` is set.
/// Call it first thing in `main`, before any thread starts (setting the
/// environment races with threads that read it).
pub fn disable_telemetry() {
    std::env::set_var("ORT_DISABLE_TELEMETRY", "1");
}

/// Where kb looks for the library, in order. A path the user named
/// (`embedding.onnxruntime`, else `ORT_DYLIB_PATH`) is the only place: if
/// it does not load, that is the error, rather than quietly using another
/// copy.
pub fn candidates(config: &Config) -> Vec<PathBuf> {
    if let Some(p) = &config.embedding.onnxruntime {
        return vec![p.clone()];
    }
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    out.push(config.data_dir.join("lib").join(LIB_NAME));
    out.push(cache_dir().join("onnxruntime").join(LIB_NAME));
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            out.push(dir.join(LIB_NAME));
            out.push(dir.join("../lib").join(LIB_NAME));
        }
    }
    for dir in [
        "/usr/local/lib",
        "/usr/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/opt/homebrew/lib",
    ] {
        out.push(Path::new(dir).join(LIB_NAME));
    }
    out
}

/// Loads ONNX Runtime once per process; returns its environment.
pub fn ensure_loaded(config: &Config) -> Result<&'static ort::environment::Environment> {
    let result = ENVIRONMENT.get_or_init(|| load(config));
    match result {
        Ok((_, env)) => Ok(env),
        Err(msg) => Err(KbError::RuntimeMissing(msg.clone())),
    }
}

/// The path of the loaded library, if loaded.
pub fn loaded_path() -> Option<PathBuf> {
    match ENVIRONMENT.get() {
        Some(Ok((p, _))) => Some(p.clone()),
        _ => None,
    }
}

fn load(config: &Config) -> std::result::Result<(PathBuf, ort::environment::Environment), String> {
    let candidates = candidates(config);
    let mut tried = Vec::new();
    for path in &candidates {
        if !path.exists() {
            tried.push(format!("  {} (not found)", path.display()));
            continue;
        }
        // A library of the wrong version or architecture can make the loader
        // panic; that must become an error, not a crash. Telemetry events
        // off as well (the environment variable above does the real work).
        let attempt = std::panic::catch_unwind(|| {
            ort::init_from(path)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    // kb is local and offline: ONNX Runtime's telemetry
                    // (an event queue under ~/.cache/Microsoft) stays off.
                    b.with_name("kb")
                        .with_telemetry(false)
                        .build()
                        .map_err(|e| e.to_string())
                })
        });
        match attempt {
            Ok(Ok(env)) => return Ok((path.clone(), env)),
            Ok(Err(e)) => tried.push(format!("  {} ({e})", path.display())),
            Err(_) => tried.push(format!(
                "  {} (loading it crashed; wrong version?)",
                path.display()
            )),
        }
    }
    let named = if config.embedding.onnxruntime.is_some() {
        " (the path embedding.onnxruntime names; fix or unset it)"
    } else if std::env::var_os("ORT_DYLIB_PATH").is_some() {
        " (the path ORT_DYLIB_PATH names; fix or unset it)"
    } else {
        ""
    };
    Err(format!(
        "could not load the ONNX Runtime library ({LIB_NAME}, version 1.19 or newer). kb looked \
         in{named}:\n{}\n`kb init` fetches it from PyPI; or `pip install onnxruntime` and point ORT_DYLIB_PATH (or \
         embedding.onnxruntime in config.yaml) at site-packages/onnxruntime/capi/libonnxruntime.so.* \
         (from kb's source tree, ./setup.sh does this)",
        tried.join("\n")
    ))
}
