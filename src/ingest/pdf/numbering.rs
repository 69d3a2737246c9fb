//! Section numbering: what a heading's number says of its depth (`2.3`,
//! `Chapter 3`, `Item 7A.`, `第一章`, Arabic-Indic `۱-۱`), and a chapter's
//! label standing apart from its title.

use super::lexicon::*;
use super::tuning::TUNING;

/// The depth of a numbered heading: `2` → 1, `2.3` → 2, `2.3.1.` → 3,
/// `A.` / `IV.` / `Chapter 3` / `Item 7A.` → 1. A number at the end (a
/// table of contents entry) disqualifies.
pub(super) fn numbered_depth(t: &str) -> Option<u8> {
    let t = t.trim();
    if let Some(d) = cjk_numbered(t).or_else(|| rtl_numbered(t).map(|(d, _)| d)) {
        return Some(d);
    }
    let (num, rest) = t.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let lower = num.to_lowercase();
    if NUMBER_LABELS.contains(&lower.as_str()) || lower == ITEM_LABEL {
        let toc = lower == ITEM_LABEL && rest.ends_with(|c: char| c.is_ascii_digit());
        return (labelled(&lower, rest) && !toc).then_some(1);
    }
    // A capital, or a letter of a script without case ("1.1 研究背景"), or
    // the TeX command a subsection describes ("3.1 \attachfile"; a listing
    // numbers its lines "18 \RecordChanges", a list its steps "1. \usepackage"),
    // or any word after a number no amount is written as ("7.14.1 hyperref").
    let capital = rest
        .starts_with(|c: char| c.is_uppercase() || (c.is_alphabetic() && !c.is_lowercase()))
        || (subsection(num) && tex_command_first(rest))
        || (three_parts(num) && rest.starts_with(char::is_alphabetic));
    if !capital || rest.ends_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    number_depth(num)
}

/// A number of two parts or more: `3.1`, `2.4.1.`, not `1.` or `18`.
pub(super) fn subsection(num: &str) -> bool {
    num.trim_end_matches('.').contains('.')
}

/// A number of three parts or more (`2.3.1`): never an amount, a decimal
/// or a year.
fn three_parts(num: &str) -> bool {
    num.trim_end_matches('.').matches('.').count() >= 2
}

/// Starts with a TeX command's name: a backslash, then a letter.
pub(super) fn tex_command_first(t: &str) -> bool {
    t.strip_prefix('\\')
        .is_some_and(|name| name.starts_with(char::is_alphabetic))
}

/// The depth a section number says (`2.3.1` → 3, `A.3` → 2, `IV.` → 1),
/// whatever follows it.
fn number_depth(num: &str) -> Option<u8> {
    let stem = num.trim_end_matches('.');
    if stem.is_empty() {
        return None;
    }
    let parts: Vec<&str> = stem.split('.').collect();
    let number = |p: &&str| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit());
    // `2.3.1`, or an appendix's `A.3.1`.
    let appendix = parts.len() >= 2
        && parts[0].len() == 1
        && parts[0].chars().all(|c| c.is_ascii_uppercase())
        && parts[1..].iter().all(number);
    if parts.iter().all(number) || appendix {
        return Some(parts.len().min(usize::from(TUNING.deepest_level)) as u8);
    }
    let dotted = num.ends_with('.');
    let letter = stem.len() == 1 && stem.chars().all(|c| c.is_ascii_uppercase());
    let roman = stem.len() <= TUNING.numbering_letters && stem.chars().all(|c| ROMAN.contains(c));
    ((letter || roman) && dotted).then_some(1)
}

/// Where the section number `text` opens with ends: the byte offsets
/// after its label (`Chapter `, `Part `, `Item `; 0 without one) and
/// after its number (`2.3.1 `, `A.3 `, `IV. `, `Chapter 19 `, `Item 7A. `),
/// with the spaces after each, whatever the case of the title after it;
/// (0, 0) when it opens with none. For a title known to be a heading (a
/// bookmark's), printed after all or part of its number (`19.1.1
/// accumulate` for the bookmark `accumulate`, `Part I User guide` for `I
/// User guide`).
pub(super) fn number_ahead(text: &str) -> (usize, usize) {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .take(2)
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let Some(&(at, first)) = words.first() else {
        return (0, 0);
    };
    let after = |end: usize| text.len() - text[end..].trim_start().len();
    let lower = first.to_lowercase();
    match words.get(1) {
        Some(&(second_at, second)) if labelled(&lower, &text[at + first.len()..]) => {
            (after(at + first.len()), after(second_at + second.len()))
        }
        _ if number_depth(first).is_some() => (0, after(at + first.len())),
        _ => (0, 0),
    }
}

