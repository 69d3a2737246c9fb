//! Helpers for the integration tests: a temporary knowledge base bound to
//! the real model, and the real `kb` binary to drive it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// The model directory made by scripts/prepare_model.py (./test.sh exports
/// KB_TEST_MODEL_DIR).
pub fn model_dir() -> PathBuf {
    let dir = std::env::var_os("KB_TEST_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap()
                .join("kb/models/all-MiniLM-L6-v2")
        });
    assert!(
        dir.join("model.onnx").is_file(),
        "the test model is missing at {}: run ./test.sh (it prepares the model)",
        dir.display()
    );
    dir
}

/// The int8 copy of the model made by scripts/prepare_model.py (./test.sh
/// exports KB_TEST_MODEL_DIR_INT8).
pub fn model_dir_int8() -> PathBuf {
    let dir = std::env::var_os("KB_TEST_MODEL_DIR_INT8")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap()
                .join("kb/models/all-MiniLM-L6-v2-int8")
        });
    assert!(
        dir.join("model.onnx").is_file(),
        "the int8 test model is missing at {}: run ./test.sh (it prepares the model)",
        dir.display()
    );
    dir
}

/// The folder of multilingual-e5-small-q4 made by
/// scripts/prepare_multilingual.py (./test.sh exports
/// KB_TEST_MODEL_DIR_MULTILINGUAL, and then it must be there); None, said
/// on stderr, when it was not made on this machine.
pub fn model_dir_multilingual() -> Option<PathBuf> {
    let named = std::env::var_os("KB_TEST_MODEL_DIR_MULTILINGUAL").map(PathBuf::from);
    let dir = named.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .unwrap()
            .join("kb/models/multilingual-e5-small-q4")
    });
    if dir.join("model.onnx").is_file() {
        return Some(dir);
    }
    assert!(
        named.is_none(),
        "KB_TEST_MODEL_DIR_MULTILINGUAL={} holds no model.onnx: run \
         python3 scripts/prepare_multilingual.py",
        dir.display()
    );
    eprintln!(
        "note: skipping: multilingual-e5-small-q4 is not prepared at {} (./test.sh prepares \
         it: python3 scripts/prepare_multilingual.py)",
        dir.display()
    );
    None
}

pub struct Kb {
    pub home: TempDir,
}

impl Kb {
    /// A new, empty data directory (no model bound).
    pub fn empty() -> Kb {
        Kb {
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// A data directory bound to the real model.
    pub fn new() -> Kb {
        let kb = Kb::empty();
        kb.cmd()
            .args(["init", "--model-dir"])
            .arg(model_dir())
            .assert()
            .success();
        kb
    }

    pub fn data_dir(&self) -> PathBuf {
        self.home.path().join("data")
    }

    pub fn db_path(&self) -> PathBuf {
        self.data_dir().join("kb.db")
    }

    /// `kb --data-dir <tmp>` with a clean environment.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// `kb ARGS` started in the background, output captured.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.std_cmd()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `kb ARGS` started in the background, its output read as it comes
    /// (so a test can wait for a line on stderr).
    pub fn start(&self, args: &[&str]) -> Running {
        let mut cmd = self.std_cmd();
        cmd.args(args);
        Running::start(cmd)
    }

    /// `kb ARGS` started and held by the test pause built into kb for the
    /// end-to-end tests (src/embed/test_pause.rs): returns once kb has
    /// embedded `batches` model batches and is running its next one (which
    /// it repeats until it is interrupted, killed or resumed). What those
    /// batches led to is committed, or on its way to the database.
    pub fn start_paused(&self, args: &[&str], batches: usize) -> Running {
        self.start_paused_with(args, batches, &[])
    }

    /// [`Kb::start_paused`] with these extra environment variables.
    pub fn start_paused_with(
        &self,
        args: &[&str],
        batches: usize,
        env: &[(&str, &str)],
    ) -> Running {
        let mut cmd = self.std_cmd();
        cmd.args(args).envs(env.iter().copied());
        Running::start_paused(cmd, batches)
    }

    /// `kb --data-dir <tmp>` as a plain `std::process::Command`.
    pub fn std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kb"));
        c.arg("--data-dir").arg(self.data_dir());
        // Every KB_ variable, KB_CACHE_DIR included: a cache set for
        // ./test.sh would lend kb the model that some tests need missing
        // (the runtime and engines come from their own variables).
        for (k, _) in std::env::vars() {
            if k.starts_with("KB_") {
                c.env_remove(k);
            }
        }
        c.env("HOME", self.home.path());
        c.env("HF_HUB_OFFLINE", "1");
        c.env_remove("HF_HOME");
        c
    }

    /// Runs kb with `args`, expects success and parses stdout as JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        let stdout = stdout_of(self.cmd().args(args));
        serde_json::from_slice(&stdout).unwrap_or_else(|e| {
            panic!(
                "kb {args:?} printed invalid JSON ({e}):\n{}",
                String::from_utf8_lossy(&stdout)
            )
        })
    }

