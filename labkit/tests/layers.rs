//! The kit in layers: each module of `labkit` may use only the modules below it, so there is no
//! import cycle and the statistics, the records and the measurement know nothing of reports.
//! A new module must be placed in [`LAYERS`]; test code (`tests.rs`, `#[cfg(test)] mod tests`)
//! may use anything.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// Bottom to top; within a layer, too, a module may use only those listed before it.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "statistics, formats and probes that know no record",
        &[
            "stats",
            "table",
            "template",
            "chart",
            "env",
            "alloc",
            "callgrind",
            "latency",
            "affinity",
            "tools",
        ],
    ),
    ("records and ids", &["record"]),
    (
        "what records say: the machine's disturbance, verdicts, repeated passes, footprints, \
         pairs",
        &[
            "process",
            "compare",
            "passes",
            "footprint",
            "args",
            "paired",
        ],
    ),
    (
        "a lab's description and its measurement",
        &["lab", "jvm", "threads", "sampling", "measure"],
    ),
    (
        "reports",
        &[
            "report",
            "rows",
            "travel",
            "targets",
            "answers",
            "resolution",
            "verdicts",
            "document",
            "writeup",
            "lab_binary",
            "testing",
        ],
    ),
];

fn rank(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .flat_map(|(_, modules)| modules.iter())
        .position(|m| *m == module)
}

/// The `crate::<module>` names `source` uses outside comments and its test module.
fn used_modules(source: &str) -> BTreeSet<String> {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let mut used = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            // `$crate::` is a macro's path to the kit itself; a name not followed by `::` or an
            // item of a module is a macro (`crate::lab_conformance!`).
            let in_macro = line[..at].ends_with('$');
            if !name.is_empty() && !in_macro && rest[name.len()..].starts_with("::") {
                used.insert(name);
            }
        }
    }
    used
}

/// Every source file of the kit with the top-level module it belongs to.
fn sources(dir: &Path, module: Option<&str>, out: &mut Vec<(String, String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            sources(&path, Some(module.unwrap_or(&file)), out);
        } else if file.ends_with(".rs") && file != "tests.rs" && file != "lib.rs" {
            let top = module.map_or_else(|| file.trim_end_matches(".rs").to_owned(), str::to_owned);
            let text = fs::read_to_string(&path).unwrap();
            out.push((top, path.display().to_string(), text));
        }
    }
}

#[test]
fn every_module_uses_only_the_modules_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, None, &mut files);
    let mut upward = Vec::new();
    for (module, path, text) in &files {
        let own = rank(module).unwrap_or_else(|| panic!("`{module}` is in no layer: place it"));
        for used in used_modules(text) {
            if used == *module {
                continue;
            }
            let theirs = rank(&used).unwrap_or_else(|| panic!("{path}: `crate::{used}`?"));
            if theirs > own {
                upward.push(format!(
                    "{path}: `{module}` uses `{used}`, a layer above it"
                ));
            }
        }
    }
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

#[test]
fn the_layers_list_every_module_of_the_kit_once() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    let layered: Vec<&str> = LAYERS.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    assert_eq!(
        layered.len(),
        declared.len(),
        "a module listed twice or missing"
    );
    assert_eq!(layered.into_iter().collect::<BTreeSet<_>>(), declared);
}

#[test]
fn a_use_of_a_module_above_is_found() {
    let used = used_modules(
        "use crate::record::Record;\n// crate::report::x\nfn f() { crate::lab::twin(\"a\"); }\n\
         macro_rules! m { () => { $crate::testing::x() } }\ncrate::lab_conformance!(X);\n\
         #[cfg(test)]\nmod tests { use crate::document::Document; }\n",
    );
    assert_eq!(used.into_iter().collect::<Vec<_>>(), ["lab", "record"]);
}
