//! Reading a page that has no usable text layer: pdfium renders it at
//! 300 dpi and Tesseract (the `tesseract` program from the
//! `tesseract-ocr` package) recognises it; its TSV output (words with
//! boxes, grouped into blocks, paragraphs and lines) becomes the same
//! `Line`s the text layer gives, so paragraphs and headings are found the
//! same way.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::pdf::page::Line;

/// Rendering resolution for OCR: Tesseract is most accurate on text of
/// 20-40 pixels per line, which 300 dpi gives for 8-14 pt type.
pub const DPI: f32 = 300.0;

/// A unit: points in an inch.
pub const POINTS_PER_INCH: f32 = 72.0;

/// How to install the engine, for the warning when it is missing.
pub const HOW_TO_INSTALL: &str = "install Tesseract (Debian/Ubuntu: apt install tesseract-ocr; \
     macOS: brew install tesseract) or set ingestion.tesseract to its path";

/// The `tesseract` program: `ingestion.tesseract` when set, else the first
/// `tesseract` on PATH.
pub fn locate(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = configured {
        return Some(p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("tesseract"))
        .find(|p| p.is_file())
}

/// The languages Tesseract has data for (`tesseract --list-langs`).
pub fn languages(tesseract: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(tesseract)
        .arg("--list-langs")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run {}: {e}", tesseract.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --list-langs failed: {}",
            tesseract.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // The first line is a heading ("List of available languages ...").
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

/// A rendered page: one byte of grey per pixel, rows `stride` bytes apart.
pub struct GreyImage {
    pub width: usize,
    pub height: usize,
    pub stride: usize,
    pub pixels: Vec<u8>,
}

impl GreyImage {
    /// Nothing drawn: a blank page needs no OCR (fewer than one pixel in
    /// 10,000 darker than mid-grey).
    pub fn blank(&self) -> bool {
        let dark = self
            .pixels
            .chunks(self.stride.max(1))
            .take(self.height)
            .flat_map(|row| &row[..self.width.min(row.len())])
            .filter(|&&p| p < 128)
            .count();
        dark * 10_000 < self.width * self.height
    }

    /// The image as a binary PGM file (what Tesseract reads from stdin).
    fn pgm(&self) -> Vec<u8> {
        let mut out = format!("P5\n{} {}\n255\n", self.width, self.height).into_bytes();
        out.reserve(self.width * self.height);
        for row in self.pixels.chunks(self.stride).take(self.height) {
            out.extend_from_slice(&row[..self.width.min(row.len())]);
        }
        out
    }
}

/// Recognises the text of a rendered page: lines in Tesseract's reading
/// order, positions and sizes in points.
pub fn recognise(
    tesseract: &Path,
    languages: &str,
    image: &GreyImage,
) -> Result<Vec<Line>, String> {
    let mut child = Command::new(tesseract)
        .args(["stdin", "stdout", "-l", languages, "--psm", "3", "tsv"])
        // One thread per page: kb already reads several files at once, and
        // Tesseract's OpenMP threads only contend with them.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", tesseract.display()))?;
    let pgm = image.pgm();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || stdin.write_all(&pgm));
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut tsv = String::new();
    let read = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_string(&mut tsv);
    let status = child.wait().map_err(|e| format!("tesseract: {e}"))?;
    let _ = writer.join();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() || read.is_err() {
        let detail = err
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(format!("tesseract failed ({status}): {detail}"));
    }
    Ok(lines_from_tsv(&tsv, POINTS_PER_INCH / DPI))
}

/// Recognises an image file (PNG, JPEG, TIFF, WebP; every page of a
/// multi-page TIFF): its lines per page, in pixels. Tesseract runs with
/// at most `memory_limit` bytes of address space and is killed after
/// `timeout`.
pub fn recognise_file(
    tesseract: &Path,
    languages: &str,
    image: &Path,
    timeout: std::time::Duration,
    memory_limit: u64,
) -> Result<Vec<Vec<Line>>, String> {
    let mut cmd = Command::new(tesseract);
    cmd.arg(image)
        .args(["stdout", "-l", languages, "--psm", "3", "tsv"])
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let limit = memory_limit;
        // SAFETY: only setrlimit, async-signal-safe, runs between fork and
        // exec.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: limit as libc::rlim_t,
                    rlim_max: limit as libc::rlim_t,
                };
                libc::setrlimit(libc::RLIMIT_AS, &lim);
                Ok(())
            });
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", tesseract.display()))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "tesseract did not finish within {} s (ingestion.pdf_timeout_secs)",
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => return Err(format!("tesseract: {e}")),
        }
    };
    let tsv = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let detail = err
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(format!(
            "tesseract could not read the image ({status}): {detail}"
        ));
    }
    // Rows are grouped by their page number (the second column).
    let mut pages: Vec<String> = Vec::new();
    let header = tsv.lines().next().unwrap_or("");
    for row in tsv.lines().skip(1) {
        let page = row
            .split('\t')
            .nth(1)
            .and_then(|p| p.trim().parse::<usize>().ok())
            .unwrap_or(1)
            .max(1);
        while pages.len() < page {
            pages.push(format!("{header}\n"));
        }
        pages[page - 1].push_str(row);
        pages[page - 1].push('\n');
    }
    Ok(pages.iter().map(|t| lines_from_tsv(t, 1.0)).collect())
}

