//! Source code (not built yet).

use std::path::Path;

use super::{ChunkContext, ParsedDocument};

pub fn parse(_path: &Path, _bytes: &[u8], _ctx: &ChunkContext) -> Result<ParsedDocument, String> {
    Err("code files are not supported yet".into())
}
