//! The titles of financial statements and tables: the line that names a
//! statement ("CONSOLIDATED BALANCE SHEETS (In millions)") heads the table
//! under it, so a row of numbers is found under its name and cited at its page.

use super::lexicon::{BALANCE_SHEETS, STATEMENT_NAMES, STATEMENT_OF, TABLE_CAPTION};
use super::text_shape::{all_caps, heading_text, title_case};
use super::tuning::TUNING;

/// A table's caption: `Table 3`, `TABLE 3.1:`, `Table A-2.`.
pub(super) fn caption(t: &str) -> bool {
    let mut w = t.split_whitespace();
    let first = w.next().unwrap_or("").trim_end_matches([':', '.']);
    let second = w.next().unwrap_or("");
    first.eq_ignore_ascii_case(TABLE_CAPTION)
        && second.starts_with(|c: char| c.is_ascii_digit() || c.is_ascii_uppercase())
        && t.chars().count() <= TUNING.caption_chars
}

/// The title of the statement or schedule a block of `lines` introduces,
/// with the rest of the block (company, period, units): one of its first
/// three lines names a statement, table, schedule or summary in title case
/// or capitals ("Consolidated Statement of Cash Flows", "CONSOLIDATED
/// BALANCE SHEETS", "Selected Financial Data"), and the block is short.
/// The columns' years on lines of their own ("2022" / "2021") do not make
/// it long, but a block they lengthen must name a statement outright: a
/// row's label ("Net Earnings") over its years is no title.
pub(super) fn statement_title(lines: &[String]) -> Option<(String, String)> {
    let words: usize = lines.iter().map(|l| l.split_whitespace().count()).sum();
    let worded = lines.iter().filter(|l| !years_line(l)).count();
    if worded > TUNING.statement_block.0 || words > TUNING.statement_block.1 {
        return None;
    }
    let long = lines.len() > TUNING.statement_block.0;
    let first = TUNING.statement_name_lines;
    let at = lines.iter().take(first).position(|l| {
        let (t, _) = split_units(l);
        let names = t.split_whitespace().any(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            STATEMENT_NAMES.contains(&w.as_str())
        });
        let styled = names && (all_caps(t) || title_case(t)) && heading_text(t);
        styled && (!long || statement_line(l).is_some())
    })?;
    let (title, units) = split_units(&lines[at]);
    let mut rest: Vec<&str> = lines.iter().map(String::as_str).collect();
    rest[at] = units;
    if units.is_empty() {
        rest.remove(at);
    }
    Some((title.to_string(), rest.join(" ")))
}

/// A line of the columns' years alone: "2022", "2022 2021".
fn years_line(l: &str) -> bool {
    let year = |w: &str| w.len() == TUNING.year_digits && w.chars().all(|c| c.is_ascii_digit());
    l.split_whitespace().next().is_some() && l.split_whitespace().all(year)
}

/// A title and the units it may carry: "CONSOLIDATED BALANCE SHEETS" and
/// "(In thousands)".
fn split_units(l: &str) -> (&str, &str) {
    l.find(" (")
        .map_or((l.trim(), ""), |i| (l[..i].trim(), l[i..].trim()))
}

/// A line that titles a financial statement, with its units split off:
/// "Consolidated Balance Sheets", "CONSOLIDATED STATEMENTS OF CASH FLOWS
/// (In millions)". Only the words statements are named by count here; a
/// table's own title is found by its table (`statement_title`).
pub(super) fn statement_line(line: &str) -> Option<(String, String)> {
    let (core, units) = split_units(line);
    // Named, not mentioned: "Off-Balance Sheet Arrangements" and
    // "Balance Sheet Hedging" are sections, not statements.
    let lower = core.to_lowercase();
    let names = STATEMENT_OF.iter().any(|p| lower.contains(p))
        || BALANCE_SHEETS.iter().any(|p| lower.ends_with(p));
    let styled = all_caps(core) || title_case(core);
    let short = core.split_whitespace().count() <= TUNING.styled_words;
    (names && styled && heading_text(core) && short).then(|| (core.to_string(), units.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_titles_and_their_units() {
        assert_eq!(
            statement_title(&[
                "Consolidated Statement of Cash Flows".into(),
                "PepsiCo, Inc.".into()
            ]),
            Some((
                "Consolidated Statement of Cash Flows".into(),
                "PepsiCo, Inc.".into()
            ))
        );
        assert_eq!(statement_title(&["The company grew.".into()]), None);
        let sheet = [
            "CONSOLIDATED BALANCE SHEETS",
            "At January 1, 2023 and January 2, 2022",
            "(Dollars in Millions)",
            "(Note 1)",
            "2022",
            "2021",
            "Assets",
        ]
        .map(String::from);
        assert_eq!(
            statement_title(&sheet).map(|(t, _)| t),
            Some("CONSOLIDATED BALANCE SHEETS".into())
        );
        let label = [
            "Net Earnings",
            "2022",
            "2021",
            "Sales",
            "Costs",
            "Taxes",
            "Other",
        ];
        assert_eq!(statement_title(&label.map(String::from)), None);
        assert_eq!(
            statement_title(&["CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)".into()]),
            Some((
                "CONSOLIDATED STATEMENTS OF OPERATIONS".into(),
                "(in millions)".into()
            ))
        );

        assert!(statement_line("Consolidated Statements of Cash Flows (In millions)").is_some());
        assert!(statement_line("Notes to Consolidated Financial Statements").is_none());
        assert!(statement_line("CONDENSED CONSOLIDATED BALANCE SHEETS").is_some());
        assert!(statement_line("Off-Balance Sheet Arrangements").is_none());
        assert!(statement_line("Balance Sheet Hedging—Hedging of Foreign Currency").is_none());
        assert!(caption("Table 3.1: Results") && !caption("Tablespoons of sugar"));
    }
}
