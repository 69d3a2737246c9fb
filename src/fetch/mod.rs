//! Fetching the shared libraries kb loads at run time, ONNX Runtime and
//! pdfium, when neither the configuration nor the usual places have them:
//! from their official PyPI wheels (`onnxruntime`, `pypdfium2`) for this
//! platform, each checked against the sha256 PyPI's index gives for it,
//! the library taken out of the wheel into kb's cache, where
//! `embed::runtime` and `ingest::pdf::engine` look. `kb init` does this, so
//! a `cargo install` needs no Python; ./setup.sh (scripts/prepare_model.py,
//! scripts/prepare_pdf.sh) remains the route that works offline, with the
//! same versions.

mod model;
mod pypi;

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::{KbError, Result};

pub use model::{fetch_model, ModelWheel};
pub use pypi::Wheel;

/// What a library does for kb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ONNX Runtime: without it no model runs, so nothing works.
    Runtime,
    /// pdfium: without it only PDFs cannot be read.
    PdfEngine,
}

/// A library kb can fetch, with the wheel it comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Library {
    pub kind: Kind,
    /// What it is, for messages.
    pub what: &'static str,
    /// The PyPI package whose wheel holds it.
    pub package: &'static str,
    /// The version fetched (the one the scripts install).
    pub version: &'static str,
    /// Its directory under kb's cache.
    pub dir: &'static str,
    /// Its file name there, the one kb looks for.
    pub file: &'static str,
    /// The library's name in the wheel starts with this.
    stem: &'static str,
    /// The variable that names the library instead.
    pub env_var: &'static str,
    /// The setting in config.yaml that names it instead.
    pub setting: &'static str,
}

/// ONNX Runtime, which runs the embedding model. The version is the one
/// scripts/prepare_model.py installs (a test pins them together).
pub const ONNX_RUNTIME: Library = Library {
    kind: Kind::Runtime,
    what: "ONNX Runtime",
    package: "onnxruntime",
    version: "1.31.1",
    dir: "onnxruntime",
    file: crate::embed::runtime::LIB_NAME,
    stem: "onnxruntime/capi/libonnxruntime",
    env_var: "ORT_DYLIB_PATH",
    setting: "embedding.onnxruntime",
};

/// pdfium, which reads PDFs. The version is the one scripts/prepare_pdf.sh
/// installs.
pub const PDFIUM: Library = Library {
    kind: Kind::PdfEngine,
    what: "pdfium",
    package: "pypdfium2",
    version: "5.15.2",
    dir: "pdfium",
    file: crate::ingest::pdf::engine::LIB_NAME,
    stem: "pypdfium2_raw/libpdfium",
    env_var: crate::ingest::pdf::engine::ENV_VAR,
    setting: "ingestion.pdfium",
};

/// The PyPI JSON API (`KB_PYPI_URL` names a mirror that serves the same).
const PYPI: &str = "https://pypi.org/pypi";

/// Where a fetch tells how it goes: bytes of the wheel read so far.
pub type OnBytes<'a> = &'a dyn Fn(u64, u64);

impl Library {
    /// Where the fetched library goes (and where kb looks for it).
    pub fn cache_path(&self) -> PathBuf {
        crate::embed::runtime::cache_dir()
            .join(self.dir)
            .join(self.file)
    }

    /// Whether kb would find the library without a fetch: a path named by
    /// the configuration or its variable counts as found (kb uses only
    /// that, and says so if it is wrong).
    pub fn present(&self, config: &Config) -> bool {
        let (configured, candidates) = match self.kind {
            Kind::Runtime => (
                config.embedding.onnxruntime.is_some(),
                crate::embed::runtime::candidates(config),
            ),
            Kind::PdfEngine => (
                config.ingestion.pdfium.is_some(),
                crate::ingest::pdf::engine::candidates(config),
            ),
        };
        let named = configured || std::env::var_os(self.env_var).is_some_and(|v| !v.is_empty());
        named || candidates.iter().any(|p| p.is_file())
    }

