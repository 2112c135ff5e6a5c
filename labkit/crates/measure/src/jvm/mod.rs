//! Designs written in Java, measured on the JVM beside the Rust ones: the originals of the Java
//! structures a lab's source write-up measured, so an answer about a Java PR rests on the JVM.
//!
//! A lab lists its JVM designs in its description ([`crate::lab::Describe::jvm_designs`]: the JVM
//! baseline first, the JVM harness floor last) and hands the kit its Java sources
//! ([`crate::lab::Lab::jvm_sources`]: a class implementing `labkit.JvmLab`). The kit compiles them
//! once with the JDK's `javac`, beside the kit's own harness (`labkit/jvm/labkit/*.java`), and runs
//! **one JVM per design** and per fork in each measuring process (JMH's forks: a JIT profile shared
//! between designs would bias them; the A/A twin of the JVM baseline is a fork of its own). Each
//! JVM is driven over a line protocol (`labkit.Harness`): it opens a case by its name, warms it
//! up until the JIT is quiet the first time (the rule is the harness's), and runs what the Rust
//! side asks, so the JVM's cells are calibrated, interleaved with the Rust ones in seeded order
//! and sampled exactly as theirs, and give ordinary records.
//!
//! Without a JDK on `PATH` ([`jdk`]), JVM designs are not measured and say so; a source that does
//! not compile or a JVM that dies is one error naming the design and the JVM's own message.

mod process;
mod trace;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::lab::{BenchCase, JvmSources, Lab, Runner, Window};
use crate::record::{EventName, RunMode};

pub use process::{JVM_FLAGS, Jvm};
pub use trace::Trace;

/// The kit's own Java sources: the harness every lab's JVM side runs under.
const KIT_SOURCES: [(&str, &str); 8] = [
    (
        "labkit/Case.java",
        include_str!("../../jvm/labkit/Case.java"),
    ),
    (
        "labkit/Harness.java",
        include_str!("../../jvm/labkit/Harness.java"),
    ),
    (
        "labkit/JvmLab.java",
        include_str!("../../jvm/labkit/JvmLab.java"),
    ),
    (
        "labkit/Sample.java",
        include_str!("../../jvm/labkit/Sample.java"),
    ),
    (
        "labkit/Sink.java",
        include_str!("../../jvm/labkit/Sink.java"),
    ),
    (
        "labkit/TimedThreads.java",
        include_str!("../../jvm/labkit/TimedThreads.java"),
    ),
    (
        "labkit/Trace.java",
        include_str!("../../jvm/labkit/Trace.java"),
    ),
    (
        "labkit/TracedCalls.java",
        include_str!("../../jvm/labkit/TracedCalls.java"),
    ),
];

/// A lab's [`JvmSources`]: its `labkit.JvmLab` class and the other Java files of its package,
/// each under the lab crate's `jvm/<package>/` and included in the binary:
/// `labkit::jvm_sources!(dedup: DedupLab; Dedup Monitor)` is `dedup.DedupLab` with
/// `jvm/dedup/DedupLab.java`, `jvm/dedup/Dedup.java` and `jvm/dedup/Monitor.java`.
#[macro_export]
macro_rules! jvm_sources {
    ($package:ident: $lab_class:ident; $($file:ident)*) => {
        $crate::lab::JvmSources {
            lab_class: concat!(stringify!($package), ".", stringify!($lab_class)),
            files: &[
                $crate::jvm_sources!(@file $package $lab_class),
                $($crate::jvm_sources!(@file $package $file)),*
            ],
        }
    };
    (@file $package:ident $file:ident) => {
        (
            concat!(stringify!($package), "/", stringify!($file), ".java"),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"), "/jvm/", stringify!($package), "/", stringify!($file), ".java"
            )),
        )
    };
}

/// The JDK on `PATH` (`java` and `javac`), looked up once: the runtime `java -version` names, or
/// what is missing and how to get it ([`crate::env::jvm_runtime`]).
pub fn jdk() -> Result<&'static str, String> {
    static JDK: OnceLock<Result<String, String>> = OnceLock::new();
    JDK.get_or_init(|| crate::env::jvm_runtime(None))
        .as_deref()
        .map_err(Clone::clone)
}

/// Whether JVM cases warm up by the full rule (measuring runs) or with one operation (tests and
/// smoke runs, which only prove the pipeline).
static FULL_WARM_UP: AtomicBool = AtomicBool::new(false);

/// Sets how the JVMs this process starts from now on warm up their cases: by the harness's rule
/// in full and quick runs, one operation in smoke runs (the default, for tests).
pub fn warm_up_for(mode: RunMode) {
    FULL_WARM_UP.store(mode != RunMode::Smoke, Ordering::Relaxed);
}

