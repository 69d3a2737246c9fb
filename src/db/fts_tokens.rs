//! FTS5's own tokenizer, called from Rust. The keyword index of `kb mcp`
//! (`search::keyword_index`) must split text into exactly the tokens
//! `chunks_fts` holds (`porter unicode61`: case folding, diacritics,
//! stemming), so it asks the tokenizer SQLite uses rather than imitating it.

use std::ffi::{c_char, c_int, c_void, CString};
use std::marker::PhantomData;

use rusqlite::ffi;

use super::Database;
use crate::error::{KbError, Result};

/// What a text is being split for: FTS5 tells its tokenizer, which may
/// treat the two differently (the built-in ones do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenPurpose {
    /// A chunk's column, as when it is inserted.
    Document,
    /// A quoted string of a MATCH expression.
    Query,
}

/// The longest token FTS5 stores; longer ones are cut to this many bytes
/// (`FTS5_MAX_TOKEN_SIZE`).
pub const MAX_TOKEN_BYTES: usize = 32768;

/// An instance of `chunks_fts`'s tokenizer on one connection.
pub struct FtsTokenizer<'db> {
    methods: ffi::fts5_tokenizer,
    instance: *mut ffi::Fts5Tokenizer,
    _db: PhantomData<&'db Database>,
}

/// The words of `chunks_fts`'s `tokenize` option (`porter unicode61`):
/// the tokenizer's name and its arguments.
fn tokenize_spec(db: &Database) -> Result<Vec<String>> {
    let sql: String = db.conn().query_row(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'",
        [],
        |r| r.get(0),
    )?;
    parse_tokenize_option(&sql).ok_or_else(|| {
        KbError::Db(format!(
            "the keyword index's tokenize option could not be read from: {sql}"
        ))
    })
}

/// The words of `tokenize = '...'` in an FTS5 table's CREATE statement;
/// `None` when it is missing or quoted in a way this does not read (FTS5
/// has its own quoting rules; kb's schema uses bare words).
fn parse_tokenize_option(sql: &str) -> Option<Vec<String>> {
    let lower = sql.to_ascii_lowercase();
    let at = lower.find("tokenize")?;
    let rest = sql[at + "tokenize".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let quote = rest.chars().next()?;
    if quote != '\'' && quote != '"' {
        return None;
    }
    let inner = &rest[1..];
    let value = &inner[..inner.find(quote)?];
    let words: Vec<String> = value.split_whitespace().map(str::to_string).collect();
    let bare = |w: &String| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (!words.is_empty() && words.iter().all(bare)).then_some(words)
}

/// The connection's `fts5_api`, as SQLite documents obtaining it
/// (`SELECT fts5(?1)` with a pointer bound to `?1`).
fn fts5_api(db: &Database) -> Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = std::ptr::null_mut();
    // SAFETY: the statement is prepared, bound, stepped and finalized on
    // this connection's handle; the bound pointer is to `api`, which
    // outlives the statement, with the type name FTS5 checks.
    unsafe {
        let handle = db.conn().handle();
        let mut stmt: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
        let sql = c"SELECT fts5(?1)";
        if ffi::sqlite3_prepare_v2(handle, sql.as_ptr(), -1, &mut stmt, std::ptr::null_mut())
            == ffi::SQLITE_OK
        {
            ffi::sqlite3_bind_pointer(
                stmt,
                1,
                (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
                c"fts5_api_ptr".as_ptr(),
                None,
            );
            ffi::sqlite3_step(stmt);
        }
        ffi::sqlite3_finalize(stmt);
    }
    if api.is_null() {
        return Err(KbError::Db("SQLite's FTS5 API is not available".into()));
    }
    Ok(api)
}

impl Database {
    /// A tokenizer that splits text as `chunks_fts` does.
    pub fn fts_tokenizer(&self) -> Result<FtsTokenizer<'_>> {
        let spec = tokenize_spec(self)?;
        let api = fts5_api(self)?;
        let name = CString::new(spec[0].as_str()).expect("bare words hold no NUL");
        let args: Vec<CString> = spec[1..]
            .iter()
            .map(|a| CString::new(a.as_str()).expect("bare words hold no NUL"))
            .collect();
        let mut arg_ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: `api` is this connection's fts5_api (valid while the
        // connection is open, which the returned borrow guarantees); the
        // tokenizer's methods are copied out as FTS5 itself does, and
        // xCreate gets NUL-terminated arguments that live through the call.
        unsafe {
            let find = (*api)
                .xFindTokenizer
                .ok_or_else(|| KbError::Db("FTS5 has no xFindTokenizer".into()))?;
            let mut user_data: *mut c_void = std::ptr::null_mut();
            let mut methods: ffi::fts5_tokenizer = std::mem::zeroed();
            if find(api, name.as_ptr(), &mut user_data, &mut methods) != ffi::SQLITE_OK {
                return Err(KbError::Db(format!(
                    "FTS5 has no tokenizer named {}",
                    spec[0]
                )));
            }
            let create = methods
                .xCreate
                .ok_or_else(|| KbError::Db("the FTS5 tokenizer has no xCreate".into()))?;
            let mut instance: *mut ffi::Fts5Tokenizer = std::ptr::null_mut();
            let rc = create(
                user_data,
                arg_ptrs.as_mut_ptr(),
                arg_ptrs.len() as c_int,
                &mut instance,
            );
            if rc != ffi::SQLITE_OK || instance.is_null() {
                return Err(KbError::Db(format!(
                    "the FTS5 tokenizer '{}' could not be created (code {rc})",
                    spec.join(" ")
                )));
            }
            Ok(FtsTokenizer {
                methods,
                instance,
                _db: PhantomData,
            })
        }
    }
}

