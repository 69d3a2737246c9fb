//! The formats beyond Markdown, notes, PDF and Python/Bash/Go, end to end
//! with the real kb binary and model, on files the tests write: Word,
//! OpenDocument, PowerPoint, web pages, e-books, spreadsheets, CSV, JSON,
//! YAML, TOML and JavaScript/TypeScript/Rust (images are in `images`). A
//! sentence deep inside each is found by keyword and by meaning and cited
//! where it is; headings give `outline` and `show --section`; hostile
//! containers fail alone with a reason.

use std::path::Path;

use kb::ingest::pdf::testpdf::{heading, para, TestPdf};
use kb::ingest::testdocs;
use serde_json::Value;

use crate::common::{write, Kb};

pub(crate) fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

/// The top result of a search, with the file it came from.
pub(crate) fn top(kb: &Kb, args: &[&str]) -> Value {
    let mut a = vec!["search"];
    a.extend_from_slice(args);
    let v = kb.json(&a);
    results(&v)
        .first()
        .unwrap_or_else(|| panic!("no result for {args:?}: {v}"))
        .clone()
}

pub(crate) fn file_of(hit: &Value) -> String {
    let p = hit["source"]["path"].as_str().unwrap_or("");
    Path::new(p)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn filler(topic: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("Paragraph {i} about {topic} says little of note."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes one document of each office, web and e-book format.
fn documents(dir: &Path) {
    let docx = testdocs::docx(
        Some("Cache Runbook"),
        &[
            ("Heading1", "Cache runbook"),
            ("", &filler("caching", 6)),
            ("Heading1", "Restarting the cache"),
            (
                "",
                "Drain the node first, then restart the redis service with systemctl.",
            ),
            ("list", "Check the replication lag"),
            ("table", "Service|Port\nredis|6379"),
        ],
    );
    std::fs::write(dir.join("runbook.docx"), docx).unwrap();
    let odt = testdocs::odf(
        "application/vnd.oasis.opendocument.text",
        Some("Garden Notes"),
        &format!(
            "<office:text><text:h text:outline-level=\"1\">Garden notes</text:h><text:p>{}</text:p>\
             <text:h text:outline-level=\"2\">Tomatoes</text:h>\
             <text:p>Pinch out the side shoots of the tomato plants every week in July. {}</text:p></office:text>",
            filler("gardening", 6),
            filler("tomatoes", 6)
        ),
    );
    std::fs::write(dir.join("garden.odt"), odt).unwrap();
    let pptx = testdocs::pptx(
        Some("Quarterly Review"),
        &[
            (
                "Revenue",
                "Revenue grew twelve percent",
                "thank the sales team",
            ),
            (
                "Hiring",
                "Four engineers joined the platform group",
                "mention onboarding",
            ),
            (
                "Next steps",
                "Open the Lisbon office in autumn",
                "dates are not final",
            ),
        ],
    );
    std::fs::write(dir.join("review.pptx"), pptx).unwrap();
    let odp = testdocs::odp(
        Some("Volcano Talk"),
        &[
            (
                "Volcanoes",
                "How magma reaches the surface",
                "start with a joke",
            ),
            (
                "Eruptions",
                "Pyroclastic flows move faster than cars",
                "show the video",
            ),
        ],
    );
    std::fs::write(dir.join("volcano.odp"), odp).unwrap();
    // A saved page in Latin-1, with navigation, a script and a footer.
    let mut html = b"<html><head><meta charset=\"iso-8859-1\"><title>Cheese Guide</title>\
        <script>var t = 'tracking';</script></head><body><nav>Home | Shop | Login</nav>\
        <main><h1>Cheese guide</h1><p>"
        .to_vec();
    html.extend_from_slice(filler("cheese", 6).as_bytes());
    html.extend_from_slice(b"</p><h2>Storing</h2><p>");
    html.extend_from_slice(filler("storage", 6).as_bytes());
    html.extend_from_slice(
        b" Wrap the Gruy\xe8re in wax paper and keep it in the vegetable drawer.</p>\
          <table><tr><th>Cheese</th><th>Weeks</th></tr><tr><td>Comt\xe9</td><td>3</td></tr></table></main>\
          <footer>Copyright Fromagerie</footer></body></html>",
    );
    std::fs::write(dir.join("cheese.html"), html).unwrap();
    let epub = testdocs::epub(
        "The Lighthouse Keeper",
        "Ada Keeper",
        &[
            ("Arrival", &filler("the island", 6)),
            ("The Storm", "The great lamp failed at midnight and the keeper climbed the tower with a lantern."),
        ],
    );
    std::fs::write(dir.join("lighthouse.epub"), epub).unwrap();
}

#[test]
fn office_documents_web_pages_and_ebooks_are_found_and_cited() {
    let kb = Kb::new();
    let dir = kb.home.path().join("docs");
    std::fs::create_dir_all(&dir).unwrap();
    documents(&dir);
    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 6, "{s}");
    assert_eq!(s["failed"], 0, "{s}");
    assert_eq!(s["unsupported"], 0, "{s}");

    // Word: keyword and meaning, under its heading.
    let hit = top(&kb, &["drain the node systemctl", "--fts-only"]);
    assert_eq!(file_of(&hit), "runbook.docx", "{hit}");
    assert_eq!(hit["source"]["type"], "doc");
    assert_eq!(hit["source"]["title"], "Cache Runbook");
    assert_eq!(hit["source"]["section"], "Restarting the cache", "{hit}");
    let hit = top(
        &kb,
        &["steps to restart the redis cache server", "--vec-only"],
    );
    assert_eq!(file_of(&hit), "runbook.docx", "{hit}");
    assert!(
        hit["text"].as_str().unwrap().contains("redis | 6379"),
        "{hit}"
    );
    let docx = dir.join("runbook.docx");
    let docx = docx.to_str().unwrap();
    let items = kb.outline_texts(docx);
    assert_eq!(
        items,
        ["Cache runbook", "Restarting the cache"],
        "{items:?}"
    );
    let shown = kb.json(&["show", docx, "--section", "Restarting the cache"]);
    assert!(
        shown["content"]
            .as_str()
            .unwrap()
            .contains("- Check the replication lag"),
        "{shown}"
    );

    // OpenDocument text: the heading chain.
    let hit = top(&kb, &["pinch side shoots tomato", "--fts-only"]);
    assert_eq!(file_of(&hit), "garden.odt");
    assert_eq!(hit["source"]["section"], "Garden notes > Tomatoes", "{hit}");
    let hit = top(&kb, &["pruning vegetables in summer", "--vec-only"]);
    assert_eq!(file_of(&hit), "garden.odt", "{hit}");

    // Slides: a slide is a page, its notes with it.
    let hit = top(&kb, &["Lisbon office", "--fts-only"]);
    assert_eq!(file_of(&hit), "review.pptx");
    assert_eq!(hit["source"]["type"], "slides");
    assert_eq!(hit["source"]["page"], 3, "{hit}");
    let hit = top(&kb, &["onboarding", "--fts-only"]);
    assert_eq!(hit["source"]["page"], 2, "{hit}");
    let hit = top(&kb, &["new staff hired for the team", "--vec-only"]);
    assert_eq!(file_of(&hit), "review.pptx", "{hit}");
    let hit = top(&kb, &["pyroclastic flows", "--fts-only"]);
    assert_eq!(file_of(&hit), "volcano.odp");
    assert_eq!(hit["source"]["page"], 2, "{hit}");
    let review = dir.join("review.pptx");
    let info = kb.json(&["info", review.to_str().unwrap()]);
    assert_eq!(info["pages"], 3, "{info}");
    let opened = kb.json(&["open", review.to_str().unwrap(), "--pages", "2"]);
    assert!(opened.to_string().contains("Four engineers"), "{opened}");
    assert!(!opened.to_string().contains("Lisbon"), "{opened}");

    // A web page: main content only, decoded from its charset.
    let hit = top(&kb, &["Gruyère wax paper", "--fts-only"]);
    assert_eq!(file_of(&hit), "cheese.html");
    assert_eq!(hit["source"]["type"], "html");
    assert_eq!(hit["source"]["title"], "Cheese Guide");
    assert_eq!(hit["source"]["section"], "Cheese guide > Storing", "{hit}");
    let hit = top(
        &kb,
        &["how to keep cheese fresh in the fridge", "--vec-only"],
    );
    assert_eq!(file_of(&hit), "cheese.html", "{hit}");
    let v = kb.json(&["search", "tracking Login Fromagerie", "--fts-only"]);
    assert!(
        results(&v).iter().all(|r| file_of(r) != "cheese.html"),
        "navigation, scripts and footers are not indexed: {v}"
    );
    let html = dir.join("cheese.html");
    let shown = kb.json(&["show", html.to_str().unwrap(), "--section", "Storing"]);
    assert!(
        shown["content"].as_str().unwrap().contains("Comté | 3"),
        "{shown}"
    );

    // An e-book: its title, author and chapters.
    let hit = top(&kb, &["lamp failed midnight lantern", "--fts-only"]);
    assert_eq!(file_of(&hit), "lighthouse.epub");
    assert_eq!(hit["source"]["type"], "epub");
    assert_eq!(hit["source"]["title"], "The Lighthouse Keeper");
    assert_eq!(hit["source"]["section"], "The Storm", "{hit}");
    let hit = top(&kb, &["the light went out during the night", "--vec-only"]);
    assert_eq!(file_of(&hit), "lighthouse.epub", "{hit}");
    let book = dir.join("lighthouse.epub");
    let info = kb.json(&["info", book.to_str().unwrap()]);
    assert_eq!(info["author"], "Ada Keeper", "{info}");

    // `kb status` counts by type; `--type` filters.
    let status = kb.json(&["status"]);
    let counts = status.to_string();
    for t in ["\"doc\":2", "\"slides\":2", "\"html\":1", "\"epub\":1"] {
        assert!(counts.contains(t), "{t} in {status}");
    }
    let v = kb.json(&["search", "office", "--type", "slides", "--fts-only"]);
    assert!(!results(&v).is_empty());
    assert!(
        results(&v).iter().all(|r| r["source"]["type"] == "slides"),
        "{v}"
    );
}

#[test]
fn tables_data_files_and_code_are_found_and_cited() {
    let kb = Kb::new();
    let dir = kb.home.path().join("files");
    let mut csv = String::from("id,city,country,note\n");
    for i in 1..=60 {
        csv.push_str(&format!("{i},Town{i},Country{i},ordinary row\n"));
    }
    csv.push_str("61,Reykjavik,Iceland,geothermal heating keeps the pavements free of ice\n");
    for i in 62..=80 {
        csv.push_str(&format!("{i},Town{i},Country{i},ordinary row\n"));
    }
    write(&dir.join("cities.csv"), &csv);
    std::fs::write(
        dir.join("budget.xlsx"),
        testdocs::xlsx(&[
            ("Staff", &[&["Name", "Team"], &["Ann", "Ops"]]),
            (
                "Costs",
                &[&["Item", "Cost"], &["Satellite uplink rental", "1200"]],
            ),
        ]),
    )
    .unwrap();
    std::fs::write(
        dir.join("stock.ods"),
        testdocs::odf(
            "application/vnd.oasis.opendocument.spreadsheet",
            None,
            "<office:spreadsheet><table:table table:name=\"Parts\">\
             <table:table-row><table:table-cell><text:p>Part</text:p></table:table-cell><table:table-cell><text:p>Bin</text:p></table:table-cell></table:table-row>\
             <table:table-row><table:table-cell><text:p>Brass hinge</text:p></table:table-cell><table:table-cell><text:p>B7</text:p></table:table-cell></table:table-row>\
             </table:table></office:spreadsheet>",
        ),
    )
    .unwrap();
    write(
        &dir.join("app.yaml"),
        "name: shop\nversion: 3\n\nserver:\n  port: 8443\n  tls:\n    cert_file: /etc/shop/tls/fullchain.pem\n\ndatabase:\n  host: db.internal\n  pool: 20\n",
    );
    write(
        &dir.join("package.json"),
        "{\n  \"name\": \"widget\",\n  \"scripts\": {\n    \"build\": \"vite build\",\n    \"lint\": \"eslint src\"\n  },\n  \"license\": \"MIT\"\n}\n",
    );
    write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"orbit\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\nnalgebra = \"0.33\"\n",
    );
    write(
        &dir.join("cart.ts"),
        "export class Cart {\n  items: string[] = [];\n\n  /** Adds a product to the shopping cart. */\n  addItem(sku: string): void {\n    this.items.push(sku);\n  }\n}\n\nexport function totalPrice(prices: number[]): number {\n  return prices.reduce((a, b) => a + b, 0);\n}\n",
    );
    write(
        &dir.join("greet.js"),
        "const greetVisitor = (name) => `Welcome to the aquarium, ${name}`;\nmodule.exports = { greetVisitor };\n",
    );
    write(
        &dir.join("orbit.rs"),
        "/// A body in orbit.\npub struct Satellite {\n    pub altitude_km: f64,\n}\n\nimpl Satellite {\n    /// The time one orbit takes, from Kepler's third law.\n    pub fn orbital_period(&self) -> f64 {\n        let r = 6371.0 + self.altitude_km;\n        2.0 * std::f64::consts::PI * (r.powi(3) / 398600.0).sqrt()\n    }\n}\n",
    );
    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 9, "{s}");
    assert_eq!(s["failed"], 0, "{s}");
    assert_eq!(s["unsupported"], 0, "{s}");

    // A CSV row by its values, cited by its line, under the header.
    let hit = top(&kb, &["Reykjavik geothermal", "--fts-only"]);
    assert_eq!(file_of(&hit), "cities.csv");
    assert_eq!(hit["source"]["type"], "spreadsheet");
    let (a, b) = (
        hit["source"]["line_start"].as_u64().unwrap(),
        hit["source"]["line_end"].as_u64().unwrap(),
    );
    assert!(a <= 62 && 62 <= b, "{hit}");
    let text = hit["text"].as_str().unwrap();
    assert!(text.starts_with("id | city | country | note\n"), "{text}");
    assert!(text.contains("61 | Reykjavik | Iceland"), "{text}");
    let hit = top(
        &kb,
        &[
            "which city heats its streets with hot springs",
            "--vec-only",
        ],
    );
    assert_eq!(file_of(&hit), "cities.csv", "{hit}");

    // Workbooks: the sheet is the section.
    let hit = top(&kb, &["satellite uplink", "--fts-only"]);
    assert_eq!(file_of(&hit), "budget.xlsx", "{hit}");
    assert_eq!(hit["source"]["section"], "Costs > row 1", "{hit}");
    let hit = top(&kb, &["brass hinge", "--fts-only"]);
    assert_eq!(file_of(&hit), "stock.ods", "{hit}");

    // Data files: key paths with values, cited by the key's lines.
    let hit = top(&kb, &["cert_file fullchain", "--fts-only"]);
    assert_eq!(file_of(&hit), "app.yaml");
    assert_eq!(hit["source"]["type"], "data");
    assert!(
        hit["text"]
            .as_str()
            .unwrap()
            .contains("server.tls.cert_file = /etc/shop/tls/fullchain.pem"),
        "{hit}"
    );
    assert_eq!(hit["source"]["line_start"], 4, "{hit}");
    assert_eq!(hit["source"]["line_end"], 7, "{hit}");
    let hit = top(&kb, &["TLS certificate location", "--vec-only"]);
    assert_eq!(file_of(&hit), "app.yaml", "{hit}");
    let hit = top(&kb, &["eslint", "--fts-only"]);
    assert_eq!(file_of(&hit), "package.json");
    assert!(
        hit["text"]
            .as_str()
            .unwrap()
            .contains("scripts.lint = eslint src"),
        "{hit}"
    );
    let hit = top(&kb, &["nalgebra", "--fts-only"]);
    assert_eq!(file_of(&hit), "Cargo.toml");
    assert_eq!(hit["source"]["section"], "dependencies", "{hit}");
    let yaml = dir.join("app.yaml");
    let shown = kb.json(&["show", yaml.to_str().unwrap(), "--section", "database"]);
    assert!(
        shown["content"].as_str().unwrap().contains("pool: 20"),
        "{shown}"
    );

    // Code: symbols of TypeScript, JavaScript and Rust.
    let hit = top(&kb, &["addItem", "--fts-only"]);
    assert_eq!(file_of(&hit), "cart.ts");
    assert_eq!(hit["source"]["language"], "typescript");
    assert_eq!(hit["source"]["symbol_name"], "Cart", "{hit}");
    let hit = top(&kb, &["sum of the prices", "--vec-only"]);
    assert_eq!(hit["source"]["symbol_name"], "totalPrice", "{hit}");
    let hit = top(&kb, &["greetVisitor aquarium", "--fts-only"]);
    assert_eq!(hit["source"]["language"], "javascript");
    assert_eq!(hit["source"]["symbol_name"], "greetVisitor");
    let hit = top(
        &kb,
        &["how long does one trip around the earth take", "--vec-only"],
    );
    assert_eq!(file_of(&hit), "orbit.rs", "{hit}");
    assert_eq!(hit["source"]["language"], "rust");
    let rs = dir.join("orbit.rs");
    let items = kb.outline_texts(rs.to_str().unwrap());
    assert_eq!(
        items,
        ["Satellite", "impl Satellite", "Satellite.orbital_period"],
        "{items:?}"
    );
    let shown = kb.json(&[
        "show",
        rs.to_str().unwrap(),
        "--section",
        "Satellite::orbital_period",
    ]);
    assert!(
        shown["content"].as_str().unwrap().contains("398600.0"),
        "{shown}"
    );
}

