//! `kb mcp`: the knowledge base as a Model Context Protocol server over
//! stdio, built on the official Rust SDK (`rmcp`). The tools map onto the
//! `kb` commands and return their JSON; the model and the vectors stay
//! loaded between calls (see `engine`).
//!
//! Errors follow the envelope of the Colibri tool contract: a tool result
//! with `isError: true` whose text is
//! `{"ok": false, "error": {"code": "INVALID_PARAMS" | "HANDLER_ERROR", ...}}`.
//! Neither ends the server; an unknown tool is a JSON-RPC error.

mod engine;
mod tools;
mod validate;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use crate::config::Config;
use crate::error::{KbError, Result};
use engine::{Engine, ToolError};
use tools::{ToolDef, ToolName};

pub use validate::Issue;

/// How `kb mcp` was started.
pub struct ServeOptions {
    /// Offer `add` and `remove`.
    pub allow_write: bool,
    /// Set on Ctrl-C or SIGTERM; a running `add` stops after its document.
    pub cancel: &'static AtomicBool,
}

const INSTRUCTIONS: &str =
    "kb is a local knowledge base of the user's documents. Use search first \
(hybrid keyword + semantic); cite results by title and path with the section or page. Widen a hit \
with show (chunk_id, context: 1-2), read a whole section with outline then show (document, \
section). score is for ordering only; score_breakdown.cosine below about 0.35 means no good match: \
say so rather than guess.";

#[derive(Clone)]
struct KbServer {
    engine: Arc<Mutex<Engine>>,
    tools: Arc<Vec<ToolDef>>,
    allow_write: bool,
}

fn lock(engine: &Mutex<Engine>) -> MutexGuard<'_, Engine> {
    // A panic inside a tool is reported as that call's error; the state it
    // left is still usable (every load is replaced wholesale).
    engine.lock().unwrap_or_else(|p| p.into_inner())
}

/// The text of an error result, in the envelope of the tool contract.
fn error_envelope(code: &str, message: &str, extra: Map<String, Value>) -> Value {
    let mut error = Map::new();
    error.insert("code".into(), json!(code));
    error.insert("message".into(), json!(message));
    error.extend(extra);
    json!({ "ok": false, "error": error })
}

fn tool_error_result(tool: &str, e: ToolError) -> CallToolResult {
    let envelope = match e {
        ToolError::Invalid(issues) => {
            let mut extra = Map::new();
            extra.insert("details".into(), json!({ "issues": issues }));
            error_envelope(
                "INVALID_PARAMS",
                &format!("invalid arguments for {tool}; see details.issues"),
                extra,
            )
        }
        ToolError::Failed(err) => {
            let mut extra = Map::new();
            extra.insert("kb_code".into(), json!(err.code()));
            error_envelope("HANDLER_ERROR", &err.to_string(), extra)
        }
    };
    CallToolResult::error(vec![ContentBlock::text(
        serde_json::to_string_pretty(&envelope).unwrap_or_default(),
    )])
}

impl KbServer {
    fn find(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name.as_str() == name)
    }
}

impl ServerHandler for KbServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("kb", env!("CARGO_PKG_VERSION"))
                    .with_title("kb knowledge base"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(ToolDef::to_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(def) = self.find(&name).cloned() else {
            let hint = match ToolName::parse(&name) {
                Some(t) if t.writes() && !self.allow_write => {
                    "; it changes the knowledge base and is offered only by `kb mcp --allow-write`"
                }
                _ => "",
            };
            let known: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
            return Err(McpError::invalid_params(
                format!("unknown tool: {name}{hint}"),
                Some(json!({ "tools": known })),
            ));
        };
        let tool = def.name;
        let args = Value::Object(request.arguments.unwrap_or_default());
        let started = Instant::now();
        // Malformed arguments are answered at once, without waiting for a
        // call that holds the engine (a first search loading the model).
        let issues = def.check(&args);
        if !issues.is_empty() {
            return Ok(tool_error_result(&name, ToolError::Invalid(issues)).into());
        }
        let engine = self.engine.clone();
        // SQLite and ONNX Runtime block: run the call on the blocking pool.
        let outcome = tokio::task::spawn_blocking(move || {
            let mut e = lock(&engine);
            let result = e.call(&def, &args);
            (result, e.counters())
        })
        .await;
        let (result, counters) = match outcome {
            Ok(x) => x,
            Err(join) => {
                eprintln!("kb mcp: {name} crashed: {join}");
                let e = KbError::Model(format!("internal error in {name}: {join}"));
                return Ok(tool_error_result(&name, ToolError::Failed(e)).into());
            }
        };
        let took_ms = (started.elapsed().as_secs_f64() * 1e4).round() / 10.0;
        let mut result = match result {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => {
                if let ToolError::Failed(err) = &e {
                    eprintln!("kb mcp: {name}: {} ({})", err, err.code());
                }
                tool_error_result(&name, e)
            }
        };
        let mut meta = Map::new();
        meta.insert("kb/took_ms".into(), json!(took_ms));
        meta.insert("kb/model_loads".into(), json!(counters.model_loads));
        meta.insert("kb/vector_loads".into(), json!(counters.vector_loads));
        meta.insert(
            "kb/vector_refreshes".into(),
            json!(counters.vector_refreshes),
        );
        result.meta = Some(MetaObject(meta));
        if tool == ToolName::Search {
            // The search log is written after the answer is on its way.
            let engine = self.engine.clone();
            tokio::task::spawn_blocking(move || lock(&engine).flush_log());
        }
        Ok(result.into())
    }
}

