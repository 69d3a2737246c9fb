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
    lower_kept(t, |c| c.is_alphabetic())
}

/// The characters of `t` that `keep` keeps, lower case.
pub(super) fn lower_kept(t: &str, keep: impl Fn(&char) -> bool) -> String {
    t.chars()
        .filter(keep)
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of `t` between the characters `split` cuts at, lower case.
pub(super) fn lower_words(t: &str, split: impl Fn(char) -> bool) -> Vec<String> {
    let words = t.split(split).filter(|w| !w.is_empty());
    words.map(str::to_lowercase).collect()
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

/// Phrases of a filing's cover or a company's reported results (an SEC
/// form, an earnings release, an annual report's statements), lower case.
#[rustfmt::skip]
pub(super) const FILING_PHRASES: &[&str] = &[
    "securities and exchange commission", "form 10-k", "form 10-q", "form 8-k", "form 20-f",
    "commission file number", "exact name of registrant", "securities exchange act of 1934",
    "for immediate release", "earnings per share", "per diluted share", "financial results",
    "net sales", "net income", "balance sheet", "statements of cash flows", "fiscal year",
];

/// The label of a chapter, part or appendix standing alone over its
/// title ("Chapter 3", "PART II", "Anhang A"), lower case.
#[rustfmt::skip]
pub(super) const CHAPTER_LABELS: &[&str] = &[
    "chapter", "part", "appendix", "附录", "chapitre", "partie", "annexe", "kapitel", "teil",
    "anhang", "capitolo", "parte", "appendice", "capítulo", "apéndice", "apêndice", "anexo",
    "hoofdstuk", "deel", "bijlage", "глава", "часть", "приложение", "rozdział", "część",
    "kapitola", "luku", "kapittel", "κεφάλαιο",
];

/// The degree a thesis is for, as its cover names it (a doctoral
/// thesis: "博士学位论文"), by its letters.
#[rustfmt::skip]
pub(super) const THESIS_DEGREES: &[&str] = &[
    "博士学位论文", "硕士学位论文", "学士学位论文", "博士论文", "硕士论文", "毕业论文",
    "毕业论文设计", "本科毕业论文", "本科毕业论文设计", "本科生毕业论文", "研究生毕业论文", "学位论文",
];

/// The words of an officer's title under a signature, lower case.
#[rustfmt::skip]
pub(super) const OFFICER_WORDS: &[&str] = &[
    "officer", "president", "chairman", "chairwoman", "chair", "director", "treasurer",
    "controller", "secretary", "attorney-in-fact", "counsel",
];
