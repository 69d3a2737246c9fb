//! Retrieval beyond plain RRF, through the real binary and model: chunks
//! found by their document's title, numbers and identifiers in every
//! spelling, CJK keywords, and one result per document when asked.
use crate::common::{stdout_of, write, Kb};
use serde_json::Value;

fn paths(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"]["path"].as_str().unwrap().to_string())
        .collect()
}

fn found(v: &Value, file: &str) -> bool {
    paths(v).iter().any(|p| p.ends_with(file))
}

#[test]
fn cjk_notes_are_found_by_two_character_words_and_mixed_queries() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("zh.md"),
        "# 运维笔记\n\n服务器的SSH密钥需要定期轮换。轮换以后，把新的公钥分发到所有主机，并删除旧的密钥。\n",
    );
    write(
        &docs.join("ja.md"),
        "# 運用メモ\n\n秘密鍵は毎年更新してください。更新したら、公開鍵をすべてのサーバーに配布します。\n",
    );
    write(
        &docs.join("en.md"),
        "# Notes\n\nRotate the SSH keys every year.\n",
    );
    kb.add(&[&docs]);

    // Two-character words inside runs written without spaces.
    let v = kb.json(&["search", "密钥", "--fts-only"]);
    assert!(found(&v, "zh.md"), "{v}");
    assert!(!found(&v, "ja.md") && !found(&v, "en.md"), "{v}");
    let v = kb.json(&["search", "更新", "--fts-only"]);
    assert!(found(&v, "ja.md"), "{v}");
    assert!(!found(&v, "zh.md"), "{v}");
    let v = kb.json(&["search", "轮换", "--fts-only"]);
    assert_eq!(paths(&v).len(), 1, "{v}");
    // Mixed Latin and CJK queries.
    let v = kb.json(&["search", "SSH 密钥轮换", "--fts-only"]);
    assert!(paths(&v)[0].ends_with("zh.md"), "{v}");
    let v = kb.json(&["search", "SSH 公開鍵", "--fts-only"]);
    assert!(paths(&v)[0].ends_with("ja.md"), "{v}");
    // Latin words still match as before.
    let v = kb.json(&["search", "rotate keys", "--fts-only"]);
    assert_eq!(paths(&v).len(), 1, "{v}");
    assert!(found(&v, "en.md"), "{v}");
}

#[test]
fn fiscal_years_numbers_and_identifiers_meet() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("results.md"),
        "# Annual results\n\nNet sales in FY2018 were 1,234,567 dollars.\n",
    );
    write(
        &docs.join("plan.md"),
        "# Plan\n\nThe fiscal 2019 budget is not settled.\n",
    );
    write(
        &docs.join("loader.py"),
        "def parse_config(path):\n    \"\"\"Reads the settings file.\"\"\"\n    return open(path).read()\n",
    );
    write(
        &docs.join("client.go"),
        "package client\n\nfunc loadSettings(name string) string {\n\treturn name\n}\n",
    );
    kb.add(&[&docs]);

    let q = |query: &str| kb.json(&["search", query, "--fts-only"]);
    assert!(found(&q("2018 sales"), "results.md"));
    assert!(found(&q("FY2019"), "plan.md"), "FY2019 meets 2019");
    assert!(found(&q("1234567"), "results.md"));
    assert!(found(&q("parse config"), "loader.py"));
    assert!(found(&q("parseConfig"), "loader.py"));
    assert!(found(&q("parse_config"), "loader.py"));
    assert!(found(&q("load settings"), "client.go"));
    assert!(found(&q("load_settings"), "client.go"));
}

