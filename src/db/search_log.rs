//! The search log (`kb stats`): one row per search, from the CLI or the
//! MCP server.

use rusqlite::params;

use super::Database;
use crate::error::Result;

/// One row of the search log.
#[derive(Debug, Clone, Default)]
pub struct SearchLogEntry {
    pub source: String,
    pub query: String,
    pub mode: String,
    pub filters: String,
    pub result_count: usize,
    pub duration_ms: f64,
    pub error: Option<String>,
}

impl Database {
    pub fn log_search(&self, e: &SearchLogEntry) -> Result<()> {
        self.conn().execute(
            "INSERT INTO search_log (source, query, mode, filters, result_count, duration_ms, error)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                e.source,
                e.query,
                e.mode,
                e.filters,
                e.result_count as i64,
                e.duration_ms,
                e.error
            ],
        )?;
        Ok(())
    }

    /// Queries with how often they were searched, most frequent first.
    pub fn frequent_queries(
        &self,
        zero_results_only: bool,
        limit: usize,
    ) -> Result<Vec<(String, i64)>> {
        let cond = if zero_results_only {
            "WHERE result_count = 0 AND error IS NULL"
        } else {
            ""
        };
        let sql = format!(
            "SELECT query, count(*) AS n FROM search_log {cond}
             GROUP BY query ORDER BY n DESC, max(ts) DESC LIMIT ?1"
        );
        let mut stmt = self.conn().prepare(&sql)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map([limit], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Durations of logged searches (ms), and counts: total, zero-result, failed.
    pub fn search_log_summary(&self) -> Result<(Vec<f64>, i64, i64, i64)> {
        let mut stmt = self
            .conn()
            .prepare("SELECT duration_ms FROM search_log WHERE error IS NULL")?;
        let durations = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<f64>>>()?;
        let (total, zero, failed) = self.conn().query_row(
            "SELECT count(*),
                    coalesce(sum(result_count = 0 AND error IS NULL), 0),
                    coalesce(sum(error IS NOT NULL), 0)
             FROM search_log",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        Ok((durations, total, zero, failed))
    }

    /// Logged searches per source (cli, mcp).
    pub fn search_log_sources(&self) -> Result<Vec<(String, i64)>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT source, count(*) FROM search_log GROUP BY source ORDER BY source")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn clear_search_log(&self) -> Result<usize> {
        self.writable()?;
        Ok(self.conn().execute("DELETE FROM search_log", [])?)
    }
}
