//! The wire of `kb mcp`: one JSON-RPC message per line on stdin, answers
//! on stdout. rmcp drops a line that is not JSON without a word, so a client
//! that sent one would wait forever for its answer. A reader task sits
//! between stdin and rmcp: every line that is not a message rmcp can take
//! is answered here (JSON-RPC `-32700` parse error or `-32600` invalid
//! request, `id: null` when the id cannot be read; `-32602` invalid params
//! for a request rmcp cannot decode), good lines go on to rmcp, and one
//! writer task puts rmcp's answers and these on stdout, whole lines at a
//! time. A line may be at most [`MAX_LINE_BYTES`]; a longer one is skipped
//! without being kept in memory and answered with `-32600`. Before the
//! session is initialized only `initialize` reaches rmcp
//! ([`before_initialize`]). rmcp keeps one slot per request id, so a second
//! request with the id of one still unanswered would take the first one's
//! answer or lose its own: it is refused here ([`InFlight`]), as is the id
//! of a cancelled request, which is never answered.

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line (one message) `kb mcp` accepts: 4 MiB.
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Until `initialize` has gone through, rmcp's handshake takes nothing
/// else: a notification or a response there ends it (and the server), and
/// a request is read as a call without a session, after which the session
/// stays unusable. So, before it, only `initialize` passes (the second
/// value: it did), a `ping` is answered, another request is refused, and
/// notifications and responses are ignored. `line` passed [`check`].
pub(super) fn before_initialize(line: &[u8]) -> (Verdict, bool) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
        return (Verdict::Pass, false);
    };
    let id = map.get("id").cloned();
    match (map.get("method").and_then(Value::as_str), id) {
        (Some("initialize"), Some(_)) => (Verdict::Pass, true),
        (Some("ping"), Some(id)) => (
            Verdict::Reply(json!({ "jsonrpc": "2.0", "id": id, "result": {} })),
            false,
        ),
        (Some(method), Some(id)) => (
            error_reply(
                id,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: {method} before initialize; initialize the session first"
                ),
            ),
            false,
        ),
        (Some(method), None) => (
            Verdict::Ignore(format!(
                "ignored the notification {method} sent before initialize"
            )),
            false,
        ),
        (None, _) => (
            Verdict::Ignore("ignored a response sent before initialize".into()),
            false,
        ),
    }
}

/// What to do with one incoming line.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// A message rmcp can decode: pass it on.
    Pass,
    /// Nothing to answer (a blank line).
    Skip,
    /// Nothing to answer, but worth a line in the server log.
    Ignore(String),
    /// Answer with this JSON-RPC error; rmcp never sees the line.
    Reply(Value),
}

/// The ids of the requests passed to rmcp and not answered yet (as JSON
/// text: `7` and `"7"` are two ids).
#[derive(Clone, Default)]
pub(super) struct InFlight(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

/// The envelope of a message, its other fields skipped unread.
#[derive(serde::Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<serde::de::IgnoredAny>,
}

impl InFlight {
    fn ids(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A line going to rmcp: a request takes its id, unless a request
    /// still unanswered has it (the refusal to send instead).
    pub(super) fn take(&self, line: &[u8]) -> Option<Verdict> {
        let head: Head = serde_json::from_slice(line).ok()?;
        let (Some(id), Some(_)) = (head.id, head.method) else {
            return None;
        };
        if self.ids().insert(id.to_string()) {
            return None;
        }
        let message = format!(
            "Invalid Request: the id {id} is already in use by a request not answered yet (or \
             cancelled); give each request of the session an id of its own"
        );
        Some(error_reply(id, INVALID_REQUEST, message))
    }

    /// A line rmcp wrote: a response frees its id.
    fn answered(&self, line: &[u8]) {
        if let Ok(Head {
            id: Some(id),
            method: None,
        }) = serde_json::from_slice(line)
        {
            self.ids().remove(&id.to_string());
        }
    }
}

fn error_reply(id: Value, code: i64, message: String) -> Verdict {
    Verdict::Reply(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    }))
}

