//! `kb mcp`: the knowledge base as a Model Context Protocol server over
//! stdio, built on the official Rust SDK (`rmcp`). The tools map onto the
//! `kb` commands and return their JSON; the model and the vectors stay
//! loaded between calls in one server session (see `session`).
//!
//! Errors follow the envelope of the Colibri tool contract: a tool result
//! with `isError: true` whose text is
//! `{"ok": false, "error": {"code": "INVALID_PARAMS" | "HANDLER_ERROR", ...}}`.
//! Neither ends the server; an unknown tool is a JSON-RPC error.

mod stop;
mod tools;
mod validate;
mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use crate::commands::{self, CallError};
use crate::config::Config;
use crate::error::{KbError, Result};
use crate::session::{Session, SessionKind};
use stop::Stops;
use tools::ToolDef;

pub(crate) use validate::Issue;

/// What the server tells a client about using it; the weak-match cosine
/// is the configuration's default, as SKILL.md states it.
fn instructions() -> String {
    format!(
        "kb is a local knowledge base of the user's documents. Use search first (hybrid keyword + \
semantic); cite results by title and path with the section or page. Widen a hit with show \
(chunk_id, context: 1-2), read a whole section with outline then show (document, section); for a \
long PDF, set max_per_document 0 to list every matching page of it, or open (document, pages). \
score is for ordering only; no_good_match true (every result weak: not every query word in it and \
cosine under {}) means the knowledge base does not cover the question: say so rather than guess.",
        crate::config::WEAK_COSINE
    )
}

/// Whether the client's protocol has tool titles, output schemas and
/// structured results (2025-06-18 on; versions compare as ISO dates).
fn structured(version: Option<ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() > tools::BEFORE_STRUCTURED)
}

#[derive(Clone)]
struct KbServer {
    session: Arc<Mutex<Session>>,
    tools: Arc<Vec<ToolDef>>,
    allow_write: bool,
    /// The session's stop flag, for signals and cancelled calls.
    stops: Arc<Stops>,
}

fn lock(session: &Mutex<Session>) -> MutexGuard<'_, Session> {
    // A panic inside a tool is reported as that call's error; the state it
    // left is still usable (every load is replaced wholesale).
    session.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why a call did not produce its result, in the tool contract's terms.
enum ToolError {
    /// The arguments are wrong: each issue names its field.
    Invalid(Vec<Issue>),
    /// The tool ran and failed.
    Failed(KbError),
}

impl From<CallError> for ToolError {
    fn from(e: CallError) -> ToolError {
        match e {
            CallError::Invalid(issues) => ToolError::Invalid(
                issues
                    .into_iter()
                    .map(|(field, message)| Issue::new(field, message))
                    .collect(),
            ),
            // A meaning check on one argument (an empty query, a section
            // without its document) is the caller's to fix: name the field.
            CallError::Failed(e) => match e.field() {
                Some(field) => ToolError::Invalid(vec![Issue::new(field, e.for_agent())]),
                None => ToolError::Failed(e),
            },
        }
    }
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
            if !err.suggestions().is_empty() {
                extra.insert("suggestions".into(), json!(err.suggestions()));
            }
            error_envelope("HANDLER_ERROR", &err.for_agent(), extra)
        }
    };
    CallToolResult::error(vec![ContentBlock::text(
        serde_json::to_string_pretty(&envelope).unwrap_or_default(),
    )])
}

/// Runs one tool call in the session; returns the JSON text of its result.
fn call(session: &mut Session, name: &str, args: Value) -> Result<String, ToolError> {
    session.forget_replaced_db();
    let outcome = commands::run_json(name, args, session)
        .ok_or_else(|| ToolError::Failed(KbError::Internal(format!("no command {name}"))))??;
    outcome.mcp_json().map_err(ToolError::Failed)
}

impl KbServer {
    fn find(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name() == name)
    }
}

