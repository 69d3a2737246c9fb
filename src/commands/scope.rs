//! `--document DOC` and `--path GLOB`: the documents a search is confined
//! to, resolved to their ids before ranking.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder};

use super::document::DocRef;
use crate::db::Database;
use crate::error::{Hint, KbError, Result};

/// The ids of the documents a search may return: those named (any of
/// them), and of those, or of all, the ones whose path matches a glob (any
/// of them); `None` when neither is given (every document). Like the other
/// filters, the two kinds together narrow: `--document a.md --path '*.go'`
/// is nothing, and says so.
pub(crate) fn documents_in_scope(
    db: &Database,
    documents: &[DocRef],
    globs: &[String],
) -> Result<Option<Vec<i64>>> {
    if documents.is_empty() && globs.is_empty() {
        return Ok(None);
    }
    let mut named = BTreeSet::new();
    for d in documents {
        named.insert(d.resolve(db)?.summary.id);
    }
    if globs.is_empty() {
        return Ok(Some(named.into_iter().collect()));
    }
    let matched = matching_paths(db, globs)?;
    if matched.is_empty() {
        return Err(KbError::NotFound(format!(
            "no indexed document's path matches {}",
            globs.join(" or ")
        ))
        .hint(Hint::ListDocuments));
    }
    if documents.is_empty() {
        return Ok(Some(matched.into_iter().collect()));
    }
    let both: Vec<i64> = named.intersection(&matched).copied().collect();
    if both.is_empty() {
        return Err(KbError::NotFound(format!(
            "none of the documents named has a path that matches {}",
            globs.join(" or ")
        )));
    }
    Ok(Some(both))
}

/// The ids of the indexed files whose path matches any of the globs. Each
/// glob is tried under the current folder first and, where nothing there
/// matches, against the indexed paths' tails (`reports/**` is any folder
/// named reports).
fn matching_paths(db: &Database, globs: &[String]) -> Result<BTreeSet<i64>> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let home = dirs::home_dir();
    let files = db.indexed_files()?;
    let mut ids = BTreeSet::new();
    for asked in globs {
        let matches = |pattern: &str| -> Result<Vec<i64>> {
            let g = glob(pattern, asked, "path")?.compile_matcher();
            Ok(files
                .iter()
                .filter(|(path, _)| g.is_match(path))
                .map(|(_, f)| f.id)
                .collect())
        };
        let mut found = matches(&absolute_pattern(asked, &cwd, home.as_deref()))?;
        if found.is_empty() {
            found = matches(&tail_pattern(asked))?;
        }
        ids.extend(found);
    }
    Ok(ids)
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

/// A relative glob as it applies to the end of any stored path
/// (`reports/**` → `**/reports/**`); an absolute one as it is.
fn tail_pattern(glob: &str) -> String {
    let rel = glob.strip_prefix("./").unwrap_or(glob);
    if rel.starts_with('/') || rel.starts_with("~/") || rel.starts_with("**/") {
        rel.to_string()
    } else {
        format!("**/{rel}")
    }
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
        assert_eq!(tail_pattern("reports/**"), "**/reports/**");
        assert_eq!(tail_pattern("./a/*.md"), "**/a/*.md");
        assert_eq!(tail_pattern("/srv/x/*"), "/srv/x/*");
    }
}
