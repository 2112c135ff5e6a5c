//! The environment a result set was measured in. Every committed number carries it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    pub cpu_model: String,
    /// The vendor, family and model numbers (`GenuineIntel family 6 model 207`): the
    /// microarchitecture, which the model name may not say; empty in results from before it was
    /// recorded.
    #[serde(default)]
    pub cpu_family: String,
    /// Logical CPUs available to this process.
    pub cores: usize,
    pub os: String,
    /// `rustc -V`
    pub rustc: String,
    /// Locked versions (Cargo.lock) of the registry crates the lab depends on directly, and the
    /// workspace crates it uses (the kit) depend on ([`dependencies_of`]).
    pub crates: BTreeMap<String, String>,
    /// `git rev-parse --short HEAD`, with `-dirty` when the tree has uncommitted changes.
    pub git_revision: String,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// The JVM that ran a lab's JVM designs ([`jvm_runtime`]), or why there was none; absent in
    /// older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm: Option<Result<String, String>>,
}

/// The JDK on `path` (the process's `PATH` when `None`): the runtime `java -version` names (its
/// last line: the VM, its build and mode), when `javac` is there too; otherwise what is missing
/// and how to get it.
pub fn jvm_runtime(path: Option<&std::ffi::OsStr>) -> Result<String, String> {
    let version = |program: &str| {
        let mut command = Command::new(program);
        if let Some(path) = path {
            command.env("PATH", path);
        }
        command
            .arg("-version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            // Both print their version on stderr.
            .map(|o| String::from_utf8_lossy(&o.stderr).trim().to_owned())
    };
    let missing = |program: &str| {
        format!(
            "no JDK (`{program}` not found on PATH; `apt-get install openjdk-17-jdk-headless` \
             installs one)"
        )
    };
    let java = version("java").ok_or_else(|| missing("java"))?;
    version("javac").ok_or_else(|| missing("javac"))?;
    Ok(java.lines().last().unwrap_or_default().trim().to_owned())
}

fn command_line(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn cpu_family() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
    };
    match (field("vendor_id"), field("cpu family"), field("model")) {
        (Some(vendor), Some(family), Some(model)) => {
            format!("{vendor} family {family} model {model}")
        }
        _ => "unknown".to_owned(),
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Locked versions of the registry packages among `names` from a Cargo.lock text (several
/// versions are joined with `, `); workspace members, which have no `source`, are left out.
pub fn locked_versions(lock: &str, names: &[String]) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            package
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim_matches('"').to_owned())
        };
        if let (Some(name), Some(version), Some(_)) =
            (field("name = "), field("version = "), field("source = "))
            && names.contains(&name)
        {
            found.entry(name).or_default().push(version);
        }
    }
    found.into_iter().map(|(k, v)| (k, v.join(", "))).collect()
}

/// The dependency names a Cargo manifest declares (normal, dev and build), as written: a renamed
/// dependency is listed under its key.
fn declared_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = matches!(
                line,
                "[dependencies]" | "[dev-dependencies]" | "[build-dependencies]"
            );
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            let key = line.split(['.', '=', ' ']).next().unwrap_or_default();
            if !key.is_empty() && !names.iter().any(|n| n == key) {
                names.push(key.to_owned());
            }
        }
    }
    names
}