/// A section number in Arabic-Indic digits ahead of its title, as a
/// right-to-left line reads out (`−۱ ۱ مقدمه` for 1-1, `−۲ −۴ ۴` for
/// 4-2-4): its depth (how many numbers) and the title. A number closing
/// the line is a contents entry's page: not a heading.
pub(super) fn rtl_numbered(t: &str) -> Option<(u8, &str)> {
    let mut depth = 0u8;
    let mut rest = t;
    while let Some((w, after)) = rest.split_once(char::is_whitespace) {
        let digits = w.trim_matches(['−', '-', '.']);
        let indic = !digits.is_empty()
            && digits.chars().all(|c| {
                ('\u{0660}'..='\u{0669}').contains(&c) || ('\u{06F0}'..='\u{06F9}').contains(&c)
            });
        if !indic {
            break;
        }
        depth = depth.saturating_add(1);
        rest = after.trim_start();
    }
    let toc = rest.trim_end().ends_with(char::is_numeric);
    (depth > 0 && rest.starts_with(char::is_alphabetic) && !toc)
        .then_some((depth.min(TUNING.deepest_level), rest))
}

/// A Chinese or Japanese chapter or section number: `第一章` / `第3章`
/// (a chapter, depth 1), `第二节` (a section, depth 2), with or without
/// a space before the title; a number at the end is a contents entry.
fn cjk_numbered(t: &str) -> Option<u8> {
    let rest = t.strip_prefix('第')?.trim_start();
    let digits = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || CJK_CHAPTER_NUMERALS.contains(*c))
        .count();
    if digits == 0 || digits > TUNING.chapter_number_digits {
        return None;
    }
    let mut after = rest.chars().skip(digits).skip_while(|c| *c == ' ');
    let depth = match after.next()? {
        '章' | '部' | '篇' | '編' | '编' => 1,
        '节' | '節' => 2,
        _ => return None,
    };
    let title: String = after.collect();
    let toc = title.trim_end().ends_with(|c: char| c.is_ascii_digit());
    (!toc).then_some(depth)
}

/// An exhibit's label alone: "Exhibit 99.1", "EXHIBIT 21".
pub(super) fn exhibit_label(t: &str) -> bool {
    let words = lower_words(t, |c| !c.is_alphanumeric());
    words.first().is_some_and(|w| w == EXHIBIT_LABEL)
        && words.len() <= TUNING.exhibit_words
        && words[1..]
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()))
}

/// A chapter's label standing alone, its title set apart from it:
/// `第一章`, `第 3 节`, `Chapter 3`, `PART II`, `附录 A`, `فصل اول`,
/// `Capitolo 2`, `Hoofdstuk 1`, `پیوست الف`.
pub(super) fn chapter_label(t: &str) -> bool {
    let t = t.trim();
    if t.starts_with('第') {
        return cjk_numbered(t).is_some()
            && t.ends_with(['章', '部', '篇', '編', '编', '节', '節']);
    }
    let mut words = t.split_whitespace();
    let (Some(word), Some(number), None) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    // Persian and Arabic number their chapters in words (`فصل اول`) and
    // their appendices in letters (`پیوست الف`).
    RTL_CHAPTER_LABELS.contains(&word)
        || (CHAPTER_LABELS.contains(&word.to_lowercase().as_str()) && label_number(number))
}

/// The number after "Chapter", "Part" or "Appendix": `3`, `IV`, `A`.
/// Whether the word `lower`, then `rest`, is a label's number (`Part IV`).
fn labelled(lower: &str, rest: &str) -> bool {
    let rest = rest.trim_start();
    (NUMBER_LABELS.contains(&lower) && rest.split_whitespace().next().is_some_and(label_number))
        || (lower == ITEM_LABEL && item_number(rest))
}

fn label_number(t: &str) -> bool {
    let t = t.trim_end_matches(['.', ':']);
    !t.is_empty()
        && (t.chars().all(|c| c.is_ascii_digit())
            || t.chars().all(|c| ROMAN.contains(c))
            || (t.len() == 1 && t.chars().all(|c| c.is_ascii_uppercase())))
}

/// `7.`, `1A.`, `7A:`, `7—` before its title: the number of a filing's
/// item; a current report's items are numbered `8.01`.
fn item_number(rest: &str) -> bool {
    let next: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    let next = next.trim_end_matches('.');
    let (major, minor) = next.split_once('.').unwrap_or((next, ""));
    let digits = major.trim_end_matches(|c: char| c.is_ascii_uppercase());
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    (1..=2).contains(&digits.len())
        && all_digits(digits)
        && major.len() - digits.len() <= 1
        && (minor.is_empty() || (minor.len() == 2 && all_digits(minor) && major == digits))
}

