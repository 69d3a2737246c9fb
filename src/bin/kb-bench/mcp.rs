//! `kb-bench mcp`: warm searches through a running `kb mcp`.

use std::time::{Duration, Instant};

use kb::db::{Database, OpenMode};
use kb::error::{KbError, Result};

use crate::*;

/// One line of JSON-RPC to the server and the response with the same id.
struct McpClient {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl McpClient {
    fn send(&mut self, msg: &serde_json::Value) -> Result<()> {
        use std::io::Write;
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(|e| KbError::io("kb mcp stdin", e))
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> Result<serde_json::Value> {
        use std::io::BufRead;
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )?;
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| KbError::io("kb mcp stdout", e))?;
            if n == 0 {
                return Err(KbError::Usage("kb mcp closed stdout".into()));
            }
            let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| {
                KbError::Usage(format!("kb mcp printed a non-JSON line ({e}): {line}"))
            })?;
            if v["id"] == id {
                return Ok(v);
            }
        }
    }
}

pub(crate) fn bench_mcp(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    // The server writes its search log into kb.db: work on a copy so the
    // benchmark database stays as it was.
    let tmp = std::env::temp_dir().join(format!("kb-bench-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| KbError::io(&tmp, e))?;
    let src = data_dir.join("kb.db");
    std::fs::copy(&src, tmp.join("kb.db")).map_err(|e| KbError::io(&src, e))?;
    let exe = std::env::current_exe().map_err(|e| KbError::io("kb-bench", e))?;
    let kb = exe.with_file_name("kb");
    let mut child = std::process::Command::new(&kb)
        .arg("--data-dir")
        .arg(&tmp)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .map_err(|e| KbError::io(&kb, e))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut c = McpClient {
        child,
        stdin,
        stdout,
        next_id: 0,
    };
    let t = Instant::now();
    let init = c.request(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "kb-bench", "version": "0"}}),
    )?;
    let init_ms = t.elapsed().as_secs_f64() * 1000.0;
    c.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let queries = queries(a)?;
    let search_with = |c: &mut McpClient,
                       query: &str,
                       mode: &str,
                       rerank: bool|
     -> Result<(f64, serde_json::Value)> {
        let t = Instant::now();
        let r = c.request(
            "tools/call",
            serde_json::json!({"name": "search",
                               "arguments": {"query": query, "mode": mode, "rerank": rerank}}),
        )?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if r["result"]["isError"] == true || r.get("error").is_some() {
            return Err(KbError::Usage(format!("search failed: {r}")));
        }
        Ok((ms, r["result"]["_meta"].clone()))
    };
    let search = |c: &mut McpClient, query: &str, mode: &str| search_with(c, query, mode, false);
    let took = |meta: &serde_json::Value| meta["kb/took_ms"].as_f64().unwrap_or(f64::NAN);
    let (first, _) = search(&mut c, &queries[0], "hybrid")?;
    println!(
        "kb mcp on {} chunks (protocol {}): initialize {init_ms:.1} ms; first hybrid search (loads the model and the vectors) {first:.0} ms",
        Database::open(&tmp.join("kb.db"), OpenMode::Existing)?.chunk_count()?,
        init["result"]["protocolVersion"]
    );
    // The keyword index loads in the background from the first search;
    // until then FTS5 answers. Warm figures are taken once it is in.
    let t = Instant::now();
    let mut next = 1;
    loop {
        let (_, meta) = search(&mut c, &queries[next % queries.len()], "keyword")?;
        next += 1;
        if meta["kb/keyword_loads"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        if t.elapsed() > Duration::from_secs(600) {
            return Err(KbError::Usage(
                "kb mcp did not load its keyword index in 10 minutes".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "keyword index in memory {:.1} s after the first search",
        (t.elapsed().as_secs_f64() + first / 1000.0)
    );
    // `skip` untimed searches, then `runs` timed: the line to print (round
    // trips and the server's own times) and the first search's time.
    let mut timed = |c: &mut McpClient,
                     mode: &str,
                     rerank: bool,
                     skip: usize,
                     runs: usize|
     -> Result<(String, f64)> {
        let (mut round_trip, mut server, mut first) = (Vec::new(), Vec::new(), f64::NAN);
        for i in 0..skip + runs {
            let (ms, meta) = search_with(c, &queries[next % queries.len()], mode, rerank)?;
            next += 1;
            if i == 0 {
                first = ms;
            }
            if i >= skip {
                round_trip.push(ms);
                server.push(took(&meta));
            }
        }
        let line = format!(
            "round trip p50 {:.1} ms, p95 {:.1} ms (in the server p50 {:.1} ms) over {runs} calls",
            median(round_trip.clone()),
            p95(round_trip),
            median(server),
        );
        Ok((line, first))
    };
    for mode in ["hybrid", "keyword", "vector"] {
        let (line, _) = timed(&mut c, mode, false, 3, a.runs)?;
        println!("warm {mode} search through kb mcp: {line}");
    }
    if a.rerank_runs > 0 {
        // The first loads the re-ranker; the rest are timed.
        let (line, load) = timed(&mut c, "hybrid", true, 1, a.rerank_runs)?;
        println!(
            "warm hybrid search with re-ranking through kb mcp: {line}; the first (loads the re-ranker) {load:.0} ms"
        );
    }
    // The server's peak resident memory, from the kernel's own count.
    let status = std::fs::read_to_string(format!("/proc/{}/status", c.child.id()));
    if let Some(peak) = status.ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("VmHWM:"))
            .map(str::to_string)
    }) {
        println!(
            "kb mcp peak RSS: {}",
            peak.trim_start_matches("VmHWM:").trim()
        );
    }
    drop(c.stdin);
    let status = c.child.wait().map_err(|e| KbError::io(&kb, e))?;
    let _ = std::fs::remove_dir_all(&tmp);
    if !status.success() {
        return Err(KbError::Usage(format!("kb mcp exited with {status}")));
    }
    Ok(())
}
