//! Building the measurement binaries once and running them directly.
//!
//! `cargo bench -p <lab>` per stage would resolve features for that one package, which differ
//! from a build of every lab (the labs' dev-dependencies enable different features of shared
//! crates), so switching labs silently rebuilt both lab crates. The driver instead builds every
//! lab's benches in one `cargo bench --no-run` and runs the executables it reports.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow, bail};
use labkit_measure::lab::Describe;

use crate::shell::{cargo, output, root, run};

/// The gungraun version the workspace pins (`gungraun = { version = "=X.Y.Z", ... }` or
/// `gungraun = "=X.Y.Z"`), which the runner must equal.
fn pinned_gungraun() -> Result<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml"))
        .context("cannot read the workspace Cargo.toml")?;
    pinned_version(&manifest, "gungraun").ok_or_else(|| {
        anyhow!("the workspace Cargo.toml does not pin gungraun to an exact version (\"=X.Y.Z\")")
    })
}

/// The exact version (`"=X.Y.Z"`) a manifest's `name = ...` dependency line pins.
fn pinned_version(manifest: &str, name: &str) -> Option<String> {
    let line = manifest.lines().find(|l| {
        l.strip_prefix(name)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    })?;
    let (_, after) = line.split_once("\"=")?;
    after.split('"').next().map(str::to_owned)
}

/// `.tools/bin/gungraun-runner` at the pinned version, installed from crates.io when missing.
pub fn gungraun_runner() -> Result<PathBuf> {
    let version = pinned_gungraun()?;
    let tools = root().join(".tools");
    let runner = tools.join("bin/gungraun-runner");
    let installed = Command::new(&runner)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&version));
    if !installed {
        eprintln!("==> installing gungraun-runner {version} into .tools/ (once; about 1.5 min)");
        run(cargo()
            .args([
                "install",
                "gungraun-runner",
                "--locked",
                "--force",
                "--version",
                &version,
                "--root",
            ])
            .arg(&tools))?;
    }
    Ok(runner)
}

/// Every tool the labs declare (`Describe::tools`), installed into `.tools/` at its pinned
/// version when missing; the directory lab binaries and tests find them in (`LABKIT_TOOLS`).
pub fn lab_tools(labs: &[&dyn Describe]) -> Result<PathBuf> {
    let tools = root().join(".tools");
    for tool in labs.iter().flat_map(|lab| lab.tools()) {
        let binary = tools.join("bin").join(&tool.binary);
        let installed = Command::new(&binary)
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&tool.version));
        if !installed {
            eprintln!(
                "==> installing {} {} into .tools/ (once; a few minutes)",
                tool.package, tool.version
            );
            run(cargo()
                .args(["install", &tool.package, "--locked", "--force"])
                .args(["--version", &tool.version, "--root"])
                .arg(&tools))?;
        }
    }
    Ok(tools.join("bin"))
}

/// The bench executables of one build, keyed by package directory and bench target name.
pub struct BenchBinaries {
    /// The workspace the benches were built from: this checkout, or a worktree at another
    /// revision (`cargo xtask compare --rev`).
    workspace: PathBuf,
    /// The lab packages built, in name order.
    packages: Vec<String>,
    executables: HashMap<(PathBuf, String), PathBuf>,
    /// gungraun's bench binaries bake the runner's path in at build time.
    pub runner: PathBuf,
}

