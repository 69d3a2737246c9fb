//! Getting text out of a PDF, page by page, without letting one file take
//! the batch down.
//!
//! pdf-extract (on lopdf) can panic on malformed files, recurse deeply, or
//! inflate a small stream into gigabytes. When this process is the `kb`
//! binary, each PDF is therefore extracted by a child `kb __extract-pdf
//! PATH` under an address-space and CPU limit and a wall-clock timeout; the
//! child prints the pages as JSON. Elsewhere (kb-eval, unit tests) the
//! extraction runs on a thread of this process with panics caught and a
//! timeout (a runaway thread is abandoned).
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

use lopdf::{Document, Object};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use serde::{Deserialize, Serialize};

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

/// What the extractor found in a PDF.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Extracted {
    /// The Info dictionary's Title, when set.
    pub title: Option<String>,
    /// True when the file was encrypted but opened with the empty password.
    #[serde(default)]
    pub encrypted: bool,
    pub pages: Vec<Page>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Page {
    pub lines: Vec<Line>,
    /// Why the page could not be read (an extractor error or crash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A line of text as laid out on the page.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Line {
    pub text: String,
    /// Font size in points (mean over the line's characters).
    pub size: f32,
    /// Left and right edges, in points from the left of the page.
    pub x: f32,
    pub end: f32,
    /// Baseline, in points from the top of the page.
    pub y: f32,
    /// A vertical gap of more than 1.5 line heights comes before the line.
    pub gap: bool,
}

impl Page {
    /// True when the page has no letter or digit at all (a scanned image,
    /// a blank page).
    pub fn without_text(&self) -> bool {
        !self
            .lines
            .iter()
            .any(|l| l.text.chars().any(char::is_alphanumeric))
    }
}

/// Pages read so far, shared between an extraction and its watcher.
#[derive(Debug, Default)]
pub struct Progress {
    /// Stages finished: 1 once the file is loaded, then one per page.
    stages: AtomicU32,
    pages: AtomicU32,
}

