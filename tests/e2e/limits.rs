//! Every numeric argument of every command at its limits (0, 1, the
//! largest number, one past it, negative) through the real binary: an
//! answer (valid JSON) or a clear error, never a panic. The MCP side of the
//! same is in `mcp::numeric_arguments_at_their_limits`.

use crate::common::{fixture_tree, write, Kb};
use serde_json::Value;

/// The values each numeric argument is tried with.
const LIMITS: [&str; 6] = [
    "0",
    "1",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-1",
];

/// Runs `kb ARGS --format json`; returns the exit code, and the JSON of
/// stdout (success) or of the error on stderr.
fn run(kb: &Kb, args: &[&str]) -> (i32, Value) {
    let out = kb
        .cmd()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!(
        !stderr.contains("panicked") && code != 101,
        "kb {args:?} panicked (exit {code}): {stderr}"
    );
    let json = match code {
        0 => serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "kb {args:?} printed invalid JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        }),
        1 | 2 => {
            let last = stderr.lines().last().unwrap_or("");
            let v: Value = serde_json::from_str(last)
                .unwrap_or_else(|e| panic!("kb {args:?}: the error is not JSON ({e}): {stderr}"));
            let message = v["error"].as_str().unwrap_or("");
            assert!(!message.is_empty(), "kb {args:?}: {v}");
            v
        }
        _ => panic!("kb {args:?} exited {code}: {stderr}"),
    };
    (code, json)
}

/// The flags that take a number (`<N>`, `<SCORE>`, `<FROM:TO>`) of every
/// command, as `kb --help` and `kb COMMAND --help` list them.
fn numeric_flags(kb: &Kb) -> Vec<(String, String)> {
    let help = |args: &[&str]| {
        let out = kb.cmd().args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{top}");
    let mut out = Vec::new();
    for command in commands {
        for line in help(&[&command, "--help"]).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            for pair in words.windows(2) {
                let numeric = ["<N>", "<SCORE>", "<FROM:TO>"].contains(&pair[1]);
                if pair[0].starts_with("--") && numeric {
                    out.push((command.clone(), pair[0].to_string()));
                }
            }
        }
    }
    out
}

#[test]
fn numeric_arguments_at_their_limits_never_panic() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let list = kb.json(&["list", "--search", "git"]);
    let doc = list[0]["id"].as_i64().unwrap().to_string();
    let hit = kb.json(&["search", "git config", "--top", "1"]);
    let chunk = hit["results"][0]["chunk_id"].as_i64().unwrap().to_string();

    // Each template's `V` is replaced by every value.
    let templates: Vec<Vec<&str>> = vec![
        vec!["search", "git", "--top", "V"],
        vec!["search", "git", "--threshold", "V"],
        vec!["search", "git", "--max-per-document", "V"],
        vec!["show", &chunk, "--context", "V"],
        vec!["show", "V"],
        vec![
            "show",
            &doc,
            "--section",
            "Installation",
            "--max-lines",
            "V",
        ],
        vec![
            "show",
            &doc,
            "--section",
            "Installation",
            "--occurrence",
            "V",
        ],
        vec!["show", "V", "--section", "Installation"],
        vec!["outline", &doc, "--level", "V"],
        vec!["outline", "V"],
        vec!["open", &doc, "--max-lines", "V"],
        vec!["open", &doc, "--lines", "V"],
        vec!["open", &doc, "--lines", "1:V"],
        vec!["open", &doc, "--pages", "V"],
        vec!["open", "V"],
        vec!["list", "--limit", "V"],
        vec!["list", "--offset", "V"],
        vec!["info", "V"],
        vec!["tag", "V", "--add", "x"],
        vec!["stats", "--limit", "V"],
        vec!["sources", "--depth", "V"],
        vec!["sources", "--limit", "V"],
        vec!["search", "git", "--document", "V"],
        vec!["remove", "V"],
    ];
    // Every numeric flag `--help` lists is among them.
    for (command, flag) in numeric_flags(&kb) {
        assert!(
            templates
                .iter()
                .any(|t| t[0] == command && t.contains(&flag.as_str())),
            "kb {command} {flag} takes a number and is not tried at its limits here"
        );
    }
    for template in &templates {
        for value in LIMITS.iter().chain(["1e308", "NaN", "inf"].iter()) {
            let args: Vec<&str> = template
                .iter()
                .map(|a| if *a == "V" { *value } else { a })
                .collect();
            // Removing document 1 would take the others' target away.
            if args == ["remove", "1"] {
                continue;
            }
            run(&kb, &args);
        }
    }
}

#[test]
fn max_lines_zero_gives_the_counts_alone() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("a.md"),
        "# A\n\n## Setup\n\none\ntwo\nthree\n\n## Use\n\nfour\n",
    );
    kb.add(&[&docs]);
    let (code, open) = run(&kb, &["open", "1", "--max-lines", "0"]);
    assert_eq!(code, 0, "{open}");
    assert_eq!(open["content"], "", "{open}");
    assert_eq!(open["total_lines"], 11, "{open}");
    assert_eq!(open["truncated_lines"], 11, "{open}");
    // Reading on after last_line starts at first_line: nothing is skipped.
    assert_eq!(
        (open["first_line"].as_u64(), open["last_line"].as_u64()),
        (Some(1), Some(0))
    );
    let (_, part) = run(&kb, &["open", "1", "--lines", "5:7", "--max-lines", "0"]);
    assert_eq!(part["truncated_lines"], 3, "{part}");
    assert_eq!(
        (part["first_line"].as_u64(), part["last_line"].as_u64()),
        (Some(5), Some(4))
    );
    let (_, one) = run(&kb, &["open", "1", "--lines", "5:7", "--max-lines", "1"]);
    assert_eq!(one["content"], "one\n... (2 more lines)", "{one}");
    assert_eq!(one["last_line"], 5, "{one}");

    let (code, section) = run(
        &kb,
        &["show", "1", "--section", "Setup", "--max-lines", "0"],
    );
    assert_eq!(code, 0, "{section}");
    assert_eq!(section["content"], "", "{section}");
    assert_eq!(section["truncated_lines"], 5, "{section}");
    assert_eq!(section["line"], 3, "{section}");

    // A range past the end is an error naming the document's length.
    let (code, e) = run(&kb, &["open", "1", "--lines", "100:200"]);
    assert_eq!(code, 1, "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("11 lines") && message.contains("100"),
        "{e}"
    );

    // A negative threshold is refused for what it is, with no advice to
    // put it after `--` (which would make it a query word).
    let (code, e) = run(&kb, &["search", "one", "--threshold", "-1"]);
    assert_eq!(code, 1, "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("from 0 up") && !message.contains("-- -1"),
        "{e}"
    );
}
