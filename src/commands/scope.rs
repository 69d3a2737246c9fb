//! `--document DOC` and `--path GLOB`: the documents a search is confined
//! to, resolved to their ids before ranking.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSetBuilder};

use super::document::DocRef;
use crate::db::Database;
use crate::error::{KbError, Result};

/// The ids of the documents named or whose path matches a glob (any of
/// them); `None` when neither is given (every document).
pub(crate) fn documents_in_scope(
    db: &Database,
    documents: &[DocRef],
    globs: &[String],
) -> Result<Option<Vec<i64>>> {
    if documents.is_empty() && globs.is_empty() {
        return Ok(None);
    }
    let mut ids = BTreeSet::new();
    for d in documents {
        ids.insert(d.resolve(db)?.summary.id);
    }
    if !globs.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let home = dirs::home_dir();
        let mut set = GlobSetBuilder::new();
        for g in globs {
            set.add(glob(
                &absolute_pattern(g, &cwd, home.as_deref()),
                g,
                "path",
            )?);
        }
        let set = set
            .build()
            .map_err(|e| KbError::invalid("path", format!("--path: {e}")))?;
        let before = ids.len();
        for (path, file) in db.indexed_files()? {
            if set.is_match(&path) {
                ids.insert(file.id);
            }
        }
        if ids.len() == before && documents.is_empty() {
            return Err(KbError::NotFound(format!(
                "no indexed document's path matches {}; `kb list` shows the indexed paths",
                globs.join(" or ")
            )));
        }
    }
    Ok(Some(ids.into_iter().collect()))
}

/// A glob as kb reads them everywhere (`*` stays within a folder, `**`
/// crosses folders), compiled; `asked` is how the user wrote it, for the
/// error.
pub(crate) fn glob(pattern: &str, asked: &str, field: &'static str) -> Result<Glob> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| KbError::invalid(field, format!("--{field} {asked}: not a glob ({e})")))
}

/// A pattern without a `/` names a file in any folder.
pub(crate) fn any_folder(pattern: &str) -> Option<String> {
    (!pattern.contains('/')).then(|| format!("**/{pattern}"))
}

/// A glob as it applies to stored (absolute) paths: one without a `/`
/// matches a file name in any folder, `~/` is the home folder, and a
/// relative one is relative to the current folder.
fn absolute_pattern(glob: &str, cwd: &Path, home: Option<&Path>) -> String {
    if let Some(anywhere) = any_folder(glob) {
        return anywhere;
    }
    if let (Some(rest), Some(home)) = (glob.strip_prefix("~/"), home) {
        return format!("{}/{rest}", home.display());
    }
    if glob.starts_with('/') || glob.starts_with("**/") {
        return glob.to_string();
    }
    let rel = glob.strip_prefix("./").unwrap_or(glob);
    format!("{}/{rel}", cwd.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_apply_to_absolute_paths() {
        let (cwd, home) = (Path::new("/work/docs"), Some(Path::new("/home/me")));
        assert_eq!(absolute_pattern("*.pdf", cwd, home), "**/*.pdf");
        assert_eq!(
            absolute_pattern("reports/**", cwd, home),
            "/work/docs/reports/**"
        );
        assert_eq!(absolute_pattern("./a/*.md", cwd, home), "/work/docs/a/*.md");
        assert_eq!(
            absolute_pattern("~/notes/*.md", cwd, home),
            "/home/me/notes/*.md"
        );
        assert_eq!(absolute_pattern("/srv/x/*", cwd, home), "/srv/x/*");
        assert_eq!(absolute_pattern("**/guides/*", cwd, home), "**/guides/*");
    }
}