impl Progress {
    fn set(&self, done: u32, pages: u32) {
        self.pages.store(pages, Ordering::Relaxed);
        self.stages.store(done + 1, Ordering::Relaxed);
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
pub fn extract(path: &Path, bytes: &[u8], limit: Duration) -> Result<Extracted, String> {
    if USE_CHILD.load(Ordering::Relaxed) {
        if let Ok(exe) = std::env::current_exe() {
            match extract_in_child(&exe, path, limit) {
                // The executable was replaced or removed while kb runs
                // (an upgrade): extract here rather than fail every PDF.
                Err(ChildError::Spawn) => {}
                Err(ChildError::Failed(reason)) => return Err(reason),
                Ok(r) => return r,
            }
        }
    }
    extract_on_thread(bytes.to_vec(), limit)
}

/// The body of `kb __extract-pdf PATH`: prints the extraction result as
/// JSON (`{"Ok": {...}}` or `{"Err": "reason"}`) and returns the exit code.
pub fn child_main(path: &Path) -> i32 {
    // Panics are caught and reported in the JSON; the default hook would
    // only add noise on stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let result = match std::fs::read(path) {
        Ok(bytes) => extract_with_progress(&bytes, &mut |done, pages| {
            eprintln!("{PROGRESS_PREFIX}{done}/{pages}");
        }),
        Err(e) => Err(format!("cannot read: {e}")),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = serde_json::to_writer(&mut out, &result)
        .map_err(std::io::Error::from)
        .and_then(|_| out.flush());
    match written {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

pub(super) fn extract_on_thread(bytes: Vec<u8>, limit: Duration) -> Result<Extracted, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let progress = Arc::new(Progress::default());
    let reporter = Arc::clone(&progress);
    let spawned = std::thread::Builder::new()
        .name("kb-pdf".into())
        // Deeply nested objects recurse; a big stack keeps them from
        // overflowing it.
        .stack_size(64 << 20)
        .spawn(move || {
            let r = extract_with_progress(&bytes, &mut |done, pages| reporter.set(done, pages));
            let _ = tx.send(r);
        });
    if let Err(e) = spawned {
        return Err(format!("could not start the PDF extractor: {e}"));
    }
    let mut watch = Watch::new(limit);
    loop {
        match rx.recv_timeout(Duration::from_millis(20).min(limit)) {
            Ok(r) => return r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if watch.stalled(&progress) {
                    // The thread cannot be killed; it is abandoned and
                    // finishes on its own (or never) without blocking the
                    // batch.
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
    limit: Duration,
) -> Result<Result<Extracted, String>, ChildError> {
    use ChildError::Failed;
    let mut cmd = Command::new(exe);
    cmd.arg(CHILD_COMMAND)
        .arg(path)
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
    let mut child = cmd.spawn().map_err(|_| ChildError::Spawn)?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let r = stdout.take(MAX_CHILD_OUTPUT + 1).read_to_end(&mut buf);
        r.map(|_| buf)
    });
    let progress = Arc::new(Progress::default());
    let reporter = Arc::clone(&progress);
    let err_reader = std::thread::spawn(move || {
        // Progress lines update the watch; anything else (a crash
        // message) is kept, up to 64 KB.
        use std::io::BufRead as _;
        let mut other = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let done = line
                .strip_prefix(PROGRESS_PREFIX)
                .and_then(|r| r.split_once('/'))
                .and_then(|(d, p)| Some((d.parse().ok()?, p.parse().ok()?)));
            match done {
                Some((d, p)) => reporter.set(d, p),
                None if other.len() < 64 * 1024 => {
                    other.push_str(&line);
                    other.push('\n');
                }
                None => {}
            }
        }
        other
    });

    let mut watch = Watch::new(limit);
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if watch.stalled(&progress) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = out_reader.join();
                let _ = err_reader.join();
                return Err(Failed(timed_out(limit, &progress)));
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Failed(format!("PDF extractor: {e}")));
            }
        }
    };
    let stdout = match out_reader.join() {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            return Err(Failed(format!(
                "PDF extractor: reading its output failed: {e}"
            )))
        }
        Err(_) => return Err(Failed("PDF extractor: reading its output failed".into())),
    };
    let stderr = err_reader.join().unwrap_or_default();
    if !status.success() {
        return Err(Failed(child_failure(status, &stderr, limit, &progress)));
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

/// Names the reason a child extractor died.
fn child_failure(
    status: std::process::ExitStatus,
    stderr: &str,
    limit: Duration,
    progress: &Progress,
) -> String {
    if stderr.contains("memory allocation of") || stderr.contains("capacity overflow") {
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
        if let Some(sig) = status.signal() {
            if sig == libc::SIGXCPU {
                return timed_out(limit, progress);
            }
            return format!("PDF extractor crashed (killed by signal {sig})");
        }
    }
    let _ = (limit, progress);
    let detail = stderr.lines().rev().find(|l| !l.trim().is_empty());
    match detail {
        Some(d) => format!("PDF extractor crashed ({})", d.trim()),
        None => format!("PDF extractor crashed ({status})"),
    }
}

/// The message a panic carried.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Extracts in this thread, page by page; a page that fails or panics is
/// recorded with its reason and the other pages are still read.
pub fn extract_bytes(bytes: &[u8]) -> Result<Extracted, String> {
    extract_with_progress(bytes, &mut |_, _| {})
}

/// [`extract_bytes`], calling `on_page(done, total)` after loading the
/// file (done = 0) and after every page.
fn extract_with_progress(
    bytes: &[u8],
    on_page: &mut dyn FnMut(u32, u32),
) -> Result<Extracted, String> {
    let doc = match catch_unwind(|| Document::load_mem(bytes)) {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => return Err(format!("truncated or malformed PDF: {e}")),
        Err(p) => return Err(format!("PDF extractor crashed ({})", panic_message(&*p))),
    };
    // lopdf decrypts on load when the empty password opens the file and
    // then drops /Encrypt from the trailer; when it is still there the file
    // needs a real password.
    if doc.trailer.get(b"Encrypt").is_ok() {
        return Err("encrypted PDF: not supported (it needs a password to open)".into());
    }
    let encrypted = doc.encryption_state.is_some();
    let title = catch_unwind(AssertUnwindSafe(|| info_title(&doc))).unwrap_or(None);
    let page_numbers: Vec<u32> = match catch_unwind(AssertUnwindSafe(|| doc.get_pages())) {
        Ok(p) => p.into_keys().collect(),
        Err(p) => return Err(format!("PDF extractor crashed ({})", panic_message(&*p))),
    };
    if page_numbers.is_empty() {
        return Err("truncated or malformed PDF: no pages found".into());
    }
    let total = page_numbers.len() as u32;
    on_page(0, total);
    let mut pages = Vec::with_capacity(page_numbers.len());
    for (done, num) in page_numbers.into_iter().enumerate() {
        let mut dev = LineCollector::default();
        let r = catch_unwind(AssertUnwindSafe(|| {
            pdf_extract::output_doc_page(&doc, &mut dev, num)
        }));
        let mut page = Page {
            lines: dev.finish(),
            error: None,
        };
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => page.error = Some(e.to_string()),
            Err(p) => page.error = Some(format!("extractor crashed: {}", panic_message(&*p))),
        }
        pages.push(page);
        on_page(done as u32 + 1, total);
    }
    Ok(Extracted {
        title,
        encrypted,
        pages,
    })
}

