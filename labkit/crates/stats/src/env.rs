//! The environment a result set was measured in: every committed number carries it. The driver
//! captures it; the JDK probe is here, for the JVM runner measures with the JDK it finds.

use std::collections::BTreeMap;
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
    /// The versions (as Cargo.lock resolves them) of the registry crates the lab depends on
    /// directly, and of those the workspace crates it uses (the kit) depend on; captured by the
    /// driver.
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

impl Environment {
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

    /// This run's CPU as a sentence names it beside `other`'s: its model name, and where the two
    /// names read alike but the microarchitectures differ (one brand string, two CPUs), its
    /// family and model too (`Intel(R) Xeon(R) Processor family 6 model 207`).
    pub fn cpu_named_against(&self, other: &Environment) -> String {
        match self.microarchitecture() {
            Some(own)
                if self.cpu_model == other.cpu_model
                    && other
                        .microarchitecture()
                        .is_some_and(|theirs| theirs != own) =>
            {
                format!("{} {own}", self.cpu_model)
            }
            _ => self.cpu_model.clone(),
        }
    }

    /// Whether `other` ran on this CPU: the same brand string and the same family and model
    /// (where both recorded one).
    pub fn same_cpu(&self, other: &Environment) -> bool {
        self.cpu_model == other.cpu_model
            && match (self.microarchitecture(), other.microarchitecture()) {
                (Some(own), Some(theirs)) => own == theirs,
                _ => true,
            }
    }

    /// `family X model Y`, from [`Environment::cpu_family`].
    fn microarchitecture(&self) -> Option<&str> {
        let at = self.cpu_family.find("family")?;
        Some(&self.cpu_family[at..])
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

    /// The tests' environment, and it on another model of the same brand, on another brand of
    /// that model, and with no model recorded.
    fn cpus() -> [Environment; 4] {
        let here = Environment::fixed_for_tests();
        let other_model = Environment {
            cpu_family: "TestVendor family 6 model 2".into(),
            ..here.clone()
        };
        let other_name = Environment {
            cpu_model: "Other CPU".into(),
            ..other_model.clone()
        };
        let unrecorded = Environment {
            cpu_family: String::new(),
            ..here.clone()
        };
        [here, other_model, other_name, unrecorded]
    }

    #[test]
    fn a_cpu_is_named_with_its_microarchitecture_only_where_its_name_is_another_cpu_s() {
        let [here, other_model, other_name, unrecorded] = cpus();
        assert_eq!(
            other_model.cpu_named_against(&here),
            "Test CPU family 6 model 2"
        );
        assert_eq!(here.cpu_named_against(&here), "Test CPU");
        assert_eq!(other_name.cpu_named_against(&here), "Other CPU");
        assert_eq!(unrecorded.cpu_named_against(&here), "Test CPU");
        assert_eq!(here.cpu_named_against(&unrecorded), "Test CPU");
    }

    /// Two runs on one brand string are on this CPU only with the same family and model: the
    /// brand string alone names several microarchitectures.
    #[test]
    fn the_same_cpu_is_the_same_brand_family_and_model() {
        let [here, other_model, other_name, unrecorded] = cpus();
        assert!(here.same_cpu(&here.clone()));
        assert!(!other_model.same_cpu(&here) && !here.same_cpu(&other_model));
        assert!(!other_name.same_cpu(&here));
        assert!(
            unrecorded.same_cpu(&here),
            "by its brand where a model is not recorded"
        );
    }
}
