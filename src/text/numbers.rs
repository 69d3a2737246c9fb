//! Searchable forms of fiscal years, quarters and numbers with thousands
//! separators: `FY18` → `2018`, `Q3'19` and `3Q19` → `q3` and `2019`,
//! `third quarter` → `q3`, `1,234,567` → `1234567`.
//!
//! A hand-written scanner rather than regexes: a one-shot `kb search`
//! would spend a millisecond or two compiling them (Unicode tables and
//! literal prefilters) to expand a query of a few words.

/// Calls `emit` with each extra form found in `text`: fiscal years first,
/// then quarters (quarter, year), then separated numbers.
pub fn forms(text: &str, mut emit: impl FnMut(String)) {
    quarter_words(text, &mut emit);
    let b = text.as_bytes();
    if !b.iter().any(u8::is_ascii_digit) {
        return;
    }
    for i in word_starts(b) {
        let prefix = &b[i..b.len().min(i + 2)];
        if prefix.eq_ignore_ascii_case(b"fy") || prefix.eq_ignore_ascii_case(b"cy") {
            if let Some(y) = year_at(b, i + 2).filter(|y| y.len() == 2) {
                emit(full_year(y));
            }
        }
    }
    for i in word_starts(b) {
        let (Some(&x), Some(&y)) = (b.get(i), b.get(i + 1)) else {
            continue;
        };
        let quarter = match (x.to_ascii_lowercase(), y.to_ascii_lowercase()) {
            (b'q', n @ b'1'..=b'4') | (n @ b'1'..=b'4', b'q') => n,
            _ => continue,
        };
        if let Some(year) = year_at(b, i + 2) {
            emit(format!("q{}", quarter as char));
            emit(full_year(year));
        }
    }
    let mut from = 0;
    for i in word_starts(b) {
        if i < from {
            continue;
        }
        if let Some(end) = separated_number_end(b, i) {
            emit(text[i..end].replace(',', ""));
            from = end;
        }
    }
}

/// `third quarter`, `3rd quarter` → `q3` (the form `Q3` and `3Q19` have).
fn quarter_words(text: &str, emit: &mut impl FnMut(String)) {
    const ORDINALS: [(&str, &str, char); 4] = [
        ("first", "1st", '1'),
        ("second", "2nd", '2'),
        ("third", "3rd", '3'),
        ("fourth", "4th", '4'),
    ];
    let mut prev = String::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_ascii_lowercase();
        if w == "quarter" || w == "quarters" {
            if let Some((_, _, n)) = ORDINALS.iter().find(|(a, b, _)| prev == *a || prev == *b) {
                emit(format!("q{n}"));
            }
        }
        prev = w;
    }
}

/// Byte offsets where a word starts (an ASCII letter, digit or `_` after
/// anything else), as a regex `\b` before a word.
fn word_starts(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    (0..b.len()).filter(move |&i| is_word(b[i]) && (i == 0 || !is_word(b[i - 1])))
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ends_word(b: &[u8], i: usize) -> bool {
    b.get(i).is_none_or(|c| !is_word(*c))
}

fn digits(b: &[u8], i: usize) -> usize {
    b.get(i..).map_or(0, |rest| {
        rest.iter().take_while(|c| c.is_ascii_digit()).count()
    })
}

/// A two- or four-digit year at `i`, after at most one space and one
/// apostrophe (`FY 18`, `Q3'19`), ending a word.
fn year_at(b: &[u8], mut i: usize) -> Option<&str> {
    if b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if b.get(i) == Some(&b'\'') {
        i += 1;
    }
    let n = digits(b, i);
    if (n == 2 || n == 4) && ends_word(b, i + n) {
        // ASCII digits: a valid str slice.
        std::str::from_utf8(&b[i..i + n]).ok()
    } else {
        None
    }
}

/// The end of `1,234` or `1,234,567` starting at `i` (one to three digits,
/// then groups of a comma and three digits, ending a word).
fn separated_number_end(b: &[u8], i: usize) -> Option<usize> {
    let lead = digits(b, i);
    if !(1..=3).contains(&lead) {
        return None;
    }
    let mut at = i + lead;
    let mut end = None;
    while b.get(at) == Some(&b',') && digits(b, at + 1) >= 3 {
        at += 4;
        if ends_word(b, at) {
            end = Some(at);
        }
    }
    end
}

/// `18` → `2018`, `2019` → `2019` (two-digit years are this century's:
/// fiscal-year labels in documents kb indexes are recent).
fn full_year(y: &str) -> String {
    if y.len() == 2 {
        format!("20{y}")
    } else {
        y.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(t: &str) -> Vec<String> {
        let mut out = Vec::new();
        forms(t, |s| out.push(s));
        out
    }

    #[test]
    fn fiscal_years() {
        assert_eq!(all("FY18 results"), ["2018"]);
        assert_eq!(all("fy 19, cy'20"), ["2019", "2020"]);
        // Four digits are already the year; three are not one.
        assert!(all("FY2018").is_empty());
        assert!(all("FY180").is_empty());
        // Only at the start of a word.
        assert!(all("SFY18").is_empty());
    }

    #[test]
    fn quarters_either_way_round() {
        assert_eq!(all("in Q3'19"), ["q3", "2019"]);
        assert_eq!(all("3Q19 revenue"), ["q3", "2019"]);
        assert_eq!(all("q4 2020"), ["q4", "2020"]);
        assert!(all("Q5 2020").is_empty());
        assert_eq!(all("the third quarter of 2019"), ["q3"]);
        assert_eq!(all("1st Quarter results"), ["q1"]);
        assert!(all("a quarter of the third").is_empty());
        assert!(all("Q3 201").is_empty());
    }

    #[test]
    fn separated_numbers() {
        assert_eq!(all("revenue of 1,234,567 dollars"), ["1234567"]);
        assert_eq!(all("1,234 and 56,789."), ["1234", "56789"]);
        // A group that runs on is not part of the number.
        assert_eq!(all("1,234,5678"), ["1234"]);
        assert!(all("1234,567").is_empty());
        assert!(all("pi is 3.14").is_empty());
    }
}