/// The Info dictionary's Title, decoded (PDFDocEncoding or UTF-16).
fn info_title(doc: &Document) -> Option<String> {
    let info = match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_dictionary(*id).ok()?,
        Object::Dictionary(d) => d,
        _ => return None,
    };
    let title = match info.get(b"Title").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        o => o,
    };
    let s = lopdf::decode_text_string(title).ok()?;
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!s.is_empty()).then_some(s)
}

/// An OutputDev that keeps lines with their font size and position, so
/// paragraphs and headings can be told apart afterwards. Line breaks follow
/// pdf-extract's plain-text rules.
#[derive(Default)]
struct LineCollector {
    lines: Vec<Line>,
    page_top: f64,
    text: String,
    size_sum: f64,
    size_n: u32,
    x0: f64,
    y0: f64,
    gap: bool,
    last_end: f64,
    last_y: f64,
    last_size: f64,
    word_start: bool,
    started: bool,
}

impl LineCollector {
    fn break_line(&mut self, gap: bool) {
        let text = self.text.trim();
        if text.chars().any(|c| !c.is_whitespace()) {
            let size = if self.size_n > 0 {
                self.size_sum / self.size_n as f64
            } else {
                self.last_size
            };
            self.lines.push(Line {
                text: text.to_string(),
                size: size as f32,
                x: self.x0 as f32,
                end: self.last_end as f32,
                y: self.y0 as f32,
                gap: self.gap,
            });
            self.gap = gap;
        } else {
            // A gap before an empty line still separates what follows.
            self.gap = self.gap || gap;
        }
        self.text.clear();
        self.size_sum = 0.0;
        self.size_n = 0;
    }

    fn finish(mut self) -> Vec<Line> {
        self.break_line(false);
        self.lines
    }
}

impl OutputDev for LineCollector {
    fn begin_page(
        &mut self,
        _page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.page_top = media_box.ury;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        ch: &str,
    ) -> Result<(), OutputError> {
        let x = trm.m31;
        let y = self.page_top - trm.m32;
        let vx = font_size * (trm.m11 + trm.m21);
        let vy = font_size * (trm.m12 + trm.m22);
        let mut size = (vx * vy).abs().sqrt();
        if !size.is_finite() || size < 0.5 {
            size = if self.last_size > 0.0 {
                self.last_size
            } else {
                10.0
            };
        }
        if self.started && self.word_start {
            let dy = (y - self.last_y).abs();
            if dy > size * 1.5 {
                self.break_line(true);
            } else if x < self.last_end && dy > size * 0.5 {
                self.break_line(false);
            } else if x > self.last_end + size * 0.1 && !self.text.ends_with(' ') {
                self.text.push(' ');
            }
        }
        if self.text.is_empty() {
            self.x0 = x;
            self.y0 = y;
        }
        for c in ch.chars() {
            match c {
                '\u{fb00}' => self.text.push_str("ff"),
                '\u{fb01}' => self.text.push_str("fi"),
                '\u{fb02}' => self.text.push_str("fl"),
                '\u{fb03}' => self.text.push_str("ffi"),
                '\u{fb04}' => self.text.push_str("ffl"),
                '\u{fb05}' | '\u{fb06}' => self.text.push_str("st"),
                '\u{a0}' | '\t' => self.text.push(' '),
                c if c.is_control() => {}
                c => self.text.push(c),
            }
            if !c.is_whitespace() {
                self.size_sum += size;
                self.size_n += 1;
            }
        }
        if self.text.is_empty() {
            // Nothing printable yet: the line starts at the next character.
            self.x0 = x;
        }
        self.last_y = y;
        self.last_end = x + width * size;
        self.last_size = size;
        self.word_start = false;
        self.started = true;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.word_start = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
