//! `--document DOC` and `--path GLOB`: the documents a search is confined
//! to, resolved to their ids before ranking.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSetBuilder};

use super::document::DocRef;
use crate::db::Database;
use crate::error::{Hint, KbError, Result};

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
        let build = |patterns: &[String]| -> Result<globset::GlobSet> {
            let mut set = GlobSetBuilder::new();
            for (p, asked) in patterns.iter().zip(globs) {
                set.add(glob(p, asked, "path")?);
            }
            set.build()
                .map_err(|e| KbError::invalid("path", format!("--path: {e}")))
        };
        let here: Vec<String> = globs
            .iter()
            .map(|g| absolute_pattern(g, &cwd, home.as_deref()))
            .collect();
        let here = build(&here)?;
        let files = db.indexed_files()?;
        let before = ids.len();
        let mut matched: Vec<i64> = files
            .iter()
            .filter(|(path, _)| here.is_match(path))
            .map(|(_, f)| f.id)
            .collect();
        // Nothing under the current folder: the indexed paths' tails
        // (`reports/**` is any folder named reports).
        if matched.is_empty() {
            let tails: Vec<String> = globs.iter().map(|g| tail_pattern(g)).collect();
            let tails = build(&tails)?;
            matched = files
                .iter()
                .filter(|(path, _)| tails.is_match(path))
                .map(|(_, f)| f.id)
                .collect();
        }
        ids.extend(matched);
        if ids.len() == before && documents.is_empty() {
            return Err(KbError::NotFound(format!(
                "no indexed document's path matches {}",
                globs.join(" or ")
            ))
            .hint(Hint::ListDocuments));
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
