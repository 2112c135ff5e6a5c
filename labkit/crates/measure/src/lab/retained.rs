//! The runner of a retained-heap case: a structure built inside the window and kept until the
//! next run or the runner's drop, so the heap it holds is measured as retained.

use std::time::{Duration, Instant};

use super::{Runner, Window};

/// Builds its structure inside each run's window (the build's time is the run's) and keeps it
/// until the next run builds another; what the build needs beforehand (names, a dataset) is
/// prepared when the runner is made, outside any window.
pub struct Retained<T> {
    build: Box<dyn FnMut() -> T>,
    built: Option<T>,
}

impl<T> Retained<T> {
    pub fn new(build: impl FnMut() -> T + 'static) -> Self {
        Self {
            build: Box::new(build),
            built: None,
        }
    }

    /// What the last run built.
    pub fn built(&self) -> Option<&T> {
        self.built.as_ref()
    }
}

impl<T> Runner for Retained<T> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        // The previous structure goes first, so the window holds only the one it builds.
        self.built = None;
        window.open();
        let start = Instant::now();
        let built = (self.build)();
        let elapsed = start.elapsed();
        window.close();
        self.built = Some(built);
        elapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_drops_the_last_structure_before_it_builds_and_keeps_the_new_one() {
        let mut builds = 0;
        let mut runner = Retained::new(move || {
            builds += 1;
            vec![builds; 3]
        });
        assert!(runner.built().is_none());
        runner.run(0, 1, &mut ());
        assert_eq!(runner.built(), Some(&vec![1; 3]));
        runner.run(0, 1, &mut ());
        assert_eq!(runner.built(), Some(&vec![2; 3]));
    }
}