/// The file descriptor protocol messages go to. On Unix the original
/// stdout is duplicated for the protocol and fd 1 is pointed at stderr, so
/// nothing else in the process (a library's print, a stray `println!`) can
/// corrupt the JSON-RPC stream.
#[cfg(unix)]
fn protocol_output() -> Result<tokio::fs::File> {
    use std::io::Write as _;
    use std::os::fd::FromRawFd;
    let _ = std::io::stdout().flush();
    // SAFETY: dup/dup2/fcntl on the process's own standard descriptors;
    // the duplicate is owned by the File from here on.
    unsafe {
        let fd = libc::dup(1);
        if fd < 0 {
            return Err(KbError::io("stdout", std::io::Error::last_os_error()));
        }
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        if libc::dup2(2, 1) < 0 {
            return Err(KbError::io("stdout", std::io::Error::last_os_error()));
        }
        Ok(tokio::fs::File::from_std(std::fs::File::from_raw_fd(fd)))
    }
}

#[cfg(not(unix))]
fn protocol_output() -> Result<tokio::io::Stdout> {
    Ok(tokio::io::stdout())
}

/// Resolves on Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Serves until stdin closes or a signal arrives; both are a clean exit.
pub fn serve(config: Config, opts: ServeOptions) -> Result<()> {
    let tools: Vec<ToolDef> = ToolName::ALL
        .into_iter()
        .filter(|t| opts.allow_write || !t.writes())
        .map(ToolDef::new)
        .collect();
    let engine = Engine::new(config, opts.cancel);
    eprintln!(
        "kb mcp: serving {} over stdio; tools: {}",
        engine.db_path().display(),
        tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let server = KbServer {
        engine: Arc::new(Mutex::new(engine)),
        tools: Arc::new(tools),
        allow_write: opts.allow_write,
    };
    let out = protocol_output()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| KbError::io("tokio runtime", e))?;
    let cancel = opts.cancel;
    let engine = server.engine.clone();
    runtime.block_on(async move {
        let transport = (tokio::io::stdin(), out);
        let running = tokio::select! {
            r = server.serve(transport) => r,
            _ = shutdown_signal() => {
                eprintln!("kb mcp: signal received before initialization; stopping");
                return;
            }
        };
        let running = match running {
            Ok(r) => r,
            Err(e) => {
                // stdin closed (or the client went away) before initializing.
                eprintln!("kb mcp: stopped before initialization: {e}");
                return;
            }
        };
        let token = running.cancellation_token();
        tokio::spawn(async move {
            shutdown_signal().await;
            eprintln!("kb mcp: signal received; stopping");
            cancel.store(true, Ordering::SeqCst);
            token.cancel();
        });
        match running.waiting().await {
            Ok(reason) => eprintln!("kb mcp: stopped ({reason:?})"),
            Err(e) => eprintln!("kb mcp: stopped: {e}"),
        }
    });
    // Waits for a call still running (an interrupted add stops after its
    // document), then writes what the search log still holds.
    lock(&engine).flush_log();
    // stdin's reader thread may still be blocked in read(2): do not wait.
    runtime.shutdown_background();
    Ok(())
}
