//! Short lines with a heading's shape that head nothing: a contents
//! page's column header ("Page"), the address under a form's name
//! ("Washington, D.C. 20549"), the period over a table's columns ("Fiscal
//! Year", "Six Months Ended"), a cross-reference under a statement ("See
//! Notes to Consolidated Financial Statements"), and the place an
//! auditor signs at ("Springfield, Illinois"). Taken as headings they would
//! open sections that cite the wrong name.

use super::lexicon::*;
use super::tuning::TUNING;

/// A line that labels something on its page rather than titling what follows it.
pub(super) fn label(t: &str) -> bool {
    page_column(t) || postal_address(t) || period_header(t) || cross_reference(t) || form_field(t)
}

/// A form's answer or field set apart: "None" and "Not applicable" under an
/// item with nothing to report, "Commission File Number 1-12345" on a cover.
fn form_field(t: &str) -> bool {
    let l = letters(t);
    NOTHING_TO_REPORT.contains(&l.as_str()) || l.starts_with(FILE_NUMBER_LABEL)
}

/// The header over a contents page's page numbers ("Page", "Page No."),
/// not a section about them ("4.3 Page number").
fn page_column(t: &str) -> bool {
    let header = PAGE_COLUMN_HEADERS.contains(&letters(t).as_str());
    header && !t.contains(char::is_numeric)
}

/// A place with its postal code: "Washington, D.C. 20549", "Hartford, CT 06155".
fn postal_address(t: &str) -> bool {
    let code = t.split_whitespace().last().unwrap_or_default();
    let (zip, plus) = code.split_once('-').unwrap_or((code, "0000"));
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    let (zip_len, plus_len) = TUNING.zip_digits;
    let short = t.split_whitespace().count() <= TUNING.label_words;
    t.contains(',') && digits(zip, zip_len) && digits(plus, plus_len) && short
}

/// The period a table's columns cover: "Fiscal Year", "Year Ended
/// December 31, (a)", "Second Quarter Six Months Ended", "As of June 30".
fn period_header(t: &str) -> bool {
    let mut words = lower_words(t, |c| c.is_whitespace() || c == ',' || c == '-');
    // A footnote's mark: "(a)", "(1)".
    words.retain(|w| {
        !(w.starts_with('(') && w.ends_with(')') && w.chars().count() <= TUNING.mark_chars)
    });
    let known = |w: &String| {
        PERIOD_WORDS.contains(&w.as_str())
            || MONTHS.contains(&w.as_str())
            || (w.len() <= TUNING.year_digits && w.chars().all(|c| c.is_ascii_digit()))
    };
    let has = |w: &str| words.iter().any(|x| x == w);
    let period = PERIOD_ENDED.iter().any(|w| has(w))
        || (has(FISCAL_YEAR.0) && FISCAL_YEAR.1.iter().any(|w| has(w)))
        || (words.get(..2).is_some_and(|w| w == AS_OF)
            && words.get(2).is_some_and(|w| MONTHS.contains(&w.as_str())));
    !words.is_empty() && period && words.iter().all(known)
}

/// "See Notes to Consolidated Financial Statements", "See “Item 15.”":
/// a pointer elsewhere. A "See Also" section is a heading.
fn cross_reference(t: &str) -> bool {
    let mut w = t.split_whitespace();
    let first = w.next().unwrap_or("");
    let second = w.next().unwrap_or("");
    let [see, also] = SEE_ALSO;
    first.eq_ignore_ascii_case(see) && !second.eq_ignore_ascii_case(also) && w.next().is_some()
}

/// The place at a signature: one to three capitalised words, a comma,
/// one to three more ("Springfield, Illinois", "New York, New York"). Only
/// beside a signature or a date is it known to be one.
pub(super) fn place(t: &str) -> bool {
    let (city, region) = t.split_once(", ").unwrap_or_default();
    let words = |s: &str| {
        let n = s.split_whitespace().count();
        (1..=TUNING.place_words).contains(&n)
            && s.split_whitespace().all(|w| {
                w.starts_with(|c: char| c.is_uppercase())
                    && w.chars().all(|c| c.is_alphabetic() || c == '.' || c == '-')
            })
    };
    words(city) && words(region)
}

/// An officer's title under a signature: "Chief Executive Officer",
/// "Executive Vice President and Chief Financial Officer", "Director",
/// "Attorney-in-fact". Only under a signature is it known to be one.
pub(super) fn officer_title(t: &str) -> bool {
    let words = lower_words(t, |c| c.is_whitespace() || c == ',' || c == '(' || c == ')');
    words.len() <= TUNING.label_words && words.iter().any(|w| OFFICER_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_told_from_titles() {
        for l in [
            "Page",
            "Page No.",
            "PAGE",
            "Washington, D.C. 20549",
            "WASHINGTON, D.C. 20549",
            "One Hartford Plaza Hartford, CT 06155",
            "Fiscal Year",
            "Fiscal Year Ended",
            "Year Ended December 31, (a)",
            "Second Quarter Six Months Ended",
            "As of December 31, (a)",
            "Fifty-Two Weeks Ended",
            "See Notes to Consolidated Financial Statements",
            "See “Item 15. Exhibits and Financial Statement Schedules.”",
            "None",
            "Not Applicable",
            "Commission File Number 1-15839",
            "Commission file number: 001-00035",
        ] {
            assert!(label(l), "{l}");
        }
        for t in [
            "Pages of the Manual",
            "4.3 Page number",
            "Page Numbers",
            "Fiscal 2019",
            "FISCAL 2019 COMPARED TO FISCAL 2018",
            "Comparison of Years Ended December 31, 2019 and 2018",
            "Year in Review",
            "Fourth Quarter",
            "SEE ALSO",
            "See Also",
            "Results, 2019",
            "Item 1. Business",
            "Risk Factors",
            "Table 12345",
        ] {
            assert!(!label(t), "{t}");
        }
        assert!(place("Tysons, Virginia") && place("New York, New York"));
        assert!(place("San Jose, California") && place("Washington, D.C."));
        assert!(!place("Risks and Uncertainties") && !place("Revenue, by segment"));
        assert!(!place("Fees, 2019") && !place("Goodwill"));
        assert!(officer_title(
            "Executive Vice President and Chief Financial Officer"
        ));
        assert!(officer_title("Attorney-in-fact") && officer_title("Director"));
        assert!(!officer_title("Executive Compensation") && !officer_title("Directors"));
    }
}
