//! Held-out discipline: each tuning set is split into a fit half (levers
//! and weights are chosen on it) and a check half (reported, never tuned
//! on). FinanceBench is split by filing (the `doc_name`), so a check
//! question's filing was never looked at while fitting; a BEIR set by
//! query id.
//!
//! The split is the parity of the 64-bit FNV-1a hash of the id's UTF-8
//! bytes: even is fit, odd is check. FNV-1a is fixed and documented
//! (unlike Rust's randomised hasher), so the halves are the same on every
//! machine and every run, and anyone can recompute them.

use clap::ValueEnum;

/// Which questions an evaluation scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Half {
    /// Every question: the full set, its fit half and its check half.
    All,
    /// Only the fit half (choose levers here).
    Fit,
    /// Only the check half (judge here).
    Check,
}

impl Half {
    /// The half an id falls in (never `All`).
    pub(crate) fn of(id: &str) -> Half {
        if fnv1a_64(id.as_bytes()) % 2 == 0 {
            Half::Fit
        } else {
            Half::Check
        }
    }

    /// Whether an evaluation asked for `self` scores the id.
    pub(crate) fn holds(self, id: &str) -> bool {
        self == Half::All || Half::of(id) == self
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Half::All => "all",
            Half::Fit => "fit",
            Half::Check => "check",
        }
    }

    /// The rows a report prints for an evaluation of `self`: the full set
    /// and both halves, or the one half asked for.
    pub(crate) fn rows(self) -> &'static [Half] {
        match self {
            Half::All => &[Half::All, Half::Fit, Half::Check],
            Half::Fit => &[Half::Fit],
            Half::Check => &[Half::Check],
        }
    }
}

/// 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub(crate) fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a test vectors: the hash is the documented one.
    #[test]
    fn the_hash_is_fnv1a_64() {
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_split_is_stable_and_about_half() {
        let ids: Vec<String> = (0..2000).map(|i| format!("PLAIN-{i}")).collect();
        let fit: Vec<&String> = ids.iter().filter(|id| Half::of(id) == Half::Fit).collect();
        assert!((900..=1100).contains(&fit.len()), "{} of 2000", fit.len());
        // The same ids fall the same way again (nothing seeded per run).
        let again: Vec<&String> = ids.iter().filter(|id| Half::Fit.holds(id)).collect();
        assert_eq!(fit, again);
        for id in &ids {
            assert!(Half::All.holds(id));
            assert_ne!(Half::Fit.holds(id), Half::Check.holds(id));
        }
    }
}