impl ServerHandler for KbServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("kb", env!("CARGO_PKG_VERSION"))
                    .with_title("kb knowledge base"),
            )
            .with_instructions(instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        let structured = structured(context.protocol_version());
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(|t| t.to_tool(structured)).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        let structured = structured(context.protocol_version());
        let name = request.name.to_string();
        let Some(def) = self.find(&name).cloned() else {
            let hint = if tools::writes(&name) && !self.allow_write {
                "; it changes the knowledge base and is offered only by `kb mcp --allow-write`"
            } else {
                ""
            };
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
            return Err(McpError::invalid_params(
                format!("unknown tool: {name}{hint}"),
                Some(json!({ "tools": known })),
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let started = Instant::now();
        // Malformed arguments are answered at once, without waiting for a
        // call that holds the session (a first search loading the model).
        let (args, issues) = def.check(args);
        if !issues.is_empty() {
            return Ok(tool_error_result(&name, ToolError::Invalid(issues)).into());
        }
        let session = self.session.clone();
        let tool = name.clone();
        // A call the client cancels stops as on Ctrl-C (an add after its
        // document); one still waiting for the session does not start.
        let id = self.stops.ticket();
        let watch = {
            let (ct, stops) = (context.ct.clone(), self.stops.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                stops.cancel(id);
            })
        };
        let (cancelled, stops) = (context.ct.clone(), self.stops.clone());
        // SQLite and ONNX Runtime block: run the call on the blocking pool.
        let outcome = tokio::task::spawn_blocking(move || {
            let mut s = lock(&session);
            stops.start(id);
            let result = if cancelled.is_cancelled() {
                Err(ToolError::Failed(KbError::Interrupted))
            } else {
                call(&mut s, &tool, args)
            };
            stops.finish(id);
            (result, s.counters())
        })
        .await;
        watch.abort();
        let (result, counters) = match outcome {
            Ok(x) => x,
            Err(join) => {
                eprintln!("kb mcp: {name} crashed: {join}");
                let e = KbError::Internal(format!("{name} crashed: {join}"));
                return Ok(tool_error_result(&name, ToolError::Failed(e)).into());
            }
        };
        let took_ms = (started.elapsed().as_secs_f64() * 1e4).round() / 10.0;
        let mut result = match result {
            // The JSON text for every client; the same object as structured
            // content for those whose protocol has it.
            Ok(text) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(text.clone())]);
                if structured {
                    match serde_json::from_str::<Value>(&text) {
                        Ok(v) if v.is_object() => r.structured_content = Some(v),
                        _ => eprintln!("kb mcp: {name}: the result is not a JSON object"),
                    }
                }
                r
            }
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
        meta.insert("kb/keyword_loads".into(), json!(counters.keyword_loads));
        meta.insert(
            "kb/keyword_refreshes".into(),
            json!(counters.keyword_refreshes),
        );
        meta.insert("kb/reranker_loads".into(), json!(counters.reranker_loads));
        result.meta = Some(MetaObject(meta));
        // The search log is written after the answer is on its way.
        let session = self.session.clone();
        tokio::task::spawn_blocking(move || lock(&session).flush_log());
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

/// How long a stopping server waits for its last answers to reach stdout.
const LAST_ANSWERS: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves until stdin closes or a signal arrives; both are a clean exit.
/// `cancel` is set on a signal, so a running `add` stops after its document.
pub(crate) fn serve(config: Config, allow_write: bool, cancel: Arc<AtomicBool>) -> Result<()> {
    let tools = ToolDef::all(allow_write);
    let db_path = config.db_path();
    let session = Session::new(config, SessionKind::Server, cancel.clone())
        .with_notes(Arc::new(|note| eprintln!("kb mcp: {note}")));
    eprintln!(
        "kb mcp: serving {} over stdio; tools: {}",
        db_path.display(),
        tools
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let stops = Arc::new(Stops::new(cancel));
    let server = KbServer {
        session: Arc::new(Mutex::new(session)),
        tools: Arc::new(tools),
        allow_write,
        stops: stops.clone(),
    };
    let out = protocol_output()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| KbError::io("tokio runtime", e))?;
    let session = server.session.clone();
    runtime.block_on(async move {
        // Every line is checked before rmcp sees it: malformed ones are
        // answered (see `wire`).
        let wire = wire::start(tokio::io::stdin(), out);
        let writer = wire.writer;
        let transport = (wire.to_rmcp, wire.from_rmcp);
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
                let _ = tokio::time::timeout(LAST_ANSWERS, writer).await;
                return;
            }
        };
        let token = running.cancellation_token();
        tokio::spawn(async move {
            shutdown_signal().await;
            eprintln!("kb mcp: signal received; stopping");
            stops.signal();
            token.cancel();
        });
        match running.waiting().await {
            Ok(reason) => eprintln!("kb mcp: stopped ({reason:?})"),
            Err(e) => eprintln!("kb mcp: stopped: {e}"),
        }
        // The last answers are still on their way to stdout.
        let _ = tokio::time::timeout(LAST_ANSWERS, writer).await;
    });
    // Waits for a call still running (an interrupted add stops after its
    // document), then writes what the search log still holds.
    lock(&session).flush_log();
    // stdin's reader thread may still be blocked in read(2): do not wait.
    runtime.shutdown_background();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SKILL.md, the server's instructions and the search tool's
    /// description give one weak-match cosine: the configuration's.
    #[test]
    fn one_weak_cosine_everywhere() {
        let w = crate::config::WEAK_COSINE;
        assert_eq!(
            crate::config::Config::default().search.evidence.weak_cosine,
            w
        );
        assert!(instructions().contains(&format!("cosine under {w})")));
        let search = crate::commands::spec("search").unwrap().summary;
        assert!(search.contains(&format!("cosine under {w} ")), "{search}");
        let skill = include_str!("../../SKILL.md");
        assert!(
            skill.contains(&format!("is under {w} (`search.evidence.weak_cosine`)")),
            "SKILL.md does not state the weak cosine {w}"
        );
        assert!(
            skill.contains(&format!("| below {w} | weak")),
            "SKILL.md's table"
        );
        // No other cosine cut-off anywhere in them.
        for text in [skill, search, &instructions()] {
            for other in ["0.3 ", "0.35", "0.45"] {
                assert!(!text.contains(&format!("under {other}")), "{other}");
            }
        }
    }
}
