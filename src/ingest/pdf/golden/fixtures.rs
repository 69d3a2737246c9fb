//! The documents of the structure regression suite, one per document
//! class, written with the test-PDF builder. Names, companies and figures
//! are invented; what matters is the shape each class has.

use super::super::testpdf::{code, columns, heading, lines, para, table, TestPdf};

/// Every fixture: its name (the golden file's stem) and its PDF.
pub(super) fn all() -> Vec<(&'static str, TestPdf)> {
    vec![
        ("filing", filing()),
        ("paper", paper()),
        ("manual", manual()),
        ("generic", generic()),
        ("generic_bookmarked", generic_bookmarked()),
    ]
}

/// An annual report as filings lay it out: a cover page, PART and Item
/// headings at body size in bold, a balance sheet whose title is a plain
/// caps line above its table, right after the auditor's report.
fn filing() -> TestPdf {
    TestPdf::new()
        .footer()
        .page(vec![
            heading("UNITED STATES", 12.0),
            heading("SECURITIES AND EXCHANGE COMMISSION", 12.0),
            lines(&["Washington, D.C. 20549"]),
            heading("FORM 10-K", 16.0),
            para("ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934"),
            lines(&["For the fiscal year ended December 31, 2023"]),
            heading("NORTHWIND CONTAINER LINES, INC.", 14.0),
            lines(&["(Exact name of registrant as specified in its charter)"]),
        ])
        .page(vec![
            heading("PART I", 11.0),
            heading("Item 1. Business", 11.0),
            para(
                "The Company operates a fleet of container vessels between ports on the \
                 northern coast and inland terminals. Revenue comes from freight contracts \
                 priced per container and from storage fees charged at the terminals.",
            ),
            heading("Item 1A. Risk Factors", 11.0),
            para(
                "Fuel prices, port congestion and the demand for imported goods affect our \
                 results. A fall in trade volumes would reduce the number of containers \
                 carried and the fees earned at the terminals.",
            ),
        ])
        .page(vec![
            heading("PART II", 11.0),
            heading(
                "Item 7. Management's Discussion and Analysis of Financial Condition",
                11.0,
            ),
            para(
                "Freight revenue grew eleven percent as volumes recovered on the northern \
                 routes. Operating costs rose more slowly than revenue because two older \
                 vessels were retired during the year.",
            ),
            heading("Liquidity and Capital Resources", 11.0),
            para(
                "Cash provided by operating activities funded the purchase of two vessels. \
                 The revolving credit facility remained undrawn at the end of the year.",
            ),
        ])
        .page(vec![
            heading("Item 8. Financial Statements and Supplementary Data", 11.0),
            heading("Report of Independent Registered Public Accounting Firm", 11.0),
            para(
                "We have audited the accompanying consolidated balance sheets of the Company \
                 as of December 31, 2023 and 2022. In our opinion, the financial statements \
                 present fairly, in all material respects, the financial position of the \
                 Company.",
            ),
            lines(&["CONSOLIDATED BALANCE SHEETS", "(in millions)"]),
            table(&[
                &["", "2023", "2022"],
                &["Cash and cash equivalents", "$412", "$380"],
                &["Accounts receivable", "215", "198"],
                // A label wrapped over its numbers' line.
                &["Vessels and equipment, net of accumulated"],
                &["depreciation", "1,904", "1,766"],
                &["Total assets", "$2,531", "$2,344"],
                &["Long-term debt", "640", "702"],
                &["Total liabilities", "$1,120", "$1,170"],
            ]),
        ])
}

