//! The skill registry: SKILL.md frontmatter (with the quirks found in real
//! skill folders) read into name, description, version and capabilities;
//! `kb list --capability`; pruning a removed skill.

use std::path::Path;

use crate::common::{self, stdout_of, write, Kb};
use serde_json::{json, Value};

/// A folder of SKILL.md files as found in the wild, plus one ordinary
/// Markdown file whose frontmatter also says `capabilities` (not a skill).
fn skill_tree(root: &Path) {
    let s = root.join("skills");
    write(
        &s.join("git-helper/SKILL.md"),
        "---\nname: git-helper\ndescription: Reads git history and explains commits.\n\
         version: 1.10\ntags: [vcs]\ncapabilities:\n  - git\n  - shell\n---\n\
         # Git helper\n\nRun git log and git show to explain what changed and why.\n",
    );
    write(
        &s.join("pdf-forms/SKILL.md"),
        "---\nname: pdf-forms\ndescription: |\n  Fills PDF forms.\n  Use for tax paperwork.\n\
         capabilities: [pdf, forms]\n---\n# PDF forms\n\nFill the fields, then flatten the form.\n",
    );
    write(
        &s.join("pdf-search/SKILL.md"),
        "---\nname: pdf-search\ndescription: >\n  Searches inside\n  PDF files.\n\
         capabilities: \"pdf, search\"\nmetadata:\n  version: \"2.0\"\n---\n\
         # PDF search\n\nExtract the text page by page and grep it.\n",
    );
    write(
        &s.join("calendar/SKILL.md"),
        "---\nname: \"calendar: sync\"\ndescription: 'Use when: the user asks about meetings'\n\
         capabilities: [calendar, \"time: zones\"]\n---\n# Calendar\n\nSync meetings across time zones.\n",
    );
    // Invalid YAML (unquoted ': ' in a value), repaired with a warning.
    write(
        &s.join("release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Use when: the user wants release notes\n\
         capabilities: [git, writing]\n---\n# Release notes\n\nSummarise merged changes per version.\n",
    );
    // A tab as the separator after the colon is valid YAML...
    write(
        &s.join("tab-separated/skill.md"),
        "---\nname:\ttab-separated\ndescription:\tTabs after colons are fine.\n\
         capabilities:\t[shell]\n---\n# Tabs\n\nA skill written with tabs between key and value.\n",
    );
    // ...tabs as indentation are not: plain Markdown, with a warning.
    write(
        &s.join("tab-indented/SKILL.md"),
        "---\nname: tab-indented\ndescription: Indented with tabs.\ncapabilities:\n\t- git\n---\n\
         # Tab indented\n\nThe capability list is indented with a tab character.\n",
    );
    write(
        &s.join("no-frontmatter/SKILL.md"),
        "# Plain skill\n\nA SKILL.md written without any frontmatter at all.\n",
    );
    write(
        &s.join("unclosed-quote/SKILL.md"),
        "---\nname: unclosed-quote\ndescription: \"zanzibar marmalade never closed\ncapabilities: [git]\n---\n\
         Body of the skill with the unclosed quote.\n",
    );
    write(
        &s.join("bad-indent/SKILL.md"),
        "---\nname: bad-indent\n  description: wrongly indented\ncapabilities: [git]\n---\n\
         # Bad indent\n\nThe description line is indented under a scalar.\n",
    );
    write(
        &root.join("notes/not-a-skill.md"),
        "---\ntitle: Not a skill\ncapabilities: [git]\ntags: [vcs]\n---\n# Not a skill\n\nJust notes about git.\n",
    );
}

fn by_title<'a>(list: &'a Value, title: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|d| d["title"] == title)
        .unwrap_or_else(|| panic!("no document titled {title:?} in {list:#}"))
}

fn titles(list: &Value) -> Vec<String> {
    let mut t: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap().to_string())
        .collect();
    t.sort();
    t
}

/// The warnings logged for the file under `dir` (a folder name).
fn warnings_for(log: &str, dir: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.contains(&format!("/{dir}/")))
        .map(str::to_string)
        .collect()
}

