//! The progress line of long work (`kb add`, `kb reindex`, the back-fill of
//! `kb init`), on stderr: redrawn in place on a terminal, and written as a
//! line of its own every half minute otherwise (a log, an agent's pipe,
//! where a long run would else say nothing until it ends): the CLI's view of
//! [`crate::progress::Progress`] events. It counts chunks, the unit the
//! model works in, moves with every model batch, says what it is doing
//! while the model loads, shows an ETA only once there is real progress to
//! go by, and fits the terminal's width, leaving out whole parts (never cutting a
//! number) when it is narrow.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::document::DocType;
use crate::progress::{FileSize, Progress, Work};

#[derive(Debug, Default)]
struct State {
    loading_model: bool,
    files_total: u64,
    files_done: u64,
    /// Files read (`kb add`): the parsers run ahead of the writer, so more
    /// files are known in chunks than are done.
    files_read: u64,
    /// Of each type, the bytes of the files to read, and of those read the
    /// bytes and the chunks they gave (`kb add`).
    bytes_to_read: BTreeMap<DocType, u64>,
    bytes_read: BTreeMap<DocType, (u64, u64)>,
    chunks_known: u64,
    chunks_done: u64,
    /// When the first chunk was embedded: rates and ETAs start there, so a
    /// model load does not count as slowness.
    first_done: Option<(Instant, u64)>,
    /// A PDF being read page by page: its name, pages done, pages.
    reading: Option<(String, u32, u32)>,
    /// The keyword index is being merged: the chunks are all written.
    merging: bool,
}

/// Where the progress line goes.
enum Sink {
    /// Redrawn in place on the terminal.
    Terminal(indicatif::ProgressBar),
    /// Told as a line of its own (through the CLI's notes, in the errors'
    /// format) at most every [`LOG_EVERY`], the first after that long.
    Log {
        say: Arc<dyn Fn(&str) + Send + Sync>,
        next: Mutex<Instant>,
    },
}

/// The progress line of long work.
pub(super) struct ProgressLine {
    work: Work,
    sink: Sink,
    state: Mutex<State>,
}

/// How often progress is told where stderr is no terminal: a run shorter
/// than this says nothing more than its result.
pub(super) const LOG_EVERY: Duration = Duration::from_secs(30);
/// The width of a progress line told as a line of its own.
const LOG_WIDTH: usize = 120;

/// Seconds of embedding before an ETA is worth showing.
const ETA_AFTER: Duration = Duration::from_secs(5);
/// Columns the line may take when the terminal's width is unknown: an
/// 80-column terminal without wrapping.
pub(super) const DEFAULT_WIDTH: usize = 79;

impl ProgressLine {
    /// A progress line redrawn on stderr, a terminal.
    pub(super) fn terminal(work: Work) -> ProgressLine {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(250));
        ProgressLine::with(work, Sink::Terminal(bar))
    }

    /// A progress line told through `say` every [`LOG_EVERY`].
    pub(super) fn log(work: Work, say: Arc<dyn Fn(&str) + Send + Sync>) -> ProgressLine {
        let next = Mutex::new(Instant::now() + LOG_EVERY);
        ProgressLine::with(work, Sink::Log { say, next })
    }

    fn with(work: Work, sink: Sink) -> ProgressLine {
        ProgressLine {
            work,
            sink,
            state: Mutex::new(State::default()),
        }
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut s);
        let now = Instant::now();
        match &self.sink {
            Sink::Terminal(bar) => bar.set_message(line(self.work, &s, now, terminal_width())),
            Sink::Log { .. } => self.tell(|| line(self.work, &s, now, LOG_WIDTH), now),
        }
    }

    /// Tells a line where stderr is no terminal, when it is time to.
    fn tell(&self, text: impl FnOnce() -> String, now: Instant) {
        let Sink::Log { say, next } = &self.sink else {
            return;
        };
        let mut next = next.lock().unwrap_or_else(|p| p.into_inner());
        if now >= *next {
            *next = now + LOG_EVERY;
            say(&text());
        }
    }
}

impl Progress for ProgressLine {
    fn loading_model(&self, loading: bool) {
        self.update(|s| s.loading_model = loading && s.chunks_done == 0);
    }

