//! No number in a template or note that the run did not produce: a digit in prose must sit in a
//! value expression (`{{ v('…') }}`, a slot) or be a name, a citation or a seed's figure.
//!
//! What counts as prose: every `report/*.md` of every lab and of the kit, and the prose fields of
//! `answers.json` and the targets files ([`PROSE_FIELDS`]). What does not: value expressions and
//! tags, code spans (identifiers such as `closed-100vu-1mib`), `#N` citations, digits glued to
//! letters (`p99`, `XXH3`), the phrases in [`VOCABULARY`], the seed's own table (`seed.md`) and
//! the fields that quote the seed.
//!
//! The literals not yet moved onto the run's values are counted per file in [`REMAINING`]; the
//! counts are exact, so a new literal fails the test and a removed one must lower its count.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Notation, not measurement: the unit of per-100 counts, the baseline's ratio, the resolution's
/// band, HTTP status codes, an architecture's name.
const VOCABULARY: &[&str] = &[
    "per 100",
    "1.00×",
    "1 ± δ",
    "1 + δ",
    "(503)",
    "200 body",
    "a 200",
    "(200 with",
    "x86-64",
];

/// Fields of the answers and targets files that hold prose; the others are data (names, ids,
/// units, bounds) or quote the seed (`source`, `claim`, `question`, `seed_text`).
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

/// Literals still typed into prose, per file (relative to the workspace root).
const REMAINING: &[(&str, usize)] = &[
    ("coalesce-lab/report/answers.json", 2),
    ("coalesce-lab/report/details.md", 27),
    ("coalesce-lab/report/report.md", 21),
    ("coalesce-lab/report/targets-notes.md", 19),
    ("coalesce-lab/report/targets.json", 2),
    ("dedup-lab/report/answers.json", 5),
    ("dedup-lab/report/details.md", 7),
    ("dedup-lab/report/report.md", 2),
    ("dedup-lab/report/targets-notes.md", 11),
    ("dedup-lab/report/targets.json", 8),
    ("labkit/report/verdicts.md", 1),
    ("pending-ack-lab/report/answers.json", 4),
    ("pending-ack-lab/report/concurrency-notes.md", 6),
    ("pending-ack-lab/report/details.md", 1),
    ("pending-ack-lab/report/targets-notes.md", 14),
    ("pending-ack-lab/report/targets.json", 3),
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
            if name != "seed.md" && (name.ends_with(".md") || name.ends_with(".json")) {
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
        let glued = before.is_some_and(|c| c.is_alphabetic() || c == '#')
            || after.is_some_and(char::is_alphabetic);
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
        let found: Vec<String> = prose(&path).iter().flat_map(|t| numbers(t)).collect();
        if !found.is_empty() {
            counts.insert(relative, found);
        }
    }
    let expected: BTreeMap<String, usize> = REMAINING
        .iter()
        .map(|(file, n)| ((*file).to_owned(), *n))
        .collect();
    let actual: BTreeMap<String, usize> = counts
        .iter()
        .map(|(f, found)| (f.clone(), found.len()))
        .collect();
    let listing: String = counts
        .iter()
        .map(|(file, found)| format!("{file}:\n  {}\n", found.join("\n  ")))
        .collect();
    assert_eq!(actual, expected, "literal numbers in prose:\n{listing}");
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
