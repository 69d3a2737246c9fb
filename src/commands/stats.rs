//! `kb stats [--clear] [--limit N]`: what the search log says.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

/// Search log: frequent queries, queries without results, latency percentiles
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatsArgs {
    /// Empty the search log
    #[arg(long)]
    #[serde(default)]
    pub clear: bool,
    /// How many queries to list
    #[arg(long, default_value_t = 10, value_name = "N", allow_negative_numbers = true)]
    #[serde(default = "default_limit")]
    pub limit: usize,
}

fn default_limit() -> usize {
    10
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Latency {
    /// Median search time in milliseconds (null before any search).
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// The slowest.
    pub max: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct QueryCount {
    /// The query.
    pub query: String,
    /// How often it was searched.
    pub count: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StatsSummary {
    /// Searches logged.
    pub total_searches: i64,
    /// Searches that found nothing.
    pub zero_result_searches: i64,
    /// Searches that failed with an error.
    pub failed_searches: i64,
    /// Search times.
    pub latency_ms: Latency,
    /// The most frequent queries.
    pub top_queries: Vec<QueryCount>,
    /// The most frequent queries that found nothing.
    pub zero_result_queries: Vec<QueryCount>,
    /// Whether searches are being logged (`search.log`).
    pub logging: bool,
    /// Logged searches by where they came from: cli or mcp.
    pub searches_by_source: BTreeMap<String, i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Cleared {
    /// Log entries deleted.
    pub cleared: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum StatsOutput {
    Summary(StatsSummary),
    Cleared(Cleared),
}

/// The value at percentile `p` (nearest rank), to 0.1 ms.
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() as f64) * p).ceil() as usize;
    Some((sorted[i.clamp(1, sorted.len()) - 1] * 10.0).round() / 10.0)
}

impl Command for StatsArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "stats",
        title: "Search statistics",
        summary: "The search log: most frequent queries, queries with no results, latency \
                  percentiles (`kb stats`).",
        output: OutputKind::Query,
        mcp: Mcp::Hidden,
    };
    type Output = StatsOutput;

    fn run(self, session: &mut Session) -> Result<StatsOutput> {
        let db = session.db()?;
        if self.clear {
            return Ok(StatsOutput::Cleared(Cleared {
                cleared: db.clear_search_log()?,
            }));
        }
        let (mut durations, total, zero, failed) = db.search_log_summary()?;
        durations.sort_by(|a, b| a.total_cmp(b));
        let counts = |v: Vec<(String, i64)>| -> Vec<QueryCount> {
            v.into_iter()
                .map(|(query, count)| QueryCount { query, count })
                .collect()
        };
        Ok(StatsOutput::Summary(StatsSummary {
            total_searches: total,
            zero_result_searches: zero,
            failed_searches: failed,
            latency_ms: Latency {
                p50: percentile(&durations, 0.5),
                p95: percentile(&durations, 0.95),
                p99: percentile(&durations, 0.99),
                max: durations.last().copied(),
            },
            top_queries: counts(db.frequent_queries(false, self.limit)?),
            zero_result_queries: counts(db.frequent_queries(true, self.limit)?),
            logging: session.config().search.log,
            searches_by_source: db.search_log_sources()?.into_iter().collect(),
        }))
    }
}

plain_outcome!(StatsOutput);

impl Render for StatsOutput {
    fn human(&self, _style: &Style) -> String {
        let s = match self {
            StatsOutput::Cleared(c) => {
                return format!("Cleared {} logged searches.\n", c.cleared);
            }
            StatsOutput::Summary(s) => s,
        };
        let mut out = format!(
            "Searches: {} ({} with no results, {} failed)\n",
            s.total_searches, s.zero_result_searches, s.failed_searches,
        );
        if let (Some(p50), Some(p95), Some(p99)) =
            (s.latency_ms.p50, s.latency_ms.p95, s.latency_ms.p99)
        {
            out.push_str(&format!(
                "Latency: p50 {p50} ms, p95 {p95} ms, p99 {p99} ms\n"
            ));
        }
        for (list, title) in [
            (&s.top_queries, "Most frequent"),
            (&s.zero_result_queries, "No results"),
        ] {
            if list.is_empty() {
                continue;
            }
            out.push_str(&format!("\n{title}:\n"));
            for q in list {
                out.push_str(&format!("  {:>4}  {}\n", q.count, shortened(&q.query)));
            }
        }
        out
    }
}

/// A query as one line of at most 100 characters: a pasted document must
/// not fill the terminal.
fn shortened(query: &str) -> String {
    const MAX: usize = 100;
    let one_line: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = one_line.chars().count();
    if chars <= MAX {
        return one_line;
    }
    let head: String = one_line.chars().take(MAX).collect();
    format!("{head}... ({chars} characters)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_document_is_one_short_line() {
        assert_eq!(shortened("ssh  keys\n"), "ssh keys");
        let long = "word ".repeat(100_000);
        let s = shortened(&long);
        assert!(s.starts_with("word word") && s.ends_with("... (499999 characters)"), "{s}");
        assert!(s.chars().count() < 130);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.0));
        assert_eq!(percentile(&v, 0.95), Some(95.0));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[4.26], 0.99), Some(4.3));
    }
}