#[test]
fn hostile_containers_fail_alone_with_a_reason() {
    use std::io::Write;
    let kb = Kb::new();
    let dir = kb.home.path().join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    // A ZIP bomb: a Word document whose body inflates to gigabytes.
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.start_file("word/document.xml", opts).unwrap();
    let block = vec![b' '; 1 << 20];
    for _ in 0..300 {
        w.write_all(&block).unwrap();
    }
    std::fs::write(dir.join("bomb.docx"), w.finish().unwrap().into_inner()).unwrap();
    // Billion laughs in an OpenDocument file.
    let mut lol = String::from("<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY l0 \"lol\">");
    for i in 1..10 {
        let p = i - 1;
        lol.push_str(&format!(
            "<!ENTITY l{i} \"{}\">",
            format!("&l{p};").repeat(10)
        ));
    }
    lol.push_str("]><office:document-content xmlns:office=\"o\" xmlns:text=\"t\"><office:body><office:text><text:p>laughs &l9; here</text:p></office:text></office:body></office:document-content>");
    std::fs::write(
        dir.join("laughs.odt"),
        testdocs::test_zip(&[
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("content.xml", &lol),
        ]),
    )
    .unwrap();
    // Nesting deeper than any document needs.
    let deep = format!(
        "<w:document xmlns:w=\"w\"><w:body>{}<w:p><w:r><w:t>deep</w:t></w:r></w:p>{}</w:body></w:document>",
        "<w:sdt>".repeat(100_000),
        "</w:sdt>".repeat(100_000)
    );
    std::fs::write(
        dir.join("deep.docx"),
        testdocs::test_zip(&[("word/document.xml", &deep)]),
    )
    .unwrap();
    // A truncated presentation and a text file with a wrong extension.
    let good = testdocs::pptx(None, &[("Title", "text", "notes")]);
    std::fs::write(dir.join("truncated.pptx"), &good[..good.len() / 2]).unwrap();
    write(&dir.join("notes.epub"), "just some text, not an e-book\n");
    write(&dir.join("photo.png"), "not an image either\n");
    // And a good file, indexed whatever the others do.
    std::fs::write(
        dir.join("good.docx"),
        testdocs::docx(None, &[("", "The survivor paragraph about quokkas.")]),
    )
    .unwrap();

    let (out, peak_kib) = with_peak_rss(kb.std_cmd().args([
        "add",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--quiet",
    ]));
    let s: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    // The bomb inflates to 300 MB and the laughs to a billion; kb's memory
    // stays that of an ordinary add (the model, ONNX Runtime, a batch).
    assert!(peak_kib < 1_200_000, "peak RSS {peak_kib} KiB");
    assert_eq!(s["added"], 2, "{s}");
    assert_eq!(s["failed"], 5, "{s}");
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    for (file, reason) in [
        ("bomb.docx", "ZIP bomb"),
        ("deep.docx", "deep"),
        ("truncated.pptx", "truncated"),
        ("notes.epub", "not a readable EPUB"),
        ("photo.png", "not a PNG"),
    ] {
        let line = log
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not logged: {log}"));
        assert!(line.contains(reason), "{file}: {line}");
    }
    // The entities were never expanded: the laughs stay a few words.
    let hit = top(&kb, &["laughs", "--fts-only"]);
    assert_eq!(file_of(&hit), "laughs.odt");
    assert!(hit["text"].as_str().unwrap().len() < 100, "{hit}");
    assert!(!hit["text"].as_str().unwrap().contains("lollol"), "{hit}");
    let hit = top(&kb, &["quokkas", "--fts-only"]);
    assert_eq!(file_of(&hit), "good.docx");
}