/// Judges one line (without its newline).
pub(super) fn check(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return Verdict::Skip;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return error_reply(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "Parse error: the line is not valid UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
            )
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return error_reply(Value::Null, PARSE_ERROR, format!("Parse error: {e}"));
        }
    };
    match value {
        Value::Object(map) => check_message(map),
        Value::Array(_) => error_reply(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: batches (JSON arrays) are not supported; send one message per line"
                .into(),
        ),
        _ => error_reply(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message is a JSON object".into(),
        ),
    }
}

/// The envelope of a JSON object: version, id, method or result.
fn check_message(map: Map<String, Value>) -> Verdict {
    let id = map.get("id");
    let id_ok = match id {
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    let reply_id = if id_ok {
        id.cloned().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let invalid = |why: &str| {
        error_reply(
            reply_id.clone(),
            INVALID_REQUEST,
            format!("Invalid Request: {why}"),
        )
    };
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    if id.is_some() && !id_ok {
        return invalid("\"id\" must be a string or an integer");
    }
    let is_notification = id.is_none();
    let method = match map.get("method") {
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => return invalid("\"method\" must be a string"),
        None if id_ok && (map.contains_key("result") || map.contains_key("error")) => None,
        None => {
            return invalid(
                "a message needs a \"method\" (request or notification) or a \"result\" or \
                 \"error\" (response)",
            )
        }
    };
    if let (Some("tools/call"), false) = (method.as_deref(), is_notification) {
        if let Some(why) = bad_call_params(map.get("params")) {
            return error_reply(
                reply_id,
                INVALID_PARAMS,
                format!("Invalid params for tools/call: {why}"),
            );
        }
    }
    // What rmcp cannot decode it would drop, or answer without the id.
    let decoded = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(Value::Object(map));
    match (decoded, method) {
        (Ok(_), _) => Verdict::Pass,
        // A notification gets no answer, even a wrong one (JSON-RPC 2.0).
        (Err(e), Some(method)) if is_notification => Verdict::Ignore(format!(
            "ignored a notification {method} it cannot decode: {e}"
        )),
        (Err(e), Some(method)) => error_reply(
            reply_id,
            INVALID_PARAMS,
            format!("Invalid params for {method}: {e}"),
        ),
        (Err(e), None) => invalid(&format!("not a valid response: {e}")),
    }
}

/// What is wrong with the params of a `tools/call`, if anything. rmcp
/// takes a call whose `arguments` is not an object for a request of its
/// own kind and answers "method not found".
fn bad_call_params(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(params)) = params else {
        return Some("params must be an object with the tool's name and arguments".into());
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Some("params.name must be the tool's name, a string".into());
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "params.arguments must be an object of named arguments, got {other}"
        )),
    }
}

/// One line read with [`read_line`].
enum Line {
    /// `buf` holds a whole line, without its newline.
    Complete,
    /// The line was longer than the limit and has been skipped.
    TooLong,
    Eof,
}

/// Reads one line into `buf` without ever holding more than `limit` bytes
/// of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Complete
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.unwrap_or(available.len());
        if !too_long && buf.len() + take > limit {
            too_long = true;
            buf.clear();
        }
        if !too_long {
            buf.extend_from_slice(&available[..take]);
        }
        let consumed = newline.map_or(take, |i| i + 1);
        reader.consume(consumed);
        if newline.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

/// The two ends rmcp is given, and the task that writes stdout.
pub(super) struct Wire {
    /// What rmcp reads: the lines that passed.
    pub to_rmcp: tokio::io::DuplexStream,
    /// What rmcp writes: its messages, copied to stdout line by line.
    pub from_rmcp: tokio::io::DuplexStream,
    /// Ends once rmcp's side is closed and every answer is written.
    pub writer: tokio::task::JoinHandle<()>,
}

