//! The JVM side's stage: the Maven module `jvm/` built once into `target/jvm/`, then every JMH
//! cell a lab's [`JvmBenchmarks`] lists run fork by fork (each pass one fork of every cell and of the
//! JVM baseline's A/A twin, in a seeded order of its own), and every JOL weighing once. What they
//! write becomes the lab's records ([`labkit_measure::jmh`]). Without a JDK of the release the lab
//! asks for, or without Maven, the JVM cells are not measured, the run says why and goes on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use labkit_measure::env::JvmRun;
use labkit_measure::jmh::{self, JmhRun};
use labkit_measure::lab::{Describe, JmhCell, JmhSettings, JvmBenchmarks, Selection, experiment};
use labkit_measure::record::{BenchId, Metric, Record, Role, RunMode, SLOWED_BY, combine_passes};
use labkit_measure::stats::Seeded;

use crate::shell::root;

/// A JDK: its home and feature release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    pub home: PathBuf,
    pub release: u32,
}

impl Jdk {
    pub fn java(&self) -> Command {
        Command::new(self.home.join("bin/java"))
    }
}

/// The feature release of the JDK at `home` (its `release` file's `JAVA_VERSION`), if it is one.
fn release_of(home: &Path) -> Option<u32> {
    if !home.join("bin/java").is_file() || !home.join("bin/javac").is_file() {
        return None;
    }
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let version = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    version.split(['.', '+', '-']).next()?.parse().ok()
}

/// The homes a JDK may be found in, in order: `JAVA_HOME`, the `java` on `PATH`, and each JDK
/// under `/usr/lib/jvm`.
fn candidate_homes() -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if let Ok(java) = std::fs::canonicalize(dir.join("java"))
                && let Some(home) = java.parent().and_then(Path::parent)
            {
                homes.push(home.to_path_buf());
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir("/usr/lib/jvm") {
        let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        found.sort();
        homes.extend(found);
    }
    homes
}

/// A JDK of feature release `release`, or why there is none.
pub fn find_jdk(release: u32) -> Result<Jdk, String> {
    candidate_homes()
        .into_iter()
        .find(|home| release_of(home) == Some(release))
        .map(|home| Jdk { home, release })
        .ok_or_else(|| {
            format!(
                "not measured: no JDK {release} (none in JAVA_HOME, on PATH or under /usr/lib/jvm; \
                 `apt-get install openjdk-{release}-jdk-headless` installs one)"
            )
        })
}

/// The built module: the classpath of its classes and dependencies, and JOL's version.
#[derive(Debug, Clone)]
pub struct Module {
    pub classpath: String,
    pub jol: String,
}

/// The module built once per process (Maven fetches JMH and JOL into its local repository the
/// first time), or why it could not be.
pub fn module() -> Result<&'static Module, String> {
    static BUILT: OnceLock<Result<Module, String>> = OnceLock::new();
    BUILT
        .get_or_init(build_module)
        .as_ref()
        .map_err(Clone::clone)
}

fn build_module() -> Result<Module, String> {
    let maven = Command::new("mvn").arg("-v").output();
    if !maven.is_ok_and(|o| o.status.success()) {
        return Err(
            "not measured: no Maven (`mvn` not found on PATH; `apt-get install maven` \
                    installs it)"
                .into(),
        );
    }
    // Any JDK of release 17 or later compiles the module (`--release 17`).
    let jdk = find_jdk(17).or_else(|_| find_jdk(25))?;
    println!("==> building the JVM side (jvm/pom.xml) with Maven");
    let out = Command::new("mvn")
        .args(["-q", "-B", "-Dstyle.color=never", "-f"])
        .arg(root().join("jvm/pom.xml"))
        .arg("package")
        .env("JAVA_HOME", &jdk.home)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run Maven: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the JVM side does not build: {}",
            last_lines(&out.stdout, &out.stderr, 8)
        ));
    }
    let target = root().join("target/jvm");
    let jol = std::fs::read_dir(target.join("lib"))
        .map_err(|e| format!("the built module has no lib/: {e}"))?
        .flatten()
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            Some(
                name.strip_prefix("jol-core-")?
                    .strip_suffix(".jar")?
                    .to_owned(),
            )
        })
        .ok_or("the built module has no JOL jar")?;
    Ok(Module {
        classpath: format!(
            "{}:{}",
            target.join("classes").display(),
            target.join("lib/*").display()
        ),
        jol,
    })
}

/// The last `n` lines a failed command wrote, stdout then stderr, joined for one error line.
fn last_lines(stdout: &[u8], stderr: &[u8], n: usize) -> String {
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    );
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" / ")
}

