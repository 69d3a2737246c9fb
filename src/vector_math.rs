//! The arithmetic of vectors, whatever stores or ranks them: unit length,
//! dot products (with AVX2 where the CPU has it), and the int8 codes a
//! scan reads instead of floats (a scale, the bound of the rounding error,
//! one int8 per dimension).

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent accumulators let the compiler vectorise the loop.
    let mut acc = [0f32; 8];
    let chunks = a.len() / 8;
    for i in 0..chunks {
        for j in 0..8 {
            acc[j] += a[i * 8 + j] * b[i * 8 + j];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..a.len().min(b.len()) {
        sum += a[i] * b[i];
    }
    sum
}

/// The dot product of two int8 codes (of values in -127..=127, as
/// `quantize` makes them), with AVX2 where the CPU has it: the scan's inner
/// loop, run once per stored vector.
pub(crate) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { dot_i8_avx2(a, b) };
        }
    }
    dot_i8_portable(a, b)
}

fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    // Sixteen independent lanes let the compiler vectorise the loop.
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let mut sum: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| *x as i32 * *y as i32)
        .sum();
    for (x, y) in ca.zip(cb) {
        for j in 0..16 {
            acc[j] += x[j] as i32 * y[j] as i32;
        }
    }
    sum += acc.iter().sum::<i32>();
    sum
}

/// 32 pairs per step: |a| (unsigned) times b with a's sign, summed in
/// pairs to i16 (at most 2·127·127 = 32,258, so nothing saturates for codes
/// in -127..=127), then to i32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let steps = n / 32;
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    for i in 0..steps {
        // SAFETY: 32 bytes from i * 32 lie within both slices (i < n / 32).
        let x = _mm256_loadu_si256(a.as_ptr().add(i * 32) as *const __m256i);
        let y = _mm256_loadu_si256(b.as_ptr().add(i * 32) as *const __m256i);
        let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(x), _mm256_sign_epi8(y, x));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
    }
    let mut lanes = [0i32; 8];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
    let tail = dot_i8_portable(&a[steps * 32..n], &b[steps * 32..n]);
    lanes.iter().sum::<i32>() + tail
}

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

/// A code from its stored bytes (`None` when too short to hold one).
pub fn decode(blob: &[u8]) -> Option<VectorCode<'_>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_i8_matches_naive_at_every_length_and_extreme() {
        let mut state = 17u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 255) as i32 - 127
        };
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 128, 384, 385, 768] {
            let a: Vec<i8> = (0..len).map(|_| next() as i8).collect();
            let b: Vec<i8> = (0..len).map(|_| next() as i8).collect();
            let naive: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
            assert_eq!(dot_i8(&a, &b), naive, "length {len}");
            assert_eq!(dot_i8_portable(&a, &b), naive, "length {len}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, naive, "length {len}");
            }
        }
        // The largest products, all of one sign: nothing saturates.
        for (x, y) in [(127i8, 127i8), (-127, -127), (127, -127), (-127, 127)] {
            let (a, b) = (vec![x; 384], vec![y; 384]);
            assert_eq!(dot_i8(&a, &b), 384 * x as i32 * y as i32);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, 384 * x as i32 * y as i32);
            }
        }
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..384).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..384).map(|i| (i as f32).cos()).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
    }

    #[test]
    fn a_code_round_trips_and_bounds_its_error() {
        let mut v: Vec<f32> = (0..384).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
        normalize(&mut v);
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