    fn files(&self, files: &[FileSize]) {
        self.update(|s| {
            s.files_total = files.len() as u64;
            for f in files {
                *s.bytes_to_read.entry(f.doc_type).or_default() += f.bytes;
            }
        });
    }

    fn file_read(&self, file: FileSize, chunks: u64) {
        self.update(|s| {
            s.chunks_known += chunks;
            s.files_read += 1;
            let read = s.bytes_read.entry(file.doc_type).or_default();
            read.0 += file.bytes;
            read.1 += chunks;
        });
    }

    fn file_done(&self) {
        self.update(|s| s.files_done += 1);
    }

    fn chunks_found(&self, n: u64) {
        self.update(|s| s.chunks_known += n);
    }

    fn chunks_done(&self, n: u64) {
        self.update(|s| {
            let now = Instant::now();
            if s.first_done.is_none() {
                s.first_done = Some((now, s.chunks_done));
            }
            // The bar starts: the model is loaded, whichever thread said so.
            s.loading_model = false;
            s.chunks_done += n;
        });
    }

    /// The line shows the latest PDF being read until it is read.
    fn pdf_pages(&self, name: &str, done: u32, total: u32) {
        self.update(|s| {
            s.reading = (done < total && total > 1).then(|| (name.to_string(), done, total));
        });
    }

    fn merging_keyword_index(&self) {
        self.update(|s| s.merging = true);
    }

    fn already_done(&self, n: u64) {
        self.update(|s| s.chunks_done += n);
    }

    /// A download has a line of its own: nothing else goes on meanwhile.
    fn downloading(&self, what: &str, done: u64, total: u64) {
        match &self.sink {
            Sink::Terminal(bar) => bar.set_message(download_line(what, done, total)),
            Sink::Log { .. } => self.tell(|| download_line(what, done, total), Instant::now()),
        }
    }

    fn finish(&self) {
        if let Sink::Terminal(bar) = &self.sink {
            bar.finish_and_clear();
        }
    }
}

/// `fetching onnxruntime 1.31.1 from PyPI: 12.3/17.0 MB`.
fn download_line(what: &str, done: u64, total: u64) -> String {
    let mb = |n: u64| n as f64 / 1e6;
    if total > 0 {
        format!(
            "fetching {what} from PyPI: {:.1}/{:.1} MB",
            mb(done),
            mb(total)
        )
    } else {
        format!("fetching {what} from PyPI: {:.1} MB", mb(done))
    }
}