    /// What to do when the fetch cannot be made: the offline routes.
    pub fn offline_advice(&self, why: &str) -> String {
        format!(
            "could not fetch {what} {version} from PyPI ({why}). Without network: in kb's source \
             tree ./setup.sh puts it in place; or download the {package} {version} wheel for this \
             platform from https://pypi.org/project/{package}/{version}/#files, copy the {file} in \
             it to {dest} (or point {env} or {setting} in config.yaml at it)",
            what = self.what,
            version = self.version,
            package = self.package,
            file = self.file,
            dest = self.cache_path().display(),
            env = self.env_var,
            setting = self.setting,
        )
    }
}

/// Looks up the library's wheel for this platform on PyPI: in the
/// release's JSON, or the project's where the index does not serve the
/// release's.
pub fn find_wheel(lib: &Library) -> Result<Wheel> {
    find_wheel_for(lib.package, lib.version, &pypi::Platform::this()?)
}

/// The wheel of `package` `version` that fits `platform`, from PyPI's
/// release JSON, or the project's where the index does not serve the
/// release's.
fn find_wheel_for(package: &str, version: &str, platform: &pypi::Platform) -> Result<Wheel> {
    let base = std::env::var("KB_PYPI_URL").unwrap_or_else(|_| PYPI.to_string());
    let base = base.trim_end_matches('/');
    let release = format!("{base}/{package}/{version}/json");
    let (json, from) = match get_text(&release) {
        Err(Fetched::NotFound) => {
            let project = format!("{base}/{package}/json");
            (
                get_text(&project).map_err(|e| e.into_error(&project))?,
                project,
            )
        }
        other => (other.map_err(|e| e.into_error(&release))?, release),
    };
    let mut wheel = pypi::pick(&json, package, version, platform)?;
    wheel.url = pypi::resolve(&from, &wheel.url);
    Ok(wheel)
}

/// Why a GET gave no body.
enum Fetched {
    NotFound,
    Failed(String),
}

impl Fetched {
    fn into_error(self, url: &str) -> KbError {
        match self {
            Fetched::NotFound => KbError::Download(format!("{url}: not found")),
            Fetched::Failed(e) => KbError::Download(format!("{url}: {e}")),
        }
    }
}

/// The text at `url` (PyPI's JSON: a project's is about a megabyte).
fn get_text(url: &str) -> std::result::Result<String, Fetched> {
    match get(url) {
        Ok(resp) => resp
            .into_body()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| Fetched::Failed(e.to_string())),
        Err(ureq::Error::StatusCode(404)) => Err(Fetched::NotFound),
        Err(e) => Err(Fetched::Failed(e.to_string())),
    }
}

/// Downloads `wheel`, checks it and puts its library in place; returns
/// the library's path. `on_bytes` hears of each part read.
pub fn fetch(lib: &Library, wheel: &Wheel, on_bytes: OnBytes) -> Result<PathBuf> {
    let bytes = download(wheel, on_bytes)?;
    install(lib, &bytes, &wheel.sha256, &lib.cache_path())
}

/// The bytes of `wheel`; `on_bytes` hears of each part read.
fn download(wheel: &Wheel, on_bytes: OnBytes) -> Result<Vec<u8>> {
    let mut body = get(&wheel.url)
        .map_err(|e| KbError::Download(format!("{}: {e}", wheel.url)))?
        .into_body()
        .into_reader();
    let mut bytes = Vec::with_capacity(wheel.size as usize);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = body
            .read(&mut buf)
            .map_err(|e| KbError::Download(format!("{}: {e}", wheel.url)))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
        on_bytes(bytes.len() as u64, wheel.size);
    }
    Ok(bytes)
}

fn get(url: &str) -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(root_certs())
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(std::time::Duration::from_secs(15)))
        .user_agent(concat!("kb/", env!("CARGO_PKG_VERSION")))
        .tls_config(tls)
        .build()
        .into();
    agent.get(url).call()
}

