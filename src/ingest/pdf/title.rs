//! A PDF's title: one that names the document, not the form it is on.
//! A filing is named by the registrant its cover names, with its form
//! (its Info title is often a working name: "ADBE 10K FY16 - FINAL",
//! "CORP Q1 2021"); else the Info title when it says something; else the
//! largest heading or display line of the first page that names this
//! document (else the first pages' first heading), not a part every
//! document has: cover boilerplate ("UNITED
//! STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K", "FOR
//! IMMEDIATE RELEASE"), a contents page, an abstract, a thesis's degree.

use super::block::Block;
use super::body::prose_size;
use super::contents::contents_title;
use super::lexicon::*;
use super::numbering::{chapter_label, exhibit_label};
use super::text_shape::abstract_title;
use super::tuning::TUNING;

/// The title, or `None` to fall back to the file name.
pub(super) fn choose_title(info: Option<&str>, blocks: &[Block]) -> Option<String> {
    let mut pages: Vec<u32> = blocks.iter().map(|b| b.page).collect();
    pages.dedup();
    pages.truncate(TUNING.first_pages);
    let first: Vec<&Block> = blocks.iter().filter(|b| pages.contains(&b.page)).collect();
    if let Some(t) = registrant(&first).or_else(|| info.and_then(meaningful_info)) {
        return Some(t);
    }
    let candidate = |b: &Block| {
        b.heading() && !names_no_document(&b.text) && b.text.chars().any(char::is_alphabetic)
    };
    // A title in display type that no heading rule takes ("simplebnf — A
    // simple package …" starts in lower case) is still the title.
    let body = prose_size(blocks);
    let displayed = |b: &Block| {
        !b.heading()
            && !b.table
            && !b.code
            && b.size >= TUNING.display_title_ratio * body
            && b.text.split_whitespace().count() <= TUNING.heading_words
            && !names_no_document(&b.text)
            && !drop_cap(&b.text)
            && wordy(&b.text)
    };
    let first_page = pages.first().copied();
    first
        .iter()
        .filter(|b| Some(b.page) == first_page && (candidate(b) || displayed(b)))
        .max_by(|a, b| a.size.total_cmp(&b.size).then(std::cmp::Ordering::Greater))
        .copied()
        // A heading of the first pages, not a chapter's deep inside ("9
        // Including tables" under a cover of small type and a logo).
        .or_else(|| first.iter().copied().find(|b| candidate(b)))
        .map(|b| b.text.clone())
}

/// Words more than digits, and more than a logo's letter: no date
/// ("2016 年 3 月 20 日").
fn wordy(t: &str) -> bool {
    let digits = t.chars().filter(char::is_ascii_digit).count();
    letters(t).chars().count() > digits.max(1)
}

/// A line that names a part every document has, not this one: cover
/// boilerplate, a label ("题目："), a chapter's label alone ("Part II",
/// "第一章"), the title of a contents page, an abstract or a list ("List
/// of Figures", "Quellcodeverzeichnis", "插图目录"), or the degree a
/// thesis is for ("博士学位论文", a doctoral thesis).
fn names_no_document(t: &str) -> bool {
    let l = letters(t);
    let (start, ends, whole) = LIST_TITLE;
    // A word waiting for its value ("Title:", "题目：", "ukbill:" over
    // what it is), not a title's first line over its subtitle.
    let label = t.trim_end().ends_with([':', '：']) && t.split_whitespace().nth(1).is_none();
    label
        || boilerplate(t)
        || contents_title(t)
        || abstract_title(t)
        || chapter_label(t)
        || l.starts_with(start)
        || ends.iter().any(|e| l.ends_with(e))
        || whole.contains(&l.as_str())
        || THESIS_DEGREES.contains(&l.as_str())
}

/// A paragraph opening on a drop cap, the word read again after it ("T
/// This package …"), or a contents line after a figure's letter ("Y 4.4
/// Vecteur …"). "A Study …", "O pacote …" are titles.
fn drop_cap(t: &str) -> bool {
    let mut w = t.split_whitespace();
    let (Some(first), Some(next)) = (w.next(), w.next()) else {
        return false;
    };
    let mut cap = first.chars();
    let (Some(c), None) = (cap.next(), cap.next()) else {
        return false;
    };
    c.is_uppercase() && next.starts_with(|n: char| n.is_ascii_digit() || n == c)
}