    /// A cache folder for `KB_CACHE_DIR` holding `models` (name, prepared
    /// folder), where `kb init --model NAME` finds them.
    pub fn model_cache(&self, models: &[(&str, &Path)]) -> PathBuf {
        let cache = self.home.path().join("cache");
        std::fs::create_dir_all(cache.join("models")).unwrap();
        for (name, dir) in models {
            std::os::unix::fs::symlink(dir, cache.join("models").join(name)).unwrap();
        }
        cache
    }

    /// Runs kb with `args` and `--format json` (the summary of init, add
    /// and reindex on stdout) and `cache` as `KB_CACHE_DIR`, expects
    /// success and parses stdout as JSON.
    pub fn json_cached(&self, cache: &Path, args: &[&str]) -> Value {
        let mut cmd = self.cmd();
        cmd.env("KB_CACHE_DIR", cache).args(args);
        let stdout = stdout_of(cmd.args(["--format", "json"]));
        serde_json::from_slice(&stdout).unwrap_or_else(|e| {
            panic!(
                "kb {args:?} printed invalid JSON ({e}):\n{}",
                String::from_utf8_lossy(&stdout)
            )
        })
    }

    /// Runs kb with `args`, expects `exit` and returns the JSON error on stderr.
    pub fn error(&self, args: &[&str], exit: i32) -> Value {
        let out = self
            .cmd()
            .args(args)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(exit),
            "kb {args:?}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let err: Value = serde_json::from_slice(&out.stderr).unwrap_or_else(|e| {
            panic!(
                "kb {args:?} stderr is not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(err["error"].as_str().is_some_and(|s| !s.is_empty()));
        err
    }

    /// The texts of `kb outline DOC`'s items, in order.
    pub fn outline_texts(&self, doc: &str) -> Vec<String> {
        let outline = self.json(&["outline", doc]);
        let items = outline["items"].as_array().unwrap().iter();
        items
            .map(|i| i["text"].as_str().unwrap().to_string())
            .collect()
    }

    /// `kb add PATH... --format json` → the summary.
    pub fn add(&self, paths: &[&Path]) -> Value {
        let mut args: Vec<String> = vec!["add".into()];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        args.extend(["--format".into(), "json".into(), "--quiet".into()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        self.json(&refs)
    }
}

/// Runs a command, expects success and returns its stdout.
pub fn stdout_of(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The JSON error object on the last line of a command's stderr.
pub fn stderr_json(out: &std::process::Output) -> Value {
    let text = String::from_utf8_lossy(&out.stderr);
    let last = text.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A small tree of real documents.
pub fn fixture_tree(root: &Path) {
    write(
        &root.join("git.md"),
        "---\ntitle: Git Admin Guide\ntags: [git, Admin]\n---\n# Git Admin Guide\n\n\
         ## Installation\n\nTo install the latest version of git from source, download the release \
         tarball, then run ./configure, make and make install. On Debian, apt-get install git gives a \
         packaged version that is usually recent enough.\n\n\
         ## Configuration\n\nSet your name and email with git config --global user.name and \
         git config --global user.email before your first commit, so history records who you are.\n\n\
         ### Aliases\n\nAliases shorten common commands: git config --global alias.co checkout lets \
         you type git co instead of git checkout.\n",
    );
    write(
        &root.join("notes/dentist.txt"),
        "Call the dentist on Monday to move the appointment to next week; the receptionist \
         said mornings are free. Bring the insurance card.\n",
    );
    write(
        &root.join("guides/sqlite.md"),
        "# SQLite tips\n\n## Write-ahead logging\n\nPRAGMA journal_mode=WAL lets readers continue \
         while a writer commits, which suits a search tool that indexes in the background. \
         Checkpoints move pages from the WAL file back into the database.\n\n\
         ## Full-text search\n\nFTS5 virtual tables rank matches with BM25. An external-content \
         table keeps the text once and the index beside it, kept in sync by triggers.\n",
    );
    write(
        &root.join(".hidden.md"),
        "# Hidden\n\nthis hidden xylophone file must never be indexed\n",
    );
    write(&root.join(".gitignore"), "ignored/\n");
    write(
        &root.join("ignored/secret.md"),
        "# Secret\n\nthis ignored xylophone file must never be indexed\n",
    );
    write(&root.join("drawing.svg"), "<svg/>\n");
}

/// A Markdown guide with three sections long enough to be chunks of their
/// own (kayaks, canoes, paddles), for tests that widen a hit.
pub fn long_guide(docs: &Path) {
    let para = |topic: &str| {
        format!("{topic} ").repeat(5)
            + &"This paragraph describes the topic in enough words to stand alone as a chunk. "
                .repeat(12)
    };
    write(
        &docs.join("long.md"),
        &format!(
            "# Long guide\n\n## Kayaks\n\n{}\n\n## Canoes\n\n{}\n\n## Paddles\n\n{}\n",
            para("kayak"),
            para("canoe"),
            para("paddle")
        ),
    );
}

/// The line kb's test pause writes when it holds a model batch.
fn paused_line(batches: usize) -> String {
    format!("kb-test: paused after batch {batches}")
}

/// How long a test waits for kb to reach a point it waits for.
const REACH: Duration = Duration::from_secs(120);

/// A kb running in the background, its stdout and stderr read on threads
/// of their own (it never blocks on a full pipe); stderr comes line by line
/// to [`Running::wait_for_stderr`] as well. Killed if the test lets go of
/// it still running (a failed assertion).
pub struct Running {
    child: Option<Child>,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    lines: mpsc::Receiver<String>,
    /// The file that ends the test pause, in a directory of its own.
    resume: tempfile::TempDir,
}

impl Running {
    fn start(mut cmd: std::process::Command) -> Running {
        let resume = tempfile::tempdir().unwrap();
        cmd.env("KB_TEST_RESUME_FILE", resume.path().join("resume"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        let mut out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = out.read_to_end(&mut v);
            v
        });
        let err = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let stderr = std::thread::spawn(move || {
            // Everything but the pause's own lines: what kb itself said.
            let mut kept = Vec::new();
            let mut reader = BufReader::new(err);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                let text = String::from_utf8_lossy(&line).trim_end().to_string();
                if !text.starts_with("kb-test: paused after batch ") {
                    kept.extend_from_slice(&line);
                }
                let _ = tx.send(text);
                line.clear();
            }
            kept
        });
        Running {
            child: Some(child),
            stdout: Some(stdout),
            stderr: Some(stderr),
            lines,
            resume,
        }
    }

    /// A command built by the test, started in the background.
    pub fn start_cmd(cmd: std::process::Command) -> Running {
        Running::start(cmd)
    }

    /// Waits (up to 2 minutes) until `reached` is true of the world outside
    /// kb (a file a helper program writes); fails, with what kb said, when
    /// kb ends first.
    pub fn wait_until(&mut self, reached: impl Fn() -> bool, what: &str) {
        let deadline = Instant::now() + REACH;
        while !reached() {
            if !self.is_running() {
                let out = self.finish();
                panic!(
                    "kb ended ({}) before it reached {what}:\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            assert!(
                Instant::now() < deadline,
                "kb did not reach {what} within {REACH:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn start_paused(mut cmd: std::process::Command, batches: usize) -> Running {
        cmd.env("KB_TEST_PAUSE_AFTER_BATCH", batches.to_string());
        let mut running = Running::start(cmd);
        let paused = paused_line(batches);
        running.wait_for_stderr(
            |l| l == paused,
            &format!(
                "its model batch {} (the corpus is too small for this test?)",
                batches + 1
            ),
        );
        running
    }

    pub fn id(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// Waits (up to 2 minutes) for a line on stderr that `found` accepts;
    /// fails, with what kb said, when kb ends first or never says it.
    pub fn wait_for_stderr(&mut self, found: impl Fn(&str) -> bool, what: &str) {
        let deadline = Instant::now() + REACH;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if found(&line) => return,
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("kb did not reach {what} within {REACH:?}")
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let out = self.finish();
                    panic!(
                        "kb ended ({}) before it reached {what}:\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            }
        }
    }

    /// Whether kb is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.as_mut().unwrap().try_wait().unwrap().is_none()
    }

    /// Ends the test pause: kb finishes the batch it holds and carries on.
    pub fn resume(&self) {
        std::fs::write(self.resume.path().join("resume"), b"").unwrap();
    }

    /// Sends Ctrl-C (SIGINT) and waits for kb: it must stop within 2 s
    /// (finishing the document it is writing, not the model's work in
    /// flight) with exit 130, as shells expect.
    pub fn interrupt(mut self) -> Output {
        let interrupted = Instant::now();
        assert!(std::process::Command::new("kill")
            .args(["-INT", &self.id().to_string()])
            .status()
            .unwrap()
            .success());
        let out = self.finish();
        let took = interrupted.elapsed();
        assert!(took < Duration::from_secs(2), "Ctrl-C took {took:?}");
        assert_eq!(
            out.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Kills kb without warning (SIGKILL) and returns how it ended.
    pub fn kill(mut self) -> ExitStatus {
        self.child.as_mut().unwrap().kill().unwrap();
        self.finish().status
    }

    /// Waits for kb to end, and returns what it printed (on stderr,
    /// without the test pause's own line).
    pub fn wait(mut self) -> Output {
        self.finish()
    }

    fn finish(&mut self) -> Output {
        let status = self.child.take().unwrap().wait().unwrap();
        Output {
            status,
            stdout: self.stdout.take().unwrap().join().unwrap(),
            stderr: self.stderr.take().unwrap().join().unwrap(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The Python of the venv scripts/prepare_py_tools.sh makes (./test.sh
/// exports KB_TEST_PYTHON), with the official MCP Python SDK and the Agent
/// Skills validator. Without it a test fails, unless KB_TEST_SKIP_PY_TOOLS=1
/// says to skip it (then `None`, with the reason printed).
pub fn python_tools(test: &str) -> Option<PathBuf> {
    match std::env::var_os("KB_TEST_PYTHON").filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None if std::env::var_os("KB_TEST_SKIP_PY_TOOLS").is_some_and(|v| v == "1") => {
            eprintln!("{test}: skipped (KB_TEST_SKIP_PY_TOOLS=1 and no KB_TEST_PYTHON)");
            None
        }
        None => panic!(
            "{test} needs the venv of scripts/prepare_py_tools.sh (PyPI mcp and skills-ref): \
             run ./test.sh, or export KB_TEST_PYTHON=<that venv>/bin/python \
             (KB_TEST_SKIP_PY_TOOLS=1 skips the test)"
        ),
    }
}

/// A program of that venv with the environment a test's kb gets (no KB_ variables,
/// HOME in the test's directory), for clients that start kb themselves.
pub fn venv_cmd(kb: &Kb, program: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    for (k, _) in std::env::vars() {
        if k.starts_with("KB_") {
            c.env_remove(k);
        }
    }
    c.env("HOME", kb.home.path());
    c.env("HF_HUB_OFFLINE", "1");
    c.env_remove("HF_HOME");
    c
}

/// A crate's Cargo.toml as people write them: `[package]` keys in their
/// own order (not alphabetical), a long `[dependencies]` table, an empty
/// table, and `[package.metadata]` opened again at the end. Returns its
/// path.
pub fn cargo_toml(dir: &Path) -> PathBuf {
    let mut text = String::from(
        "[package]\nname = \"orbit\"\nversion = \"0.4.2\"\nedition = \"2021\"\n\
         rust-version = \"1.78\"\ndescription = \"Plans satellite ground passes\"\n\
         license = \"MIT OR Apache-2.0\"\nauthors = [\n  \"Ada Lovelace <ada@example.org>\",\n]\n\n\
         [dependencies]\n",
    );
    for (i, name) in [
        "serde",
        "tokio",
        "clap",
        "rayon",
        "chrono",
        "regex",
        "anyhow",
        "thiserror",
        "tracing",
        "reqwest",
        "url",
        "uuid",
        "rand",
        "bytes",
        "futures",
        "itertools",
        "indexmap",
        "hashbrown",
        "smallvec",
        "once_cell",
        "parking_lot",
        "crossbeam",
        "memchr",
        "log",
        "libc",
        "bitflags",
        "base64",
        "sha2",
        "hex",
        "flate2",
        "zip",
        "tar",
        "walkdir",
        "tempfile",
        "glob",
        "toml",
        "csv",
        "rusqlite",
        "image",
        "num",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!(
            "{name} = {{ version = \"{}.{}\", default-features = false, features = [\"std\"] }}\n",
            i % 3 + 1,
            i
        ));
    }
    text.push_str(
        "\n[build-dependencies]\n\n[features]\ndefault = [\"tle\"]\ntle = []\n\n\
         [package.metadata.docs.rs]\nall-features = true\n",
    );
    let path = dir.join("Cargo.toml");
    write(&path, &text);
    path
}

/// A GitHub Actions workflow. Returns its path.
pub fn workflow(dir: &Path) -> PathBuf {
    let path = dir.join("workflows/ci.yml");
    write(
        &path,
        "name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\n\n\
         jobs:\n  test:\n    runs-on: ubuntu-latest\n    timeout-minutes: 20\n    steps:\n\
         \x20     - uses: actions/checkout@v4\n\
         \x20     - name: Run the test suite\n        run: |\n          cargo test --locked\n          cargo clippy -- -D warnings\n\
         \x20     - name: Upload the coverage report\n        uses: codecov/codecov-action@v4\n",
    );
    path
}