/// One fork of `cell` with `settings`, its result written to `out`.
fn fork(
    jdk: &Jdk,
    module: &Module,
    cell: &JmhCell,
    settings: &JmhSettings,
    out: &Path,
) -> Result<JmhRun> {
    let _ = std::fs::remove_file(out);
    let mut cmd = jdk.java();
    cmd.arg("-cp")
        .arg(&module.classpath)
        .arg("org.openjdk.jmh.Main")
        .arg(format!("^{}$", cell.benchmark.replace('.', "\\.")));
    for (name, value) in &cell.params {
        cmd.args(["-p", &format!("{name}={value}")]);
    }
    if let Some(threads) = cell.threads {
        cmd.args(["-t", &threads.to_string()]);
    }
    cmd.args([
        "-f", "1", "-foe", "true", "-prof", "gc", "-rf", "json", "-rff",
    ])
    .arg(out)
    .args(["-wi", &settings.warmup_iterations.to_string()])
    .args(["-w", &format!("{}ms", settings.warmup_ms)])
    .args(["-i", &settings.iterations.to_string()])
    .args(["-r", &format!("{}ms", settings.iteration_ms)]);
    let ran = cmd
        .current_dir(root())
        .output()
        .context("cannot start java")?;
    if !ran.status.success() {
        bail!(
            "JMH failed ({}): {}",
            ran.status,
            last_lines(&ran.stdout, &ran.stderr, 6)
        );
    }
    let json =
        std::fs::read_to_string(out).with_context(|| format!("JMH wrote no {}", out.display()))?;
    match jmh::parse(&json).map_err(anyhow::Error::msg)?.pop() {
        Some(run) => Ok(run),
        None => bail!("JMH's result file names no benchmark"),
    }
}

/// One JOL weighing's bytes.
fn weigh(jdk: &Jdk, module: &Module, main: &str, args: &[String]) -> Result<f64> {
    let ran = jdk
        .java()
        .arg("-Djdk.attach.allowAttachSelf=true")
        .arg("-cp")
        .arg(&module.classpath)
        .arg(main)
        .args(args)
        .current_dir(root())
        .output()
        .context("cannot start java")?;
    if !ran.status.success() {
        bail!(
            "{main} failed ({}): {}",
            ran.status,
            last_lines(&ran.stdout, &ran.stderr, 4)
        );
    }
    jmh::weighed(&String::from_utf8_lossy(&ran.stdout)).map_err(anyhow::Error::msg)
}

/// What the JVM stage produced: records, the cells that failed, and what ran (or why nothing did).
pub struct JvmOutcome {
    pub records: Vec<Record>,
    pub failures: Vec<String>,
    pub run: Result<JvmRun, String>,
}

/// A JMH cell as one pass measures it: the id it gives records to, and the cell.
type Measured<'a> = (BenchId, &'a JmhCell);

/// The cells of `side` that `selection` keeps, each baseline cell also as its A/A twin (unless it
/// is measured for its allocation alone).
fn chosen_cells<'a>(side: &'a JvmBenchmarks, selection: &Selection) -> Vec<Measured<'a>> {
    let baseline = side.designs[0];
    let mut chosen = Vec::new();
    for cell in &side.cells {
        let id = cell.case().id(cell.design);
        if !selection.selects(&id) {
            continue;
        }
        if cell.design == baseline && cell.twin {
            chosen.push((id.with_role(Role::Twin), cell));
        }
        chosen.push((id, cell));
    }
    chosen
}

/// The order of one pass: its cases in a seeded order, each case's cells together (so a row's
/// arms and twin share the same minutes of the machine), in a seeded order within the case.
fn pass_order<'a>(cells: &[Measured<'a>], seed: u64) -> Vec<Measured<'a>> {
    let mut rng = Seeded::new(seed);
    let mut cases: Vec<String> = Vec::new();
    for (id, _) in cells {
        let case = format!("{}/{}", id.experiment, id.parameter);
        if !cases.contains(&case) {
            cases.push(case);
        }
    }
    rng.shuffle(&mut cases);
    let mut order = Vec::with_capacity(cells.len());
    for case in cases {
        let mut of_case: Vec<Measured<'a>> = cells
            .iter()
            .filter(|(id, _)| format!("{}/{}", id.experiment, id.parameter) == case)
            .cloned()
            .collect();
        rng.shuffle(&mut of_case);
        order.extend(of_case);
    }
    order
}

