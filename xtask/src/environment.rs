//! The environment a result set is measured in, captured by the driver before it measures: the
//! machine (CPU model and family, cores, OS), the toolchain, the versions of the crates the lab
//! depends on as `cargo metadata` resolves them, the git revision and the date. The JVM side's
//! is filled in by its stage, from what JMH wrote ([`crate::jvm`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use cargo_metadata::{Metadata, MetadataCommand, Package, PackageId};
use labkit_measure::env::Environment;

/// The environment of the workspace at `root` for the lab in `package`.
pub fn capture(root: &Path, package: &str) -> Environment {
    let revision = command_line("git", &["rev-parse", "--short", "HEAD"], root)
        .unwrap_or_else(|| "unknown".to_owned());
    // Changed results under bench-results/ are output, not code that ran: a comparison written
    // a minute ago does not make the next measurement "dirty".
    let status = [
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)bench-results",
    ];
    let dirty = command_line("git", &status, root).is_some_and(|s| !s.is_empty());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let crates = MetadataCommand::new()
        .current_dir(root)
        .exec()
        .map(|metadata| dependency_versions(&metadata, package))
        .unwrap_or_default();
    Environment {
        cpu_model: cpuinfo_field("model name").unwrap_or_else(|| "unknown".to_owned()),
        cpu_family: cpu_family(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        os: command_line("uname", &["-sr"], root).unwrap_or_else(|| std::env::consts::OS.into()),
        rustc: command_line("rustc", &["-V"], root).unwrap_or_else(|| "unknown".to_owned()),
        crates,
        git_revision: if dirty {
            format!("{revision}-dirty")
        } else {
            revision
        },
        date: utc_timestamp(now),
        jvm: None,
    }
}

/// The registry crates `package` depends on directly (normal, dev and build) and those the
/// workspace crates it uses (the kit) depend on, each at the version the lock file resolves it
/// to (several, joined with `, `, when the graph holds more than one).
fn dependency_versions(metadata: &Metadata, package: &str) -> BTreeMap<String, String> {
    let Some(resolve) = &metadata.resolve else {
        return BTreeMap::new();
    };
    let packages: HashMap<&PackageId, &Package> =
        metadata.packages.iter().map(|p| (&p.id, p)).collect();
    let nodes: HashMap<&PackageId, _> = resolve.nodes.iter().map(|n| (&n.id, n)).collect();
    let Some(start) = metadata
        .workspace_packages()
        .into_iter()
        .find(|p| p.name.as_str() == package)
    else {
        return BTreeMap::new();
    };
    let mut seen = vec![&start.id];
    let mut pending = vec![&start.id];
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    while let Some(id) = pending.pop() {
        for dep in nodes.get(id).map_or(&[][..], |n| &n.deps[..]) {
            let Some(p) = packages.get(&dep.pkg) else {
                continue;
            };
            if p.source.is_some() {
                let versions = found.entry(p.name.to_string()).or_default();
                versions.insert(p.version.to_string());
            } else if !seen.contains(&&p.id) {
                seen.push(&p.id);
                pending.push(&p.id);
            }
        }
    }
    found
        .into_iter()
        .map(|(name, versions)| (name, Vec::from_iter(versions).join(", ")))
        .collect()
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

/// The first `/proc/cpuinfo` line's value for `name`.
fn cpuinfo_field(name: &str) -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
}

/// The vendor, family and model numbers: the microarchitecture, which the model name may not say.
fn cpu_family() -> String {
    match (
        cpuinfo_field("vendor_id"),
        cpuinfo_field("cpu family"),
        cpuinfo_field("model"),
    ) {
        (Some(vendor), Some(family), Some(model)) => {
            format!("{vendor} family {family} model {model}")
        }
        _ => "unknown".to_owned(),
    }
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
fn utc_timestamp(unix_seconds: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_civil_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_996_799), "2026-11-29T23:59:59Z");
    }

    /// This workspace's labs record their own registry dependencies and the kit's (through every
    /// kit crate), at the versions the lock file resolves, and no workspace crate.
    #[test]
    fn a_lab_records_its_own_dependencies_and_the_kit_s_at_their_resolved_versions() {
        let root = crate::shell::root();
        let metadata = MetadataCommand::new().current_dir(&root).exec().unwrap();
        let dedup = dependency_versions(&metadata, "dedup-lab");
        for name in ["papaya", "dashmap", "proptest", "gungraun"] {
            assert!(dedup.contains_key(name), "the lab's own {name}: {dedup:?}");
        }
        for name in ["minijinja", "hdrhistogram", "libc", "serde_json"] {
            assert!(dedup.contains_key(name), "the kit's {name}: {dedup:?}");
        }
        assert!(!dedup.keys().any(|k| k.starts_with("labkit")), "{dedup:?}");
        assert!(
            !dedup.contains_key("tokio"),
            "coalesce's, not dedup's: {dedup:?}"
        );
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
        let papaya = format!("name = \"papaya\"\nversion = \"{}\"", dedup["papaya"]);
        assert!(lock.contains(&papaya), "{papaya}");
        assert!(dependency_versions(&metadata, "no-such-lab").is_empty());
    }
}
