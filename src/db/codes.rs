//! `chunk_codes`: the compact copy of every vector that a fresh process
//! scans (see migrations/005_vector_codes.sql). A code is the vector's
//! scale (f32), the length of its rounding error (f32) and one int8 per
//! dimension, little-endian. The scan reads plain table rows in rowid
//! order: no virtual table, no float decoding.

use rusqlite::params;

use super::Database;
use crate::error::Result;

/// One vector's code as stored: the scale, the error bound and the int8s.
#[derive(Debug, Clone, Copy)]
pub struct VectorCode<'a> {
    /// `v[i] ≈ scale * codes[i]`.
    pub scale: f32,
    /// `|v - scale * codes|` (Euclidean): bounds how far a dot product
    /// with the codes can be from the exact one.
    pub error: f32,
    pub codes: &'a [i8],
}

/// Symmetric int8 codes of `v` appended to `out`; returns (scale, error).
pub fn quantize(v: &[f32], out: &mut Vec<i8>) -> (f32, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let start = out.len();
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
    );
    let error = v
        .iter()
        .zip(&out[start..])
        .map(|(x, c)| {
            let d = (*x as f64) - (scale as f64) * (*c as f64);
            d * d
        })
        .sum::<f64>()
        .sqrt();
    // Rounded up by a hair so float rounding never makes the bound short.
    (scale, (error * (1.0 + 1e-6) + 1e-7) as f32)
}

/// The stored bytes of `v`'s code.
pub fn encode(v: &[f32]) -> Vec<u8> {
    let mut codes = Vec::with_capacity(v.len());
    let (scale, error) = quantize(v, &mut codes);
    let mut out = Vec::with_capacity(8 + v.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend_from_slice(&error.to_le_bytes());
    out.extend(codes.iter().map(|c| *c as u8));
    out
}

fn decode(blob: &[u8]) -> Option<VectorCode<'_>> {
    if blob.len() < 8 {
        return None;
    }
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    // SAFETY: i8 and u8 have the same size and alignment.
    let codes =
        unsafe { std::slice::from_raw_parts(blob[8..].as_ptr() as *const i8, blob.len() - 8) };
    Some(VectorCode {
        scale: f(&blob[0..4]),
        error: f(&blob[4..8]),
        codes,
    })
}

impl Database {
    /// Writes the codes of `vectors` (inside the caller's transaction, the
    /// one that writes the vectors).
    pub(super) fn insert_codes(&self, chunk_ids: &[i64], vectors: &[Vec<f32>]) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("INSERT OR REPLACE INTO chunk_codes(chunk_id, code) VALUES (?1, ?2)")?;
        for (id, v) in chunk_ids.iter().zip(vectors) {
            stmt.execute(params![id, encode(v)])?;
        }
        Ok(())
    }

    /// Rebuilds every code from chunks_vec (the migration that adds the
    /// table, and a reindex that swaps the vectors). Runs in the caller's
    /// transaction.
    pub(super) fn rebuild_codes(&self) -> Result<()> {
        self.conn().execute("DELETE FROM chunk_codes", [])?;
        if !self.has_vector_table()? {
            return Ok(());
        }
        let mut rows: Vec<(i64, Vec<u8>)> = Vec::new();
        self.for_each_vector(|id, v| rows.push((id, encode(v))))?;
        let mut stmt = self
            .conn()
            .prepare_cached("INSERT INTO chunk_codes(chunk_id, code) VALUES (?1, ?2)")?;
        for (id, code) in rows {
            stmt.execute(params![id, code])?;
        }
        Ok(())
    }

    pub(super) fn clear_codes(&self) -> Result<()> {
        self.conn().execute("DELETE FROM chunk_codes", [])?;
        Ok(())
    }

    /// Calls `f` with every chunk's code, in chunk id order.
    pub fn for_each_code(&self, mut f: impl FnMut(i64, VectorCode<'_>)) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT chunk_id, code FROM chunk_codes")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let blob = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            if let Some(code) = decode(blob) {
                f(id, code);
            }
        }
        Ok(())
    }

    /// How many codes and how many vectors are stored (they must agree).
    pub fn code_and_vector_counts(&self) -> Result<(i64, i64)> {
        let codes: i64 = self
            .conn()
            .query_row("SELECT count(*) FROM chunk_codes", [], |r| r.get(0))?;
        let vectors: i64 = if self.has_vector_table()? {
            self.conn()
                .query_row("SELECT count(*) FROM chunks_vec", [], |r| r.get(0))?
        } else {
            0
        };
        Ok((codes, vectors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_round_trips_and_bounds_its_error() {
        let mut v: Vec<f32> = (0..384).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
        crate::embed::normalize(&mut v);
        let blob = encode(&v);
        assert_eq!(blob.len(), 8 + 384);
        let c = decode(&blob).unwrap();
        let back: Vec<f32> = c.codes.iter().map(|x| *x as f32 * c.scale).collect();
        let err: f32 = v
            .iter()
            .zip(&back)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f32>()
            .sqrt();
        assert!(err <= c.error && c.error < err * 1.001 + 1e-6);
        assert!(c.error < 0.02, "{}", c.error);
    }
}
