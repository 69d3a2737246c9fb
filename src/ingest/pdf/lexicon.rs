//! The words rules compare lines with, and the form they are compared
//! in: one table per concept and language.

/// The months' names in English, lower case.
pub(super) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The letters of `t`, lower case: a label compared whatever its spacing
/// and punctuation ("Table of Contents", "目   录", "Page No.").
pub(super) fn letters(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}