impl Drop for ProgressLine {
    /// A line never outlives its work, even when the work fails.
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1,234`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// The chunks an ingest's files not read yet will give: as many per byte
/// as the files of their type read so far gave, or the files of every type
/// where none of theirs is read yet. The chunks known come from every file
/// read, not only from those written, which lag behind; files are read in
/// the order of their paths, so a folder of large PDFs read first says
/// little of the notes after it.
fn chunks_to_come(s: &State) -> u64 {
    let (bytes, chunks) = s
        .bytes_read
        .values()
        .fold((0, 0), |(b, c), &(rb, rc)| (b + rb, c + rc));
    if bytes == 0 {
        return 0;
    }
    let to_come = s.bytes_to_read.iter().map(|(doc_type, &total)| {
        let (read, gave) = s.bytes_read.get(doc_type).copied().unwrap_or_default();
        let left = total.saturating_sub(read) as f64;
        match read {
            0 => left * chunks as f64 / bytes as f64,
            _ => left * gave as f64 / read as f64,
        }
    });
    to_come.sum::<f64>().round() as u64
}

/// The line for a state: a 20-cell bar, chunks done of those known, files
/// (for an ingest), rate and ETA once measured.
fn line(work: Work, s: &State, now: Instant, width: usize) -> String {
    if s.merging {
        return "merging the keyword index…".to_string();
    }
    if s.loading_model && s.chunks_done == 0 {
        return match work {
            Work::Ingest => format!(
                "loading the embedding model… ({}/{} files read)",
                thousands(s.files_done),
                thousands(s.files_total)
            ),
            _ => "loading the embedding model…".to_string(),
        };
    }
    let seen = s.files_done.max(s.files_read);
    let estimated_total = match work {
        Work::Ingest if s.files_total > seen => s.chunks_known + chunks_to_come(s),
        _ => s.chunks_known,
    }
    .max(s.chunks_done);
    let cells = 20usize;
    let filled = (s.chunks_done * cells as u64)
        .checked_div(estimated_total)
        .unwrap_or(0) as usize;
    let bar = format!("[{}{}]", "#".repeat(filled), " ".repeat(cells - filled));
    let verb = match work {
        Work::Ingest => "chunks",
        Work::Reindex => "re-embedded",
        Work::Backfill => "back-filled",
    };
    let counts = format!(
        "{}/{} {verb}",
        thousands(s.chunks_done),
        thousands(s.chunks_known.max(s.chunks_done))
    );
    let files = (work == Work::Ingest).then(|| {
        format!(
            "{}/{} files",
            thousands(s.files_done),
            thousands(s.files_total)
        )
    });
    let (mut rate, mut eta) = (None, None);
    if let Some((since, base)) = s.first_done {
        let spent = now.saturating_duration_since(since);
        let done = s.chunks_done - base;
        if spent >= Duration::from_millis(500) && done > 0 {
            let per_second = done as f64 / spent.as_secs_f64();
            rate = Some(format!("{per_second:.1}/s"));
            let left = estimated_total.saturating_sub(s.chunks_done);
            if spent >= ETA_AFTER && left > 0 {
                // While files are still being read the total is an
                // estimate, and so is the ETA: `~` says so.
                let provisional = work == Work::Ingest && s.files_total > seen;
                eta = Some(format!(
                    "ETA {}{}",
                    if provisional { "~" } else { "" },
                    duration(Duration::from_secs_f64(left as f64 / per_second))
                ));
            }
        }
    }
    // Whole parts are left out, least useful first, until the line fits:
    // a number or a unit is never cut.
    let mut bar = Some(bar);
    let mut files = files;
    let assemble = |bar: &Option<String>,
                    files: &Option<String>,
                    rate: &Option<String>,
                    eta: &Option<String>| {
        let head = match bar {
            Some(b) => format!("{b} {counts}"),
            None => counts.clone(),
        };
        [Some(head), files.clone(), rate.clone(), eta.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let mut out = assemble(&bar, &files, &rate, &eta);
    for step in 0..4 {
        if out.chars().count() <= width {
            break;
        }
        match step {
            0 => rate = None,
            1 => files = None,
            2 => bar = None,
            _ => eta = None,
        }
        out = assemble(&bar, &files, &rate, &eta);
    }
    if let Some((name, done, total)) = &s.reading {
        // The name shortened to what the line has room for.
        let pages = format!(" p.{done}/{total}");
        let room = width.saturating_sub(out.chars().count() + 3 + pages.chars().count());
        if room >= 6 {
            let mut short: String = name.chars().take(room.min(40)).collect();
            if short.chars().count() < name.chars().count() {
                short.pop();
                short.push('…');
            }
            out.push_str(&format!(" · {short}{pages}"));
        }
    }
    out
}

/// The columns of the terminal stderr is, less one so the line never
/// wraps; 79 when it cannot be told.
pub(super) fn terminal_width() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a winsize struct and reads nothing else.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 1 {
            return usize::from(size.ws_col) - 1;
        }
    }
    DEFAULT_WIDTH
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State {
            files_total: 4612,
            ..State::default()
        }
    }

    fn file(doc_type: DocType, bytes: u64) -> FileSize {
        FileSize { doc_type, bytes }
    }

    #[test]
    fn the_merge_at_the_end_says_so() {
        let now = Instant::now();
        let mut s = state();
        s.files_done = 4612;
        s.chunks_known = 900;
        s.chunks_done = 900;
        assert!(line(Work::Ingest, &s, now, DEFAULT_WIDTH).contains("900/900 chunks"));
        s.merging = true;
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert_eq!(l, "merging the keyword index…");
    }

    #[test]
    fn a_download_counts_megabytes() {
        assert_eq!(
            download_line("onnxruntime 1.31.1", 12_345_678, 17_000_000),
            "fetching onnxruntime 1.31.1 from PyPI: 12.3/17.0 MB"
        );
        assert_eq!(
            download_line("x", 1_500_000, 0),
            "fetching x from PyPI: 1.5 MB"
        );
    }

    /// Where stderr is no terminal, progress is told as lines of their own,
    /// none in a run's first half minute and then at most one per half
    /// minute, however often the work moves.
    #[test]
    fn progress_is_told_every_half_minute_where_stderr_is_no_terminal() {
        let told: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = told.clone();
        let say: Arc<dyn Fn(&str) + Send + Sync> =
            Arc::new(move |l| record.lock().unwrap().push(l.to_string()));
        let p = ProgressLine::log(Work::Ingest, say.clone());
        p.files(&[file(DocType::Markdown, 100); 3]);
        p.file_read(file(DocType::Markdown, 100), 10);
        assert!(
            told.lock().unwrap().is_empty(),
            "told in the first half minute"
        );
        // Half a minute on.
        let due = Mutex::new(Instant::now());
        let p = ProgressLine::with(Work::Ingest, Sink::Log { say, next: due });
        p.files(&[file(DocType::Markdown, 100); 3]);
        p.file_read(file(DocType::Markdown, 100), 10);
        p.chunks_done(4);
        let told = told.lock().unwrap();
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0].ends_with("chunks · 0/3 files"), "{told:?}");
    }

    #[test]
    fn the_loading_line_goes_when_the_bar_starts() {
        let p = ProgressLine::terminal(Work::Ingest);
        p.files(&[file(DocType::Markdown, 100); 3]);
        p.loading_model(true);
        p.file_read(file(DocType::Markdown, 100), 10);
        p.chunks_done(4);
        // A second parser thread that waited for the same model says so late.
        p.loading_model(true);
        let s = p.state.lock().unwrap();
        let l = line(Work::Ingest, &s, Instant::now(), DEFAULT_WIDTH);
        assert!(!l.contains("loading"), "{l}");
        drop(s);
        p.finish();
    }

    #[test]
    fn no_eta_while_the_model_loads_or_before_real_progress() {
        let now = Instant::now();
        let mut s = state();
        s.loading_model = true;
        s.files_done = 12;
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.starts_with("loading the embedding model"), "{l}");
        assert!(!l.contains("ETA"));
        s.loading_model = false;
        s.chunks_known = 300;
        s.chunks_done = 32;
        s.first_done = Some((now - Duration::from_secs(2), 0));
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.contains("/s") && !l.contains("ETA"), "{l}");
        s.first_done = Some((now - Duration::from_secs(10), 0));
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.contains("ETA"), "{l}");
    }

    /// `read` of `total` files of 1,000 bytes each read into `chunks`.
    fn notes_read(read: u64, total: u64, chunks: u64) -> State {
        let mut s = state();
        s.files_total = total;
        s.files_read = read;
        s.chunks_known = chunks;
        s.bytes_to_read.insert(DocType::Markdown, total * 1000);
        s.bytes_read
            .insert(DocType::Markdown, (read * 1000, chunks));
        s
    }

    #[test]
    fn the_eta_counts_the_files_not_parsed_yet() {
        let now = Instant::now();
        let mut s = notes_read(10, 100, 20);
        s.files_done = 10;
        s.chunks_done = 20;
        s.first_done = Some((now - Duration::from_secs(10), 0));
        // 2 chunks/s, 10 files gave 20 chunks: 90 files to go ≈ 180 chunks,
        // an estimate while files are still being read.
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.contains("ETA ~1m30s"), "{l}");
        let mut s = notes_read(100, 100, 200);
        s.files_done = 100;
        s.chunks_done = 20;
        s.first_done = Some((now - Duration::from_secs(10), 0));
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(
            l.contains("ETA 1m30s"),
            "every file read: no longer an estimate: {l}"
        );
    }

    #[test]
    fn the_eta_counts_files_parsed_ahead_of_the_writer() {
        let now = Instant::now();
        // 40 files read into 80 chunks, 10 of them written so far.
        let mut s = notes_read(40, 100, 80);
        s.files_done = 10;
        s.chunks_done = 20;
        s.first_done = Some((now - Duration::from_secs(10), 0));
        // 2 chunks a file: 80 + 60 × 2 = 200 chunks, 180 to go at 2/s.
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.contains("ETA ~1m30s"), "{l}");
    }

    /// Large PDFs read first say how many chunks a byte of PDF gives, not
    /// how many a note gives: the notes after them count by their bytes,
    /// then by what the first notes read gave.
    #[test]
    fn the_files_to_come_count_by_their_type_and_size() {
        let mut s = state();
        s.files_total = 36;
        s.bytes_to_read.insert(DocType::Pdf, 6_000_000);
        s.bytes_to_read.insert(DocType::Markdown, 120_000);
        s.bytes_read.insert(DocType::Pdf, (4_000_000, 1000));
        // 2 MB of PDF at 1,000 chunks a 4 MB, 120 kB of notes at the same
        // rate while none is read.
        assert_eq!(chunks_to_come(&s), 500 + 30);
        s.bytes_read.insert(DocType::Markdown, (4_000, 3));
        assert_eq!(chunks_to_come(&s), 500 + 87);
        // Counted by files, the 32 files to come would be 8,000 chunks.
        let none_read = state();
        assert_eq!(chunks_to_come(&none_read), 0);
    }

    #[test]
    fn the_line_uses_the_width_and_never_cuts_a_number() {
        let now = Instant::now();
        let mut s = state();
        s.chunks_known = 61_510;
        s.chunks_done = 20_000;
        s.files_done = 1_500;
        s.files_read = 1_500;
        s.first_done = Some((now - Duration::from_secs(200), 0));
        let wide = line(Work::Ingest, &s, now, 200);
        assert!(
            wide.contains("20,000/61,510 chunks · 1,500/4,612 files · 100.0/s · ETA "),
            "{wide}"
        );
        let eta = wide.rsplit(" · ").next().unwrap().to_string();
        for width in [20, 30, 40, 50, 60, 79] {
            let l = line(Work::Ingest, &s, now, width);
            assert!(
                l.chars().count() <= width.max(l.chars().count().min(40)),
                "{width}: {l}"
            );
            // Every part shown is whole: the ETA and the counts as on the wide line.
            for part in l.split(" · ") {
                assert!(wide.contains(part), "{width}: {part:?} of {l:?} cut");
            }
            if width >= 40 {
                assert!(l.ends_with(&eta), "{width}: {l}");
            }
        }
    }

    #[test]
    fn lines_fit_eighty_columns() {
        let now = Instant::now();
        let big = State {
            loading_model: false,
            files_total: 123_456_789,
            files_done: 12_345_678,
            files_read: 12_345_678,
            chunks_known: 987_654_321,
            chunks_done: 123_456_789,
            first_done: Some((now - Duration::from_secs(3600), 0)),
            reading: Some(("a-very-long-scanned-annual-report-2019.pdf".into(), 12, 40)),
            ..State::default()
        };
        for work in [Work::Ingest, Work::Reindex, Work::Backfill] {
            let l = line(work, &big, now, DEFAULT_WIDTH);
            assert!(
                l.chars().count() <= DEFAULT_WIDTH,
                "{} {l}",
                l.chars().count()
            );
        }
        let mut s = state();
        s.chunks_known = 6151;
        s.chunks_done = 2000;
        s.files_done = 1500;
        s.first_done = Some((now - Duration::from_secs(200), 0));
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.contains("2,000/6,151 chunks · 1,500/4,612 files"), "{l}");
        assert!(l.chars().count() <= DEFAULT_WIDTH, "{l}");
        let r = line(Work::Reindex, &s, now, DEFAULT_WIDTH);
        assert!(r.contains("re-embedded") && !r.contains("files"), "{r}");
        // A long PDF being read shows its pages.
        s.first_done = None;
        s.reading = Some(("scan.pdf".into(), 3, 40));
        let l = line(Work::Ingest, &s, now, DEFAULT_WIDTH);
        assert!(l.ends_with(" · scan.pdf p.3/40"), "{l}");
        assert!(l.chars().count() <= DEFAULT_WIDTH, "{l}");
    }
}