#[test]
fn chunks_are_found_by_their_document_title_and_quote_only_their_text() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let mut long = String::from("# Zanzibar clove exports\n\n");
    for i in 0..12 {
        long.push_str(&format!(
            "## Season {i}\n\nHarvest figures for the season came in line with the estimates; \
             drying took {i} days longer in the wet weeks and prices held steady at the auctions.\n\n"
        ));
    }
    write(&docs.join("report.md"), &long);
    write(
        &docs.join("other.md"),
        "# Weather\n\nThe wet weeks were longer this season.\n",
    );
    kb.add(&[&docs]);

    // "Zanzibar" is only in the title, yet every chunk of the report is
    // found by it, and each quotes only its own text.
    let v = kb.json(&[
        "search",
        "zanzibar",
        "--fts-only",
        "--top",
        "50",
        "--max-per-document",
        "0",
    ]);
    let results = v["results"].as_array().unwrap();
    let total = results[0]["source"]["total_chunks"].as_u64().unwrap();
    assert!(total >= 2, "{v}");
    assert_eq!(results.len() as u64, total, "{v}");
    assert!(paths(&v).iter().all(|p| p.ends_with("report.md")), "{v}");
    let without = results
        .iter()
        .filter(|r| !r["text"].as_str().unwrap().contains("Zanzibar"))
        .count();
    assert_eq!(without as u64, total - 1, "{v}");
}

#[test]
fn max_per_document_gives_places_to_other_documents() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let mut long = String::from("# Kayak care\n\n");
    for i in 0..24 {
        long.push_str(&format!(
            "## Part {i}\n\nRinse the kayak hull with fresh water after paddling in salt water, \
             then dry the kayak in the shade; step {i} of the routine.\n\n"
        ));
    }
    write(&docs.join("kayak.md"), &long);
    write(
        &docs.join("canoe.md"),
        "# Canoe\n\nRinse the canoe with fresh water after paddling.\n",
    );
    write(
        &docs.join("boat.md"),
        "# Boat\n\nDry the boat hull in the shade after salt water.\n",
    );
    kb.add(&[&docs]);

    let q = "rinse kayak hull fresh water";
    let all = kb.json(&["search", q, "--top", "3", "--max-per-document", "0"]);
    assert!(paths(&all).iter().all(|p| p.ends_with("kayak.md")), "{all}");
    // One chunk per document is the default, in every mode.
    for mode in [&[][..], &["--fts-only"][..]] {
        let one = kb.json(&[&["search", q, "--top", "3"][..], mode].concat());
        let mut p = paths(&one);
        assert_eq!(p.len(), 3, "{one}");
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 3, "three documents: {one}");
    }
    let one = kb.json(&["search", q, "--top", "3", "--max-per-document", "1"]);
    assert_eq!(one["total_matches"], all["total_matches"], "same meaning");
    // A limit given holds when too few documents match to fill the page.
    let capped = kb.json(&[
        "search",
        "rinse kayak",
        "--fts-only",
        "--top",
        "5",
        "--max-per-document",
        "1",
    ]);
    let mut p = paths(&capped);
    let listed = p.len();
    p.sort();
    p.dedup();
    assert_eq!((listed, p.len()), (2, 2), "{capped}");
}

/// A word only one long document holds fills every first candidate with
/// its chunks: the rankers are asked for more, the refined vector ranker
/// as deep as the first, until the other documents, related by meaning
/// only, fill the places.
#[test]
fn max_per_document_reaches_documents_past_a_long_ones_chunks() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let words = "rinse the kayak hull with fresh water after paddling in salt water then dry it \
                 in the shade and check the seams the hatch covers and the skeg cable for sand";
    let mut long = String::from("# Kayak care\n\n");
    for i in 0..90 {
        let mut w: Vec<&str> = words.split(' ').filter(|w| !w.is_empty()).collect();
        w.rotate_left(i % 30);
        long.push_str(&format!(
            "## Step {i}\n\nKayak step {i}: {}. kayak {i}.\n\n",
            w.join(" ")
        ));
    }
    write(&docs.join("kayak.md"), &long);
    write(
        &docs.join("canoe.md"),
        "# Canoe\n\nWash the canoe with a hose after each trip on the sea and let it dry.\n",
    );
    write(
        &docs.join("dinghy.md"),
        "# Dinghy\n\nClean the dinghy with clean water after sailing and dry it out of the sun.\n",
    );
    kb.add(&[&docs]);
    let one = kb.json(&["search", "kayak", "--top", "3", "--max-per-document", "1"]);
    let mut p = paths(&one);
    p.sort();
    p.dedup();
    assert_eq!(p.len(), 3, "three documents: {one}");
}