/// Starts the reader and writer tasks on the current runtime.
pub(super) fn start<R, W>(input: R, output: W) -> Wire
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, mut rmcp_in) = tokio::io::duplex(64 * 1024);
    let (from_rmcp, rmcp_out) = tokio::io::duplex(64 * 1024);
    let (replies_tx, replies) = mpsc::channel::<Value>(64);
    let in_flight = InFlight::default();
    let answered = in_flight.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        let mut line = Vec::new();
        let mut initialized = false;
        loop {
            let verdict = match read_line(&mut reader, &mut line, MAX_LINE_BYTES).await {
                Ok(Line::Complete) => match check(&line) {
                    Verdict::Pass if !initialized => {
                        let (verdict, initializes) = before_initialize(&line);
                        initialized = initializes;
                        verdict
                    }
                    Verdict::Pass => in_flight.take(&line).unwrap_or(Verdict::Pass),
                    verdict => verdict,
                },
                Ok(Line::TooLong) => error_reply(
                    Value::Null,
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: the message is longer than kb's limit of {MAX_LINE_BYTES} bytes (4 MiB) per line; it was skipped"
                    ),
                ),
                Ok(Line::Eof) | Err(_) => break,
            };
            match verdict {
                Verdict::Pass => {
                    line.push(b'\n');
                    if rmcp_in.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Verdict::Skip => {}
                Verdict::Ignore(why) => eprintln!("kb mcp: {why}"),
                Verdict::Reply(reply) => {
                    if replies_tx.send(reply).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `rmcp_in` is end of input for rmcp.
    });
    let writer = tokio::spawn(write_lines(rmcp_out, replies, output, answered));
    Wire {
        to_rmcp,
        from_rmcp,
        writer,
    }
}

