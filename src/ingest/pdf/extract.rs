//! Getting text out of a PDF, page by page, without letting one file take
//! the batch down.
//!
//! A PDF engine is a large C++ library fed hostile input: a malformed file
//! can crash it, recurse deeply, or inflate a small stream into gigabytes.
//! When this process is the `kb` binary, each PDF is therefore read by a
//! child `kb __extract-pdf PATH` (pdfium, and Tesseract for OCR) under an
//! address-space and CPU limit and a wall-clock timeout; the child prints
//! the pages as JSON. Elsewhere (kb-eval, unit tests) the extraction runs
//! on a thread of this process with panics caught and a timeout (a
//! runaway thread is abandoned).
//!
//! The timeout is a stall limit: the extraction is stopped when loading the
//! file or reading any one page takes longer than it, so a 1,500-page book
//! is read to the end while an endless page is not.

use std::io::{Read as _, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::page::Extracted;
use super::read;
use super::settings::ReadOptions;
use super::settings::{PageReport, PdfSettings};

/// The hidden subcommand that runs the extraction in a child process.
pub const CHILD_COMMAND: &str = "__extract-pdf";

/// Address space a child extractor may use: enough for large legitimate
/// PDFs, small enough that a decompression bomb cannot eat the machine.
pub const MEMORY_LIMIT_BYTES: u64 = 2 << 30;

/// The most JSON a child may print (a 2,000-page book is about 20 MB).
const MAX_CHILD_OUTPUT: u64 = 256 << 20;

/// How a child reports a page done on stderr: `kb-pdf-progress DONE/TOTAL`.
const PROGRESS_PREFIX: &str = "kb-pdf-progress ";

static USE_CHILD: AtomicBool = AtomicBool::new(false);

/// Called by the `kb` binary: this executable understands
/// [`CHILD_COMMAND`], so PDFs are extracted in child processes.
pub fn extract_in_child_processes() {
    USE_CHILD.store(true, Ordering::Relaxed);
}

/// Pages read so far, shared between an extraction and its watcher.
#[derive(Debug, Default)]
pub(super) struct Progress {
    /// Stages finished: 1 once the file is loaded, then one per page.
    stages: AtomicU32,
    pages: AtomicU32,
}

impl Progress {
    /// Records `done` of `pages` and passes it on to `report`.
    fn set(&self, done: u32, pages: u32, report: &Option<PageReport>) {
        self.pages.store(pages, Ordering::Relaxed);
        self.stages.store(done + 1, Ordering::Relaxed);
        if let Some(r) = report {
            r(done, pages);
        }
    }

    fn stages(&self) -> u32 {
        self.stages.load(Ordering::Relaxed)
    }

    /// Where the extraction stalled, for the timeout message.
    fn place(&self) -> String {
        match (self.stages(), self.pages.load(Ordering::Relaxed)) {
            (0, _) => "while loading the file".into(),
            (stage, pages) if stage > pages => "after reading every page".into(),
            (stage, pages) => format!("on page {stage} of {pages}"),
        }
    }
}

/// Watches an extraction: true once it has made no progress for `limit`.
struct Watch {
    limit: Duration,
    seen: u32,
    since: Instant,
}

impl Watch {
    fn new(limit: Duration) -> Watch {
        Watch {
            limit,
            seen: 0,
            since: Instant::now(),
        }
    }

    fn stalled(&mut self, p: &Progress) -> bool {
        let now = p.stages();
        if now != self.seen {
            self.seen = now;
            self.since = Instant::now();
        }
        self.since.elapsed() >= self.limit
    }
}

/// Extracts with the strongest isolation available: a child process when
/// this is the `kb` binary, a watched thread otherwise.
pub(super) fn extract(
    path: &Path,
    bytes: &[u8],
    settings: &PdfSettings,
) -> Result<Extracted, String> {
    let opts = settings.engine.as_ref().map_err(Clone::clone)?;
    let limit = settings.timeout;
    let report = settings.on_page.clone();
    if USE_CHILD.load(Ordering::Relaxed) {
        if let Ok(exe) = std::env::current_exe() {
            match extract_in_child(&exe, path, opts, limit, report.clone()) {
                // The executable was replaced or removed while kb runs
                // (an upgrade): extract here rather than fail every PDF.
                Err(ChildError::Spawn) => {}
                Err(ChildError::Failed(reason)) => return Err(reason),
                Ok(r) => return r,
            }
        }
    }
    extract_on_thread(bytes.to_vec(), opts.clone(), limit, report)
}

/// The body of `kb __extract-pdf PATH --options JSON`: prints the extraction result
/// as JSON (`{"Ok": {...}}` or `{"Err": "reason"}`) and returns the exit code.
pub fn child_main(path: &Path, options: &str) -> i32 {
    // Panics are caught and reported in the JSON; the default hook would
    // only add noise on stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let result = match serde_json::from_str::<ReadOptions>(options) {
        Err(e) => Err(format!("PDF extractor: bad options: {e}")),
        Ok(opts) => match std::fs::read(path) {
            Ok(bytes) => extract_with_progress(&bytes, &opts, &mut |done, pages| {
                eprintln!("{PROGRESS_PREFIX}{done}/{pages}");
            }),
            Err(e) => Err(format!("cannot read: {e}")),
        },
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = serde_json::to_writer(&mut out, &result)
        .map_err(std::io::Error::from)
        .and_then(|_| out.flush());
    match written {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

pub(super) fn extract_on_thread(
    bytes: Vec<u8>,
    opts: ReadOptions,
    limit: Duration,
    report: Option<PageReport>,
) -> Result<Extracted, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let progress = Arc::new(Progress::default());
    let reporter = Arc::clone(&progress);
    let spawned = std::thread::Builder::new()
        .name("kb-pdf".into())
        // Deeply nested objects recurse; a big stack keeps them from
        // overflowing it.
        .stack_size(64 << 20)
        .spawn(move || {
            let r = extract_with_progress(&bytes, &opts, &mut |done, pages| {
                reporter.set(done, pages, &report);
            });
            let _ = tx.send(r);
        });
    spawned.map_err(|e| format!("could not start the PDF extractor: {e}"))?;
    let mut watch = Watch::new(limit);
    loop {
        match rx.recv_timeout(Duration::from_millis(20).min(limit)) {
            Ok(r) => return r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if watch.stalled(&progress) {
                    // The thread cannot be killed; it is abandoned and finishes on
                    // its own (or never) without blocking the batch.
                    return Err(timed_out(limit, &progress));
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err("PDF extractor crashed".into())
            }
        }
    }
}

fn timed_out(limit: Duration, p: &Progress) -> String {
    format!(
        "PDF extraction timed out after {} s {} (ingestion.pdf_timeout_secs)",
        limit.as_secs(),
        p.place()
    )
}

enum ChildError {
    /// The child could not be started.
    Spawn,
    /// It ran and failed; the reason names why.
    Failed(String),
}

/// Runs `kb __extract-pdf PATH` under the limits; the outer error is about
/// the child, the inner result is the extraction's own.
fn extract_in_child(
    exe: &Path,
    path: &Path,
    opts: &ReadOptions,
    limit: Duration,
    report: Option<PageReport>,
) -> Result<Result<Extracted, String>, ChildError> {
    use ChildError::Failed;
    let mut child = child_command(exe, path, opts, limit)?
        .spawn()
        .map_err(|_| ChildError::Spawn)?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let r = stdout.take(MAX_CHILD_OUTPUT + 1).read_to_end(&mut buf);
        r.map(|_| buf)
    });
    let progress = Arc::new(Progress::default());
    let err_reader = read_messages(stderr, Arc::clone(&progress), report);
    let waited = wait_watched(&mut child, limit, &progress);
    let stdout = out_reader.join();
    let stderr = err_reader.join().unwrap_or_default();
    let (status, peak) = waited.map_err(Failed)?;
    let unread = "PDF extractor: reading its output failed";
    let stdout = match stdout {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(Failed(format!("{unread}: {e}"))),
        Err(_) => return Err(Failed(unread.into())),
    };
    if !status.success() {
        let reason = child_failure(status, &stderr, peak, limit, &progress);
        return Err(Failed(reason));
    }
    if stdout.len() as u64 > MAX_CHILD_OUTPUT {
        return Err(Failed(format!(
            "PDF text is larger than {} MB",
            MAX_CHILD_OUTPUT >> 20
        )));
    }
    serde_json::from_slice::<Result<Extracted, String>>(&stdout)
        .map_err(|e| Failed(format!("PDF extractor printed unreadable output: {e}")))
}