/// The first results do not depend on how many are asked for: each
/// ranker's scores are scaled down to its score at `search.scale_depth`,
/// not to wherever its list of candidates stopped (3 x --top).
#[test]
fn the_first_results_do_not_depend_on_how_many_are_asked_for() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let animals = ["frogs", "newts", "carp", "herons", "dragonflies", "snails"];
    let places = ["reeds", "shallow end", "lily pads", "pump", "stone edge"];
    for i in 0..150 {
        let words = "and the water stayed clear ".repeat(i % 4);
        write(
            &docs.join(format!("pond-{i:03}.txt")),
            &format!(
                "Pond log {i}: {} seen near the {}; water temperature {} degrees {words}",
                animals[i % animals.len()],
                places[i % places.len()],
                8 + i % 17
            ),
        );
    }
    kb.add(&[&docs]);
    let q = "water temperature near the reeds";
    let first_five = |depth: Option<&str>, top: &str| {
        let mut cmd = kb.cmd();
        if let Some(d) = depth {
            cmd.env("KB_SEARCH_SCALE_DEPTH", d);
        }
        let out = stdout_of(cmd.args(["search", q, "--top", top, "--max-per-document", "0"]));
        let v: Value = serde_json::from_slice(&out).unwrap();
        let mut listed = listing(&v);
        listed.truncate(5);
        listed
    };
    assert_eq!(first_five(None, "5"), first_five(None, "40"));
    // Scaled to the end of each list instead, the scores move.
    assert_ne!(first_five(Some("0"), "5"), first_five(Some("0"), "40"));
}

/// The list a search gives, as what it shows: file, text, score and what
/// each ranker said, in order.
fn listing(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let file = r["source"]["path"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap();
            format!(
                "{file} | {} | {} | {}",
                r["text"], r["score"], r["score_breakdown"]
            )
        })
        .collect()
}

