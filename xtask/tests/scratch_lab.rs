//! A new question is one command and no edit anywhere else: in a copy of the workspace's kit and
//! driver (`Cargo.toml`, `Cargo.lock`, `.cargo`, `labkit`, `lab-registry`, `xtask`),
//! `cargo xtask new-lab tiny` writes `tiny-lab/` (at most eight files and 300 lines besides its
//! designs), whose own tests pass and which `cargo xtask bench --smoke` measures and reports as
//! it is. The real labs are left out of the copy only to keep the test's build short; nothing in
//! the copy names the new lab.
//!
//! The copy lives in `target/scratch-workspace/` with its own target directory (two checkouts
//! sharing one overwrite each other's artifacts); files are copied only when they changed, so a
//! second run rebuilds only what changed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Copies `from` into `to`, skipping `target/` directories, writing only files whose contents
/// differ (so cargo's fingerprints of unchanged files stay fresh), and removing what `from` no
/// longer has (a module moved from `x.rs` to `x/mod.rs` would otherwise be found twice).
fn sync(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != "target" {
                sync(&entry.path(), &to.join(entry.file_name()));
            }
        }
        for entry in std::fs::read_dir(to).unwrap() {
            let entry = entry.unwrap();
            let gone = !from.join(entry.file_name()).exists();
            if gone && entry.file_name() != "target" {
                let path = entry.path();
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).unwrap();
                } else {
                    std::fs::remove_file(&path).unwrap();
                }
            }
        }
    } else {
        let contents = std::fs::read(from).unwrap();
        if std::fs::read(to).ok().as_ref() != Some(&contents) {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, &contents).unwrap();
            let permissions = std::fs::metadata(from).unwrap().permissions();
            std::fs::set_permissions(to, permissions).unwrap();
        }
    }
}

#[test]
fn a_lab_crate_added_to_the_workspace_is_benchmarked_with_no_other_edit() {
    let root = root();
    let scratch = root.join("target/scratch-workspace");
    for part in [
        "Cargo.toml",
        "Cargo.lock",
        ".cargo",
        "labkit",
        "lab-registry",
        "xtask",
    ] {
        sync(&root.join(part), &scratch.join(part));
    }
    let lab = scratch.join("tiny-lab");
    let _ = std::fs::remove_dir_all(&lab);
    let cargo = |args: &[&str]| {
        let status = Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&scratch)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS")
            .status()
            .unwrap();
        assert!(status.success(), "cargo {}: {status}", args.join(" "));
    };
    // This build's driver writes it: the copy has no lab yet, so cargo cannot load it before.
    let status = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["new-lab", "tiny", "--into"])
        .arg(&scratch)
        .status()
        .unwrap();
    assert!(status.success(), "xtask new-lab tiny: {status}");
    let (files, lines) = skeleton(&lab);
    assert!(
        files <= 8 && lines <= 300,
        "{files} files, {lines} lines besides the designs"
    );
    cargo(&["test", "-p", "tiny-lab"]);
    // The pinned gungraun runner is shared rather than installed again.
    std::fs::create_dir_all(root.join(".tools")).unwrap();
    let tools = scratch.join(".tools");
    if !tools.exists() {
        std::os::unix::fs::symlink(root.join(".tools"), &tools).unwrap();
    }
    let out = scratch.join("out");
    let _ = std::fs::remove_dir_all(&out);
    cargo(&[
        "xtask",
        "bench",
        "--smoke",
        "--out-dir",
        out.to_str().unwrap(),
    ]);

    let set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tiny.json")).unwrap()).unwrap();
    assert_eq!(set["lab"], "tiny");
    let records = set["records"].as_array().unwrap();
    for implementation in ["btree-counter", "hash-counter"] {
        let of = |metric: &str| {
            records
                .iter()
                .filter(|r| {
                    let id = r["id"].as_str().unwrap_or_default();
                    id.split('/').nth(1) == Some(implementation) && r["metric"] == metric
                })
                .count()
        };
        // One record of each stage: allocations, instructions, wall time.
        for metric in ["allocs-per-op", "instructions-per-op", "ns-per-op"] {
            assert!(
                of(metric) > 0,
                "{implementation}: no {metric} in {records:?}"
            );
        }
    }
    let report = std::fs::read_to_string(out.join("tiny.md")).unwrap();
    assert!(report.contains("tiny"), "{report}");
    assert!(out.join("tiny-details.md").exists());
}

/// The files of the lab at `dir` besides its designs (`src/implementations/`), and their lines.
fn skeleton(dir: &Path) -> (usize, usize) {
    let mut found = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.ends_with("src/implementations") {
            continue;
        }
        if path.is_dir() {
            let (files, lines) = skeleton(&path);
            found = (found.0 + files, found.1 + lines);
        } else {
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            found = (found.0 + 1, found.1 + lines);
        }
    }
    found
}
