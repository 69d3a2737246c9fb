//! The words and marks rules compare lines with, one table per concept, and the
//! form lines are compared in ([`letters`]). Titles are compared by
//! their letters, lower case ("Table of Contents" is `tableofcontents`);
//! the other words as written in lower case.

/// The label a reference entry's name follows, as in a manual page's
/// "NAME" or a DocBook entry's "Name page.margin.top — The top margin".
pub(super) const ENTRY_LABELS: &[&str] = &["Name", "NAME", "Nom", "Nombre", "Nome"];
/// The dashes between a reference entry's name and what it is for.
pub(super) const ENTRY_DASHES: &[&str] = &["—", "–"];
/// What a footnote's mark is made of, besides digits (`*`, `†`, `(1)`).
pub(super) const FOOTNOTE_MARKS: &str = "*∗†‡§¶()";
/// Raised characters written as superscripts, and their forms.
pub(super) const SUPERSCRIPTS: (&str, &str) = ("0123456789+-\u{2212}=", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼");
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
    let kept = t.chars().filter(keep);
    kept.flat_map(char::to_lowercase).collect()
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
/// The name of an index's group of entries that start with no letter, lower case.
#[rustfmt::skip]
pub(super) const INDEX_GROUPS: &[&str] = &["symbols", "numbers", "numerals", "numerics", "symboles", "nombres", "symbole"];
/// Lower-case words that join a phrase to what follows: a line ending on one is cut off.
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
/// Lines of a cover page or form that name no document, lower case, words joined by spaces.
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
/// Phrases of a filing's cover or a company's reported results (an SEC form), lower case.
#[rustfmt::skip]
pub(super) const FILING_PHRASES: &[&str] = &[
    "securities and exchange commission", "form 10-k", "form 10-q", "form 8-k", "form 20-f",
    "commission file number", "exact name of registrant", "securities exchange act of 1934",
    "for immediate release", "earnings per share", "per diluted share", "financial results",
    "net sales", "net income", "balance sheet", "statements of cash flows", "fiscal year",
];
/// The label of a chapter, part, article or appendix alone over its title ("Anhang A"), lower case.
#[rustfmt::skip]
pub(super) const CHAPTER_LABELS: &[&str] = &[
    "chapter", "part", "article", "appendix", "附录", "chapitre", "partie", "annexe", "kapitel", "teil",
    "anhang", "capitolo", "parte", "appendice", "capítulo", "apéndice", "apêndice", "anexo",
    "hoofdstuk", "deel", "bijlage", "глава", "часть", "приложение", "rozdział", "część",
    "kapitola", "luku", "kapittel", "κεφάλαιο",
];
/// The degree a thesis is for, as its cover names it ("博士学位论文", doctoral), by its letters.
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
/// A form's answer that it has nothing to report ("None", "N/A"), by its letters.
pub(super) const NOTHING_TO_REPORT: &[&str] = &["none", "notapplicable", "na"];
/// The label of a filing's commission file number on its cover, by its letters.
pub(super) const FILE_NUMBER_LABEL: &str = "commissionfilenumber";
/// The note under a filing's registrant on its cover, lower case.
pub(super) const REGISTRANT_NOTE: &str = "exact name of registrant";
/// The first word of a filing's form line ("FORM 10-K"), any case.
pub(super) const FORM_LABEL: &str = "form";
/// The first word of an exhibit's label ("Exhibit 99.1"), lower case.
pub(super) const EXHIBIT_LABEL: &str = "exhibit";
/// The label of a filing's part ("PART II"), lower case.
pub(super) const PART_LABEL: &str = "part";
/// The number of a filing's first part ("PART I", "Part 1", "PART ONE"), lower case.
pub(super) const FIRST_PART_NUMBERS: &[&str] = &["i", "1", "one"];
/// The label of a filing's item ("Item 7."), lower case.
pub(super) const ITEM_LABEL: &str = "item";
/// The label of a note to the financial statements ("Note 12"), lower case.
pub(super) const NOTE_LABEL: &str = "note";
/// The first word of the notes' heading ("Notes to Consolidated Financial Statements").
pub(super) const NOTES_LABEL: &str = "notes";
/// How the notes' heading opens, lower case: under it is no statement's table.
pub(super) const NOTES_TO: &str = "notes to";
/// What the notes' heading says they are notes to, lower case.
pub(super) const NOTES_OF: &str = "statements";
/// The auditor's report over a filing's financial statements, by its letters.
#[rustfmt::skip]
pub(super) const AUDIT_REPORT_TITLES: &[&str] = &["reportofindependentregisteredpublicaccountingfirm", "reportofindependentauditors", "independentauditorsreport"];
/// What names the financial statements ("Index to Financial Statements"), lower case.
pub(super) const FINANCIAL_STATEMENT: &str = "financial statement";
/// A filing's signatures' heading ("SIGNATURES"), by its letters.
pub(super) const SIGNATURES_TITLES: &[&str] = &["signature", "signatures"];
/// The mark before a signed name ("/s/ Jane Roe").
pub(super) const SIGNATURE_MARK: &str = "/s/";
/// The marks that start a list's item on their own: the usual bullets, and
/// the ones Word offers from its symbol fonts (`symbol_font`).
pub(super) const LIST_MARKS: &str = "•◦▪▸►‣∙·●■□❑◆❖◻➢✓";
/// The dashes that start a list's item only before a space or the item's
/// text alone: elsewhere a sign, a rule or a table's "nothing".
pub(super) const LIST_DASHES: &str = "-–";
/// The marks that tick a column of an index of exhibits ("filed herewith").
pub(super) const CHECK_MARKS: &[&str] = &["X", "x", "✓", "✔", "√"];
/// The words that name a financial statement inside its title ("Statements of Cash Flows").
pub(super) const STATEMENT_OF: &[&str] = &["statement of", "statements of"];
/// The words a balance sheet's title ends on, lower case.
pub(super) const BALANCE_SHEETS: &[&str] = &["balance sheet", "balance sheets"];
/// A table's caption's first word ("Table 3"), any case.
pub(super) const TABLE_CAPTION: &str = "table";
/// The first word of a figure's or table's caption ("Fig. 2:"), lower case.
#[rustfmt::skip]
pub(super) const CAPTION_WORDS: &[&str] = &["figure", "fig", "table", "listing", "algorithm", "equation"];
/// The marks set apart from a table's amount that it opens on ("$", "(") and closes on (")", "%").
#[rustfmt::skip]
pub(super) const AMOUNT_MARKS: (&[&str], &[&str]) = (&["$", "€", "£", "¥", "(", "$(", "($"], &[")", "%", ")%", "%)"]);
/// The words of the period a table's columns cover ("Six Months Ended"), lower case.
pub(super) const PERIOD_WORDS: &[&str] = &[
    "fiscal", "year", "years", "quarter", "quarters", "month", "months", "week", "weeks", "ended",
    "ending", "three", "six", "nine", "twelve", "fifty", "two", "first", "second", "third",
    "fourth", "as", "of", "at", "and", "to", "date",
];
/// The words that make a column header a period on their own ("Year Ended").
pub(super) const PERIOD_ENDED: &[&str] = &["ended", "ending"];
/// "Fiscal" and the words after which it names a period ("Fiscal Year").
pub(super) const FISCAL_YEAR: (&str, &[&str]) = ("fiscal", &["year", "years"]);
/// The words that open a period's date ("As of June 30").
pub(super) const AS_OF: [&str; 2] = ["as", "of"];
/// A cross-reference's first word ("See Note 3"), and the second that makes it a heading.
pub(super) const SEE_ALSO: [&str; 2] = ["see", "also"];
/// The header over a contents page's page numbers ("Page No."), by its letters.
#[rustfmt::skip]
pub(super) const PAGE_COLUMN_HEADERS: &[&str] = &["page", "pages", "pageno", "seite", "página", "pagina"];
/// The words of a page number's line ("Page 3 of 12"), lower case, dropped in this order.
pub(super) const PAGE_LINE_WORDS: &[&str] = &["page", "of"];
/// The word a heading repeated atop its next page carries ("Item 7 (continued)").
pub(super) const CONTINUED: &str = "continued";
/// Leader dots as a line keeps them ("Introduction … 3").
pub(super) const LEADER: &str = " … ";
/// The marks of an apostrophe, which may close a word ("companies’").
pub(super) const APOSTROPHE: &str = "’'";
/// The words a heading's number follows ("Chapter 3", "Note 12"), lower case.
pub(super) const NUMBER_LABELS: &[&str] = &["chapter", "part", "appendix", "section", "note"];
/// The label of a chapter or appendix in Persian and Arabic, numbered in words or letters.
pub(super) const RTL_CHAPTER_LABELS: &[&str] = &["فصل", "الفصل", "پیوست", "ملحق", "الملحق"];
/// The numerals of a Chinese or Japanese chapter's number (`第十二章`).
pub(super) const CJK_CHAPTER_NUMERALS: &str = "一二三四五六七八九十百零〇";
/// The numerals of a Chinese or Japanese date's year, month and day.
pub(super) const CJK_DATE_NUMERALS: &str = "〇零一二三四五六七八九十";
/// The letters of a section's or chapter's number in Roman numerals ("IV.", "Part XII").
pub(super) const ROMAN: &str = "IVXLC";
/// The letters of a filing's part number in Roman numerals ("PART IV").
pub(super) const ROMAN_PART_LETTERS: &str = "IVX";
/// The Roman numbers just before V and X, to tell a stray "V." from a list's fifth.
pub(super) const ROMAN_BEFORE: &[(u8, &str)] = &[(b'V', "IV"), (b'X', "IX")];
/// The letters of a front matter's page number in lower-case Roman numerals ("xiv").
pub(super) const ROMAN_PAGE_LETTERS: &str = "ivxlcdm";
/// The letters of a contents entry's page number in lower-case Roman numerals.
pub(super) const ROMAN_PAGE_REF: &str = "ivxlc";
/// The title of a list of figures or listings, by its letters: its start, its end, all of it.
#[rustfmt::skip]
pub(super) const LIST_TITLE: (&str, &[&str], &[&str]) = ("listof", &["verzeichnis", "目录"], &["listings"]);
/// The prefix Word's PDF export puts before a file name in the Info title.
pub(super) const WORD_TITLE_PREFIX: &str = "Microsoft Word - ";
/// The endings of a file name standing in for the Info title, lower case.
#[rustfmt::skip]
pub(super) const FILE_EXTENSIONS: &[&str] = &[".doc", ".docx", ".tex", ".dvi", ".pdf", ".indd", ".odt", ".rtf", ".htm", ".html"];
/// An Info title that names no document ("Untitled", "(anonymous)"), lower case, unbracketed.
#[rustfmt::skip]
pub(super) const PLACEHOLDER_TITLES: &[&str] = &["untitled", "title", "no title", "", "none", "pdf", "slide 1", "anonymous", "unknown"];
/// The words of a bold font's name ("Helvetica-Bold", "MinionPro-Semibold"), lower case.
pub(super) const BOLD_FONT_WORDS: &[&str] = &["bold", "black", "heavy", "semibold", "demi"];
/// The words of a font's name that say it is not bold ("Times-Roman",
/// "LMRoman12-Regular", "Times-Italic"), lower case, when no bold word is there.
#[rustfmt::skip]
pub(super) const REGULAR_FONT_WORDS: &[&str] = &["regular", "roman", "book", "light", "thin", "medium", "normal", "italic", "oblique"];
/// The words of an italic or slanted font's name ("Times-Italic",
/// "DejaVuSans-Oblique", "NimbusRomNo9L-ReguItal", TeX's "CMTI10" and
/// "CMSL10"), lower case. Math italic ("CMMI10") is left to the font's flags.
#[rustfmt::skip]
pub(super) const ITALIC_FONT_WORDS: &[&str] = &["italic", "oblique", "ital", "slant", "cmti", "cmsl", "cmbxti", "cmbxsl", "cmitt"];
/// The words ending a font's family name that say its style or its foundry's
/// naming ("ArialMT", "TimesNewRomanPSMT", "LMRomanDemi10", "CalibriLight"),
/// lower case: they leave the face it is a style of.
#[rustfmt::skip]
pub(super) const FAMILY_SUFFIXES: &[&str] = &["mt", "ps", "bold", "italic", "oblique", "regular", "demi", "semibold", "medium", "light", "black", "heavy", "book", "caps"];
/// TeX's Computer Modern and EC fonts name each style a family of its own
/// ("CMBX12" is CMR's bold, "SFTI1000" SFRM's italic): each style with the
/// roman it is a style of, lower case, size digits left out.
#[rustfmt::skip]
pub(super) const TEX_STYLE_FAMILIES: &[(&str, &str)] = &[
    ("cmbx", "cmr"), ("cmb", "cmr"), ("cmti", "cmr"), ("cmsl", "cmr"), ("cmbxti", "cmr"), ("cmbxsl", "cmr"), ("cmcsc", "cmr"),
    ("cmssbx", "cmss"), ("cmssi", "cmss"), ("cmitt", "cmtt"), ("cmsltt", "cmtt"),
    ("sfbx", "sfrm"), ("sfti", "sfrm"), ("sfsl", "sfrm"), ("sfbi", "sfrm"), ("sfcc", "sfrm"), ("sfsx", "sfss"), ("sfsi", "sfss"), ("sfit", "sftt"),
];
/// The words of an upright font's name ("Times-Roman", "Arial-Regular"),
/// lower case, when no italic word is there.
#[rustfmt::skip]
pub(super) const UPRIGHT_FONT_WORDS: &[&str] = &["regular", "roman", "upright", "book", "medium", "normal", "bold"];