/// A word of Tesseract's TSV output.
struct Word {
    key: (u32, u32, u32),
    left: f32,
    top: f32,
    right: f32,
    bottom: f32,
    text: String,
}

/// Tesseract's words grouped into its lines; a new paragraph or block
/// starts after a gap. `scale` turns pixels into points.
pub fn lines_from_tsv(tsv: &str, scale: f32) -> Vec<Line> {
    let mut words = Vec::new();
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let text = f[11].trim();
        if text.is_empty() {
            continue;
        }
        let n = |i: usize| f[i].trim().parse::<f32>().unwrap_or(0.0);
        let k = |i: usize| f[i].trim().parse::<u32>().unwrap_or(0);
        words.push(Word {
            key: (k(2), k(3), k(4)),
            left: n(6),
            top: n(7),
            right: n(6) + n(8),
            bottom: n(7) + n(9),
            text: text.to_string(),
        });
    }
    let mut out: Vec<Line> = Vec::new();
    let mut i = 0;
    let mut prev_para: Option<(u32, u32)> = None;
    while i < words.len() {
        let key = words[i].key;
        let mut j = i;
        while j < words.len() && words[j].key == key {
            j += 1;
        }
        let line = &words[i..j];
        let text = line
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        // The tallest word spans ascender to descender: about the type size.
        let height = line.iter().map(|w| w.bottom - w.top).fold(0.0, f32::max);
        let para = (key.0, key.1);
        out.push(Line {
            text,
            size: (height * scale).max(1.0),
            x: line.iter().map(|w| w.left).fold(f32::MAX, f32::min) * scale,
            end: line.iter().map(|w| w.right).fold(0.0, f32::max) * scale,
            y: line.iter().map(|w| w.bottom).fold(0.0, f32::max) * scale,
            gap: prev_para.is_some_and(|p| p != para),
            ..Line::default()
        });
        prev_para = Some(para);
        i = j;
    }
    out
}

/// How a page's text reads: its characters, how many are unmapped glyphs
/// (U+FFFD, private-use codes, controls: a font without a Unicode map),
/// its runs of Latin letters (the parts of `\put(40,10){\vrez}` are put
/// and vrez) and how many of them have a vowel, as real words do and a
/// shifted or mis-mapped font's runs (Wkh txlfn) mostly do not.
#[derive(Debug, Default, Clone, Copy)]
struct Reading {
    visible: usize,
    unmapped: usize,
    runs: usize,
    wordlike: usize,
}

fn reading(lines: &[Line]) -> Reading {
    let mut r = Reading::default();
    for l in lines {
        for c in l.text.chars().filter(|c| !c.is_whitespace()) {
            r.visible += 1;
            if c == '\u{fffd}' || ('\u{e000}'..='\u{f8ff}').contains(&c) || c.is_control() {
                r.unmapped += 1;
            }
        }
        for run in letter_runs(&l.text).filter(|r| r.len() >= 2) {
            r.runs += 1;
            if run.chars().any(|c| "aeiouyAEIOUY".contains(c)) {
                r.wordlike += 1;
            }
        }
    }
    r
}

/// The runs of Latin letters of `text`, but for those right after a digit:
/// units and ordinals (`10pt`, `5mm`, `2nd`) have no vowel and are no
/// words to judge a font's mapping by (a table of type sizes read as
/// garbage, and OCR put `Opt` and `Spt` for its `9pt` and `5pt`).
fn letter_runs(text: &str) -> impl Iterator<Item = &str> {
    let mut after_digit = false;
    text.split_inclusive(|c: char| !c.is_ascii_alphabetic())
        .filter_map(move |part| {
            let run = part.trim_end_matches(|c: char| !c.is_ascii_alphabetic());
            let counted = !after_digit;
            after_digit = part.ends_with(|c: char| c.is_ascii_digit());
            counted.then_some(run)
        })
}