/// The id of the document of a file in `notes/`.
fn document_id(kb: &Kb, file: &str) -> i64 {
    let path = kb.home.path().join("notes").join(file);
    let v = kb.json(&["outline", path.to_str().unwrap()]);
    v["document"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{v}"))
}

#[test]
fn two_knowledge_bases_of_one_folder_list_the_same_results_in_every_mode() {
    let notes = [
        ("tar.md", "# Tar\n\nExtract files from an archive with tar -xf archive.tar; list them with tar -tf."),
        ("mapfile.md", "# mapfile\n\nThe bash builtin mapfile reads lines from standard input into an array."),
        ("az-storage-entity.md", "# az storage entity\n\nInsert, query and delete entities in an Azure table."),
        ("sourdough.md", "# Sourdough\n\nFeed the starter twice a day and bake at 240 degrees."),
        ("tomatoes.md", "# Tomatoes\n\nWater tomatoes at the base, in the morning, and stake them early."),
        ("git-stash.md", "# git stash\n\nStash your changes, switch branches, then pop the stash again."),
        ("chess.md", "# Openings\n\nThe Sicilian defence answers e4 with c5."),
        ("rsync.md", "# rsync\n\nCopy a folder to a server and keep permissions with rsync -a."),
        ("violin.md", "# Violin\n\nRosin the bow before practice and loosen it afterwards."),
        ("unzip.md", "# Unzip\n\nunzip archive.zip -d target extracts a ZIP archive into a folder."),
        ("same-a.md", "# Duplicate\n\nThe same note kept twice, word for word, in two files."),
        ("same-b.md", "# Duplicate\n\nThe same note kept twice, word for word, in two files."),
    ];
    let folder = |kb: &Kb| {
        let dir = kb.home.path().join("notes");
        for (name, text) in notes {
            write(&dir.join(name), text);
        }
        dir
    };
    let ids = |kb: &Kb, file: &str| {
        let v = kb.json(&[
            "search",
            "same note kept twice",
            "--fts-only",
            "--top",
            "20",
        ]);
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["source"]["path"].as_str().unwrap().ends_with(file))
            .map(|r| r["chunk_id"].as_i64().unwrap())
            .unwrap()
    };
    let first = Kb::new();
    let dir = folder(&first);
    first.add(&[&dir]);
    // The second knowledge base numbers its chunks the other way round:
    // each file added alone, in the opposite order of the first's ids,
    // then the folder.
    let mut order: Vec<&str> = notes.iter().map(|n| n.0).collect();
    order.sort_by_key(|f| std::cmp::Reverse(document_id(&first, f)));
    let second = Kb::new();
    let dir2 = folder(&second);
    for name in &order {
        second.add(&[&dir2.join(name)]);
    }
    second.add(&[&dir2]);
    assert!(
        (ids(&first, "same-a.md") < ids(&first, "same-b.md"))
            != (ids(&second, "same-a.md") < ids(&second, "same-b.md")),
        "the two knowledge bases number the duplicates alike"
    );
    for query in [
        "extract files from an archive",
        "same note kept twice",
        "bake bread",
    ] {
        for mode in [&[][..], &["--fts-only"][..], &["--vec-only"][..]] {
            let mut args = vec!["search", query, "--top", "20"];
            args.extend_from_slice(mode);
            let (a, b) = (first.json(&args), second.json(&args));
            assert_eq!(listing(&a), listing(&b), "{query:?} {mode:?}");
            if mode == ["--vec-only"] && query.starts_with("extract") {
                // Results the floor gives nothing are listed by cosine.
                let zero: Vec<f64> = a["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["score"].as_f64() == Some(0.0))
                    .map(|r| r["score_breakdown"]["cosine"].as_f64().unwrap())
                    .collect();
                assert!(zero.len() >= 2, "{a}");
                assert!(zero.windows(2).all(|w| w[0] >= w[1]), "{zero:?}");
            }
        }
    }
    // Duplicates tie on every score: the path decides.
    let v = first.json(&[
        "search",
        "same note kept twice",
        "--top",
        "2",
        "--max-per-document",
        "0",
    ]);
    let files: Vec<String> = listing(&v)
        .iter()
        .map(|l| l.split(" | ").next().unwrap().to_string())
        .collect();
    assert_eq!(files, ["same-a.md", "same-b.md"], "{v}");
}

/// Issue 54, item 3: a hyphenated or dotted identifier ranks the chunk
/// holding it whole first, within a data file and across the folder.
#[test]
fn identifiers_and_keys_rank_as_typed() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let cargo = crate::common::cargo_toml(&docs);
    crate::common::workflow(&docs);
    write(
        &docs.join("notes/rust.md"),
        "# Rust notes\n\nThe rust toolchain version we use is pinned in rust-toolchain.toml; \
         every crate's version is bumped at release time.\n",
    );
    kb.add(&[&docs]);
    let cargo = cargo.to_str().unwrap();
    for (query, scope, held) in [
        ("rust-version", Some(cargo), "package.rust-version"),
        ("package.rust-version", Some(cargo), "package.rust-version"),
        ("rust-version", None, "package.rust-version"),
        ("runs-on", None, "runs-on"),
        ("timeout-minutes", None, "timeout-minutes"),
        ("all-features", None, "all-features"),
    ] {
        let mut args = vec!["search", query];
        if let Some(doc) = scope {
            args.extend(["--document", doc]);
        }
        let v = kb.json(&args);
        let text = v["results"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(held), "{query} {scope:?}: first is {text:?}");
    }
}

/// A question in words that names a compound ("year-over-year") is
/// ranked by all its words; the compound alone is a lookup and finds the
/// chunk holding it whole.
#[test]
fn a_compound_in_a_question_does_not_outrank_the_question() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("growth.md"),
        "# Revenue growth\n\nRevenue grew 12 percent from 2022 to 2023, driven by \
         subscription sales in Europe and Asia.\n",
    );
    write(
        &docs.join("glossary.md"),
        "# Glossary\n\nYear-over-year: one period compared with the same period a year \
         earlier.\n\nRun rate: a period's figure scaled to a whole year.\n",
    );
    kb.add(&[&docs]);
    let v = kb.json(&[
        "search",
        "how much did revenue grow from 2022 to 2023 year-over-year",
    ]);
    assert!(paths(&v)[0].ends_with("growth.md"), "{v}");
    let v = kb.json(&["search", "year-over-year"]);
    assert!(paths(&v)[0].ends_with("glossary.md"), "{v}");
}

