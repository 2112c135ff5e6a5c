//! No number in a template or note that the run did not produce: a digit in prose must sit in a
//! value expression (`{{ v('…') }}`, a slot) or be a name, a citation or a write-up's figure.
//!
//! What counts as prose: every `report/*.md` of every lab and of the kit, and the prose fields of
//! `answers.json` and the targets files ([`PROSE_FIELDS`]). What does not: value expressions and
//! tags, code spans (identifiers such as `closed-100vu-1mib`), `#N` citations, digits glued to
//! letters (`p99`, `XXH3`), a type's width (`128-bit`), the phrases in [`VOCABULARY`], the
//! write-up's own table (`published.md`), the fields that quote the write-up and the write-up's figures quoted in
//! prose ([`PUBLISHED_FIGURES`]).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Notation, not measurement: the unit of per-100 counts, the baseline's ratio, the resolution's
/// band, HTTP status codes, an architecture's name.
const VOCABULARY: &[&str] = &[
    "per 100",
    "every 100",
    "1.00×",
    "1 ± δ",
    "1 + δ",
    "(503)",
    "200 body",
    "a 200",
    "a 503",
    "(200 with",
    "x86-64",
];

/// The write-ups' own figures where prose quotes them, per file: a write-up's shape or result is not
/// this run's to produce.
const PUBLISHED_FIGURES: &[(&str, &str)] = &[
    ("dedup-lab/report/answers.json", "500 producers"),
    ("dedup-lab/report/answers.json", "500-producer"),
    ("dedup-lab/report/answers.json", "16 distinct producers"),
    ("pending-ack-lab/report/answers.json", "50,000 entries"),
    ("pending-ack-lab/report/answers.json", "ledger 0"),
    ("pending-ack-lab/report/targets.json", "2 % prefix"),
    ("coalesce-lab/report/report.md", "100 scrapers"),
    ("coalesce-lab/report/details.md", "4 threads"),
    ("coalesce-lab/report/targets-notes.md", "about 25 %"),
];

/// Fields of the answers and targets files that hold prose; the others are data (names, ids,
/// units, bounds) or quote the write-up (`source`, `claim`, `question`, `published_text`).
const PROSE_FIELDS: &[&str] = &[
    "what",
    "text",
    "adds",
    "cannot_show",
    "decision",
    "verdict",
    "unmeasurable",
    "label",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every template, note and prose-bearing JSON file under a `report/` directory.
fn files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(root()).unwrap() {
        let dir = entry.unwrap().path().join("report");
        let Ok(listing) = fs::read_dir(&dir) else {
            continue;
        };
        for file in listing {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name != "published.md" && (name.ends_with(".md") || name.ends_with(".json")) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The prose a file holds: a markdown file whole, a JSON file's [`PROSE_FIELDS`].
fn prose(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    if path.extension().is_some_and(|e| e == "md") {
        return vec![text];
    }
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    collect_strings(&json, None, &mut out);
    out
}

fn collect_strings(value: &serde_json::Value, key: Option<&str>, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) if key.is_some_and(|k| PROSE_FIELDS.contains(&k)) => {
            out.push(s.clone());
        }
        serde_json::Value::Array(items) => {
            items.iter().for_each(|v| collect_strings(v, key, out));
        }
        serde_json::Value::Object(map) => {
            map.iter()
                .for_each(|(k, v)| collect_strings(v, Some(k), out));
        }
        _ => {}
    }
}

/// `text` without value expressions, tags, comments and code spans.
fn outside_expressions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = [("{{", "}}"), ("{%", "%}"), ("{#", "#}"), ("`", "`")]
            .iter()
            .filter_map(|(open, close)| rest.find(open).map(|at| (at, *open, *close)))
            .min_by_key(|(at, _, _)| *at);
        let Some((at, open, close)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        out.push(' ');
        let after = &rest[at + open.len()..];
        rest = after
            .find(close)
            .map_or("", |end| &after[end + close.len()..]);
    }
}

/// The numbers `text` states: runs of digits (with `,` and `.` inside) that are not glued to a
/// letter and not a `#N` citation, after [`VOCABULARY`] is taken out.
fn numbers(text: &str) -> Vec<String> {
    // A numbered list's markers are structure; phrases may break across lines.
    let unmarked: Vec<&str> = text.lines().map(without_list_marker).collect();
    let mut text = outside_expressions(&unmarked.join("\n"))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for phrase in VOCABULARY {
        text = text.replace(phrase, " ");
    }
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (matches!(chars[i], ',' | '.')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        let before = start.checked_sub(1).map(|b| chars[b]);
        let after = chars.get(i).copied();
        // A type's width (`128-bit`, `16-byte`) is a name of the type, not a measurement.
        let width = ["-bit", "-byte"]
            .iter()
            .any(|unit| chars[i..].starts_with(&unit.chars().collect::<Vec<_>>()));
        let glued = before.is_some_and(|c| c.is_alphabetic() || c == '#')
            || after.is_some_and(char::is_alphabetic)
            || width;
        if !glued {
            let from = start.saturating_sub(30);
            let context: String = chars[from..(i + 10).min(chars.len())].iter().collect();
            found.push(context);
        }
    }
    found
}

/// `line` without a leading `N. ` list marker.
fn without_list_marker(line: &str) -> &str {
    let trimmed = line.trim_start();
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    match trimmed[digits..].strip_prefix(". ") {
        Some(rest) if digits > 0 => rest,
        _ => line,
    }
}

#[test]
fn prose_states_no_number_the_run_did_not_produce() {
    let mut counts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in files() {
        let relative = path
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let quoted: Vec<&str> = PUBLISHED_FIGURES
            .iter()
            .filter(|(file, _)| *file == relative)
            .map(|(_, figure)| *figure)
            .collect();
        let found: Vec<String> = prose(&path)
            .iter()
            .map(|text| quoted.iter().fold(text.clone(), |t, f| t.replace(f, " ")))
            .flat_map(|t| numbers(&t))
            .collect();
        if !found.is_empty() {
            counts.insert(relative, found);
        }
    }
    let listing: String = counts
        .iter()
        .map(|(file, found)| format!("{file}:\n  {}\n", found.join("\n  ")))
        .collect();
    assert!(counts.is_empty(), "numbers typed into prose:\n{listing}");
}

#[test]
fn the_scanner_keeps_names_expressions_and_citations() {
    let text = "1. p99 of `closed-100vu` is {{ v('ns-per-op@a/b/c') }} (PR #26763, XXH3, per\n\
                100 requests), 1.00× baseline; but 250 producers and 1,000 steps are typed";
    let found = numbers(text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("250 producers"), "{found:?}");
    assert!(found[1].contains("1,000 steps"), "{found:?}");
}
