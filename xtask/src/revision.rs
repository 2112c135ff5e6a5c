//! `cargo xtask compare --rev REV`: an implementation at another git revision against this
//! checkout, interleaved sample by sample across two processes.
//!
//! The revision is checked out as a git worktree under `target/lab/revisions/` and built into
//! its own `target/`; each side's `compare` binary then serves samples (`labkit::sampling`), and
//! the driver asks A, B, B, A, … as the in-process comparison does, so drift on a shared machine
//! hits both sides alike, in rounds of fresh processes.

use std::cell::RefCell;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use labkit::paired::{estimate_rounds, interleave, paired_records, rounds_for};
use labkit::record::{Record, RunMode};
use labkit::sampling::SampleClient;

use crate::build::BenchBinaries;
use crate::labs::Lab;
use crate::{root, run};

/// Output of `git <args>` in this checkout.
fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A revision checked out beside this one.
pub struct Checkout {
    pub dir: PathBuf,
    /// Short commit id, for labels.
    pub short: String,
}

/// `rev` checked out (once) as a detached worktree under `target/lab/revisions/<commit>`.
pub fn checkout(rev: &str) -> Result<Checkout, String> {
    let commit = git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .map_err(|_| format!("`{rev}` is not a git revision of this repository"))?;
    let short = git(&["rev-parse", "--short", &commit])?;
    let dir = root().join("target/lab/revisions").join(&commit);
    if !dir.join("Cargo.toml").exists() {
        // A worktree directory removed by hand is still registered until pruned.
        git(&["worktree", "prune"])?;
        eprintln!("==> checking out {short} into {}", dir.display());
        run(Command::new("git")
            .args(["worktree", "add", "--detach"])
            .arg(&dir)
            .arg(&commit))?;
    }
    Ok(Checkout { dir, short })
}

/// One side's `compare --serve` process.
struct Server {
    child: Child,
    client: SampleClient<ChildStdin, BufReader<ChildStdout>>,
}

impl Server {
    fn spawn(
        binaries: &BenchBinaries,
        lab: &Lab,
        implementation: &str,
        name: &str,
    ) -> Result<Self, String> {
        let mut child = binaries
            .command(lab, "compare")?
            .args(["--serve", implementation])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {name}'s compare binary: {e}"))?;
        let requests = child.stdin.take().expect("stdin is piped");
        let replies = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Ok(Self {
            child,
            client: SampleClient::new(name, requests, replies),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A server keeps no results, so it is stopped outright (and one that already exited is
        // only reaped).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One side of a comparison: an implementation in one build, and its column label.
pub struct Side<'a> {
    pub binaries: &'a BenchBinaries,
    pub implementation: &'a str,
    pub label: String,
}

/// Paired records of side `a` against side `b` on the cases `names` select (as `b`'s build names
/// them); cases `a`'s build does not know are skipped.
pub fn compare_across(
    lab: &Lab,
    mode: RunMode,
    a: &Side,
    b: &Side,
    names: &[String],
) -> Result<Vec<Record>, String> {
    let spawn = |side: &Side| Server::spawn(side.binaries, lab, side.implementation, &side.label);
    spawn(a)?.client.cases(&[]).map_err(|e| {
        format!(
            "{e}\n(revisions older than the `compare --serve` sampling protocol cannot be compared)"
        )
    })?;
    let cases = spawn(b)?.client.cases(names)?;
    let (rounds, pairs) = rounds_for(mode);
    let mut records = Vec::new();
    'cases: for case in cases {
        eprintln!("compare: {case}: {} vs {}", a.label, b.label);
        let mut samples = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            // Fresh processes each round: each lands differently in memory (ASLR, heap), and
            // that spread belongs in the interval.
            let (mut side_a, mut side_b) = (spawn(a)?, spawn(b)?);
            if let Err(e) = side_a.client.open(&case) {
                eprintln!("compare: {case} skipped: {e}");
                continue 'cases;
            }
            side_b.client.open(&case)?;
            let failure = RefCell::new(None);
            let sample = |client: &mut SampleClient<_, _>| {
                client.sample().unwrap_or_else(|e| {
                    failure.borrow_mut().get_or_insert(e);
                    f64::NAN
                })
            };
            samples.push(interleave(
                pairs,
                || sample(&mut side_a.client),
                || sample(&mut side_b.client),
            ));
            if let Some(e) = failure.into_inner() {
                return Err(e);
            }
        }
        let estimate = estimate_rounds(&samples).ok_or("fewer than 6 rounds")?;
        records.extend(paired_records(
            &case.experiment,
            &a.label,
            &b.label,
            &case.parameter,
            &estimate,
        ));
    }
    Ok(records)
}