/// A filing's item heading: "Item 7. Management's Discussion", "ITEM 1A.".
pub(super) fn item_heading(t: &str) -> bool {
    let t = t.trim();
    t.split_once(char::is_whitespace)
        .is_some_and(|(w, rest)| w.eq_ignore_ascii_case(ITEM_LABEL) && item_number(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_give_depths_and_labels_are_told_apart() {
        assert_eq!(numbered_depth("2.3 Results"), Some(2));
        assert_eq!(numbered_depth("2.3.1. Fine Print"), Some(3));
        assert_eq!(numbered_depth("3 Methods"), Some(1));
        assert_eq!(numbered_depth("7.14.1 hyperref 宏包"), Some(3));
        assert_eq!(numbered_depth("2.3.3 make"), Some(3));
        assert_eq!(numbered_depth("2.3 million shares were sold"), None);
        assert_eq!(numbered_depth("3. the third step"), None);
        assert_eq!(numbered_depth("1.2.3 456"), None);
        assert_eq!(numbered_depth("1.2 Results 14"), None, "a TOC entry");
        assert_eq!(numbered_depth("Item 7. Management's Discussion"), Some(1));
        assert_eq!(numbered_depth("ITEM 1A. RISK FACTORS"), Some(1));
        assert_eq!(numbered_depth("Item 12345 is missing"), None);
        assert_eq!(numbered_depth("Item 7. Management's Discussion 45"), None);
        assert!(item_heading("Item 7A: Market Risk") && !item_heading("Items sold"));
        assert!(item_heading("Item 7—Management's Discussion and Analysis"));
        assert!(item_heading("Item 8.01 Other Events.") && item_heading("ITEM 9.01."));
        assert!(!item_heading("Item 2.5 kg of flour") && !item_heading("Item 8.0123 x"));
        assert!(!item_heading("Item 7Management") && !item_heading("Item 7.Management"));
        assert_eq!(numbered_depth("ITEM 7—MANAGEMENT'S DISCUSSION"), Some(1));
        assert_eq!(numbered_depth("A Study of Things"), None);
        assert_eq!(numbered_depth("A.3.1 论文封面"), Some(3));
        assert_eq!(numbered_depth("−۱ ۱ مقدمه"), Some(2));
        assert_eq!(numbered_depth("−۲ −۴ ۴ نمایه"), Some(3));
        assert_eq!(numbered_depth("۱۲۳"), None);
        assert_eq!(
            numbered_depth("−۲ ۱ فیلدهای فارسی ۱۵"),
            None,
            "a contents entry"
        );
        assert_eq!(numbered_depth("U.S. Operations"), None);
        assert_eq!(numbered_depth("第一章 介绍"), Some(1));
        assert_eq!(numbered_depth("第3章绪论"), Some(1));
        assert_eq!(numbered_depth("第二节 研究方法"), Some(2));
        assert_eq!(numbered_depth("第 3 节 使用方法"), Some(2));
        assert_eq!(numbered_depth("第一章 介绍 12"), None, "a contents entry");
        assert_eq!(numbered_depth("1.1 研究背景"), Some(2));
        assert_eq!(numbered_depth("第一次会议"), None);
        assert!(chapter_label("第一章") && chapter_label("第 3 节") && chapter_label("PART II"));
        assert!(chapter_label("Chapter 3") && chapter_label("附录 A"));
        assert!(!chapter_label("第一章 介绍") && !chapter_label("Chapter 3 Fonts"));
        assert!(!chapter_label("Part of") && !chapter_label("第一次"));
        assert!(chapter_label("فصل اول") && !chapter_label("فصل اول کتاب"));
        assert!(chapter_label("Capitolo 2") && chapter_label("Hoofdstuk 1"));
        assert!(chapter_label("Parte I") && chapter_label("پیوست الف"));
        assert!(!chapter_label("Parte della") && !chapter_label("Deel van"));
    }

    #[test]
    fn the_number_ahead_of_a_title_is_skipped_whatever_its_case() {
        fn after(t: &str) -> (&str, &str) {
            let (label, number) = number_ahead(t);
            (&t[label..], &t[number..])
        }
        assert_eq!(
            after("19.1.1 accumulate"),
            ("19.1.1 accumulate", "accumulate")
        );
        assert_eq!(
            after("Chapter 19 The STL Generic Algorithms"),
            (
                "19 The STL Generic Algorithms",
                "The STL Generic Algorithms"
            )
        );
        assert_eq!(
            after("Item 1A. Risk Factors"),
            ("1A. Risk Factors", "Risk Factors")
        );
        assert_eq!(after("Part I User guide").0, "I User guide");
        assert_eq!(after("IV.  Results").1, "Results");
        assert_eq!(after("A.3 appendix").1, "appendix");
        for none in [
            "accumulate",
            "2019 Annual Report",
            "A Tour",
            "Chapter one",
            "",
        ] {
            assert_eq!(number_ahead(none), (0, 0), "{none}");
        }
    }
}
