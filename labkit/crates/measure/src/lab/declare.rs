//! [`lab!`](crate::lab!): a lab's [`Describe`](super::Describe) and [`Lab`](super::Lab) glue from
//! what is particular to it, so a lab states its name, its cases and, where its case value does
//! not build the runner itself, how a case opens: nothing it would write the same way as every
//! other lab.

/// Declares a lab: a unit struct, its `static`, the `static CASES` holding its experiments
/// with the lab's own value for each case ([`CaseTable::value`](crate::lab::CaseTable::value)
/// reads one by its names), and its `Describe` and `Lab` impls.
///
/// ```text
/// labkit::lab! {
///     /// The lab, as the bench binaries and the driver see it.
///     pub static LAB: DedupLab = "dedup", "dedup-lab: producer sequence-id deduplication";
///     cases: Setup = experiments;                   // fn() -> Vec<Typed<Setup>>
///     open(implementation, setup, _case) => …;      // optional, see below
///     jvm: JVM_DESIGNS, JVM_SOURCES;                // optional: the write-up's Java designs
///     derived: crate::derive::derived;              // optional: fn(&ResultSet) -> Vec<Record>
///     describe { fn timing(&self, mode: RunMode) -> Timing { … } }  // optional overrides
/// }
/// ```
///
/// The designs are the lab's registry's (`crate::measured_names()`, from
/// `lab_registry::designs!`), then the JVM's. Without `open`, a case's value is the registry's
/// `ImplementationBuilder` of its runner: a clone of it builds the named design's
/// (`crate::build_implementation`). With it, its three names bind the implementation's name, the
/// case's value (`&Setup`) and the case itself (`&BenchCase`) for the expression that opens the
/// runner. The package is the calling crate's.
// `crate::` names the calling lab's registry (`measured_names`, `build_implementation`), which is
// the point: the kit has none.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! lab {
    (
        $(#[$meta:meta])*
        $vis:vis static $lab:ident: $ty:ident = $name:literal, $title:literal;
        cases: $case:ty = $experiments:path;
        $(open($implementation:ident, $value:ident, $bench_case:ident) => $open:expr;)?
        $(jvm: $jvm:expr, $sources:expr;)?
        $(derived: $derived:path;)?
        $(describe { $($describe:tt)* })?
    ) => {
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
                crate::measured_names().into_iter()$(.chain($jvm))?.collect()
            }

            $(
                fn jvm_designs(&self) -> Vec<&'static str> {
                    $jvm.to_vec()
                }
            )?

            fn experiments(&self) -> &[$crate::lab::Experiment] {
                CASES.experiments()
            }

            $($($describe)*)?
        }

        impl $crate::lab::Lab for $ty {
            fn open(
                &self,
                implementation: &str,
                case: &$crate::lab::BenchCase,
            ) -> Result<Box<dyn $crate::lab::Runner>, String> {
                let value = CASES.case(self, implementation, case)?;
                $crate::lab!(@open implementation, value, case; $(($implementation, $value, $bench_case) => $open)?)
            }

            $(
                fn derived(
                    &self,
                    set: &$crate::record::ResultSet,
                ) -> Vec<$crate::record::Record> {
                    $derived(set)
                }
            )?

            $(
                fn jvm_sources(&self) -> Option<$crate::lab::JvmSources> {
                    Some($sources)
                }
            )?
        }
    };
    (@open $implementation:ident, $value:ident, $case:ident;) => {
        crate::build_implementation($implementation, &mut ::core::clone::Clone::clone($value))
    };
    (@open $implementation:ident, $value:ident, $case:ident;
        ($i:ident, $v:ident, $c:ident) => $open:expr) => {{
        let ($i, $v, $c) = ($implementation, $value, $case);
        $open
    }};
}
