//! The words rules compare lines with, one table per concept, and the
//! form lines are compared in ([`letters`]). Titles are compared by
//! their letters, lower case ("Table of Contents" is `tableofcontents`).

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

/// The heading of an abstract, in the languages kb sees most.
pub(super) const ABSTRACT_TITLES: &[&str] = &[
    "abstract",
    "summary",
    "résumé",
    "resume",
    "zusammenfassung",
    "resumen",
    "resumo",
    "sommario",
    "samenvatting",
    "аннотация",
    "περίληψη",
    "περιληψη",
    "摘要",
    "要旨",
    "초록",
];

/// The title of a table of contents, in the languages kb sees most.
pub(super) const CONTENTS_TITLES: &[&str] = &[
    "contents",
    "tableofcontents",
    "contentsindetail",
    "briefcontents",
    "indexofcontents",
    "inhalt",
    "inhaltsverzeichnis",
    "sommaire",
    "tabledesmatières",
    "índice",
    "indice",
    "sumario",
    "sumário",
    "目录",
    "目次",
    "目錄",
    "περιεχομενα",
    "περιεχόμενα",
    "содержание",
    "оглавление",
];