#[test]
fn deep_pages_and_binary_chapters_fail_alone_in_time() {
    let kb = Kb::new();
    let dir = kb.home.path().join("deep");
    let nested = |n: usize| {
        format!(
            "<html><body>{}deep words{}</body></html>",
            "<div>".repeat(n),
            "</div>".repeat(n)
        )
    };
    // The page that held kb add for minutes (40,000 levels: 9 s of CPU;
    // 200,000: past 15 minutes), and an e-book chapter as deep.
    write(&dir.join("d40k.html"), &nested(40_000));
    write(&dir.join("d200k.html"), &nested(200_000));
    std::fs::write(
        dir.join("deep.epub"),
        testdocs::epub_pages("Deep", "A", &[nested(200_000)]),
    )
    .unwrap();
    // A chapter holding a ZIP's bytes beside a good one, and a book of
    // nothing else.
    let zip = format!(
        "PK\u{3}\u{4}\u{14}\u{0}{}",
        "\u{0}\u{2}PK\u{1}".repeat(75_000)
    );
    let good = "<html><body><h1>Harbour</h1><p>The ferry to the wombat island leaves at dawn.</p></body></html>";
    std::fs::write(
        dir.join("mixed.epub"),
        testdocs::epub_pages("Mixed", "A", &[zip.clone(), good.to_string()]),
    )
    .unwrap();
    std::fs::write(
        dir.join("binary.epub"),
        testdocs::epub_pages("Bin", "A", &[zip]),
    )
    .unwrap();
    write(
        &dir.join("good.md"),
        "# Quokkas\n\nThe survivor note about quokkas.\n",
    );

    let started = std::time::Instant::now();
    let s = kb.add(&[&dir]);
    // Finishes, not hangs: the bounds stop each parse near 5,000 levels.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(180),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s["added"], 2, "{s}");
    assert_eq!(s["failed"], 4, "{s}");
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    let line = |file: &str| {
        log.lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not logged: {log}"))
            .to_string()
    };
    for file in ["d40k.html", "d200k.html"] {
        assert!(
            line(file).contains("the page nests elements more than 5000 deep"),
            "{}",
            line(file)
        );
    }
    assert!(
        line("deep.epub").contains("chapter 0.xhtml nests elements more than 5000 deep"),
        "{}",
        line("deep.epub")
    );
    assert!(
        line("binary.epub").contains("binary content"),
        "{}",
        line("binary.epub")
    );
    let warning = line("mixed.epub");
    assert!(
        warning.contains("warning: binary content") && warning.contains("chapter 0.xhtml"),
        "{warning}"
    );
    // The good chapter is the book; the bytes are in no chunk.
    let hit = top(&kb, &["wombat island ferry"]);
    assert_eq!(file_of(&hit), "mixed.epub");
    let opened = kb.json(&["open", hit["source"]["path"].as_str().unwrap()]);
    let content = opened["content"].as_str().unwrap();
    assert!(
        !content.contains("PK") && content.contains("Harbour"),
        "{opened}"
    );
    assert_eq!(file_of(&top(&kb, &["quokkas", "--fts-only"])), "good.md");
}