/// The JVM stage of `lab` in `mode`, on what `selection` keeps, `passes` forks of each cell.
pub fn measure(
    lab: &dyn Describe,
    mode: RunMode,
    selection: &Selection,
    passes: usize,
    work: &Path,
) -> Option<JvmOutcome> {
    let side = lab.jvm()?;
    let jdk = match find_jdk(side.jdk) {
        Ok(jdk) => jdk,
        Err(why) => return Some(not_measured(lab, why)),
    };
    let module = match module() {
        Ok(module) => module,
        Err(why) => return Some(not_measured(lab, why)),
    };
    let settings = jmh::settings(side.published, mode, passes as u32);
    let cells = chosen_cells(&side, selection);
    let dir = work.join("jmh");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Some(not_measured(
            lab,
            format!("cannot create {}: {e}", dir.display()),
        ));
    }
    let seed = crate::wall_time::run_seed();
    let mut failures = Vec::new();
    let mut failed: Vec<BenchId> = Vec::new();
    let mut pass_records: Vec<Vec<Record>> = Vec::new();
    let mut iterations: BTreeMap<BenchId, Vec<f64>> = BTreeMap::new();
    let mut vm: Option<JmhRun> = None;
    for pass in 0..settings.forks as usize {
        let started = Instant::now();
        let order = pass_order(&cells, seed + pass as u64);
        let mut records = Vec::new();
        for (id, cell) in order {
            if failed.contains(&id) {
                continue;
            }
            let throughput = experiment(lab, &id.experiment).is_ok_and(|e| e.reports_throughput());
            let out = dir.join(format!(
                "{}-{}-{}.json",
                id.experiment,
                id.cell_name(),
                id.parameter
            ));
            match fork(&jdk, module, cell, &settings, &out) {
                Ok(run) => {
                    records.extend(run.records(&id, throughput));
                    iterations.entry(id).or_default().extend(&run.iterations);
                    vm.get_or_insert(run);
                }
                Err(e) => {
                    failures.push(format!("{id}: {e:#}"));
                    failed.push(id);
                }
            }
        }
        pass_records.push(records);
        println!(
            "==> [{}] JVM pass {}/{}: {} forks in {:.0} s",
            lab.name(),
            pass + 1,
            settings.forks,
            cells.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let mut records: Vec<Record> = combine_passes(&pass_records)
        .into_iter()
        .filter(|r| !failed.contains(&r.id))
        .map(|r| match r.metric {
            // An allocation count: the forks' median, compared by value as the Rust ones are.
            Metric::BytesPerOp => Record::new(r.id, r.metric, r.value),
            _ => r,
        })
        .collect();
    records.extend(slowed_twins(&records));
    records.extend(
        iterations
            .iter()
            .filter(|(id, _)| !failed.contains(id))
            .filter_map(|(id, all)| {
                jmh::error(all).map(|error| Record::new(id.clone(), Metric::JmhErrorNs, error))
            }),
    );
    let mut weighed_mains: Vec<(&str, &str)> = Vec::new();
    for weighing in &side.weighings {
        let id = BenchId::new(weighing.experiment, weighing.design, &weighing.parameter);
        if !selection.selects(&id) {
            continue;
        }
        // A smoke run proves each weighing runs: one case of each design's main class.
        let main = (weighing.design, weighing.main.as_str());
        if mode == RunMode::Smoke && weighed_mains.contains(&main) {
            continue;
        }
        weighed_mains.push(main);
        match weigh(&jdk, module, &weighing.main, &weighing.args) {
            Ok(bytes) => records.push(Record::new(id, Metric::RetainedBytes, bytes)),
            Err(e) => failures.push(format!("{id}: {e:#}")),
        }
    }
    let run = JvmRun {
        vm: vm
            .as_ref()
            .map_or_else(|| format!("JDK {}", side.jdk), |r| r.jvm.vm.clone()),
        jdk_reason: side.jdk_reason.clone(),
        jmh: vm
            .as_ref()
            .map_or_else(String::new, |r| r.jvm.jmh_version.clone()),
        jol: module.jol.clone(),
        flags: vm.map(|r| r.jvm.flags).unwrap_or_default(),
        settings: format!("{}, one in each pass", settings.describe()),
        published: side.published.describe(),
    };
    Some(JvmOutcome {
        records,
        failures,
        run: Ok(run),
    })
}

/// The JVM side not measured, for `why`, said once.
fn not_measured(lab: &dyn Describe, why: String) -> JvmOutcome {
    println!("==> [{}] JVM side {why}", lab.name());
    JvmOutcome {
        records: Vec::new(),
        failures: Vec::new(),
        run: Err(why),
    }
}

/// The slowed twins of every A/A twin's time: its passes lengthened by each share of
/// [`SLOWED_BY`], like a design that much slower with the baseline's own variation.
fn slowed_twins(records: &[Record]) -> Vec<Record> {
    let mut slowed = Vec::new();
    for record in records.iter().filter(|r| r.id.role == Role::Twin) {
        let Some(passes) = &record.passes else {
            continue;
        };
        for percent in SLOWED_BY {
            let factor = 1.0 + f64::from(percent) / 100.0;
            let scaled: Vec<f64> = match record.metric {
                Metric::NsPerOp => passes.iter().map(|v| v * factor).collect(),
                Metric::OpsPerSec => passes.iter().map(|v| v / factor).collect(),
                _ => continue,
            };
            let id = record.id.with_role(Role::Slowed(percent));
            slowed.push(Record::from_passes(id, record.metric, scaled));
        }
    }
    slowed
}

/// Each check main of every lab's JVM side, run on the lab's JDK: exits 0 when every check passes.
pub fn run_checks(labs: &[crate::labs::LabRef]) -> Result<()> {
    for lab in labs {
        let Some(side) = lab.jvm() else { continue };
        let (jdk, module) = match (find_jdk(side.jdk), module()) {
            (Ok(jdk), Ok(module)) => (jdk, module),
            (Err(why), _) | (_, Err(why)) => {
                println!("==> [{}] JVM checks skipped: {why}", lab.name());
                continue;
            }
        };
        for main in &side.checks {
            let ran = jdk
                .java()
                .arg("-cp")
                .arg(&module.classpath)
                .arg(main)
                .current_dir(root())
                .output()?;
            if !ran.status.success() {
                bail!(
                    "{}: {main} failed: {}",
                    lab.name(),
                    last_lines(&ran.stdout, &ran.stderr, 4)
                );
            }
            println!("==> [{}] {main} passed on JDK {}", lab.name(), jdk.release);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit_measure::stats::median;

    #[test]
    fn a_jdk_home_tells_its_release_from_its_release_file() {
        let home = std::env::temp_dir().join(format!("xtask-jdk-{}", std::process::id()));
        std::fs::create_dir_all(home.join("bin")).unwrap();
        assert_eq!(release_of(&home), None, "no java");
        for tool in ["java", "javac"] {
            std::fs::write(home.join("bin").join(tool), "").unwrap();
        }
        std::fs::write(
            home.join("release"),
            "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25.0.1\"\n",
        )
        .unwrap();
        assert_eq!(release_of(&home), Some(25));
        std::fs::write(home.join("release"), "JAVA_VERSION=\"17\"\n").unwrap();
        assert_eq!(release_of(&home), Some(17));
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn a_missing_release_says_how_to_get_one() {
        let why = find_jdk(3).unwrap_err();
        assert!(why.starts_with("not measured: no JDK 3"), "{why}");
        assert!(why.contains("openjdk-3-jdk-headless"), "{why}");
    }

    #[test]
    fn a_pass_runs_each_case_s_cells_together_in_a_seeded_order() {
        let cell = JmhCell::new(("op", "small"), "jvm-old", "b.B.m");
        let cells: Vec<Measured<'_>> = ["small", "large", "huge"]
            .iter()
            .flat_map(|p| {
                ["jvm-old", "jvm-new"]
                    .map(|d| (BenchId::new("op", d, p), &cell))
                    .into_iter()
                    .chain(std::iter::once((
                        BenchId::new("op", "jvm-old", p).with_role(Role::Twin),
                        &cell,
                    )))
            })
            .collect();
        let order = pass_order(&cells, 7);
        assert_eq!(order.len(), cells.len());
        let parameters: Vec<&str> = order.iter().map(|(id, _)| id.parameter.as_str()).collect();
        for chunk in parameters.chunks(3) {
            assert!(chunk.iter().all(|p| *p == chunk[0]), "{parameters:?}");
        }
        assert_eq!(
            pass_order(&cells, 7),
            order,
            "the same seed, the same order"
        );
        let orders: std::collections::BTreeSet<Vec<String>> = (0..8)
            .map(|seed| {
                pass_order(&cells, seed)
                    .iter()
                    .map(|(id, _)| id.to_string())
                    .collect()
            })
            .collect();
        assert!(orders.len() > 1, "seeds draw other orders");
    }

    #[test]
    fn slowed_twins_lengthen_the_twins_passes_only() {
        let twin = BenchId::new("op", "jvm-old", "small").with_role(Role::Twin);
        let records = [
            Record::from_passes(twin.clone(), Metric::NsPerOp, vec![100.0; 8]),
            Record::from_passes(twin.clone(), Metric::OpsPerSec, vec![1e7; 8]),
            Record::new(twin, Metric::BytesPerOp, 24.0),
            Record::from_passes(
                BenchId::new("op", "jvm-old", "small"),
                Metric::NsPerOp,
                vec![100.0; 8],
            ),
        ];
        let slowed = slowed_twins(&records);
        assert_eq!(slowed.len(), 4);
        let ten = slowed
            .iter()
            .find(|r| r.id.role == Role::Slowed(10) && r.metric == Metric::NsPerOp)
            .unwrap();
        assert!((median(ten.passes.as_ref().unwrap()) - 110.0).abs() < 1e-9);
    }
}