/// The command that runs the child extractor on `path`, its output piped,
/// under the address-space and CPU limits.
fn child_command(
    exe: &Path,
    path: &Path,
    opts: &ReadOptions,
    limit: Duration,
) -> Result<Command, ChildError> {
    let options = serde_json::to_string(opts)
        .map_err(|e| ChildError::Failed(format!("PDF extractor: options: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.arg(CHILD_COMMAND)
        .arg(path)
        .arg("--options")
        .arg(options)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A backstop for a child outliving this process (where the parent-death
    // signal does not exist): an hour of CPU at the default timeout.
    let cpu_secs = limit.as_secs().saturating_mul(60);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: only async-signal-safe calls (setrlimit, setpgid, prctl)
        // run between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let set = |resource, soft: u64, hard: u64| {
                    let lim = libc::rlimit {
                        rlim_cur: soft as libc::rlim_t,
                        rlim_max: hard as libc::rlim_t,
                    };
                    libc::setrlimit(resource, &lim)
                };
                set(libc::RLIMIT_AS, MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES);
                set(libc::RLIMIT_CPU, cpu_secs, cpu_secs + 5);
                // Ctrl-C in the terminal goes to kb, which finishes the
                // current document; the child must not die of it.
                libc::setpgid(0, 0);
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    Ok(cmd)
}

/// Reads the child's stderr on a thread: progress lines update `progress` (and
/// `report`); anything else (a crash message) is kept, up to 64 KB, and returned.
fn read_messages(
    stderr: std::process::ChildStderr,
    progress: Arc<Progress>,
    report: Option<PageReport>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        let mut other = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let done = line
                .strip_prefix(PROGRESS_PREFIX)
                .and_then(|r| r.split_once('/'))
                .and_then(|(d, p)| Some((d.parse().ok()?, p.parse().ok()?)));
            match done {
                Some((d, p)) => progress.set(d, p, &report),
                None if other.len() < 64 * 1024 => {
                    other.push_str(&line);
                    other.push('\n');
                }
                None => {}
            }
        }
        other
    })
}