/// Copies rmcp's messages and the wire's own answers to `output`, one whole
/// line at a time, until rmcp's side closes.
async fn write_lines<W: AsyncWrite + Unpin>(
    rmcp_out: tokio::io::DuplexStream,
    mut replies: mpsc::Receiver<Value>,
    mut output: W,
    in_flight: InFlight,
) {
    let mut rmcp_out = BufReader::new(rmcp_out);
    let mut buf = Vec::new();
    let mut replies_open = true;
    loop {
        tokio::select! {
            // read_until keeps a partial line in `buf` when the other branch
            // wins, and the next call goes on with it.
            read = rmcp_out.read_until(b'\n', &mut buf) => {
                let ended = !matches!(read, Ok(n) if n > 0);
                if buf.ends_with(b"\n") || (ended && !buf.is_empty()) {
                    in_flight.answered(&buf);
                    if output.write_all(&buf).await.is_err() || output.flush().await.is_err() {
                        return;
                    }
                    buf.clear();
                }
                if ended {
                    break;
                }
            }
            reply = replies.recv(), if replies_open => match reply {
                Some(reply) => {
                    let mut line = reply.to_string().into_bytes();
                    line.push(b'\n');
                    if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                        return;
                    }
                }
                None => replies_open = false,
            },
        }
    }
    while let Ok(reply) = replies.try_recv() {
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        if output.write_all(&line).await.is_err() {
            return;
        }
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &[u8]) -> Value {
        match check(line) {
            Verdict::Reply(v) => v,
            other => panic!("{:?} passed: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    fn code(v: &Value) -> i64 {
        v["error"]["code"].as_i64().unwrap()
    }

    #[test]
    fn malformed_lines_get_parse_errors_with_a_null_id() {
        let deep = "[".repeat(100_000);
        for line in [
            &b"hello"[..],
            b"\xff\xfe{}",
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#,
            deep.as_bytes(),
            br#"{"jsonrpc":"2.0","id":1,"#,
        ] {
            let r = reply(line);
            assert_eq!(code(&r), -32700, "{r}");
            assert_eq!(r["id"], Value::Null);
            assert_eq!(r["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn wrong_shapes_are_invalid_requests_with_their_id_when_readable() {
        let r = reply(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!((code(&r), &r["id"]), (-32600, &Value::Null));
        let r = reply(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!((code(&r), &r["id"]), (-32600, &json!(7)));
        let r = reply(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#);
        assert_eq!((code(&r), &r["id"]), (-32600, &Value::Null));
        let r = reply(br#"{"jsonrpc":"2.0","id":"x"}"#);
        assert_eq!((code(&r), &r["id"]), (-32600, &json!("x")));
        let r = reply(b"42");
        assert_eq!(code(&r), -32600);
        let r = reply(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":5}"#);
        assert_eq!((code(&r), &r["id"]), (-32602, &json!(3)));
        for params in [
            r#"{"name":"search","arguments":5}"#,
            r#"{"name":"search","arguments":["x"]}"#,
            r#"{"arguments":{}}"#,
            "[]",
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#);
            let r = reply(line.as_bytes());
            assert_eq!((code(&r), &r["id"]), (-32602, &json!(4)), "{params}: {r}");
        }
        let r = reply(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":"q"}}"#);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("arguments"),
            "{r}"
        );
        let r = reply(br#"{"jsonrpc":"2.0","id":8,"result":5,"error":{}}"#);
        assert_eq!((code(&r), &r["id"]), (-32600, &json!(8)));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#),
            Verdict::Ignore(_)
        ));
    }

    #[test]
    fn good_messages_and_blank_lines_pass() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status"}}"#,
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r",
        ] {
            assert_eq!(
                check(line),
                Verdict::Pass,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(check(b"  \r"), Verdict::Skip);
    }

    #[test]
    fn before_initialize_only_initialize_goes_on() {
        let (v, init) =
            before_initialize(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#);
        assert_eq!((v, init), (Verdict::Pass, true));
        for line in [
            &br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#[..],
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            br#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        ] {
            let (v, init) = before_initialize(line);
            assert!(
                matches!(v, Verdict::Ignore(_)) && !init,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        let (v, _) = before_initialize(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        assert_eq!(
            v,
            Verdict::Reply(json!({"jsonrpc": "2.0", "id": 7, "result": {}}))
        );
        let (v, init) = before_initialize(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#);
        let Verdict::Reply(r) = v else {
            panic!("a request before initialize is answered")
        };
        assert_eq!((code(&r), &r["id"], init), (-32600, &json!("a"), false));
    }

    #[test]
    fn a_request_id_in_flight_is_refused_until_its_answer_goes_out() {
        let ids = InFlight::default();
        let call = br#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{}}"#;
        assert!(ids.take(call).is_none());
        let Some(Verdict::Reply(r)) = ids.take(br#"{"jsonrpc":"2.0","id":"dup","method":"ping"}"#)
        else {
            panic!("a second request with the id is refused")
        };
        assert_eq!((code(&r), &r["id"]), (-32600, &json!("dup")));
        // Another id, a string that reads like a number, a notification
        // and a client's response pass.
        assert!(ids
            .take(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#)
            .is_none());
        assert!(ids
            .take(br#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#)
            .is_none());
        let note =
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dup"}}"#;
        assert!(ids.take(note).is_none());
        assert!(ids
            .take(br#"{"jsonrpc":"2.0","id":"dup","result":{}}"#)
            .is_none());
        // rmcp's answer frees the id; a request rmcp sends does not.
        ids.answered(br#"{"jsonrpc":"2.0","id":"dup","method":"ping"}"#);
        assert!(ids.take(call).is_some());
        ids.answered(b"{\"jsonrpc\":\"2.0\",\"id\":\"dup\",\"result\":{\"content\":[]}}\n");
        assert!(ids.take(call).is_none());
    }

    #[tokio::test]
    async fn long_lines_are_skipped_without_being_kept() {
        let mut input = Vec::new();
        input.extend(std::iter::repeat_n(b'x', 100));
        input.push(b'\n');
        input.extend_from_slice(b"ok\nlast");
        let mut reader = BufReader::with_capacity(7, &input[..]);
        let mut buf = Vec::new();
        assert!(matches!(
            read_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::TooLong
        ));
        assert!(buf.capacity() <= 64, "kept {} bytes", buf.capacity());
        assert!(matches!(
            read_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        ));
        assert_eq!(buf, b"ok");
        assert!(matches!(
            read_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        ));
        assert_eq!(buf, b"last");
        assert!(matches!(
            read_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Eof
        ));
    }
}
