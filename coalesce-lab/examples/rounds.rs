//! Probe: one sample per design and closed scenario (whole rounds, or counted where the scenario
//! has no cap), its wall time.
use coalesce_lab::lab::LAB;
use coalesce_lab::names::{
    BACKLOG, CLIENT_CPU_US, SCRAPE, SERVED, SERVER_CPU_US, TIMEOUTS, UNFINISHED,
};
use coalesce_lab::waiting::{SAMPLED_AT, WAITING_AT};
use coalesce_lab::workload::{Shape, scenarios};
use labkit::lab::{BenchCase, Describe, EventTally, Lab};

fn main() {
    let mut only: Vec<String> = std::env::args().skip(1).collect();
    // `--designs a,b` limits the designs; `--repeat N` measures each N times, in turn.
    let take = |only: &mut Vec<String>, flag: &str| {
        let i = only.iter().position(|a| a == flag)?;
        let value = only.get(i + 1).cloned();
        only.drain(i..(i + 2).min(only.len()));
        value
    };
    let designs: Option<Vec<String>> =
        take(&mut only, "--designs").map(|d| d.split(',').map(str::to_owned).collect());
    let repeat: usize = take(&mut only, "--repeat")
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    // `--requests N` asks for at least N requests per sample (as a calibrated sample does).
    let requests: Option<u64> = take(&mut only, "--requests").and_then(|n| n.parse().ok());
    for scenario in scenarios() {
        let Shape::Closed { users } = scenario.shape else {
            continue;
        };
        if !only.is_empty() && !only.contains(&scenario.name()) {
            continue;
        }
        let chosen: Vec<&str> = LAB
            .implementations()
            .into_iter()
            .filter(|d| designs.as_ref().is_none_or(|ds| ds.iter().any(|x| x == d)))
            .collect();
        for design in (0..repeat).flat_map(|_| chosen.iter().copied()) {
            let case = BenchCase::new(SCRAPE, &scenario.name());
            let mut runner = LAB.open(design, &case).unwrap();
            let mut window = EventTally::default();
            let started = std::time::Instant::now();
            let elapsed = runner.run(
                users as u64,
                requests.unwrap_or(scenario.min_requests()),
                &mut window,
            );
            let completed = window.completed().unwrap_or(0.0);
            println!(
                "{:<28} {:<22} window {:>7.2} s  whole {:>7.2} s  completed {:>7.1}  served {:>6}  unfinished {:>4}  timeouts {:>4}  backlog {:>4}  rate {:>8.1}/s  client busy {:>4.2}  server cores {:>4.2}",
                scenario.name(),
                design,
                elapsed.as_secs_f64(),
                started.elapsed().as_secs_f64(),
                completed,
                window.total(SERVED),
                window.total(UNFINISHED),
                window.total(TIMEOUTS),
                window.total(BACKLOG),
                completed / elapsed.as_secs_f64(),
                window.total(CLIENT_CPU_US) as f64 / 1e6 / elapsed.as_secs_f64(),
                window.total(SERVER_CPU_US) as f64 / 1e6 / elapsed.as_secs_f64(),
            );
            let waiting: Vec<u64> = WAITING_AT
                .iter()
                .zip(SAMPLED_AT)
                .filter(|(_, sampled)| window.total(*sampled) > 0)
                .map(|(w, _)| window.total(*w))
                .collect();
            if !waiting.is_empty() {
                println!(
                    "    waiting every {:?}: {waiting:?}",
                    coalesce_lab::waiting::SLOT
                );
            }
        }
    }
}