/// A paper: a title and authors, an abstract, numbered sections and
/// subsections, a figure caption and references.
fn paper() -> TestPdf {
    TestPdf::new()
        .footer()
        .page(vec![
            heading("Sparse Retrieval over Long Technical Documents", 18.0),
            lines(&["Ada Marsh and Tomas Reyes", "Department of Informatics"]),
            heading("Abstract", 11.0),
            para(
                "Long documents defeat retrieval models trained on short passages. We cut \
                 documents at their section boundaries and show that ranking sections \
                 before passages improves recall on three collections of manuals.",
            ),
            heading("1 Introduction", 14.0),
            para(
                "Search over manuals and reports must return the page a reader needs. \
                 Passages cut at a fixed length lose the headings that tell a reader \
                 where they are, and rank poorly for questions about a whole section.",
            ),
            heading("1.1 Contributions", 12.0),
            para(
                "We describe a section splitter, an index of sections and passages, and a \
                 ranking that combines both. We measure each part on its own.",
            ),
        ])
        .page(vec![
            heading("2 Method", 14.0),
            para(
                "The splitter reads the outline of each document, or infers one from the \
                 sizes and weights of its lines when the document has none.",
            ),
            heading("2.1 Section Index", 12.0),
            para(
                "Each section is indexed with its heading chain, so a query naming a \
                 chapter matches every passage below it.",
            ),
            lines(&["Figure 1: Recall at ten for sections and passages."]),
        ])
        .page(vec![
            heading("3 Results", 14.0),
            para(
                "Ranking sections first raised recall at ten from 0.61 to 0.74 on the \
                 manuals and from 0.58 to 0.66 on the reports.",
            ),
            heading("References", 14.0),
            lines(&[
                "[1] A. Marsh. Passage retrieval for manuals. Journal of Search, 2019.",
                "[2] T. Reyes. Outlines from layout. Proceedings of Documents, 2021.",
            ]),
        ])
}

/// A manual: a title page, parts and numbered chapters, a listing, and a
/// parameter reference whose entries ("Name grove.option.3 — …") run on
/// with no lines of their own and flow from one page to the next in the
/// middle of a sentence.
fn manual() -> TestPdf {
    let parameters: Vec<String> = (1..38)
        .flat_map(|i| {
            [
                format!("Name grove.option.{i} — Trees in row {i} Synopsis grove.option.{i} 3"),
                format!("Description Sets how many trees the planner places in row {i} when the"),
            ]
        })
        .collect();
    let run_on = |ls: Vec<String>| lines(&ls.iter().map(String::as_str).collect::<Vec<_>>());
    TestPdf::new()
        .footer()
        .page(vec![
            heading("Grove Planner Manual", 22.0),
            lines(&["Version 3.2"]),
        ])
        .page(vec![
            heading("Part I", 18.0),
            heading("Chapter 1 Getting Started", 16.0),
            para(
                "The planner lays out an orchard from a list of trees and a map of the \
                 field. This chapter installs it and plans a first field.",
            ),
            heading("1.1 Installing", 12.0),
            para("Unpack the archive and run the installer from its folder."),
            code(&["grove install --prefix /opt/grove", "grove plan field.map"]),
        ])
        .page(vec![
            heading("Part II", 18.0),
            heading("Chapter 2 Parameter Reference", 16.0),
            run_on(parameters[..19].to_vec()),
        ])
        .page(vec![run_on(parameters[19..59].to_vec())])
        .page(vec![
            run_on(parameters[59..].to_vec()),
            para("soil allows it."),
        ])
}

/// A document of no particular class: a report with a running header,
/// short unnumbered headings, a two-column page and a table.
fn generic() -> TestPdf {
    TestPdf::new()
        .footer()
        .running_header("Riverside Library Annual Review")
        .page(vec![
            heading("Riverside Library Annual Review", 20.0),
            para(
                "The library served more readers this year than in any year before, and \
                 opened a second reading room in the east wing.",
            ),
            heading("Visitors", 13.0),
            para(
                "Visits rose by a fifth. Most of the growth came on weekday evenings, \
                 after the opening hours were extended to nine o'clock.",
            ),
            heading("Collections", 13.0),
            para("The library bought four thousand books and two hundred maps."),
            table(&[
                &["Collection", "2023", "2022"],
                &["Books", "41,200", "37,150"],
                &["Maps", "1,310", "1,120"],
            ]),
        ])
        .page(vec![
            heading("Events", 13.0),
            columns(
                "Readings were held every month in the new room, and each drew a full \
                 audience of neighbours and students from the school nearby.",
                "Workshops taught repair of old bindings and the care of paper, led by \
                 volunteers who had trained with the regional archive.",
            ),
            heading("Outlook", 13.0),
            para("Next year the library will open on Sundays and digitise its maps."),
        ])
}

/// The generic document with bookmarks: the outline comes from them.
fn generic_bookmarked() -> TestPdf {
    generic()
        .bookmark("Annual Review", 1, "Riverside Library Annual Review")
        .bookmark("Visitors", 2, "Visitors")
        .bookmark("Collections", 2, "Collections")
        .bookmark("Events", 2, "Events")
        .bookmark("Outlook", 2, "Outlook")
}
