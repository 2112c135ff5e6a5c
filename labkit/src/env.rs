//! The environment a result set was measured in. Every committed number carries it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    pub cpu_model: String,
    /// Logical CPUs available to this process.
    pub cores: usize,
    pub os: String,
    /// `rustc -V`
    pub rustc: String,
    /// Versions of the crates that matter, as locked in Cargo.lock.
    pub crates: BTreeMap<String, String>,
    /// `git rev-parse --short HEAD`, with `-dirty` when the tree has uncommitted changes.
    pub git_revision: String,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
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

/// Locked versions of `names` from a Cargo.lock text (several versions are joined with `, `).
pub fn locked_versions(lock: &str, names: &[&str]) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in lock.lines() {
        if line == "[[package]]" {
            current = None;
        } else if let Some(name) = line.strip_prefix("name = ") {
            current = Some(name.trim_matches('"').to_owned());
        } else if let (Some(version), Some(name)) = (line.strip_prefix("version = "), &current)
            && names.contains(&name.as_str())
        {
            let version = version.trim_matches('"').to_owned();
            found.entry(name.clone()).or_default().push(version);
        }
    }
    found.into_iter().map(|(k, v)| (k, v.join(", "))).collect()
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
    /// Captures the environment of the workspace at `root`, recording the locked versions of
    /// `crate_names`.
    pub fn capture(root: &Path, crate_names: &[&str]) -> Self {
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
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            os: command_line("uname", &["-sr"], root)
                .unwrap_or_else(|| std::env::consts::OS.into()),
            rustc: command_line("rustc", &["-V"], root).unwrap_or_else(|| "unknown".to_owned()),
            crates: locked_versions(&lock, crate_names),
            git_revision: if dirty {
                format!("{revision}-dirty")
            } else {
                revision
            },
            date: utc_timestamp(now),
        }
    }

    /// A fixed environment for renderer tests.
    pub fn fixed_for_tests() -> Self {
        Self {
            cpu_model: "Test CPU".into(),
            cores: 2,
            os: "Linux".into(),
            rustc: "rustc 1.95.0".into(),
            crates: BTreeMap::from([("criterion".to_owned(), "0.8.2".to_owned())]),
            git_revision: "abc1234".into(),
            date: "2026-11-30T00:00:00Z".into(),
        }
    }
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

    #[test]
    fn locked_versions_reads_only_named_packages() {
        let lock = "[[package]]\nname = \"papaya\"\nversion = \"0.2.5\"\n\n[[package]]\nname = \"other\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"hashbrown\"\nversion = \"0.15.5\"\n\n[[package]]\nname = \"hashbrown\"\nversion = \"0.17.2\"\n";
        let v = locked_versions(lock, &["papaya", "hashbrown", "absent"]);
        assert_eq!(v.get("papaya").map(String::as_str), Some("0.2.5"));
        assert_eq!(
            v.get("hashbrown").map(String::as_str),
            Some("0.15.5, 0.17.2")
        );
        assert!(!v.contains_key("other") && !v.contains_key("absent"));
    }
}