/// The certificate authorities the system trusts (`SSL_CERT_FILE`, else
/// the usual bundles), as pip and curl use them: a network whose proxy
/// re-signs TLS with its own authority works for kb too. Mozilla's roots
/// where the system has no bundle.
fn root_certs() -> ureq::tls::RootCerts {
    let bundles = std::env::var_os("SSL_CERT_FILE")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/etc/ssl/certs/ca-certificates.crt",
                "/etc/pki/tls/certs/ca-bundle.crt",
                "/etc/ssl/cert.pem",
            ]
            .map(PathBuf::from),
        );
    for bundle in bundles {
        let Ok(pem) = std::fs::read(&bundle) else {
            continue;
        };
        let certs: Vec<_> = ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                _ => None,
            })
            .collect();
        if !certs.is_empty() {
            return ureq::tls::RootCerts::new_with_certs(&certs);
        }
    }
    ureq::tls::RootCerts::WebPki
}

/// Checks `wheel` (its bytes) against the sha256 the index gave, then
/// writes the library in it to `dest` (through a temporary file, so a
/// failure leaves nothing half-written where kb looks).
pub(crate) fn install(lib: &Library, wheel: &[u8], sha256: &str, dest: &Path) -> Result<PathBuf> {
    let got = hex::encode(Sha256::digest(wheel));
    if !got.eq_ignore_ascii_case(sha256) {
        return Err(KbError::Download(format!(
            "the {} {} wheel's sha256 is {got}, but PyPI's index says {sha256}; refusing it",
            lib.package, lib.version
        )));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(wheel)).map_err(|e| {
        KbError::Download(format!("the {} wheel is not a zip file: {e}", lib.package))
    })?;
    let member = zip
        .file_names()
        .filter(|n| is_library(lib, n))
        // The fully versioned name, where a wheel has several.
        .max_by_key(|n| n.len())
        .map(str::to_string)
        .ok_or_else(|| {
            KbError::Download(format!(
                "no {}* in the {} {} wheel",
                lib.stem, lib.package, lib.version
            ))
        })?;
    let dir = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| KbError::io(dir, e))?;
    let tmp = dest.with_extension("part");
    let written = (|| -> std::io::Result<()> {
        let mut entry = zip.by_name(&member).map_err(std::io::Error::other)?;
        let mut out = std::fs::File::create(&tmp)?;
        std::io::copy(&mut entry, &mut out)?;
        out.sync_all()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
        }
        std::fs::rename(&tmp, dest)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(KbError::io(dest, e));
    }
    // What setup.sh's scripts write beside the library, so they see it as
    // theirs and up to date.
    let stamp = match lib.kind {
        Kind::Runtime => ("VERSION", format!("{}\n", lib.version)),
        Kind::PdfEngine => ("SOURCE", format!("{}=={}\n", lib.package, lib.version)),
    };
    let _ = std::fs::write(dir.join(stamp.0), stamp.1);
    Ok(dest.to_path_buf())
}

/// Whether a member of the wheel is the library (not a helper beside it,
/// such as ONNX Runtime's providers library).
fn is_library(lib: &Library, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(lib.stem) else {
        return false;
    };
    // libonnxruntime.so.1.31.1, libonnxruntime.1.31.1.dylib, libpdfium.so
    rest.starts_with('.') && (rest.contains(".so") || rest.ends_with(".dylib"))
}

