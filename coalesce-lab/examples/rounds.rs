//! Probe: one sample of whole rounds per design and closed scenario, its wall time.
use coalesce_lab::lab::{LAB, SCRAPE, SERVED, UNFINISHED};
use coalesce_lab::workload::{Shape, scenarios};
use labkit::lab::{BenchCase, Describe, EventTally, Lab};

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    for scenario in scenarios() {
        let Shape::Closed { users } = scenario.shape else {
            continue;
        };
        if scenario.cap().is_none() || (!only.is_empty() && !only.contains(&scenario.name())) {
            continue;
        }
        for design in LAB.implementations() {
            let case = BenchCase::new(SCRAPE, &scenario.name());
            let mut runner = LAB.open(design, &case).unwrap();
            let mut window = EventTally::default();
            let started = std::time::Instant::now();
            let elapsed = runner.run(users as u64, scenario.min_requests(), &mut window);
            let completed = window.completed().unwrap_or(0.0);
            println!(
                "{:<28} {:<22} window {:>7.2} s  whole {:>7.2} s  completed {:>7.1}  served {:>6}  unfinished {:>4}  rate {:>8.1}/s",
                scenario.name(),
                design,
                elapsed.as_secs_f64(),
                started.elapsed().as_secs_f64(),
                completed,
                window.total(SERVED),
                window.total(UNFINISHED),
                completed / elapsed.as_secs_f64()
            );
        }
    }
}
