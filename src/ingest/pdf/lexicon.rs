//! The words rules compare lines with, one table per concept, and the
//! form lines are compared in ([`letters`]). Titles are compared by
//! their letters, lower case ("Table of Contents" is `tableofcontents`);
//! the other words as written in lower case.

/// The months' names in English, lower case.
#[rustfmt::skip]
pub(super) const MONTHS: &[&str] = &[
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
];

/// The letters of `t`, lower case: a label compared whatever its spacing
/// and punctuation ("Table of Contents", "目   录", "Page No.").
pub(super) fn letters(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The heading of an abstract, in the languages kb sees most.
#[rustfmt::skip]
pub(super) const ABSTRACT_TITLES: &[&str] = &[
    "abstract", "summary", "résumé", "resume", "zusammenfassung", "resumen", "resumo", "sommario",
    "samenvatting", "аннотация", "περίληψη", "περιληψη", "摘要", "要旨", "초록",
];

/// The title of a table of contents, in the languages kb sees most.
#[rustfmt::skip]
pub(super) const CONTENTS_TITLES: &[&str] = &[
    "contents", "tableofcontents", "contentsindetail", "briefcontents", "indexofcontents",
    "inhalt", "inhaltsverzeichnis", "sommaire", "tabledesmatières", "índice", "indice",
    "sumario", "sumário", "目录", "目次", "目錄", "περιεχομενα", "περιεχόμενα", "содержание",
    "оглавление",
];

/// The name of an index's group of entries that start with no letter,
/// lower case.
pub(super) const INDEX_GROUPS: &[&str] = &[
    "symbols", "numbers", "numerals", "numerics", "symboles", "nombres", "symbole",
];

/// Lower-case words that join a phrase to what follows: a line ending
/// on one is cut off mid-phrase, not a title.
pub(super) const JOINING_WORDS: &[&str] = &[
    "a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "de",
    "des", "du", "et", "la", "le", "les", "und", "der", "die", "das", "y", "del",
];

/// The words title case leaves in lower case ("Results and Discussion").
pub(super) const TITLE_CASE_SMALL_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "of", "on", "or",
    "per", "the", "to", "vs", "via", "with", "without", "over", "under", "is", "are",
];

/// Quote marks, opening and closing.
pub(super) const QUOTE_PAIRS: &[(char, char)] = &[('‘', '’'), ('“', '”'), ('`', '\''), ('«', '»')];

/// The words that name a statement, table or schedule, lower case.
#[rustfmt::skip]
pub(super) const STATEMENT_NAMES: &[&str] = &[
    "statement", "statements", "balance", "sheet", "sheets", "table", "schedule", "summary",
    "results", "data", "information", "reconciliation", "income", "operations", "flows",
    "equity", "earnings",
];

/// Lines of a cover page or form that name no document, as their words
/// in lower case joined by spaces.
#[rustfmt::skip]
pub(super) const BOILERPLATE_LINES: &[&str] = &[
    "document", "untitled document", "united states securities and exchange commission",
    "united states", "securities and exchange commission", "washington dc 20549",
    "washington d c 20549", "documents incorporated by reference", "for immediate release",
    "press release", "news release", "table of contents", "contents", "index", "cover page",
    "cover", "annual report", "quarterly report", "current report", "mark one",
    "annual report pursuant to section 13 or 15 d of the securities exchange act of 1934",
    "quarterly report pursuant to section 13 or 15 d of the securities exchange act of 1934",
    "current report pursuant to section 13 or 15 d of the securities exchange act of 1934",
    "part i", "part ii", "forward looking statements",
    "cautionary note regarding forward looking statements",
];