/// Runs a command to its end; returns its output and its peak resident
/// memory in KiB (from `wait4`, this child's own).
// wait4 reaps the child, which `Child::wait` cannot do with its rusage.
#[allow(clippy::zombie_processes)]
fn with_peak_rss(cmd: &mut std::process::Command) -> (std::process::Output, i64) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        se.read_to_end(&mut b).unwrap();
        b
    });
    let mut stdout = Vec::new();
    so.read_to_end(&mut stdout).unwrap();
    let stderr = err.join().unwrap();
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid pointers to a status and
    // a zeroed rusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4");
    let status = std::os::unix::process::ExitStatusExt::from_raw(status);
    (
        std::process::Output {
            status,
            stdout,
            stderr,
        },
        usage.ru_maxrss,
    )
}

/// Issue 54, item 2: a data file's chunks cite exactly the lines of the
/// keys they hold, and keys keep their order in the file (TOML's too).
#[test]
fn data_files_cite_the_lines_of_their_keys_in_file_order() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let cargo = crate::common::cargo_toml(&docs);
    let ci = crate::common::workflow(&docs);
    kb.add(&[&docs]);
    for file in [&cargo, &ci] {
        let path = file.to_str().unwrap();
        let lines: Vec<String> = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let info = kb.json(&["info", path]);
        let mut ranges = Vec::new();
        for c in info["chunks"].as_array().unwrap() {
            let id = c["chunk_id"].as_i64().unwrap().to_string();
            let shown = kb.json(&["show", &id]);
            let chunk = &shown["chunk"];
            let (a, b) = (
                chunk["line_start"].as_u64().unwrap() as usize,
                chunk["line_end"].as_u64().unwrap() as usize,
            );
            ranges.push((a, b));
            let cited = lines[a - 1..b].join("\n");
            // Every key the chunk holds stands in its lines (its last
            // part, as the file writes it).
            for flat in chunk["text"].as_str().unwrap().lines() {
                let path = flat.split(" = ").next().unwrap();
                let key = path.rsplit('.').next().unwrap().split('[').next().unwrap();
                assert!(
                    cited.contains(key),
                    "{}: `{flat}` is not in lines {a}-{b}:\n{cited}",
                    file.display()
                );
            }
        }
        let mut distinct = ranges.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            ranges.len(),
            "two chunks cite the same lines: {ranges:?}"
        );
    }
    // [package]'s keys in the file's order, not the alphabet's.
    let v = kb.json(&["show", cargo.to_str().unwrap(), "--section", "package"]);
    let content = v["content"].as_str().unwrap();
    assert!(content.starts_with("[package]\nname = \"orbit\""), "{v}");
    let first = kb.json(&[
        "search",
        "package name version edition",
        "--document",
        cargo.to_str().unwrap(),
    ]);
    let text = first["results"][0]["text"].as_str().unwrap().to_string();
    let order: Vec<usize> = [
        "package.name",
        "package.version",
        "package.edition",
        "package.rust-version",
    ]
    .iter()
    .map(|k| text.find(k).unwrap_or_else(|| panic!("{k} not in {text}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    // The outline lists the tables where the file opens them.
    let outline = kb.json(&["outline", cargo.to_str().unwrap()]);
    let headings: Vec<(&str, u64)> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["text"].as_str().unwrap(), i["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(headings.first(), Some(&("package", 1)), "{headings:?}");
    assert_eq!(
        headings.last().map(|h| h.0),
        Some("package"),
        "{headings:?}"
    );
    assert!(headings.windows(2).all(|w| w[0].1 < w[1].1), "{headings:?}");
}

/// A documentation page saved from a site like Node.js's API pages: a
/// navigation column of icon links, a version picker, an unfilled style
/// placeholder, an in-page table of contents inside the content, and a
/// permalink mark beside every heading.
fn api_page() -> String {
    let mut nav = String::from("<div class=\"interior\" id=\"column2\"><ul>");
    for i in 0..70 {
        nav.push_str(&format!(
            "<li><a href=\"mod{i}.html\"><span class=\"icon icon-{i}\"></span></a></li>"
        ));
    }
    nav.push_str("</ul></div>");
    let section = |id: &str, title: &str, body: &str| {
        format!(
            "<section><h3><code>{title}</code><span><a class=\"mark\" href=\"#{id}\" id=\"{id}\">#</a></span></h3>\
             <p>{body}</p></section>"
        )
    };
    format!(
        "<!DOCTYPE html><html><head><title>Console | Node.js v20 Documentation</title></head><body>\
         {nav}\
         <div id=\"column1\"><div>__JS_FLAVORED_DYNAMIC_CSS__</div>\
         <h2>Console<span><a class=\"mark\" href=\"#console\" id=\"console\">#</a></span></h2>\
         <ul><li><a href=\"#consoletimelabel\"><code>console.time([label])</code></a></li>\
         <li><a href=\"#consoletimeendlabel\"><code>console.timeEnd([label])</code></a></li>\
         <li><a href=\"#consoletracemessage\"><code>console.trace([message])</code></a></li></ul>\
         <p>The console module provides a simple debugging console.</p>\
         <p>Write <code>{{{{ name }}}}</code> to see a template's variable.</p>\
         {}{}{}</div></body></html>",
        section(
            "consoletimelabel",
            "console.time([label])",
            "Starts a timer that can be used to compute the duration of an operation."
        ),
        section(
            "consoletimeendlabel",
            "console.timeEnd([label])",
            "Stops a timer that was previously started by calling console.time() and prints the result."
        ),
        section(
            "consoletracemessage",
            "console.trace([message])",
            "Prints the string Trace: followed by the message and a stack trace."
        ),
    )
}

/// Issue 54, item 5: a saved API page is indexed without its chrome, and
/// `--section` takes a heading as written, with or without its inline
/// code marks.
#[test]
fn web_pages_lose_their_chrome_and_sections_ignore_code_marks() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(&docs.join("console.html"), &api_page());
    write(
        &docs.join("systemd.md"),
        "# Users\n\n## Special `systemd` UID ranges\n\nUIDs 61184 to 65519 are for dynamic users.\n",
    );
    kb.add(&[&docs]);
    let page = docs.join("console.html");
    let page = page.to_str().unwrap();
    let open = kb.json(&["open", page]);
    let text = open["content"].as_str().unwrap();
    for chrome in ["__JS_FLAVORED", "#\n", "Console#"] {
        assert!(!text.contains(chrome), "{chrome:?} in:\n{text}");
    }
    assert!(
        !text.lines().any(|l| matches!(l.trim(), "-" | "- " | "#")),
        "an empty item or a lone mark:\n{text}"
    );
    // The in-page contents is gone; each heading once, as a heading.
    assert_eq!(
        text.matches("console.timeEnd([label])").count(),
        1,
        "{text}"
    );
    // A placeholder inside code is what the page is about: kept.
    assert!(text.contains("{{ name }}"), "{text}");
    let headings = kb.outline_texts(page);
    assert_eq!(
        headings,
        [
            "Console",
            "console.time([label])",
            "console.timeEnd([label])",
            "console.trace([message])"
        ]
    );
    let v = kb.json(&["show", page, "--section", "console.time([label])"]);
    assert!(
        v["content"].as_str().unwrap().contains("Starts a timer"),
        "{v}"
    );
    let md = docs.join("systemd.md");
    for asked in ["Special systemd UID ranges", "special `systemd` uid ranges"] {
        let v = kb.json(&["show", md.to_str().unwrap(), "--section", asked]);
        assert!(
            v["content"].as_str().unwrap().contains("61184"),
            "{asked}: {v}"
        );
    }
}

/// Issue 54, item 8: what a chunk quotes is found where `kb open` shows
/// it: a CSV row with its commas, a long PDF paragraph cut into pieces.
#[test]
fn quotes_are_found_where_open_shows_them() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let mut csv = String::from("city,country,note\n");
    for i in 0..60 {
        csv.push_str(&format!(
            "City{i},Land{i},\"quiet, green and {i} km from the sea\"\n"
        ));
    }
    csv.push_str("Harbour,Coastland,\"two\nlines\"\n");
    write(&docs.join("cities.csv"), &csv);
    let sentence = |i: usize| {
        format!(
            "Sentence {i} of the long paragraph explains how the reservoir levels were \
             measured, recorded and compared with the previous season's readings"
        )
    };
    let long: String = (0..80).map(sentence).collect::<Vec<_>>().join(" ");
    let pdf = TestPdf::new()
        .title("Reservoir Report")
        .page(vec![heading("Reservoir levels", 14.0), para(&long)]);
    std::fs::write(docs.join("reservoir.pdf"), pdf.to_bytes()).unwrap();
    kb.add(&[&docs]);
    let mut checked = 0;
    for file in ["cities.csv", "reservoir.pdf"] {
        let path = docs.join(file);
        let path = path.to_str().unwrap();
        let info = kb.json(&["info", path]);
        for c in info["chunks"].as_array().unwrap() {
            let id = c["chunk_id"].as_i64().unwrap().to_string();
            let chunk = kb.json(&["show", &id])["chunk"].clone();
            let range = match chunk["page"].as_u64() {
                Some(p) => {
                    let end = chunk["page_end"].as_u64().unwrap_or(p);
                    vec!["--pages".to_string(), format!("{p}:{end}")]
                }
                None => vec![
                    "--lines".to_string(),
                    format!("{}:{}", chunk["line_start"], chunk["line_end"]),
                ],
            };
            let mut args = vec!["open", path, "--max-lines", "100000"];
            args.extend(range.iter().map(String::as_str));
            let shown = kb.json(&args)["content"].as_str().unwrap().to_string();
            let text = chunk["text"].as_str().unwrap();
            // A CSV chunk repeats the header row above its own rows.
            let own = if file.ends_with(".csv") {
                text.split_once('\n').map_or(text, |(_, rows)| rows)
            } else {
                text
            };
            assert!(
                shown.contains(own),
                "{file} chunk {id}:\n{own:?}\nnot in\n{shown:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
    let open = kb.json(&[
        "open",
        docs.join("cities.csv").to_str().unwrap(),
        "--lines",
        "2",
    ]);
    assert_eq!(
        open["content"],
        "City0 | Land0 | quiet, green and 0 km from the sea"
    );
}

/// Issue 54, item 9: office files without a title of their own are named
/// by their first heading or slide, footnote marks are no part of a
/// title, slide notes are marked, `kb show` cites like search, pages read
/// without a control character, and a chunk that runs into the next
/// section names it.
#[test]
fn titles_notes_and_citations_read_like_the_document() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let docx = testdocs::docx(
        None,
        &[
            ("Heading1", "Release checklist"),
            ("", "Tag the release and publish the notes."),
        ],
    );
    std::fs::write(docs.join("checklist.docx"), docx).unwrap();
    let odt = testdocs::odf(
        "application/vnd.oasis.opendocument.text",
        None,
        "<office:text><text:h text:outline-level=\"1\">Packing list</text:h>\
         <text:p>Boots, rope and a headlamp.</text:p></office:text>",
    );
    std::fs::write(docs.join("packing.odt"), odt).unwrap();
    let pptx = testdocs::pptx(
        None,
        &[
            (
                "Kickoff",
                "Goals for the quarter",
                "welcome everyone warmly",
            ),
            ("Timeline", "Milestones by month", "keep it short"),
        ],
    );
    std::fs::write(docs.join("kickoff.pptx"), pptx).unwrap();
    write(
        &docs.join("paper.html"),
        "<html><head><title>Tidal Energy Outlook†</title></head><body><p>Tides turn turbines.</p></body></html>",
    );
    write(
        &docs.join("guide.md"),
        "# Field guide\n\nA short opening.\n\n## Knots\n\nThe bowline makes a fixed loop.\n\n## Fires\n\nKeep fires small.\n",
    );
    kb.add(&[&docs]);
    let titles: Vec<String> = kb
        .json(&["list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap().to_string())
        .collect();
    for t in [
        "Release checklist",
        "Packing list",
        "Kickoff",
        "Tidal Energy Outlook",
    ] {
        assert!(titles.iter().any(|x| x == t), "{t} not in {titles:?}");
    }
    let deck = docs.join("kickoff.pptx");
    let deck = deck.to_str().unwrap();
    let open = kb.json(&["open", deck]);
    let text = open["content"].as_str().unwrap();
    assert!(text.contains("Notes: welcome everyone warmly"), "{text}");
    assert!(
        !text.contains('\u{c}') && text.contains("--- page 2 ---"),
        "{text:?}"
    );
    let human = kb
        .cmd()
        .args(["open", deck, "--format", "human"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&human.stdout).contains("\\u{c}"));

    // kb show cites a chunk as search does.
    let hit = kb.json(&["search", "bowline fixed loop", "--top", "1"]);
    let r = &hit["results"][0];
    let id = r["chunk_id"].as_i64().unwrap().to_string();
    let shown = kb
        .cmd()
        .args(["show", &id, "--format", "human"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    let place = format!(
        "guide.md:{}-{}",
        r["source"]["line_start"], r["source"]["line_end"]
    );
    assert!(shown.contains(&place), "{place} not in {shown}");
    // The guide's sections are small: one chunk that runs into the next.
    assert_eq!(r["source"]["runs_into"], "Knots", "{hit}");
    assert!(shown.contains("→ §Knots"), "{shown}");
    let slide = kb.json(&["search", "milestones by month", "--top", "1"]);
    let id = slide["results"][0]["chunk_id"]
        .as_i64()
        .unwrap()
        .to_string();
    let shown = kb
        .cmd()
        .args(["show", &id, "--format", "human"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&shown.stdout).contains("(p.2)"));
}
