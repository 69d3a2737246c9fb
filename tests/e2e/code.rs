//! Source code end to end: `kb add` a folder of Python, Bash, Go and an
//! extensionless shebang script, then find functions by name and by what
//! they do, with the symbol in the search JSON.

use crate::common::{write, Kb};
use serde_json::Value;

const PY: &str = r#""""Shipping helpers for the web shop."""
import math

RATE_PER_KG = 1.25


def compute_shipping_cost(weight_kg, distance_km):
    """Price of sending a parcel: a base fee plus weight times distance."""
    base = 4.0
    return round(base + RATE_PER_KG * weight_kg * math.log1p(distance_km), 2)


class Basket:
    """The items a customer is about to buy."""

    def __init__(self):
        self.items = []

    def add(self, name, price):
        self.items.append((name, price))
"#;

const SH: &str = r#"#!/bin/bash
set -eu

# Gzips log files older than a week and deletes archives older than a month.
rotate_logs() {
    find /var/log/app -name '*.log' -mtime +7 -exec gzip {} \;
    find /var/log/app -name '*.gz' -mtime +30 -delete
}

function main {
    rotate_logs
}

main "$@"
"#;

const GO: &str = r#"// Package server runs the HTTP API.
package server

import "net/http"

// Server holds the listener settings.
type Server struct {
	Addr string
}

// Shutdown stops accepting connections and waits for requests in flight.
func (s *Server) Shutdown() error {
	return http.ErrServerClosed
}
"#;

const SCRIPT: &str = r#"#!/usr/bin/env python3
import sys


def greet_visitor(name):
    print(f"Welcome to the museum, {name}!")


greet_visitor(sys.argv[1])
"#;

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

#[test]
fn code_files_are_indexed_by_symbol() {
    let kb = Kb::new();
    let dir = kb.home.path().join("src");
    write(&dir.join("shipping.py"), PY);
    write(&dir.join("rotate.sh"), SH);
    write(&dir.join("server.go"), GO);
    write(&dir.join("bin/greet"), SCRIPT);
    write(
        &dir.join("notes.md"),
        "# Notes\n\nParcels ship on Mondays and Thursdays.\n",
    );
    let summary = kb.add(&[&dir]);
    assert_eq!(summary["added"], 5, "{summary}");
    assert_eq!(summary["failed"], 0, "{summary}");

    // By name, keyword ranker only.
    let v = kb.json(&["search", "compute_shipping_cost", "--fts-only"]);
    let top = &results(&v)[0];
    let s = &top["source"];
    assert_eq!(s["type"], "code");
    assert_eq!(s["language"], "python");
    assert_eq!(s["symbol_name"], "compute_shipping_cost");
    assert_eq!(s["symbol_kind"], "function");
    assert_eq!(s["section"], "def compute_shipping_cost");
    assert_eq!(s["line_start"], 7);
    assert_eq!(s["line_end"], 10);
    assert!(top["text"]
        .as_str()
        .unwrap()
        .starts_with("def compute_shipping_cost(weight_kg, distance_km):"));

    // By what it does, hybrid. (Not "post a package": in a five-file folder
    // Go's `package` keyword is the rarest word of that query, and the
    // keyword ranker rightly puts server.go first.)
    let v = kb.json(&["search", "how much does postage cost"]);
    assert_eq!(
        results(&v)[0]["source"]["symbol_name"],
        "compute_shipping_cost",
        "{v}"
    );
    let v = kb.json(&["search", "compress and clean up old log files"]);
    let s = &results(&v)[0]["source"];
    assert_eq!(s["symbol_name"], "rotate_logs", "{v}");
    assert_eq!(s["language"], "bash");
    assert_eq!(s["section"], "function rotate_logs");
    assert!(results(&v)[0]["text"]
        .as_str()
        .unwrap()
        .starts_with("# Gzips log files"));
    let v = kb.json(&["search", "stop the server gracefully", "--vec-only"]);
    let s = &results(&v)[0]["source"];
    assert_eq!(s["symbol_name"], "Server.Shutdown", "{v}");
    assert_eq!(s["symbol_kind"], "method");
    assert_eq!(s["section"], "func (s *Server) Shutdown");

    // The extensionless script was read as Python through its shebang.
    let v = kb.json(&["search", "greet_visitor museum", "--fts-only"]);
    let s = &results(&v)[0]["source"];
    assert_eq!(s["title"], "greet");
    assert_eq!(s["language"], "python");
    assert_eq!(s["symbol_name"], "greet_visitor");

    // Non-code chunks carry no symbol fields, but do carry their lines.
    let v = kb.json(&["search", "parcels ship on mondays", "--fts-only"]);
    let s = &results(&v)[0]["source"];
    assert_eq!(s["type"], "markdown");
    for key in ["symbol_name", "symbol_kind"] {
        assert!(s.get(key).is_none(), "{key} in {s}");
    }
    assert!(s["line_start"].as_u64().unwrap() <= s["line_end"].as_u64().unwrap());

    // The outline lists the symbols; a symbol is a section to show.
    let py = dir.join("shipping.py");
    let py = py.to_str().unwrap();
    let outline = kb.json(&["outline", py]);
    assert!(
        outline["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["kind"] == "symbol"),
        "{outline}"
    );
    let items: Vec<(u64, &str)> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["level"].as_u64().unwrap(), i["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        items,
        [
            (1, "compute_shipping_cost"),
            (1, "Basket"),
            (2, "Basket.__init__"),
            (2, "Basket.add")
        ]
    );
    let shown = kb.json(&["show", py, "--section", "compute_shipping_cost"]);
    assert!(shown["content"]
        .as_str()
        .unwrap()
        .contains("return round(base"));
    // A mistyped symbol gets the symbol as a suggestion.
    let e = kb.error(&["show", py, "--section", "computeShippingCost"], 1);
    assert_eq!(e["code"], "E_SECTION_NOT_FOUND", "{e}");
    let e = kb.error(&["show", py, "--section", "compute_shiping_cost"], 1);
    assert_eq!(
        e["suggestions"],
        serde_json::json!(["compute_shipping_cost"]),
        "{e}"
    );
    let e = kb.error(&["show", py, "--section", "Basket.ad"], 1);
    assert_eq!(e["suggestions"][0], "Basket.add", "{e}");
}
