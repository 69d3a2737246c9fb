//! Long documents: `--top N` fills its page when a few long documents hold
//! most of the matches, a question about one long report lists several of
//! its pages, a broad question several documents, and a statement's row is
//! found on its page by a question that names the metric and the year in
//! words.

use kb::ingest::pdf::testpdf::{self, heading, para, TestPdf};
use serde_json::Value;

use crate::common::{write, Kb};

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

fn distinct_documents(v: &Value) -> usize {
    let mut ids: Vec<i64> = results(v)
        .iter()
        .map(|r| r["source"]["document_id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

/// Two long notes hold nearly every chunk that matches; a dozen short ones
/// one match each. `--top 10` still returns ten results, however few
/// chunks of one document may be listed.
#[test]
fn top_n_returns_n_when_long_documents_fill_the_candidates() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    for name in ["greenhouse-log", "orchard-log"] {
        let mut text = format!("# {name}\n\n");
        for i in 0..90 {
            text.push_str(&format!(
                "## Week {i}\n\nIrrigation schedule for week {i}: the drip irrigation ran \
                 {i} hours, the irrigation valves were checked and the irrigation filters \
                 cleaned. Irrigation pressure stayed normal.\n\n"
            ));
        }
        write(&docs.join(format!("{name}.md")), &text);
    }
    for i in 0..12 {
        write(
            &docs.join(format!("note-{i:02}.txt")),
            &format!("Shopping list {i}: seeds, gloves, a hose for irrigation, twine."),
        );
    }
    kb.add(&[&docs]);
    for per_document in ["1", "2", "0"] {
        let v = kb.json(&[
            "search",
            "irrigation schedule",
            "--top",
            "10",
            "--max-per-document",
            per_document,
        ]);
        assert_eq!(
            results(&v).len(),
            10,
            "--max-per-document {per_document}: {v}"
        );
    }
    let v = kb.json(&["search", "irrigation schedule", "--top", "10"]);
    assert_eq!(results(&v).len(), 10, "{v}");
    let v = kb.json(&["search", "irrigation", "--top", "4", "--type", "note"]);
    assert_eq!(results(&v).len(), 4, "{v}");
}

/// A long report of forty pages whose cash-flow statement is on page 31,
/// among other reports.
fn reports(kb: &Kb) -> std::path::PathBuf {
    let dir = kb.home.path().join("reports");
    std::fs::create_dir_all(&dir).unwrap();
    let topics = [
        "our stores and the communities they serve",
        "product quality and food safety programs",
        "distribution centers and logistics",
        "employee training and benefits",
        "energy use and sustainability goals",
    ];
    let mut pdf = TestPdf::new().title("Juniper Foods Annual Report 2018");
    for page in 1..=40 {
        let topic = topics[page % topics.len()];
        let blocks = if page == 31 {
            vec![
                heading("CONSOLIDATED STATEMENTS OF CASH FLOWS", 11.0),
                para("(Amounts in millions)"),
                testpdf::table(&[
                    &["Fiscal year", "2018", "2017", "2016"],
                    &["Net income", "2,104", "1,988", "1,870"],
                    &["Depreciation and amortization", "612", "590", "574"],
                    &[
                        "Purchases of property, plant and equipment",
                        "(1,577)",
                        "(1,373)",
                        "(1,420)",
                    ],
                    &["Proceeds from sales of assets", "41", "37", "29"],
                    &["Dividends paid", "(702)", "(655)", "(611)"],
                ]),
            ]
        } else {
            vec![
                heading(&format!("Section {page}: {topic}"), 14.0),
                para(&format!(
                    "In fiscal 2018 Juniper Foods continued its work on {topic}. This page \
                     describes what changed during the year, what it cost and what we plan \
                     next; management reviews {topic} every quarter with the board."
                )),
                para(&format!(
                    "Page {page} also notes that capital projects for {topic} are reviewed \
                     against the plan, and that results are reported in the annual report."
                )),
            ]
        };
        pdf = pdf.page(blocks);
    }
    std::fs::write(dir.join("JUNIPER_2018_ANNUAL.pdf"), pdf.to_bytes()).unwrap();
    for (name, body) in [
        (
            "harbor-logistics-review",
            "Harbor Logistics reviewed its fleet, fuel costs and routes in 2018.",
        ),
        (
            "maple-bank-letter",
            "Maple Bank's letter to shareholders on interest rates and deposits.",
        ),
        (
            "cedar-health-update",
            "Cedar Health's update on clinics, staffing and patient visits.",
        ),
        (
            "birch-energy-outlook",
            "Birch Energy's outlook on wind farms and power prices.",
        ),
        (
            "aspen-retail-notes",
            "Aspen Retail's notes on store openings and online sales growth.",
        ),
    ] {
        let mut pdf = TestPdf::new().title(&name.replace('-', " "));
        for page in 1..=3 {
            pdf = pdf.page(vec![
                heading(&format!("Annual review, part {page}"), 14.0),
                para(&format!(
                    "{body} Part {page} of the annual report for the year."
                )),
            ]);
        }
        std::fs::write(dir.join(format!("{name}.pdf")), pdf.to_bytes()).unwrap();
    }
    dir
}

#[test]
fn a_statement_row_is_found_on_its_page_and_long_reports_list_their_pages() {
    let kb = Kb::new();
    let dir = reports(&kb);
    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 6, "{s}");

    // The metric and the year in words; the row says "Purchases of
    // property, plant and equipment" under a header row of years.
    let v = kb.json(&[
        "search",
        "What was Juniper Foods' capital expenditure for purchases of property and equipment in fiscal 2018?",
    ]);
    let first_page_31 = results(&v)
        .iter()
        .position(|r| r["source"]["page"] == 31)
        .unwrap_or_else(|| panic!("page 31 not in the results: {v:#}"));
    assert!(first_page_31 < 3, "page 31 ranked {first_page_31}: {v:#}");
    let hit = &results(&v)[first_page_31];
    assert!(
        hit["source"]["section"]
            .as_str()
            .unwrap_or("")
            .contains("CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        "{hit:#}"
    );

    // A question about the one long report lists several of its pages.
    let v = kb.json(&[
        "search",
        "Juniper Foods food safety and distribution centers",
    ]);
    let juniper: Vec<&Value> = results(&v)
        .iter()
        .filter(|r| r["source"]["path"].as_str().unwrap().contains("JUNIPER"))
        .collect();
    assert!(juniper.len() >= 3, "{v:#}");

    // A broad question lists several documents.
    let v = kb.json(&["search", "annual report review for the year"]);
    assert!(distinct_documents(&v) >= 4, "{v:#}");
}

/// A section too long for one chunk (a tldr page of many examples, a long
/// note): every chunk's text is in the file verbatim, newlines and all, at
/// the lines it names, and the later chunks start on a line of their own.
#[test]
fn split_chunks_are_quotable_with_their_lines() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let mut page = String::from(
        "# git reset\n\n> Undo commits or unstage changes.\n> More information: <https://git-scm.com>.\n\n",
    );
    for i in 0..40 {
        page.push_str(&format!(
            "- Reset the branch to commit number {i}, keeping the working tree as it was:\n\n\
             `git reset --soft HEAD~{i}`\n\n"
        ));
    }
    let mut note = String::new();
    for i in 0..60 {
        note.push_str(&format!(
            "Line {i} of a long note about dentists, appointments and insurance cards.\n"
        ));
        if i % 7 == 6 {
            note.push('\n');
        }
    }
    write(&docs.join("git-reset.md"), &page);
    write(&docs.join("long.txt"), &note);
    kb.add(&[&docs]);
    for (name, file) in [("git-reset.md", &page), ("long.txt", &note)] {
        let path = docs.join(name);
        let info = kb.json(&["info", path.to_str().unwrap()]);
        let chunks = info["chunks"].as_array().unwrap();
        assert!(chunks.len() >= 3, "{name}: {info}");
        let lines: Vec<&str> = file.split('\n').collect();
        for c in chunks {
            let id = c["chunk_id"].as_i64().unwrap().to_string();
            let shown = kb.json(&["show", &id]);
            let chunk = &shown["chunk"];
            let text = chunk["text"].as_str().unwrap();
            assert!(file.contains(text), "{name}: not in the file: {text:?}");
            assert!(!text.contains(" - Reset"), "{name}: lines joined: {text:?}");
            let start = chunk["line_start"].as_u64().expect("line_start") as usize;
            let end = chunk["line_end"].as_u64().expect("line_end") as usize;
            let span = lines[start - 1..end].join("\n");
            assert_eq!(span.trim_end(), text, "{name}: lines {start}-{end}");
        }
    }
}

/// Issue 54, item 7: a knowledge base of three long filings and nothing
/// else: `--top N` returns N however the places are shared out, and a
/// keyword only one short note holds lists more chunks of that note.
#[test]
fn top_n_returns_n_on_a_few_long_pdfs() {
    let kb = Kb::new();
    let dir = kb.home.path().join("filings");
    std::fs::create_dir_all(&dir).unwrap();
    let topics = [
        "revenue",
        "inventory",
        "leases",
        "pensions",
        "tax",
        "debt",
        "litigation",
    ];
    for company in ["Alder", "Hazel", "Rowan"] {
        let mut pdf = TestPdf::new().title(&format!("{company} Industries Form 10-K 2018"));
        for page in 1..=30 {
            let topic = topics[page % topics.len()];
            pdf = pdf.page(vec![
                heading(&format!("Item {page}. {topic}"), 14.0),
                para(&format!(
                    "{company} Industries discusses {topic} in fiscal 2018 on page {page}: \
                     what changed, what it cost and how management reviews it each quarter."
                )),
                para(&format!(
                    "The committee compared the {topic} results of 2018 with 2017 and the plan; \
                     the filing reports the figures in millions of dollars."
                )),
            ]);
        }
        std::fs::write(
            dir.join(format!("{}_2018_10K.pdf", company.to_uppercase())),
            pdf.to_bytes(),
        )
        .unwrap();
    }
    kb.add(&[&dir]);
    for top in [10, 12, 25] {
        let t = top.to_string();
        for mode in [&[][..], &["--fts-only"][..]] {
            let mut args = vec![
                "search",
                "how does management review results in 2018",
                "--top",
                &t,
            ];
            args.extend(mode);
            let v = kb.json(&args);
            assert_eq!(results(&v).len(), top, "{mode:?} --top {top}: {v}");
            // Still in the order of their scores.
            let scores: Vec<f64> = results(&v)
                .iter()
                .map(|r| r["score"].as_f64().unwrap())
                .collect();
            assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        }
    }
    // A word only one short note holds, in three of its chunks.
    let notes = kb.home.path().join("notes");
    let mut text = String::from("# Zanzibar trip\n\n");
    for day in 1..=3 {
        text.push_str(&format!(
            "## Day {day}\n\n{}\n\n",
            format!("On day {day} the xylograph workshop in Zanzibar printed another batch. ")
                .repeat(30)
        ));
    }
    write(&notes.join("trip.md"), &text);
    kb.add(&[&notes]);
    let v = kb.json(&["search", "xylograph", "--fts-only", "--top", "3"]);
    assert_eq!(results(&v).len(), 3, "{v}");
}