/// The Rust closure a tokenizer call reports its tokens to.
type TokenSink<'a> = &'a mut dyn FnMut(&[u8], bool);

unsafe extern "C" fn on_token(
    ctx: *mut c_void,
    flags: c_int,
    token: *const c_char,
    len: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    // SAFETY: `ctx` is the `&mut TokenSink` that `FtsTokenizer::tokens`
    // passed for the duration of the call; `token` points to `len` bytes.
    let sink = unsafe { &mut *ctx.cast::<TokenSink<'_>>() };
    let bytes: &[u8] = if token.is_null() || len <= 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(token.cast::<u8>(), len as usize) }
    };
    let bytes = &bytes[..bytes.len().min(MAX_TOKEN_BYTES)];
    let colocated = flags & ffi::FTS5_TOKEN_COLOCATED != 0;
    // A panic must not unwind into C.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink(bytes, colocated))) {
        Ok(()) => ffi::SQLITE_OK,
        Err(_) => ffi::SQLITE_ERROR,
    }
}

impl FtsTokenizer<'_> {
    /// Calls `f` with each token of `text` (cut to [`MAX_TOKEN_BYTES`], as
    /// FTS5 stores it) and whether it is a synonym of the one before
    /// (`FTS5_TOKEN_COLOCATED`; never with kb's tokenizer).
    pub fn tokens(
        &self,
        text: &str,
        purpose: TokenPurpose,
        f: &mut dyn FnMut(&[u8], bool),
    ) -> Result<()> {
        let Some(tokenize) = self.methods.xTokenize else {
            return Err(KbError::Db("the FTS5 tokenizer has no xTokenize".into()));
        };
        let len = c_int::try_from(text.len())
            .map_err(|_| KbError::Db("a text too long for the FTS5 tokenizer".into()))?;
        let flags = match purpose {
            TokenPurpose::Document => ffi::FTS5_TOKENIZE_DOCUMENT,
            TokenPurpose::Query => ffi::FTS5_TOKENIZE_QUERY,
        };
        let mut sink: TokenSink<'_> = f;
        // SAFETY: the instance is alive (dropped only with `self`); the
        // context pointer is to `sink`, which outlives the call; the text
        // pointer and length describe `text`.
        let rc = unsafe {
            tokenize(
                self.instance,
                (&mut sink as *mut TokenSink<'_>).cast::<c_void>(),
                flags,
                text.as_ptr().cast::<c_char>(),
                len,
                Some(on_token),
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(KbError::Db(format!(
                "the FTS5 tokenizer failed (code {rc})"
            )));
        }
        Ok(())
    }
}

impl Drop for FtsTokenizer<'_> {
    fn drop(&mut self) {
        if let Some(delete) = self.methods.xDelete {
            // SAFETY: the instance came from this tokenizer's xCreate and
            // is deleted once.
            unsafe { delete(self.instance) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::OpenMode;

    fn tokens(t: &FtsTokenizer<'_>, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        t.tokens(text, TokenPurpose::Document, &mut |b, _| {
            out.push(String::from_utf8_lossy(b).into_owned())
        })
        .unwrap();
        out
    }

    #[test]
    fn the_option_is_read_from_the_schema() {
        assert_eq!(
            parse_tokenize_option(
                "CREATE VIRTUAL TABLE x USING fts5(a, tokenize = 'porter unicode61')"
            ),
            Some(vec!["porter".to_string(), "unicode61".to_string()])
        );
        assert_eq!(
            parse_tokenize_option("CREATE VIRTUAL TABLE x USING fts5(a)"),
            None
        );
        assert_eq!(
            parse_tokenize_option("CREATE VIRTUAL TABLE x USING fts5(a, tokenize=\"unicode61 'remove_diacritics' 2\")"),
            None
        );
    }

    #[test]
    fn splits_like_the_keyword_index() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        assert_eq!(tokenize_spec(&db).unwrap(), ["porter", "unicode61"]);
        let t = db.fts_tokenizer().unwrap();
        assert_eq!(
            tokens(
                &t,
                "Running quickly: Café-au-lait, 2018's parse_config 東京タワー"
            ),
            [
                "run",
                "quickli",
                "cafe",
                "au",
                "lait",
                "2018",
                "s",
                "pars",
                "config",
                "東京タワー"
            ]
        );
        assert!(tokens(&t, " ... ").is_empty());
    }
}