/// Issue 54, item 4: off-topic questions that share a word with a folder
/// of data files and code get "no good match"; questions about them do
/// not, and the human line says what weak means.
#[test]
fn no_good_match_holds_on_data_files_and_code() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    crate::common::cargo_toml(&docs);
    crate::common::workflow(&docs);
    write(
        &docs.join("src/passes.py"),
        "def next_pass(satellite, station):\n    \"\"\"The next time the satellite rises over the ground station.\"\"\"\n    \
         return satellite.orbit.rise_time(station.latitude, station.longitude)\n\n\n\
         class Tests:\n    def test_rise(self):\n        assert next_pass(SAT, HOME) is not None\n",
    );
    kb.add(&[&docs]);
    for q in [
        "which dependencies does a happy family have",
        "what jobs are open at the bakery",
        "steps to bake sourdough bread",
        "test for a driving exam",
        "release of a new album by the beatles",
        "recipe for chocolate cake",
    ] {
        let v = kb.json(&["search", q]);
        assert_eq!(v["no_good_match"], true, "{q}: {v}");
    }
    for q in [
        "which rust version does orbit need",
        "which license does the orbit crate use",
        "what runs the test suite in CI",
        "when does the satellite rise over the ground station",
    ] {
        let v = kb.json(&["search", q]);
        assert_eq!(v["no_good_match"], false, "{q}: {v}");
    }
    let human = kb
        .cmd()
        .args([
            "search",
            "which dependencies does a happy family have",
            "--format",
            "human",
        ])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains("No good match: no result holds every word of the query"),
        "{human}"
    );
}

/// A sentence copied from a document finds it first, though its words are
/// common ones that shorter notes use more often: the passage ranker
/// lists the chunks that hold the whole query word for word.
#[test]
fn a_copied_passage_finds_its_document_first() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("builder.md"),
        "# Build settings\n\nThe build reads its settings from the project file. Once a setting is\n\
         given a value, the value can be referred to using the name of the setting\n\
         anywhere later in the file, and the build stops with an error when a name\n\
         is used before its value is given.\n",
    );
    write(
        &docs.join("names.md"),
        "# Names\n\nA name refers to a value. Using a name: the name of a value, the value of a name.\n\
         Refer to the name; the name is referred to by its value.\n",
    );
    write(
        &docs.join("values.md"),
        "# Values and names\n\nValues can be given names. Using the names, the values are referred to; \
         a value's name can be used in place of the value.\n",
    );
    kb.add(&[&docs]);
    let passage = "the value can be referred to using the name";
    for mode in ["hybrid", "keyword"] {
        let v = kb.json(&["search", passage, "--mode", mode]);
        assert!(paths(&v)[0].ends_with("builder.md"), "{mode}: {v}");
        assert!(
            v["ranked_by"]
                .as_array()
                .unwrap()
                .contains(&"passage".into()),
            "{v}"
        );
        assert_eq!(
            v["results"][0]["score_breakdown"]["by_ranker"]["passage"],
            2.0
        );
    }
    // Without the passage ranker the denser notes come first by their words.
    let out = kb
        .cmd()
        .env("KB_SEARCH_WEIGHTS_PASSAGE", "0")
        .args(["search", passage, "--mode", "keyword", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!paths(&v)[0].ends_with("builder.md"), "{v}");
    // A few keywords are not a passage: the ranker does not run.
    let v = kb.json(&["search", "value name", "--mode", "keyword"]);
    assert!(
        !v["ranked_by"]
            .as_array()
            .unwrap()
            .contains(&"passage".into()),
        "{v}"
    );
}
