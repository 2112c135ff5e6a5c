//! A new lab is one crate and no edit anywhere else: a copy of the workspace's kit and driver
//! (`Cargo.toml`, `Cargo.lock`, `.cargo/`, `labkit`, `lab-registry`, `xtask`), plus the crate in
//! `tests/scratch-lab/` as `tiny-lab/`, runs `cargo xtask bench --smoke` and writes that lab's
//! results and report. The real labs are left out of the copy only to keep the test's build
//! short; nothing in the copy names the new lab.
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
    sync(
        &root.join("xtask/tests/scratch-lab"),
        &scratch.join("tiny-lab"),
    );
    // The pinned gungraun runner is shared rather than installed again.
    std::fs::create_dir_all(root.join(".tools")).unwrap();
    let tools = scratch.join(".tools");
    if !tools.exists() {
        std::os::unix::fs::symlink(root.join(".tools"), &tools).unwrap();
    }
    let out = scratch.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO"))
        .args(["xtask", "bench", "--smoke", "--out-dir"])
        .arg(&out)
        .current_dir(&scratch)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .status()
        .unwrap();
    assert!(status.success(), "cargo xtask bench --smoke: {status}");

    let set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tiny.json")).unwrap()).unwrap();
    assert_eq!(set["lab"], "tiny");
    let records = set["records"].as_array().unwrap();
    for implementation in ["base", "fast"] {
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