#[test]
fn skill_folder_with_frontmatter_quirks() {
    let kb = Kb::new();
    let root = kb.home.path().join("docs");
    skill_tree(&root);
    let summary = kb.add(&[&root]);
    assert_eq!(summary["added"], 11, "{summary}");
    assert_eq!(summary["failed"], 0, "nothing is dropped: {summary}");

    let list = kb.json(&["list"]);
    let git = by_title(&list, "git-helper");
    assert_eq!(git["name"], "git-helper");
    assert_eq!(
        git["description"],
        "Reads git history and explains commits."
    );
    assert_eq!(
        git["version"], "1.10",
        "the version as written, not the float 1.1"
    );
    assert_eq!(git["capabilities"], json!(["git", "shell"]));
    assert_eq!(git["tags"], json!(["vcs"]));

    let forms = by_title(&list, "pdf-forms");
    assert_eq!(
        forms["description"],
        "Fills PDF forms.\nUse for tax paperwork."
    );
    assert_eq!(forms["version"], Value::Null);
    assert_eq!(forms["capabilities"], json!(["pdf", "forms"]));

    let search = by_title(&list, "pdf-search");
    assert_eq!(search["description"], "Searches inside PDF files.");
    assert_eq!(search["capabilities"], json!(["pdf", "search"]));
    assert_eq!(search["version"], "2.0", "from metadata.version");

    let cal = by_title(&list, "calendar: sync");
    assert_eq!(cal["description"], "Use when: the user asks about meetings");
    assert_eq!(cal["capabilities"], json!(["calendar", "time: zones"]));

    let notes = by_title(&list, "release-notes");
    assert_eq!(
        notes["description"],
        "Use when: the user wants release notes"
    );
    assert_eq!(notes["capabilities"], json!(["git", "writing"]));

    let tabs = by_title(&list, "tab-separated");
    assert_eq!(tabs["description"], "Tabs after colons are fine.");
    assert_eq!(tabs["capabilities"], json!(["shell"]));

    // Plain Markdown: titled by heading or folder, no skill fields.
    for title in [
        "Tab indented",
        "Plain skill",
        "unclosed-quote/SKILL.md",
        "Bad indent",
        "Not a skill",
    ] {
        let d = by_title(&list, title);
        for key in ["name", "description", "version", "capabilities"] {
            assert!(d.get(key).is_none(), "{title}: {key} in {d}");
        }
    }

    // Every quirk is in the errors log; the clean files are not.
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    for dir in [
        "git-helper",
        "pdf-forms",
        "pdf-search",
        "calendar",
        "tab-separated",
        "notes",
    ] {
        assert!(warnings_for(&log, dir).is_empty(), "{dir}: {log}");
    }
    let expect = [
        (
            "release-notes",
            "after quoting the value of `description` (line 3)",
        ),
        ("tab-indented", "YAML does not allow tabs for indentation"),
        ("no-frontmatter", "no YAML frontmatter"),
        ("unclosed-quote", "invalid YAML frontmatter"),
        ("bad-indent", "must be quoted"),
    ];
    for (dir, what) in expect {
        let w = warnings_for(&log, dir);
        assert_eq!(w.len(), 1, "{dir}: {log}");
        assert!(
            w[0].contains("\twarning: ") && w[0].contains(what),
            "{dir}: {}",
            w[0]
        );
    }
    assert!(
        warnings_for(&log, "tab-indented")[0].contains("line 5"),
        "{log}"
    );

    // Broken frontmatter stays searchable as text.
    let v = kb.json(&["search", "zanzibar marmalade", "--fts-only"]);
    assert_eq!(
        v["results"][0]["source"]["title"], "unclosed-quote/SKILL.md",
        "{v}"
    );

    // kb info shows the skill fields, and the frontmatter as metadata.
    let id = git["id"].to_string();
    let info = kb.json(&["info", &id]);
    assert_eq!(info["description"], git["description"]);
    assert_eq!(info["version"], "1.10");
    assert_eq!(info["capabilities"], json!(["git", "shell"]));
    assert_eq!(info["metadata"]["name"], "git-helper");
    let plain = by_title(&list, "Plain skill")["id"].to_string();
    let info = kb.json(&["info", &plain]);
    assert!(info.get("capabilities").is_none() && info.get("description").is_none());
    let human = kb
        .cmd()
        .args(["info", &id, "--format", "human"])
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(human.contains("Capabilities: git, shell"), "{human}");
}

