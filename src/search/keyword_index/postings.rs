//! One token's posting list: the rows it occurs in, ascending, with how
//! often it occurs in each of the four columns, packed into about two
//! bytes a row (a million chunks hold ~40 million postings).
//!
//! A posting is the row's distance from the previous one (a varint), then
//! one byte of four 2-bit column counts; a count of 3 or more is written
//! as 3 and followed by its exact value as a varint.

/// How often a token occurs in each column of a row.
pub(super) type ColumnCounts = [u32; 4];

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct PostingList {
    bytes: Vec<u8>,
    /// Postings, live and removed rows alike.
    len: u32,
    /// The last row appended, for the next distance.
    last: Option<u32>,
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= ((b & 0x7f) as u32) << shift;
        if b & 0x80 == 0 {
            return v;
        }
        shift += 7;
    }
}

/// The count byte's fields that say "3 or more, exact value follows".
#[inline]
pub(super) fn has_overflow(packed: u8) -> bool {
    packed & (packed >> 1) & 0x55 != 0
}

impl PostingList {
    /// Appends a row after every row already in the list.
    pub(super) fn push(&mut self, row: u32, counts: ColumnCounts) {
        let gap = match self.last {
            None => row,
            Some(last) => {
                debug_assert!(row > last, "rows are appended in order");
                row - last
            }
        };
        put_varint(&mut self.bytes, gap);
        let mut packed = 0u8;
        for (c, &n) in counts.iter().enumerate() {
            packed |= (n.min(3) as u8) << (2 * c);
        }
        self.bytes.push(packed);
        for &n in &counts {
            if n >= 3 {
                put_varint(&mut self.bytes, n);
            }
        }
        self.last = Some(row);
        self.len += 1;
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes.capacity()
    }

    pub(super) fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// Calls `f(row, packed count byte, exact counts)` for every posting
    /// (the byte alone is enough unless [`has_overflow`]).
    #[inline]
    pub(super) fn for_each(&self, mut f: impl FnMut(u32, u8, ColumnCounts)) {
        let bytes = &self.bytes[..];
        let mut at = 0;
        // The first gap is from row 0, so every row is the sum of gaps.
        let mut row = 0u32;
        while at < bytes.len() {
            row += get_varint(bytes, &mut at);
            let packed = bytes[at];
            at += 1;
            if has_overflow(packed) {
                let mut counts = unpack(packed);
                for n in counts.iter_mut() {
                    if *n == 3 {
                        *n = get_varint(bytes, &mut at);
                    }
                }
                f(row, packed, counts);
            } else {
                f(row, packed, unpack(packed));
            }
        }
    }

    /// The list without the rows `keep` maps to `None`, the others renumbered.
    pub(super) fn remap(&self, keep: &[Option<u32>]) -> PostingList {
        let mut out = PostingList::default();
        self.for_each(|row, _, counts| {
            if let Some(new) = keep[row as usize] {
                out.push(new, counts);
            }
        });
        out.shrink();
        out
    }
}

/// The four 2-bit fields of a count byte.
#[inline]
pub(super) fn unpack(packed: u8) -> ColumnCounts {
    [
        (packed & 3) as u32,
        ((packed >> 2) & 3) as u32,
        ((packed >> 4) & 3) as u32,
        ((packed >> 6) & 3) as u32,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_read_back_as_written() {
        let mut list = PostingList::default();
        let written: Vec<(u32, ColumnCounts)> = vec![
            (0, [1, 0, 0, 0]),
            (1, [0, 2, 1, 0]),
            (200, [3, 0, 0, 0]),
            (70_000, [1, 300, 0, 7]),
            (70_001, [0, 0, 0, 2]),
            (u32::MAX - 1, [100_000, 3, 3, 3]),
        ];
        for (row, counts) in &written {
            list.push(*row, *counts);
        }
        assert_eq!(list.len as usize, written.len());
        let mut read = Vec::new();
        list.for_each(|row, packed, counts| {
            assert_eq!(has_overflow(packed), counts.iter().any(|&n| n >= 3));
            read.push((row, counts));
        });
        assert_eq!(read, written);
        let keep: Vec<Option<u32>> = vec![None, Some(0)];
        let mut small = PostingList::default();
        small.push(0, [1, 0, 0, 0]);
        small.push(1, [0, 1, 0, 0]);
        let mut expected = PostingList::default();
        expected.push(0, [0, 1, 0, 0]);
        assert_eq!(small.remap(&keep), expected);
    }
}
