//! `cargo xtask compare --rev REV`: an implementation at another git revision against this
//! checkout, interleaved sample by sample across two processes.
//!
//! The revision is checked out as a git worktree under `target/lab/revisions/` and built into its
//! own `target/`; each side's `compare` binary then serves samples (`labkit_measure::sampling`),
//! and the driver asks A, B, B, A, … as the in-process comparison does, so drift on a shared
//! machine hits both sides alike, in rounds of fresh processes.

use std::cell::RefCell;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, anyhow, bail};
use labkit_measure::lab::Describe;
use labkit_measure::paired::{PairSide, estimate_rounds, paired_records, rounds_for, run_rounds};
use labkit_measure::record::{Record, RunMode};
use labkit_measure::sampling::SampleClient;

use crate::binaries::BenchBinaries;
use crate::shell::{root, run};

/// Output of `git <args>` in this checkout.
fn git(args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root())
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A revision checked out beside this one.
pub struct Checkout {
    pub dir: PathBuf,
    /// Short commit id, for labels.
    pub short: String,
}

/// `rev` checked out (once) as a detached worktree under `target/lab/revisions/<commit>`, after
/// checking that it has `lab`.
pub fn checkout(rev: &str, lab: &dyn Describe) -> Result<Checkout> {
    let commit = git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .map_err(|_| anyhow!("`{rev}` is not a git revision of this repository"))?;
    let manifest = format!("{commit}:{}/Cargo.toml", lab.package());
    if git(&["cat-file", "-e", &manifest]).is_err() {
        bail!(
            "revision `{rev}` has no {} (no {}/Cargo.toml)",
            lab.name(),
            lab.package()
        );
    }
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
        lab: &dyn Describe,
        implementation: &str,
        name: &str,
    ) -> Result<Self> {
        let mut child = binaries
            .command(lab, "compare")?
            .args(["--serve", implementation])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {name}'s compare binary"))?;
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

/// Why a side could not be opened on a case: its build does not know the case (skipped), or
/// anything else (an error).
enum Open {
    Skipped(String),
    Failed(anyhow::Error),
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
    lab: &dyn Describe,
    mode: RunMode,
    a: &Side,
    b: &Side,
    names: &[String],
) -> Result<Vec<Record>> {
    let spawn = |side: &Side| Server::spawn(side.binaries, lab, side.implementation, &side.label);
    spawn(a)?.client.cases(&[]).map_err(|e| {
        anyhow!(
            "{e}\n(revisions older than the `compare --serve` sampling protocol cannot be compared)"
        )
    })?;
    let cases = spawn(b)?.client.cases(names).map_err(|e| anyhow!(e))?;
    let (rounds, pairs) = rounds_for(mode);
    let mut records = Vec::new();
    'cases: for case in cases {
        eprintln!("compare: {case}: {} vs {}", a.label, b.label);
        // Fresh processes each round: each lands differently in memory (ASLR, heap), and that
        // spread belongs in the interval. A case side A's build does not know is skipped.
        let failure = RefCell::new(None);
        let opened = run_rounds(
            rounds,
            pairs,
            |side| -> Result<Server, Open> {
                let (which, skips) = match side {
                    PairSide::A => (a, true),
                    PairSide::B => (b, false),
                };
                let mut server = spawn(which).map_err(Open::Failed)?;
                match server.client.open(&case) {
                    Ok(()) => Ok(server),
                    Err(e) if skips => Err(Open::Skipped(e)),
                    Err(e) => Err(Open::Failed(anyhow!(e))),
                }
            },
            |server: &mut Server| {
                server.client.sample().unwrap_or_else(|e| {
                    failure.borrow_mut().get_or_insert(e);
                    f64::NAN
                })
            },
        );
        let samples = match opened {
            Ok(samples) => samples,
            Err(Open::Skipped(e)) => {
                eprintln!("compare: {case} skipped: {e}");
                continue 'cases;
            }
            Err(Open::Failed(e)) => return Err(e),
        };
        if let Some(e) = failure.into_inner() {
            bail!(e);
        }
        let estimate = estimate_rounds(&samples).ok_or_else(|| anyhow!("fewer than 6 rounds"))?;
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