/// The Info title unless it is empty, a file name, a placeholder or
/// boilerplate ("Document", "FORM 10-K").
fn meaningful_info(t: &str) -> Option<String> {
    let t = t.trim();
    let t = t.strip_prefix(WORD_TITLE_PREFIX).unwrap_or(t).trim();
    let lower = t.to_lowercase();
    let file_like = FILE_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        || (t.contains('_') && !t.contains(char::is_whitespace));
    let placeholder = PLACEHOLDER_TITLES.contains(&lower.trim_matches(&['(', ')', '[', ']'][..]));
    (!file_like && !placeholder && !boilerplate(t) && t.chars().any(char::is_alphabetic))
        .then(|| t.to_string())
}

/// A filing's registrant and form: the line above "(Exact name of
/// registrant as specified in its charter)", with the "FORM 10-K" line of
/// the cover: "3M COMPANY FORM 10-K".
fn registrant(blocks: &[&Block]) -> Option<String> {
    let at = blocks
        .iter()
        .position(|b| b.text.to_lowercase().contains(REGISTRANT_NOTE))?;
    let text = &blocks[at].text;
    let before = text[..text.find('(').unwrap_or(0)].trim();
    let name = if before.chars().any(char::is_alphabetic) {
        before
    } else {
        blocks[..at]
            .iter()
            .rev()
            .map(|b| b.text.trim())
            .find(|t| !t.is_empty() && !boilerplate(t) && !t.starts_with('('))?
    };
    if name.split_whitespace().count() > TUNING.label_words
        || !name.chars().any(char::is_alphabetic)
    {
        return None;
    }
    let form = blocks[..at]
        .iter()
        .map(|b| b.text.trim())
        .find(|t| form_line(t));
    Some(match form {
        Some(f) if !name.to_lowercase().contains(&f.to_lowercase()) => format!("{name} {f}"),
        _ => name.to_string(),
    })
}

/// "FORM 10-K", "Form 8-K", "FORM 10-Q/A".
fn form_line(t: &str) -> bool {
    let mut w = t.split_whitespace();
    w.next().is_some_and(|f| f.eq_ignore_ascii_case(FORM_LABEL))
        && w.next()
            .is_some_and(|n| n.chars().any(|c| c.is_ascii_digit()))
        && w.next().is_none()
}

/// Lines of a cover page or form that name no document: the agency, the
/// form, the filing's standard headings, a press release's dateline.
pub(super) fn boilerplate(t: &str) -> bool {
    let words = lower_words(t, |c| !c.is_alphanumeric());
    BOILERPLATE_LINES.contains(&words.join(" ").as_str()) || form_line(t) || exhibit_label(t)
}

#[cfg(test)]
mod tests {
    use super::super::block::{Cue, Role};
    use super::*;

    fn block(page: u32, text: &str, level: Option<u8>, size: f32) -> Block {
        Block {
            page,
            text: text.into(),
            level,
            role: level.map_or(Role::Text, |_| Role::Heading(Cue::Larger)),
            size,
            ..Block::default()
        }
    }

    #[test]
    fn a_filing_is_titled_by_its_registrant_and_form() {
        let blocks = vec![
            block(
                1,
                "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
                Some(1),
                14.0,
            ),
            block(1, "Washington, D.C. 20549", None, 10.0),
            block(1, "FORM 10-K", Some(1), 14.0),
            block(1, "For the fiscal year ended December 31, 2018", None, 10.0),
            block(1, "3M COMPANY", Some(2), 12.0),
            block(
                1,
                "(Exact name of registrant as specified in its charter)",
                None,
                8.0,
            ),
        ];
        assert_eq!(
            choose_title(Some("Document"), &blocks).as_deref(),
            Some("3M COMPANY FORM 10-K")
        );
        assert_eq!(
            choose_title(Some("CORP Q1 2021"), &blocks).as_deref(),
            Some("3M COMPANY FORM 10-K"),
            "a filing's working title gives way to its registrant"
        );
    }