impl BenchBinaries {
    /// Every lab's benches of this checkout, built once per driver run (a no-op when they are
    /// fresh), with the pinned gungraun runner installed first if it is missing. Always all labs
    /// together: cargo resolves dependency features per build, and instruction counts depend on
    /// them.
    pub fn this_checkout() -> Result<&'static Self> {
        static BUILT: OnceLock<BenchBinaries> = OnceLock::new();
        if let Some(built) = BUILT.get() {
            return Ok(built);
        }
        let packages = crate::lab_packages::this_workspace()?;
        let built = Self::build_in(&root(), &packages)?;
        Ok(BUILT.get_or_init(|| built))
    }

    /// Builds `packages`' benches of the workspace checked out at `workspace`, into its own
    /// `target/`: cargo names a workspace's artifacts by paths relative to the workspace, so two
    /// checkouts sharing one target directory overwrite each other's binaries and each then
    /// looks fresh.
    pub fn build_in(workspace: &Path, packages: &[String]) -> Result<Self> {
        let runner = gungraun_runner()?;
        eprintln!(
            "==> building the benchmarks of {} (cargo bench --no-run) in {}",
            packages.join(", "),
            workspace.display()
        );
        Ok(Self {
            workspace: workspace.to_path_buf(),
            packages: packages.to_vec(),
            executables: cargo_bench_no_run(workspace, packages, &runner, None)?.executables,
            runner,
        })
    }

    /// The lab packages this build holds, in name order.
    pub fn packages(&self) -> &[String] {
        &self.packages
    }

    /// `lab`'s bench binary `bench` linked again with the code sections in the order `seed`
    /// shuffles them to (see `xtask/link-shuffled`), copied to `into` so the next relink does not
    /// replace it. The build is the same as [`Self::this_checkout`]'s (every lab, so features
    /// resolve alike); removing the bench's executable makes cargo compile that one small crate
    /// and link it again (its source is the kit's, shared with every lab's bench of that name:
    /// touching it would rebuild them all).
    pub fn relinked(
        &self,
        lab: &dyn Describe,
        bench: &str,
        seed: u64,
        into: &Path,
    ) -> Result<PathBuf> {
        let key = (self.workspace.join(lab.package()), bench.to_owned());
        let executable = self
            .executables
            .get(&key)
            .ok_or_else(|| anyhow!("the build produced no bench `{bench}` of {}", lab.name()))?;
        std::fs::remove_file(executable)
            .with_context(|| format!("cannot remove {}", executable.display()))?;
        let build = cargo_bench_no_run(&self.workspace, &self.packages, &self.runner, Some(seed))?;
        // Anything else compiled again means the sources changed since the run began: the
        // passes would no longer measure one revision.
        if let Some(other) = build.compiled.iter().find(|unit| **unit != key) {
            bail!(
                "relinking pass {seed} compiled `{}` of {} again: the sources changed during \
                 the run, so its passes would measure different code; run again without editing",
                other.1,
                other.0.display()
            );
        }
        let built = build
            .executables
            .get(&key)
            .ok_or_else(|| anyhow!("the relink produced no bench `{bench}` of {}", lab.name()))?;
        std::fs::create_dir_all(into)?;
        let copy = into.join(format!("{bench}-link-{seed}"));
        std::fs::copy(built, &copy)
            .with_context(|| format!("cannot copy {} to {}", built.display(), copy.display()))?;
        Ok(copy)
    }

    /// A command running `lab`'s bench binary `bench` as `cargo bench` would: from the package
    /// directory, with `--bench` and the package name, ready for the binary's own arguments.
    pub fn command(&self, lab: &dyn Describe, bench: &str) -> Result<Command> {
        self.command_in(lab.package(), bench)
    }

    /// A command running the bench binary `bench` of the lab package `package`.
    pub fn command_in(&self, package: &str, bench: &str) -> Result<Command> {
        let executable = self.executable(package, bench)?;
        Ok(self.command_of_package(package, executable))
    }

    /// The built executable of the bench `bench` of the lab package `package`.
    pub fn executable(&self, package: &str, bench: &str) -> Result<&Path> {
        let key = (self.workspace.join(package), bench.to_owned());
        let executable = self.executables.get(&key).ok_or_else(|| {
            anyhow!(
                "the build produced no bench `{bench}` in {}",
                key.0.display()
            )
        })?;
        Ok(executable)
    }

    /// A command running `executable` (one of `lab`'s bench binaries) as `cargo bench` would.
    pub fn command_of(&self, lab: &dyn Describe, executable: &Path) -> Command {
        self.command_of_package(lab.package(), executable)
    }

    fn command_of_package(&self, package: &str, executable: &Path) -> Command {
        // The workspace keeps each lab in a directory named like its package.
        let dir = self.workspace.join(package);
        let mut cmd = Command::new(executable);
        cmd.current_dir(&dir)
            .env("CARGO_PKG_NAME", package)
            .env("CARGO_MANIFEST_DIR", &dir)
            .env("GUNGRAUN_RUNNER", &self.runner)
            .env(labkit_measure::tools::TOOLS_ENV, root().join(".tools/bin"))
            .arg("--bench");
        cmd
    }
}

/// What one `cargo bench --no-run` produced.
struct Build {
    /// Bench executables by (package directory, bench target name).
    executables: HashMap<(PathBuf, String), PathBuf>,
    /// The (package directory, target name) of every unit cargo compiled rather than reused.
    compiled: Vec<(PathBuf, String)>,
}

