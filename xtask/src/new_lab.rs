//! `cargo xtask new-lab NAME`: a working lab to turn into one's own question, written to
//! `NAME-lab/` from the template in `xtask/new-lab/`: a trait with a baseline and one more design,
//! one experiment, two page templates, the answers and targets files, the conformance and model
//! tests. The workspace takes it as it is (every `*-lab` directory is a member).

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::shell::{cargo, run};

/// The template's files, by the path they take in the new lab.
macro_rules! template {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../new-lab/", $path)))),*]
    };
}
const FILES: &[(&str, &str)] = template![
    "Cargo.toml",
    "benches/entry.rs",
    "src/lib.rs",
    "src/lab.rs",
    "src/implementations/btree_counter.rs",
    "src/implementations/hash_counter.rs",
    "report/report.md",
    "report/details.md",
    "report/answers.json",
    "report/targets.json",
];

/// The template's question, until the new lab states its own.
pub(crate) const QUESTION: &str = "is a hash map cheaper than an ordered map for counting keys?";

/// Writes the lab `name` (its directory `name-lab/` in the workspace at `workspace`) asking
/// `question`; refuses a name that is no crate name or that a directory already has, before
/// writing anything.
pub(crate) fn new_lab(name: &str, question: &str, workspace: &Path) -> Result<()> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
        && !name.contains("--")
        && !name.ends_with("-lab");
    if !valid {
        bail!(
            "`{name}` is not a lab name: lowercase letters, digits and single hyphens, starting \
             with a letter, without `-lab` (the directory is `{name}-lab`)"
        );
    }
    // The question goes into TOML, JSON, Rust strings and page templates as it is.
    if question.is_empty() || question.contains(['"', '\\', '\n', '{', '}']) {
        bail!("the question is one line of text without quotes, backslashes or braces");
    }
    let dir = workspace.join(format!("{name}-lab"));
    if dir.exists() {
        bail!(
            "{} exists; a new lab needs a name of its own",
            dir.display()
        );
    }
    // Written whole beside the workspace's members, then moved in: never half a lab.
    let staging = workspace.join("target/new-lab").join(format!("{name}-lab"));
    let _ = std::fs::remove_dir_all(&staging);
    for (path, text) in FILES {
        write(&staging.join(path), &fill(text, name, question))?;
    }
    std::fs::rename(&staging, &dir).with_context(|| format!("moving in {}", dir.display()))?;
    // Names of another length wrap differently: the lab starts formatted as `cargo fmt` wants.
    let package = format!("{name}-lab");
    run(cargo().args(["fmt", "-p", &package]).current_dir(workspace))?;
    println!(
        "==> wrote {name}-lab/ ({} files); `cargo test -p {name}-lab` tests it, `cargo xtask \
         bench {name} --smoke` measures it, docs/architecture.md's \"Your own question in an afternoon\" \
         turns it into yours",
        FILES.len()
    );
    Ok(())
}

/// `text` with the template's placeholders replaced by the lab's names and question.
fn fill(text: &str, name: &str, question: &str) -> String {
    let snake = name.replace('-', "_");
    let camel: String = name
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    text.replace("__CRATE__", &format!("{snake}_lab"))
        .replace("__TYPE__", &format!("{camel}Lab"))
        .replace("__NAME__", name)
        .replace("__QUESTION__", question)
}

fn write(path: &Path, text: &str) -> Result<()> {
    let parent = path.parent().expect("a file of the lab");
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::root;

    #[test]
    fn names_fill_every_placeholder_and_bad_names_are_refused_before_anything_is_written() {
        let filled = fill(FILES[3].1, "ring-buffer", QUESTION);
        assert!(
            filled.contains("pub static LAB: RingBufferLab = \"ring-buffer\", \"ring-buffer-lab: ")
        );
        for (path, text) in FILES {
            assert!(!fill(text, "x", QUESTION).contains("__"), "{path}");
        }
        for bad in [
            "",
            "Ring",
            "ring-",
            "ring--buffer",
            "9ring",
            "ring_buffer",
            "dedup-lab",
        ] {
            let err = new_lab(bad, QUESTION, &root()).unwrap_err().to_string();
            assert!(err.contains("is not a lab name"), "{bad}: {err}");
        }
        let quoted = new_lab("ring", "a \"quoted\" one?", &root()).unwrap_err();
        assert!(quoted.to_string().contains("without quotes"), "{quoted}");
        let taken = new_lab("dedup", QUESTION, &root()).unwrap_err().to_string();
        assert!(taken.contains("exists"), "{taken}");
    }
}
