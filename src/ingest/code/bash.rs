//! Bash definitions: functions (`name() {}` and `function name {}`), with
//! the comment block above them; the rest of a script is top-level code.

use std::ops::Range;

use tree_sitter::Node;

use super::definitions::{Language, Walker};
use super::unit::{Scope, Sym};
use crate::document::SymbolKind;

/// Bash, and the POSIX shells read with its grammar.
pub(super) struct Bash;

impl Language for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }

    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_bash::LANGUAGE.into()
    }

    fn is_definition(&self, kind: &str) -> bool {
        kind == "function_definition"
    }

    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        _scope: Option<&Scope>,
    ) {
        walker.bash_def(range, node);
    }

    fn module_label(&self, module: &str) -> String {
        format!("script {module}")
    }
}

impl<'a> Walker<'a> {
    fn bash_def(&mut self, range: Range<usize>, node: Node<'a>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_else(|| "<anonymous>".into());
        self.heading(1, &name, range.start);
        let sym = Sym {
            label: format!("function {name}"),
            name,
            kind: SymbolKind::Function,
            class_name: None,
            receiver: None,
            context: None,
            continuation: self.signature(node),
        };
        self.push_def(range, node, sym, node.child_by_field_name("body"));
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

    const SH: &str = r#"#!/bin/bash
# Deploy script for the web app.
set -euo pipefail
APP_DIR=/srv/app
LOG=/var/log/deploy.log

# Copies the build to the server and restarts the service.
# Usage: deploy HOST
deploy() {
    local host="$1"
    rsync -a build/ "$host:$APP_DIR"
    ssh "$host" systemctl restart app
}

function cleanup {
    rm -rf build/
}

function rollback() { ssh "$1" "cd $APP_DIR && git checkout HEAD~1"; }

trap cleanup EXIT
for host in web1 web2; do
    deploy "$host" >>"$LOG"
done
"#;

    #[test]
    fn bash_functions_with_comments_and_top_level_windows() {
        let doc = parse(Path::new("deploy.sh"), SH.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(SH, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("bash"));
        assert_eq!(
            sections(&doc),
            [
                "script deploy",
                "function deploy",
                "function cleanup",
                "function rollback",
                "script deploy"
            ]
        );
        // Top-level statements merge into one window.
        assert!(
            doc.chunks[0].text.starts_with("#!/bin/bash") && doc.chunks[0].text.contains("LOG=")
        );
        let d = by_symbol(&doc, "deploy");
        let d = d
            .iter()
            .find(|c| meta(c, "symbol_kind") == "function")
            .unwrap();
        assert!(d.text.starts_with("# Copies the build") && d.text.ends_with("restart app\n}"));
        assert_eq!(meta(d, "line_start"), 7);
        assert_eq!(meta(d, "line_end"), 13);
        assert_eq!(
            by_symbol(&doc, "cleanup")[0].text,
            "function cleanup {\n    rm -rf build/\n}"
        );
        assert_eq!(meta(by_symbol(&doc, "rollback")[0], "line_start"), 19);
        let last = doc.chunks.last().unwrap();
        assert!(last.text.starts_with("trap cleanup EXIT") && last.text.ends_with("done"));
        let names: Vec<_> = doc.meta.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(names, ["deploy", "cleanup", "rollback"]);
    }

    #[test]
    fn comment_stays_with_the_statement_below() {
        let mut src = String::from("echo start\n\n# Retry the upload three times.\n");
        src.push_str("for i in 1 2 3; do\n");
        for i in 0..8 {
            src.push_str(&format!("    upload part{i} && break\n"));
        }
        src.push_str("done\n");
        let doc = parse(Path::new("u.sh"), src.as_bytes(), &ctx(&config(40))).unwrap();
        check_invariants(&src, &doc, 40);
        assert_eq!(doc.chunks[0].text, "echo start");
        assert!(doc.chunks[1]
            .text
            .starts_with("# Retry the upload three times.\nfor i in"));
    }
}
