//! The instruction-count benchmarks of a lab: each counted case opened for gungraun.

use super::{BenchCase, Lab, Runner, counted_cases_of, experiment};

/// One instruction-count benchmark: an implementation on a counted case, as the instruction
/// bench's iterator hands it to [`open_counted`].
pub struct CountedCase {
    lab: &'static dyn Lab,
    implementation: &'static str,
    case: BenchCase,
}

/// The instruction bench's cases for the implementation whose registry module is `module`
/// (`nested_tree` → `nested-tree`), numbered like [`counted_cases_of`].
///
/// # Panics
/// When no implementation is named like `module`: a registry module must be named like its
/// implementation (with `_` for `-`), which the labs' registry tests check.
pub fn counted_cases(lab: &'static dyn Lab, module: &str) -> Vec<CountedCase> {
    let name = module.replace('_', "-");
    let implementation = lab
        .implementations()
        .into_iter()
        .find(|i| *i == name)
        .unwrap_or_else(|| panic!("registry module `{module}` names no implementation"));
    counted_cases_of(lab)
        .into_iter()
        .map(|case| CountedCase {
            lab,
            implementation,
            case,
        })
        .collect()
}

/// A runner ready to be counted, built and warmed up outside the counted region.
pub struct Counted {
    runner: Box<dyn Runner>,
    ops: u64,
}

/// The instruction bench's setup: opens the case and runs its window warm-up (not counted).
///
/// # Panics
/// When the lab cannot open one of its own counted cases, which is a bug in its description.
pub fn open_counted(counted: CountedCase) -> Counted {
    let CountedCase {
        lab,
        implementation,
        case,
    } = counted;
    let experiment = experiment(lab, &case.experiment).expect("counted cases are the lab's own");
    let mut runner = lab
        .open(implementation, &case)
        .unwrap_or_else(|e| panic!("{}: {e}", case.id(implementation)));
    runner.run(experiment.window_warm_up, 0, &mut ());
    Counted {
        runner,
        ops: experiment.ops(lab.counted_ops()),
    }
}

impl Counted {
    /// The counted region: the measured operations only. Returns itself so that dropping the
    /// structure is not counted.
    #[inline(never)]
    pub fn run(mut self) -> Self {
        std::hint::black_box(self.runner.run(0, self.ops, &mut ()));
        self
    }
}

/// Registers the instruction-count benchmarks of a lab: one gungraun function per
/// implementation (from the lab's registry list), one bench per counted case, numbered
/// `case_<n>` in [`counted_cases_of`] order. Use it as the registry callback:
///
/// ```ignore
/// macro_rules! benches {
///     ($($list:tt)*) => { labkit::instruction_benches!(my_lab::lab::LAB; $($list)*); };
/// }
/// my_lab::with_implementations!(benches);
/// ```
///
/// A list that ends with the lab's harness floor (`; floor module => Type`) counts it too.
#[macro_export]
macro_rules! instruction_benches {
    ($lab:path; $($module:ident => $ty:path),* $(,)? $(; floor $floor:ident => $floor_ty:path)?) => {
        $(
            #[::gungraun::library_benchmark]
            #[benches::case(
                iter = $crate::lab::counted_cases(&$lab, stringify!($module)),
                setup = $crate::lab::open_counted
            )]
            fn $module(counted: $crate::lab::Counted) -> $crate::lab::Counted {
                counted.run()
            }
        )*
        $(
            #[::gungraun::library_benchmark]
            #[benches::case(
                iter = $crate::lab::counted_cases(&$lab, stringify!($floor)),
                setup = $crate::lab::open_counted
            )]
            fn $floor(counted: $crate::lab::Counted) -> $crate::lab::Counted {
                counted.run()
            }
        )?
        ::gungraun::library_benchmark_group!(
            name = instructions;
            benchmarks = $($module),* $(, $floor)?
        );
        ::gungraun::main!(library_benchmark_groups = instructions);
    };
}