    #[test]
    fn a_placeholder_in_brackets_names_nothing() {
        let blocks = vec![block(1, "Regional Sales Summary", Some(1), 18.0)];
        for info in ["(anonymous)", "[Untitled]", "(unknown)", "Anonymous"] {
            assert_eq!(
                choose_title(Some(info), &blocks).as_deref(),
                Some("Regional Sales Summary"),
                "{info}"
            );
        }
        assert_eq!(
            choose_title(Some("Anonymous Functions in Rust"), &blocks).as_deref(),
            Some("Anonymous Functions in Rust")
        );
    }

    #[test]
    fn cover_boilerplate_is_never_the_title() {
        let blocks = vec![
            block(1, "FOR IMMEDIATE RELEASE", Some(1), 16.0),
            block(1, "Exhibit 99.1", Some(1), 16.0),
            block(
                1,
                "Johnson & Johnson Reports Q2 2023 Results",
                Some(1),
                14.0,
            ),
        ];
        assert_eq!(
            choose_title(Some("FORM 8-K"), &blocks).as_deref(),
            Some("Johnson & Johnson Reports Q2 2023 Results")
        );
        assert_eq!(
            choose_title(Some("Microsoft Word - Q2 Release.docx"), &blocks).as_deref(),
            Some("Johnson & Johnson Reports Q2 2023 Results")
        );
        assert_eq!(
            choose_title(Some("R FAQ"), &blocks).as_deref(),
            Some("R FAQ")
        );
        assert_eq!(
            choose_title(Some("F20_10K_VFinal_07.01.2020"), &blocks).as_deref(),
            Some("Johnson & Johnson Reports Q2 2023 Results")
        );
        // A contents page's or an abstract's heading names no document.
        for part in ["Inhaltsverzeichnis", "摘 要", "ABSTRACT"] {
            let mut front = blocks.clone();
            front.insert(0, block(1, part, Some(1), 18.0));
            assert_eq!(
                choose_title(None, &front).as_deref(),
                Some("Johnson & Johnson Reports Q2 2023 Results"),
                "{part}"
            );
        }
        let only_boilerplate = vec![block(1, "FORM 10-K", Some(1), 14.0)];
        assert_eq!(choose_title(None, &only_boilerplate), None);
    }

    #[test]
    fn a_title_in_display_type_is_the_title_though_no_heading() {
        let body = "This package provides a simple way to typeset grammars written in Backus-Naur form, with a command for each part.";
        let blocks = vec![
            // A logo's letter in larger type still.
            block(1, "Y", None, 30.0),
            block(
                1,
                "simplebnf — A simple package to format Backus-Naur form",
                None,
                17.0,
            ),
            block(1, "Jay Lee", Some(1), 12.0),
            block(1, "2023/01/07", None, 12.0),
            block(1, body, None, 10.0),
            block(1, "Usage", Some(1), 14.0),
            block(1, body, None, 10.0),
        ];
        assert_eq!(
            choose_title(None, &blocks).as_deref(),
            Some("simplebnf — A simple package to format Backus-Naur form")
        );
        // Nor a drop cap's paragraph, a date, the list of figures, a
        // degree or a label.
        for not_a_title in [
            "T This package is usually included with TeX distributions",
            "2016 年 3 月 20 日",
            "List of Figures",
            "博士学位论文",
            "本科生毕业论文",
            "题目：",
        ] {
            let mut other = blocks.clone();
            other.insert(1, block(1, not_a_title, None, 20.0));
            assert_eq!(
                choose_title(None, &other).as_deref(),
                Some("simplebnf — A simple package to format Backus-Naur form"),
                "{not_a_title}"
            );
        }
        // A sentence in the body's type is no title, however it starts.
        let mut plain = blocks.clone();
        plain[1].size = 10.0;
        assert_eq!(choose_title(None, &plain).as_deref(), Some("Usage"));
    }
}
