//! Where a command's time goes. With `KB_TIMINGS=1`, each phase a span
//! names (configuration, the database, the model's runtime, session and
//! tokenizer, the query's embedding, each ranker, fusion, output) is
//! written to stderr when the command ends: when it started and how long it
//! took, in milliseconds from the start of `main`, and on which thread.
//! Without the variable a span is a branch on a static and nothing else.
//! `kb-bench cli --phases` reads these lines.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The environment variable that turns the report on.
pub const VARIABLE: &str = "KB_TIMINGS";

/// The first word of every line of the report.
pub const LINE_PREFIX: &str = "kb-timing";

struct Clock {
    start: Instant,
    spans: Mutex<Vec<Record>>,
}

struct Record {
    name: &'static str,
    start_ms: f64,
    took_ms: f64,
    thread: String,
}

static CLOCK: OnceLock<Option<Clock>> = OnceLock::new();

fn clock() -> Option<&'static Clock> {
    CLOCK
        .get_or_init(|| {
            let on = std::env::var_os(VARIABLE).is_some_and(|v| !v.is_empty() && v != "0");
            on.then(|| Clock {
                start: Instant::now(),
                spans: Mutex::new(Vec::new()),
            })
        })
        .as_ref()
}

/// Starts the clock (call first thing in `main`; any span starts it too).
pub fn start() {
    clock();
}

/// A phase, timed from now until the value is dropped.
#[must_use = "a span measures until it is dropped"]
pub struct Span {
    name: &'static str,
    began: Option<Instant>,
}

/// Times a phase until the returned span is dropped.
pub fn span(name: &'static str) -> Span {
    Span {
        name,
        began: clock().map(|_| Instant::now()),
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let (Some(clock), Some(began)) = (clock(), self.began) else {
            return;
        };
        let record = Record {
            name: self.name,
            start_ms: began.duration_since(clock.start).as_secs_f64() * 1000.0,
            took_ms: began.elapsed().as_secs_f64() * 1000.0,
            thread: std::thread::current().name().unwrap_or("-").to_string(),
        };
        if let Ok(mut spans) = clock.spans.lock() {
            spans.push(record);
        }
    }
}

/// Writes the report to stderr (when `KB_TIMINGS` is set): one line per
/// span in the order they started, then the total since `main` began.
pub fn report() {
    let Some(clock) = clock() else {
        return;
    };
    let total = clock.start.elapsed().as_secs_f64() * 1000.0;
    let mut spans = match clock.spans.lock() {
        Ok(mut s) => std::mem::take(&mut *s),
        Err(_) => return,
    };
    spans.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    let mut out = String::new();
    for r in &spans {
        out.push_str(&line(r.name, r.start_ms, r.took_ms, &r.thread));
    }
    out.push_str(&line("total", 0.0, total, "main"));
    eprint!("{out}");
}

fn line(name: &str, start_ms: f64, took_ms: f64, thread: &str) -> String {
    format!("{LINE_PREFIX}\t{name}\t{start_ms:.2}\t{took_ms:.2}\t{thread}\n")
}

/// One line of the report, read back: (phase, start ms, took ms).
pub fn parse_line(line: &str) -> Option<(&str, f64, f64)> {
    let mut fields = line.split('\t');
    if fields.next()? != LINE_PREFIX {
        return None;
    }
    let name = fields.next()?;
    let start = fields.next()?.parse().ok()?;
    let took = fields.next()?.parse().ok()?;
    Some((name, start, took))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_line_reads_back() {
        let l = line("query embedding", 12.5, 3.25, "vector");
        assert_eq!(
            parse_line(l.trim_end()),
            Some(("query embedding", 12.5, 3.25))
        );
        assert_eq!(parse_line("something else\t1\t2"), None);
    }
}