/// The crates a lab's report records: the dependencies of the package in `root/package`, and of
/// every workspace crate among them (the kit), found in a directory named like it, recursively.
pub fn dependencies_of(root: &Path, package: &str) -> Vec<String> {
    let mut seen = vec![package.to_owned()];
    let mut pending = vec![package.to_owned()];
    let mut names = Vec::new();
    while let Some(member) = pending.pop() {
        let Ok(manifest) = std::fs::read_to_string(root.join(&member).join("Cargo.toml")) else {
            continue;
        };
        for name in declared_dependencies(&manifest) {
            if root.join(&name).join("Cargo.toml").is_file() {
                if !seen.contains(&name) {
                    seen.push(name.clone());
                    pending.push(name);
                }
            } else if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch.
pub fn utc_timestamp(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

impl Environment {
    /// Captures the environment of the workspace at `root`, recording the locked versions of the
    /// crates `package` depends on ([`dependencies_of`]) and, for a lab with JVM designs
    /// (`jvm`), the JVM.
    pub fn capture(root: &Path, package: &str, jvm: bool) -> Self {
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
        let revision = command_line("git", &["rev-parse", "--short", "HEAD"], root)
            .unwrap_or_else(|| "unknown".to_owned());
        // Changed results under bench-results/ are output, not code that ran: a comparison
        // written a minute ago does not make the next measurement "dirty".
        let dirty = command_line(
            "git",
            &[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":(exclude)bench-results",
            ],
            root,
        )
        .is_some_and(|s| !s.is_empty());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Self {
            cpu_model: cpu_model(),
            cpu_family: cpu_family(),
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            os: command_line("uname", &["-sr"], root)
                .unwrap_or_else(|| std::env::consts::OS.into()),
            rustc: command_line("rustc", &["-V"], root).unwrap_or_else(|| "unknown".to_owned()),
            crates: locked_versions(&lock, &dependencies_of(root, package)),
            git_revision: if dirty {
                format!("{revision}-dirty")
            } else {
                revision
            },
            date: utc_timestamp(now),
            jvm: jvm.then(|| jvm_runtime(None)),
        }
    }

    /// A fixed environment for renderer tests.
    pub fn fixed_for_tests() -> Self {
        Self {
            cpu_model: "Test CPU".into(),
            cpu_family: "TestVendor family 6 model 1".into(),
            cores: 2,
            os: "Linux".into(),
            rustc: "rustc 1.95.0".into(),
            crates: BTreeMap::from([("criterion".to_owned(), "0.8.2".to_owned())]),
            git_revision: "abc1234".into(),
            date: "2026-11-30T00:00:00Z".into(),
            jvm: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_java_on_the_path_there_is_no_jdk_and_the_reason_says_how_to_get_one() {
        let empty = std::env::temp_dir().join(format!("labkit-no-jdk-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let missing = jvm_runtime(Some(empty.as_os_str())).unwrap_err();
        std::fs::remove_dir_all(&empty).unwrap();
        assert!(missing.starts_with("no JDK (`java` not found"), "{missing}");
        assert!(missing.contains("openjdk-17-jdk-headless"), "{missing}");
    }

    #[test]
    fn timestamps_are_utc_civil_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_996_799), "2026-11-29T23:59:59Z");
    }

    #[test]
    fn locked_versions_reads_only_named_registry_packages() {
        let registry = "source = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        let lock = format!(
            "version = 4\n\n[[package]]\nname = \"papaya\"\nversion = \"0.2.5\"\n{registry}\n\
             [[package]]\nname = \"other\"\nversion = \"1.0.0\"\n{registry}\n\
             [[package]]\nname = \"hashbrown\"\nversion = \"0.15.5\"\n{registry}\n\
             [[package]]\nname = \"hashbrown\"\nversion = \"0.17.2\"\n{registry}\n\
             [[package]]\nname = \"labkit\"\nversion = \"0.1.0\"\n"
        );
        let names = ["papaya", "hashbrown", "absent", "labkit"].map(String::from);
        let v = locked_versions(&lock, &names);
        assert_eq!(v.get("papaya").map(String::as_str), Some("0.2.5"));
        assert_eq!(
            v.get("hashbrown").map(String::as_str),
            Some("0.15.5, 0.17.2")
        );
        assert!(!v.contains_key("other") && !v.contains_key("absent"));
        assert!(!v.contains_key("labkit"), "a workspace member");
    }

    #[test]
    fn a_lab_records_its_own_dependencies_and_the_kit_s() {
        let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nlabkit.workspace = true # kit\n\
                        papaya.workspace = true\nserde = { version = \"1\" }\n\n\
                        [dev-dependencies]\nlabkit = { workspace = true }\nloom = \"0.7\"\n\n\
                        [[bench]]\nname = \"time\"\n";
        assert_eq!(
            declared_dependencies(manifest),
            ["labkit", "papaya", "serde", "loom"]
        );
        // A workspace of a lab and the kit it uses: the kit's dependencies count, the kit not.
        let root = std::env::temp_dir().join(format!("labkit-env-{}", std::process::id()));
        for (dir, deps) in [
            (
                "tiny-lab",
                "kit.workspace = true\nportable-atomic.workspace = true\n",
            ),
            ("kit", "hdrhistogram = \"7\"\nportable-atomic = \"1\"\n"),
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
            std::fs::write(
                root.join(dir).join("Cargo.toml"),
                format!("[package]\nname = \"{dir}\"\n\n[dependencies]\n{deps}"),
            )
            .unwrap();
        }
        let names = dependencies_of(&root, "tiny-lab");
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(names, ["portable-atomic", "hdrhistogram"]);
    }
}
