//! How a list item's counter is written ("3", "c", "iv", "IV"): the
//! formats Word, OpenDocument and PowerPoint number their lists in. Each
//! reader counts in its own way and adds its own punctuation ("3.",
//! "c)", "(iv)"); this is the part they share.

/// How a level writes its counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Format {
    #[default]
    Decimal,
    /// a … z, aa … zz, aaa …: Word's and PowerPoint's letters, and
    /// LibreOffice's when it keeps them in step (`style:num-letter-sync`).
    LowerLetter,
    UpperLetter,
    /// a … z, aa, ab … az, ba …: LibreOffice's letters by default, as a
    /// spreadsheet names its columns.
    LowerLetterColumns,
    UpperLetterColumns,
    LowerRoman,
    UpperRoman,
    /// A bullet, or a format kb does not write: the item is a bullet.
    Bullet,
    /// No number shown.
    None,
}

/// The largest counter written in letters or numerals; past it, in
/// digits. A malformed start of billions would otherwise write a label
/// of megabytes (Roman numerals stop at 3999 anyway).
const MAX_SPELLED: u32 = 3999;

impl Format {
    /// Whether items of this format show a counter.
    pub(super) fn counts(self) -> bool {
        !matches!(self, Format::Bullet | Format::None)
    }

    /// `n` in this format: "" for a bullet or no number.
    pub(super) fn write(self, n: u32) -> String {
        if n > MAX_SPELLED && self.counts() {
            return n.to_string();
        }
        match self {
            Format::Decimal => n.to_string(),
            Format::LowerLetter => letters(n),
            Format::UpperLetter => letters(n).to_uppercase(),
            Format::LowerLetterColumns => column_letters(n),
            Format::UpperLetterColumns => column_letters(n).to_uppercase(),
            Format::LowerRoman => roman(n as usize),
            Format::UpperRoman => roman(n as usize).to_uppercase(),
            Format::Bullet | Format::None => String::new(),
        }
    }
}

/// `n` as Word's letters: a … z, aa … zz, aaa …
fn letters(n: u32) -> String {
    let n = n.max(1) - 1;
    let letter = char::from(b'a' + (n % 26) as u8);
    std::iter::repeat_n(letter, n as usize / 26 + 1).collect()
}

/// `n` as spreadsheet columns: a … z, aa, ab … az, ba … zz, aaa …
fn column_letters(n: u32) -> String {
    let mut n = n.max(1);
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.iter().rev().map(|&b| char::from(b)).collect()
}

/// `n` in lower-case Roman numerals.
pub(super) fn roman(mut n: usize) -> String {
    let mut out = String::new();
    for (value, letters) in [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ] {
        while n >= value {
            out.push_str(letters);
            n -= value;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_numerals_as_word_writes_them() {
        assert_eq!(
            [1, 2, 26, 27, 53].map(letters),
            ["a", "b", "z", "aa", "aaa"].map(String::from)
        );
        assert_eq!(roman(1994), "mcmxciv");
    }

    #[test]
    fn letters_as_libreoffice_writes_them_by_default() {
        assert_eq!(
            [1, 26, 27, 28, 52, 53, 702, 703].map(column_letters),
            ["a", "z", "aa", "ab", "az", "ba", "zz", "aaa"].map(String::from)
        );
    }

    #[test]
    fn each_format_and_a_counter_too_large_to_spell() {
        let all = [
            Format::Decimal,
            Format::LowerLetter,
            Format::UpperLetter,
            Format::LowerLetterColumns,
            Format::UpperLetterColumns,
            Format::LowerRoman,
            Format::UpperRoman,
            Format::Bullet,
            Format::None,
        ];
        assert_eq!(
            all.map(|f| f.write(4)),
            ["4", "d", "D", "d", "D", "iv", "IV", "", ""].map(String::from)
        );
        assert_eq!(Format::UpperRoman.write(u32::MAX), u32::MAX.to_string());
        assert_eq!(Format::LowerLetter.write(4000), "4000");
        assert_eq!(Format::LowerLetter.write(0), "a");
    }
}