#[test]
fn list_by_capability_is_exact_and_combines_with_other_filters() {
    let kb = Kb::new();
    let root = kb.home.path().join("docs");
    skill_tree(&root);
    kb.add(&[&root]);
    let cap = |args: &[&str]| {
        let mut a = vec!["list"];
        a.extend_from_slice(args);
        titles(&kb.json(&a))
    };

    assert_eq!(
        cap(&["--capability", "git"]),
        ["git-helper", "release-notes"],
        "not the tab-indented or broken ones, not the ordinary Markdown file"
    );
    assert_eq!(cap(&["--capability", "pdf"]), ["pdf-forms", "pdf-search"]);
    assert_eq!(
        cap(&["--capability", "pdf", "--capability", "forms"]),
        ["pdf-forms"]
    );
    assert_eq!(cap(&["--capability", "time: zones"]), ["calendar: sync"]);
    assert!(
        cap(&["--capability", "time"]).is_empty(),
        "no substring match"
    );
    assert!(cap(&["--capability", "Git"]).is_empty(), "case-sensitive");
    assert!(cap(&["--capability", "pdf", "--capability", "git"]).is_empty());
    assert_eq!(
        cap(&["--capability", " shell "]),
        ["git-helper", "tab-separated"]
    );
    // AND with the other filters.
    assert_eq!(
        cap(&["--capability", "git", "--tag", "vcs"]),
        ["git-helper"]
    );
    assert_eq!(
        cap(&["--capability", "git", "--type", "markdown"]),
        ["git-helper", "release-notes"]
    );
    assert!(cap(&["--capability", "git", "--type", "note"]).is_empty());
    assert_eq!(
        cap(&["--capability", "git", "--search", "release"]),
        ["release-notes"]
    );
    assert_eq!(
        cap(&["--skills", "--search", "TAX PAPERWORK"]),
        ["pdf-forms"],
        "--search also reads skill descriptions"
    );
    assert_eq!(cap(&["--skills"]).len(), 6);
    assert_eq!(cap(&["--skills", "--tag", "vcs"]), ["git-helper"]);
    // Without skill filters, every document is listed.
    assert_eq!(cap(&[]).len(), 11);

    let e = kb.error(&["list", "--capability", " "], 1);
    assert_eq!(e["code"], "E_USAGE");
    let human = kb
        .cmd()
        .args(["list", "--capability", "forms", "--format", "human"])
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains("skill: [pdf, forms] Fills PDF forms."),
        "{human}"
    );
}

#[test]
fn removing_a_skill_folder_prunes_it_on_re_add() {
    let kb = Kb::new();
    let root = kb.home.path().join("docs");
    skill_tree(&root);
    kb.add(&[&root]);
    let pdf = || titles(&kb.json(&["list", "--capability", "pdf"]));
    assert_eq!(pdf(), ["pdf-forms", "pdf-search"]);

    std::fs::remove_dir_all(root.join("skills/pdf-search")).unwrap();
    let summary = kb.add(&[&root]);
    assert_eq!(summary["removed"], 1, "{summary}");
    assert_eq!(summary["added"], 0, "{summary}");
    assert_eq!(pdf(), ["pdf-forms"]);
    let v = kb.json(&["search", "grep page by page", "--fts-only"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["source"]["title"] != "pdf-search"),
        "its chunks are gone: {v}"
    );

    // Re-adding only the skills folder prunes within it too.
    std::fs::remove_dir_all(root.join("skills/git-helper")).unwrap();
    let summary = kb.add(&[&root.join("skills")]);
    assert_eq!(summary["removed"], 1, "{summary}");
    assert_eq!(
        titles(&kb.json(&["list", "--capability", "git"])),
        ["release-notes"]
    );
}

#[test]
fn kbs_own_skill_file_is_a_skill() {
    let kb = Kb::new();
    let dir = kb.home.path().join("kb-skill");
    let repo_skill = Path::new(env!("CARGO_MANIFEST_DIR")).join("SKILL.md");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&repo_skill, dir.join("SKILL.md")).unwrap();
    kb.add(&[&dir]);
    let list = kb.json(&["list", "--capability", "search"]);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let d = &list[0];
    assert_eq!(d["title"], "kb");
    assert!(d["description"].as_str().unwrap().len() > 40, "{d}");
    assert_eq!(d["version"], env!("CARGO_PKG_VERSION"));
    let log = kb.data_dir().join("ingest-errors.log");
    let log = std::fs::read_to_string(log).unwrap_or_default();
    assert!(
        log.is_empty(),
        "kb's SKILL.md parses without warnings: {log}"
    );
    // The placeholder another change fills in.
    let outline = kb.json(&["outline", &d["id"].to_string()]);
    assert!(
        outline["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["text"] == "MCP server"),
        "{outline}"
    );
}

/// What `kb skill` prints passes the Agent Skills reference validator
/// (PyPI `skills-ref`'s `agentskills validate`), in a folder named after
/// the skill as installing it makes.
#[test]
fn kb_skill_passes_the_agent_skills_validator() {
    let Some(python) = common::python_tools("kb_skill_passes_the_agent_skills_validator") else {
        return;
    };
    let kb = Kb::empty();
    let dir = kb.home.path().join("skills/kb");
    std::fs::create_dir_all(&dir).unwrap();
    let skill = stdout_of(kb.cmd().arg("skill"));
    std::fs::write(dir.join("SKILL.md"), skill).unwrap();
    let validator = python.with_file_name("agentskills");
    let out = common::venv_cmd(&kb, &validator)
        .arg("validate")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "agentskills validate: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