/// `cargo bench --no-run` of `packages` in `workspace`, linked with `link_seed`'s code order when
/// one is given.
fn cargo_bench_no_run(
    workspace: &Path,
    packages: &[String],
    runner: &Path,
    link_seed: Option<u64>,
) -> Result<Build> {
    let mut cmd = cargo();
    cmd.env("GUNGRAUN_RUNNER", runner)
        .env("CARGO_TARGET_DIR", workspace.join("target"))
        // Every bench target, those `cargo bench` leaves out (`bench = false`: the stages'
        // binaries, which only the driver runs) too.
        .args([
            "bench",
            "--no-run",
            "--bench",
            "*",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(workspace);
    match link_seed {
        Some(seed) => cmd.env("LABKIT_LINK_SEED", seed.to_string()),
        None => cmd.env_remove("LABKIT_LINK_SEED"),
    };
    for package in packages {
        cmd.args(["-p", package]);
    }
    // cargo's own progress goes to stderr, which passes through.
    let messages = output(&mut cmd)?;
    Ok(Build {
        executables: bench_executables(&messages)?,
        compiled: compiled_units(&messages)?,
    })
}

/// The (package directory, target name) of every artifact cargo's messages report as not fresh.
fn compiled_units(messages: &str) -> Result<Vec<(PathBuf, String)>> {
    let mut compiled = Vec::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let message: serde_json::Value =
            serde_json::from_str(line).context("unreadable cargo message")?;
        if message["reason"] != "compiler-artifact" || message["fresh"] != false {
            continue;
        }
        if let (Some(manifest), Some(name)) = (
            message["manifest_path"].as_str(),
            message["target"]["name"].as_str(),
        ) {
            let dir = Path::new(manifest).parent().unwrap_or(Path::new(""));
            compiled.push((dir.to_path_buf(), name.to_owned()));
        }
    }
    Ok(compiled)
}

/// The bench executables in cargo's `--message-format=json` output.
fn bench_executables(messages: &str) -> Result<HashMap<(PathBuf, String), PathBuf>> {
    let mut executables = HashMap::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let message: serde_json::Value =
            serde_json::from_str(line).context("unreadable cargo message")?;
        let is_bench = message["reason"] == "compiler-artifact"
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "bench"));
        let (Some(executable), Some(manifest), Some(name)) = (
            message["executable"].as_str(),
            message["manifest_path"].as_str(),
            message["target"]["name"].as_str(),
        ) else {
            continue;
        };
        if is_bench {
            let dir = Path::new(manifest)
                .parent()
                .ok_or_else(|| anyhow!("a manifest path without a directory"))?;
            executables.insert((dir.to_path_buf(), name.to_owned()), executable.into());
        }
    }
    Ok(executables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_versions_are_read_in_both_spellings() {
        let manifest =
            "gungraun-x = \"=9\"\ngungraun = { version = \"=0.20.0\", features = [\"act\"] }\n";
        assert_eq!(
            pinned_version(manifest, "gungraun").as_deref(),
            Some("0.20.0")
        );
        assert_eq!(
            pinned_version("gungraun = \"=1.2.3\" # pin", "gungraun").as_deref(),
            Some("1.2.3")
        );
        assert_eq!(pinned_version("gungraun = \"1.2\"", "gungraun"), None);
    }

    #[test]
    fn bench_executables_are_read_from_cargo_messages() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","manifest_path":"/w/tiny-lab/Cargo.toml","#,
            r#""target":{"kind":["bench"],"name":"time"},"executable":"/w/target/release/deps/time-1"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","manifest_path":"/w/tiny-lab/Cargo.toml","#,
            r#""target":{"kind":["lib"],"name":"tiny_lab"},"executable":null}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        let found = bench_executables(messages).unwrap();
        assert!(
            compiled_units(messages).unwrap().is_empty(),
            "no `fresh: false`"
        );
        let rebuilt = concat!(
            r#"{"reason":"compiler-artifact","manifest_path":"/w/labkit/Cargo.toml","fresh":false,"#,
            r#""target":{"kind":["lib"],"name":"labkit"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","manifest_path":"/w/tiny-lab/Cargo.toml","fresh":true,"#,
            r#""target":{"kind":["lib"],"name":"tiny_lab"},"executable":null}"#,
        );
        assert_eq!(
            compiled_units(rebuilt).unwrap(),
            [(PathBuf::from("/w/labkit"), "labkit".to_owned())]
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[&(PathBuf::from("/w/tiny-lab"), "time".to_owned())],
            PathBuf::from("/w/target/release/deps/time-1")
        );
        assert!(bench_executables("{not json").is_err());
    }
}