/// A wheel (a zip file) holding `files`, for the fetch tests.
#[cfg(test)]
pub(crate) fn test_wheel(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    for (name, data) in files {
        zip.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wheel_whose_sha256_differs_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("onnxruntime").join(ONNX_RUNTIME.file);
        let bytes = test_wheel(&[("onnxruntime/capi/libonnxruntime.so.1.31.1", b"ELF runtime")]);
        let wrong = hex::encode(Sha256::digest(b"another wheel"));
        let e = install(&ONNX_RUNTIME, &bytes, &wrong, &dest).unwrap_err();
        assert!(e.to_string().contains("sha256"), "{e}");
        assert!(e.to_string().contains(&wrong), "{e}");
        assert!(!dest.exists() && !dest.with_extension("part").exists());
        assert!(!dest.parent().unwrap().exists());
    }

    #[test]
    fn the_library_is_taken_out_of_a_checked_wheel() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("onnxruntime").join(ONNX_RUNTIME.file);
        let bytes = test_wheel(&[
            ("onnxruntime/__init__.py", b""),
            (
                "onnxruntime/capi/libonnxruntime_providers_shared.so",
                b"helper",
            ),
            ("onnxruntime/capi/libonnxruntime.so.1.31.1", b"ELF runtime"),
        ]);
        let sha = hex::encode(Sha256::digest(&bytes)).to_uppercase();
        assert_eq!(install(&ONNX_RUNTIME, &bytes, &sha, &dest).unwrap(), dest);
        assert_eq!(std::fs::read(&dest).unwrap(), b"ELF runtime");
        assert_eq!(
            std::fs::read_to_string(dest.with_file_name("VERSION")).unwrap(),
            "1.31.1\n"
        );
        let pdf_dest = dir.path().join("pdfium").join(PDFIUM.file);
        let bytes = test_wheel(&[("pypdfium2_raw/libpdfium.so", b"pdf engine")]);
        let sha = hex::encode(Sha256::digest(&bytes));
        install(&PDFIUM, &bytes, &sha, &pdf_dest).unwrap();
        assert_eq!(std::fs::read(&pdf_dest).unwrap(), b"pdf engine");
        // A wheel without the library.
        let bytes = test_wheel(&[("pypdfium2/__init__.py", b"")]);
        let sha = hex::encode(Sha256::digest(&bytes));
        let e = install(&PDFIUM, &bytes, &sha, &dir.path().join("x.so")).unwrap_err();
        assert!(e.to_string().contains("no pypdfium2_raw/libpdfium"), "{e}");
    }

    #[test]
    fn library_members_by_name() {
        assert!(is_library(
            &ONNX_RUNTIME,
            "onnxruntime/capi/libonnxruntime.so.1.31.1"
        ));
        assert!(is_library(
            &ONNX_RUNTIME,
            "onnxruntime/capi/libonnxruntime.1.31.1.dylib"
        ));
        assert!(!is_library(
            &ONNX_RUNTIME,
            "onnxruntime/capi/libonnxruntime_providers_shared.so"
        ));
        assert!(!is_library(
            &ONNX_RUNTIME,
            "onnxruntime/capi/onnxruntime_pybind11_state.so"
        ));
        assert!(is_library(&PDFIUM, "pypdfium2_raw/libpdfium.so"));
        assert!(is_library(&PDFIUM, "pypdfium2_raw/libpdfium.dylib"));
    }

    /// One version for each library: the one ./setup.sh's scripts install.
    #[test]
    fn the_versions_are_the_scripts_versions() {
        let model = include_str!("../../scripts/prepare_model.py");
        assert!(
            model.contains(&format!("\"onnxruntime=={}\"", ONNX_RUNTIME.version)),
            "scripts/prepare_model.py pins another onnxruntime"
        );
        let pdf = include_str!("../../scripts/prepare_pdf.sh");
        assert!(
            pdf.contains(&format!("pypdfium2=={}}}", PDFIUM.version)),
            "scripts/prepare_pdf.sh pins another pypdfium2"
        );
    }

    #[test]
    fn offline_advice_says_what_to_do() {
        let text = PDFIUM.offline_advice("connection refused");
        for part in [
            "connection refused",
            "./setup.sh",
            "https://pypi.org/project/pypdfium2/5.15.2/#files",
            "PDFIUM_DYNAMIC_LIB_PATH",
            "ingestion.pdfium",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
    }
}