/// Waits for the child, killing its process group when it stalls: its
/// exit status and the most address space it was seen to use (pdfium
/// aborts without a message when an allocation fails under the limit).
fn wait_watched(
    child: &mut std::process::Child,
    limit: Duration,
    progress: &Progress,
) -> Result<(std::process::ExitStatus, u64), String> {
    let mut watch = Watch::new(limit);
    let mut pause = Duration::from_millis(1);
    let mut peak = 0u64;
    let failure = loop {
        peak = peak.max(address_space_peak(child.id()));
        match child.try_wait() {
            Ok(Some(status)) => return Ok((status, peak)),
            Ok(None) if watch.stalled(progress) => break timed_out(limit, progress),
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => break format!("PDF extractor: {e}"),
        }
    };
    kill_group(child);
    let _ = child.wait();
    Err(failure)
}

/// Names the reason a child extractor died.
fn child_failure(
    status: std::process::ExitStatus,
    stderr: &str,
    peak: u64,
    limit: Duration,
    progress: &Progress,
) -> String {
    let oom = [
        "memory allocation of",
        "capacity overflow",
        "bad_alloc",
        "Out of memory",
    ];
    let near_limit = peak >= MEMORY_LIMIT_BYTES / 4 * 3;
    if oom.iter().any(|m| stderr.contains(m)) || (near_limit && !status.success()) {
        return format!(
            "PDF extraction ran out of memory (limit {} GB)",
            MEMORY_LIMIT_BYTES >> 30
        );
    }
    if stderr.contains("overflowed its stack") {
        return "PDF extractor crashed (stack overflow: objects nested too deeply)".into();
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        match status.signal() {
            Some(libc::SIGXCPU) => return timed_out(limit, progress),
            Some(sig) => return format!("PDF extractor crashed (killed by signal {sig})"),
            None => {}
        }
    }
    let _ = (limit, progress);
    let detail = stderr.lines().rev().find(|l| !l.trim().is_empty());
    match detail {
        Some(d) => format!("PDF extractor crashed ({})", d.trim()),
        None => format!("PDF extractor crashed ({status})"),
    }
}

/// Stops a child extractor and what it started (a Tesseract reading a
/// page): the child leads its own process group.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // the child made itself its group's leader before exec.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// The peak address space of a running process in bytes (Linux's
/// VmPeak; 0 where it cannot be read).
fn address_space_peak(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmPeak:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The message a panic carried.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    let text = p.downcast_ref::<&str>().copied();
    text.or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("panic")
        .to_string()
}

/// Extracts in this thread (a page that fails is recorded with its reason,
/// the other pages still read), reporting each page to `on_page`.
pub(super) fn extract_with_progress(
    bytes: &[u8],
    opts: &ReadOptions,
    on_page: &mut dyn FnMut(u32, u32),
) -> Result<Extracted, String> {
    match catch_unwind(AssertUnwindSafe(|| read::read(bytes, opts, on_page))) {
        Ok(r) => r,
        Err(p) => Err(format!("PDF extractor crashed ({})", panic_message(&*p))),
    }
}