/// Whether a page's text layer is unusable: a quarter of its characters or
/// more are unmapped glyphs, or under 40% of its runs of Latin letters
/// have a vowel (English prose has over 95%, code and formulas about half
/// or more). On the 13,940 pages of scripts/bench_pdf.py's real PDFs it
/// flags 8 pages of text (font and colour tables); OCR replaces such a
/// page's text only when it reads better ([`reads_better`]).
pub fn garbage(lines: &[Line]) -> bool {
    let r = reading(lines);
    r.visible >= 20
        && (r.unmapped * 4 >= r.visible || (r.runs >= 20 && r.wordlike * 5 < r.runs * 2))
}

/// Whether recognised text reads better than a page's text layer: fewer
/// unmapped glyphs, or more of its letter runs are words.
pub fn reads_better(recognised: &[Line], layer: &[Line]) -> bool {
    let (a, b) = (reading(recognised), reading(layer));
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let (ua, ub) = (share(a.unmapped, a.visible), share(b.unmapped, b.visible));
    if (ua - ub).abs() > 0.1 {
        return ua < ub;
    }
    share(a.wordlike, a.runs) > share(b.wordlike, b.runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_renderings_are_told_from_pages_with_ink() {
        let mut img = GreyImage {
            width: 100,
            height: 100,
            stride: 104,
            pixels: vec![255; 104 * 100],
        };
        assert!(img.blank());
        // Dark bytes in the row padding do not count.
        img.pixels[101] = 0;
        assert!(img.blank());
        img.pixels[104 * 50 + 50] = 0;
        assert!(!img.blank());
    }

    #[test]
    fn tsv_words_become_lines_and_paragraphs() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
            1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n\
            4\t1\t1\t1\t1\t0\t300\t300\t900\t50\t-1\t\n\
            5\t1\t1\t1\t1\t1\t300\t300\t200\t50\t96\tQuince\n\
            5\t1\t1\t1\t1\t2\t520\t300\t150\t40\t95\tjelly\n\
            5\t1\t1\t1\t2\t1\t300\t370\t300\t42\t91\tneeds\n\
            5\t1\t1\t2\t1\t1\t300\t600\t300\t42\t91\tLemon\n\
            5\t1\t1\t2\t1\t2\t620\t600\t300\t42\t91\t \n";
        let lines = lines_from_tsv(tsv, 72.0 / 300.0);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, vec!["Quince jelly", "needs", "Lemon"]);
        assert!(!lines[0].gap && !lines[1].gap && lines[2].gap);
        assert!((lines[0].size - 12.0).abs() < 0.01, "{}", lines[0].size);
        assert!((lines[0].x - 72.0).abs() < 0.01);
    }

    fn line(text: &str) -> Line {
        Line {
            text: text.into(),
            size: 10.0,
            ..Line::default()
        }
    }

    #[test]
    fn garbage_text_layers_are_told_from_real_text() {
        let real = vec![line(
            "Plant apple trees in early spring when the soil is workable, and water them \
             well during the first summer so that the roots establish themselves quickly.",
        )];
        assert!(!garbage(&real));
        let table = vec![line(
            "Revenue | 1,234 | 5,678 | 9,012 | 3,456 | 7,890 | 12.5% | 13.1%",
        )];
        assert!(!garbage(&table));
        let unmapped = vec![line(&"\u{fffd}\u{e001}\u{e002} ".repeat(20))];
        assert!(garbage(&unmapped));
        let shifted = vec![line(
            "Wkh#txlfn#eurzq#ir{#mxpsv#ryhu#wkh#od}|#grj Wkh#txlfn#eurzq#ir{#mxpsv \
             qb gh vv kk tt pp qq rr ss xx zz bb cc dd ff gg hh jj kk ll mm nn",
        )];
        assert!(garbage(&shifted));
        // Code is full of symbols, but its letters make words.
        let code = vec![line(
            "\\put(40,10){\\vrez{0}} \\put(40,40){\\vrez{1}} \\put(30,10){\\vrez{0}} \
             \\put(60,45){\\vvind{R}{0}} \\put(70,50){\\vturn{L}{0}} \\put(65,50){\\vcore{3}{F}} \
             \\put(60,10){\\chassis{D}} \\put(60,65){\\vwire{5}} \\put(60,70){\\hwire{30}}",
        )];
        assert!(!garbage(&code));
        // Units after numbers are no words: a table of type sizes is text.
        let sizes = vec![line(&"9pt 10pt 11pt 12pt 14pt 17pt 20pt 25pt ".repeat(4))];
        assert!(!garbage(&sizes));
        // Chinese text is not judged by Latin vowels.
        let cjk = vec![line(&"密钥轮换需要定期进行，以确保系统安全。".repeat(3))];
        assert!(!garbage(&cjk));
        // OCR's reading replaces a garbage layer, not a good one.
        assert!(reads_better(&real, &shifted));
        assert!(reads_better(&real, &unmapped));
        assert!(!reads_better(&shifted, &real));
    }
}