/// The sources of `lab`'s JVM side compiled, once per process and content: the directory of their
/// classes, kept under this executable's directory (`target/…/jvm-<hash>`), or what `javac` said.
fn classes(sources: &JvmSources) -> Result<PathBuf, String> {
    static COMPILED: std::sync::Mutex<Vec<(u64, Result<PathBuf, String>)>> =
        std::sync::Mutex::new(Vec::new());
    let files: Vec<(&str, &str)> = KIT_SOURCES
        .iter()
        .copied()
        .chain(sources.files.iter().copied())
        .collect();
    let mut hash = Trace::new(u64::MAX);
    for (path, text) in &files {
        hash.text(path).text(text).op(0, &[]);
    }
    let key = hash.checksum();
    let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, done)) = compiled.iter().find(|(k, _)| *k == key) {
        return done.clone();
    }
    let done = compile(&files, key);
    compiled.push((key, done.clone()));
    done
}

/// Writes `files` out and compiles them into `jvm-<key>/` beside this executable; another process
/// compiling the same sources at once is harmless (each compiles into a directory of its own,
/// and the first rename wins).
fn compile(files: &[(&str, &str)], key: u64) -> Result<PathBuf, String> {
    jdk()?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let dir = exe
        .parent()
        .ok_or("this executable has no directory")?
        .join(format!("jvm-{key:016x}"));
    let classes = dir.join("classes");
    if classes.is_dir() {
        return Ok(classes);
    }
    let work = dir.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let written: Result<Vec<PathBuf>, std::io::Error> = files
        .iter()
        .map(|(path, text)| {
            let file = work.join("src").join(path);
            std::fs::create_dir_all(file.parent().expect("a source file has a directory"))?;
            std::fs::write(&file, text)?;
            Ok(file)
        })
        .collect();
    let written = written.map_err(|e| format!("cannot write the Java sources: {e}"))?;
    let out = Command::new("javac")
        .args(["-encoding", "UTF-8", "--release", "17", "-d"])
        .arg(work.join("classes"))
        .args(&written)
        .output()
        .map_err(|e| format!("cannot run javac: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&work);
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "the JVM designs' sources do not compile: {}",
            said.lines().take(3).collect::<Vec<_>>().join(" / ")
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if std::fs::rename(work.join("classes"), &classes).is_err() && !classes.is_dir() {
        return Err(format!(
            "cannot move the classes into {}",
            classes.display()
        ));
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(classes)
}

/// Which JVM of a design a cell runs on: the design's own, or a second fork for its A/A twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fork {
    First,
    Twin,
}

/// The JVM of `design` (and `fork`) in this process, started (and its sources compiled) the first
/// time.
fn jvm_of(lab: &dyn Lab, design: &str, fork: Fork) -> Result<std::sync::Arc<Jvm>, String> {
    let sources = lab
        .jvm_sources()
        .ok_or_else(|| format!("{}: `{design}` is a JVM design with no sources", lab.name()))?;
    let classes = classes(&sources)?;
    process::started(
        &classes,
        sources.lab_class,
        design,
        fork,
        FULL_WARM_UP.load(Ordering::Relaxed),
    )
}

/// `design` opened on `case` in its JVM (`fork`): what [`crate::measure`] runs for a JVM design.
pub fn open(
    lab: &dyn Lab,
    design: &str,
    fork: Fork,
    case: &BenchCase,
) -> Result<Box<dyn Runner>, String> {
    let jvm = jvm_of(lab, design, fork)?;
    let handle = jvm.open(case)?;
    Ok(Box::new(JvmRunner { jvm, handle }))
}

/// The checksum of the first `n` operations the JVM side issues on `case`, to compare with the
/// Rust side's ([`Trace`]).
pub fn trace(lab: &dyn Lab, case: &BenchCase, n: u64) -> Result<u64, String> {
    let design = lab
        .jvm_designs()
        .first()
        .copied()
        .ok_or_else(|| format!("{} has no JVM designs", lab.name()))?;
    jvm_of(lab, design, Fork::First)?.trace(case, n)
}

/// Runs the JVM side's correctness checks of `design` (`labkit.JvmLab.check`).
pub fn check(lab: &dyn Lab, design: &str) -> Result<(), String> {
    jvm_of(lab, design, Fork::First)?.check()
}

/// One open case in a JVM.
struct JvmRunner {
    jvm: std::sync::Arc<Jvm>,
    handle: u64,
}

impl Runner for JvmRunner {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        window.open();
        let ran = self.jvm.run(self.handle, warm_up, ops);
        window.close();
        match ran {
            Ok(done) => {
                for (name, n) in &done.events {
                    match EventName::try_new(name) {
                        Some(event) => window.count(event, *n),
                        None => window.failed(format!("event name `{name}` is too long")),
                    }
                }
                window.heap_measured(done.heap);
                Duration::from_nanos(done.nanos)
            }
            Err(e) => {
                window.failed(e);
                Duration::ZERO
            }
        }
    }
}

impl Drop for JvmRunner {
    fn drop(&mut self) {
        self.jvm.close(self.handle);
    }
}

#[cfg(test)]
mod tests;
