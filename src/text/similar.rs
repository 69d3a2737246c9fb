//! How close two strings are, for "did you mean" suggestions: headings,
//! tags, flags.

/// Edit distance in characters where a swap of two neighbours counts as
/// one edit (`--tpo` is one edit from `--top`, two from `--type`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back, one back, this one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

/// The candidates within a quarter of their length (at least one edit)
/// of `asked`, closest first, each once, at most `max`.
pub fn closest<'a>(
    asked: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = edit_distance(asked, c);
            let len = asked.chars().count().max(c.chars().count());
            (d <= (len / 4).max(1)).then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(max).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("deployng the key", "deploying the key"), 1);
        assert_eq!(edit_distance("isvalidnumbr", "isvalidnumber"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("--tpo", "--top"), 1);
        assert_eq!(edit_distance("--tpo", "--type"), 2);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn closest_first_and_only_close_ones() {
        let tags = ["linux", "lunix-admin", "work", "linus"];
        assert_eq!(closest("linx", tags, 5), ["linux"]);
        assert_eq!(
            closest("--tpo", ["--type", "--top", "--tags"], 5),
            ["--top"]
        );
        assert!(closest("zzzz", tags, 5).is_empty());
    }
}
