//! [`lab!`](crate::lab!): a lab's [`Describe`](super::Describe) and [`Lab`](super::Lab) glue from
//! what is particular to it, so a lab states its name and its cases, each with a value that opens
//! its runner: nothing it would write the same way as every other lab.

use super::Runner;

/// What a case's value builds for a design ([`lab!`](crate::lab!)): its runner, or, where opening
/// can fail (a server that does not start), the runner or why not.
pub trait Opened {
    fn opened(self) -> Result<Box<dyn Runner>, String>;
}

impl Opened for Box<dyn Runner> {
    fn opened(self) -> Result<Box<dyn Runner>, String> {
        Ok(self)
    }
}

impl Opened for Result<Box<dyn Runner>, String> {
    fn opened(self) -> Result<Box<dyn Runner>, String> {
        self
    }
}

/// Declares a lab: a unit struct, its `static`, the `static CASES` holding its experiments
/// with the lab's own value for each case ([`CaseTable::value`](crate::lab::CaseTable::value)
/// reads one by its names), and its `Describe` and `Lab` impls.
///
/// ```text
/// labkit::lab! {
///     pub static LAB: DedupLab = "dedup", "dedup-lab: producer sequence-id deduplication";
///     cases: Setup = experiments;                   // fn() -> Vec<Typed<Setup>>
///     jvm: jvm_benchmarks;                               // optional: fn() -> JvmBenchmarks, the write-up's JMH benchmarks
///     derivations: derivations;                     // optional: fn() -> Vec<Derivation>
///     derived: crate::derive::derived, from {       // optional: fn(&ResultSet) -> Vec<Record>
///         P99_IN_GENERATIONS => SCRAPE,             // for what a list cannot state, and each
///     };                                            // such experiment's source (coalesce's)
///     cost_buckets: cost_buckets;                   // optional: fn() -> Buckets
///     describe { fn timing(&self, mode: RunMode) -> Timing { … } }  // optional overrides
/// }
/// ```
///
/// The designs are the lab's registry's (`crate::measured_names()`, from
/// `lab_registry::designs!`), then the JVM's. A case's value is the registry's
/// `ImplementationBuilder` of its runner: a clone of it builds the named design's
/// (`crate::build_implementation`), a runner or an error ([`Opened`]). The
/// package is the calling crate's.
// `crate::` names the calling lab's registry (`measured_names`, `build_implementation`), which is
// the point: the kit has none.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! lab {
    (
        $(#[$meta:meta])*
        $vis:vis static $lab:ident: $ty:ident = $name:literal, $title:literal;
        cases: $case:ty = $experiments:path;
        $(jvm: $jvm:path;)?
        $(derivations: $derivations:path;)?
        $(derived: $derived:path $(, from { $($from:expr => $source:expr),* $(,)? })?;)?
        $(cost_buckets: $buckets:path;)?
        $(describe { $($describe:tt)* })?
    ) => {
        /// The lab, as the measurement binaries and the driver see it.
        $(#[$meta])*
        $vis static $lab: $ty = $ty;

        #[doc = concat!("The ", $name, " lab: its description and how its cases open.")]
        $vis struct $ty;

        /// The lab's experiments, each case with the lab's own value for it.
        pub(crate) static CASES: $crate::lab::CaseTable<$case> = $crate::lab::CaseTable::new($experiments);

        impl $crate::lab::Describe for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn package(&self) -> &'static str {
                env!("CARGO_PKG_NAME")
            }

            fn title(&self) -> &'static str {
                $title
            }

            fn implementations(&self) -> Vec<&'static str> {
                crate::measured_names().into_iter()$(.chain($jvm().designs))?.collect()
            }

            $(
                fn jvm(&self) -> Option<$crate::lab::JvmBenchmarks> {
                    Some($jvm())
                }
            )?

            fn experiments(&self) -> &[$crate::lab::Experiment] {
                CASES.experiments()
            }

            fn derived_from(&self, derived: &str) -> Option<&'static str> {
                $(if let Some(source) = $crate::derivation::source_of(&$derivations(), derived) {
                    return Some(source);
                })?
                $($($(if derived == $from {
                    return Some($source);
                })*)?)?
                let _ = derived;
                None
            }

            $(
                fn cost_buckets(&self) -> $crate::callgrind::Buckets {
                    $buckets()
                }
            )?

            $($($describe)*)?
        }

        impl $crate::lab::Lab for $ty {
            fn open(
                &self,
                implementation: &str,
                case: &$crate::lab::BenchCase,
            ) -> Result<Box<dyn $crate::lab::Runner>, String> {
                let mut value = ::core::clone::Clone::clone(CASES.case(self, implementation, case)?);
                crate::build_implementation(implementation, &mut value)
                    .and_then($crate::lab::Opened::opened)
            }

            fn derived(&self, set: &$crate::record::ResultSet) -> Vec<$crate::record::Record> {
                #[allow(unused_mut)]
                let mut declared = Vec::new();
                $(declared = $derivations();)?
                let custom: Option<fn(&$crate::record::ResultSet) -> Vec<$crate::record::Record>> =
                    None $(.or(Some($derived)))?;
                $crate::derivation::derived(set, &declared, custom)
            }
        }
    };
}
