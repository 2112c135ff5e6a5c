//! The environment a result set was measured in: every committed number carries it. The driver
//! captures it, and the JVM side's from what JMH wrote.

use std::collections::BTreeMap;

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
    /// The JVM side of a lab that has one ([`JvmRun`]), or why its cells were not measured (no
    /// JDK, no Maven); absent for labs without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm: Option<Result<JvmRun, String>>,
}

/// What ran a lab's JVM side: the JDK, the tools' versions, the flags and the JMH settings, the
/// lab's beside the write-up's.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "JvmRunWire")]
pub struct JvmRun {
    /// The VM and its version, as JMH's result names it.
    pub vm: String,
    /// Why this JDK decides (the one the write-up names, or the project's default).
    #[serde(default)]
    pub jdk_reason: String,
    #[serde(default)]
    pub jmh: String,
    #[serde(default)]
    pub jol: String,
    /// The forks' flags beyond JMH's own.
    #[serde(default)]
    pub flags: Vec<String>,
    /// The lab's JMH settings, and the write-up's.
    #[serde(default)]
    pub settings: String,
    #[serde(default)]
    pub published: String,
}

impl JvmRun {
    /// The VM as a sentence names it: `OpenJDK 17.0.15` for `OpenJDK 64-Bit Server VM
    /// 17.0.15+6-Debian-1deb12u1` (and for older results' `… (build 17.0.15+6-…, mixed mode)`).
    pub fn short_name(&self) -> String {
        let name = self.vm.split(' ').next().unwrap_or("JVM");
        let version = self
            .vm
            .split_once("(build ")
            .map(|(_, build)| build)
            .or_else(|| self.vm.rsplit(' ').next())
            .and_then(|v| v.split(['+', ',', ')', '-']).next());
        version.map_or_else(|| self.vm.clone(), |v| format!("{name} {v}"))
    }
}

/// A [`JvmRun`] as results files hold it: the record, or in runs from before JMH the runtime's
/// name alone.
#[derive(Deserialize)]
#[serde(untagged)]
enum JvmRunWire {
    Run {
        vm: String,
        #[serde(default)]
        jdk_reason: String,
        #[serde(default)]
        jmh: String,
        #[serde(default)]
        jol: String,
        #[serde(default)]
        flags: Vec<String>,
        #[serde(default)]
        settings: String,
        #[serde(default)]
        published: String,
    },
    Runtime(String),
}

impl From<JvmRunWire> for JvmRun {
    fn from(wire: JvmRunWire) -> Self {
        match wire {
            JvmRunWire::Run {
                vm,
                jdk_reason,
                jmh,
                jol,
                flags,
                settings,
                published,
            } => Self {
                vm,
                jdk_reason,
                jmh,
                jol,
                flags,
                settings,
                published,
            },
            JvmRunWire::Runtime(vm) => Self {
                vm,
                ..Self::default()
            },
        }
    }
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
    fn a_jvm_run_reads_back_and_older_results_name_the_runtime_alone() {
        let run = JvmRun {
            vm: "OpenJDK 64-Bit Server VM 25.0.1".into(),
            jmh: "1.37".into(),
            flags: vec!["-Xms1g".into()],
            ..JvmRun::default()
        };
        let written: Result<JvmRun, String> = Ok(run.clone());
        let json = serde_json::to_string(&written).unwrap();
        let read: Result<JvmRun, String> = serde_json::from_str(&json).unwrap();
        assert_eq!(read, Ok(run));
        let old: Result<JvmRun, String> =
            serde_json::from_str(r#"{"Ok":"OpenJDK 64-Bit Server VM (build 17)"}"#).unwrap();
        let old = old.unwrap();
        assert_eq!(old.vm, "OpenJDK 64-Bit Server VM (build 17)");
        assert_eq!(old.short_name(), "OpenJDK 17");
        let new = JvmRun {
            vm: "OpenJDK 64-Bit Server VM 25.0.1+8-LTS".into(),
            ..JvmRun::default()
        };
        assert_eq!(new.short_name(), "OpenJDK 25.0.1");
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
