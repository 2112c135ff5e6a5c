//! Records in and out of files: whole-file writes, a pass's output, passes combined.

use std::io::Write;
use std::path::Path;

use super::{BenchId, Metric, Record};
use crate::latency::Latencies;

/// Writes `contents` to `path` through a temporary file in the same directory and a rename, so a
/// reader (or an interrupted run) never sees half a file.
pub fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("result");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes a measurement binary's records as a JSON array to `out` (atomically), or to stdout.
pub fn emit_records(out: Option<&Path>, records: &[Record]) -> Result<(), String> {
    let json = serde_json::to_string_pretty(records).expect("records are serialisable");
    match out {
        Some(path) => {
            write_atomic(path, &json).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            println!("{json}");
            Ok(())
        }
    }
}

/// One record per (id, metric) from the records of several wall-time passes: the per-pass values
/// in pass order, summarised by [`Record::from_passes`]. A cell missing from a pass (a pass that
/// failed part-way) keeps the passes it has, which then no longer pair with the others.
///
/// Latency histograms of a cell are merged across passes, and its percentiles are read from the
/// merged histogram (a tail percentile of one pass rests on few operations); each pass's own
/// percentile stays in `passes` for pass-by-pass verdicts. A percentile that may fall among
/// censored latencies of the merged histogram ([`Latencies::censors`]) is left out: its cell
/// reads as censored, never as a value the window set.
pub fn combine_passes(passes: &[Vec<Record>]) -> Vec<Record> {
    let mut keys: Vec<(BenchId, Metric)> = Vec::new();
    let mut values: std::collections::HashMap<(BenchId, Metric), Vec<f64>> = Default::default();
    let mut histograms: std::collections::HashMap<BenchId, Latencies> = Default::default();
    for record in passes.iter().flatten() {
        let key = (record.id.clone(), record.metric);
        let cell = values.entry(key.clone()).or_default();
        if cell.is_empty() {
            keys.push(key);
        }
        cell.push(record.value);
        if let Some(histogram) = &record.histogram {
            let merged = histograms.entry(record.id.clone()).or_default();
            *merged = merged.merged(histogram);
        }
    }
    keys.into_iter()
        .filter(|(id, metric)| {
            let q = crate::record::PERCENTILES
                .iter()
                .find(|(p, _)| p == metric)
                .map(|(_, q)| *q);
            match (q, histograms.get(id)) {
                (Some(q), Some(merged)) => !merged.censors(q),
                _ => true,
            }
        })
        .map(|key| {
            let passes = values.remove(&key).expect("every key has values");
            let (id, metric) = key;
            let merged = histograms.get(&id);
            match (metric, merged) {
                (Metric::LatencyHistogram, Some(merged)) => {
                    let mut record = Record::new(id, metric, merged.count() as f64);
                    record.histogram = Some(merged.clone());
                    record.passes = Some(passes);
                    record
                }
                (m, Some(merged)) if m.is_latency_percentile() => {
                    let q = crate::record::PERCENTILES
                        .iter()
                        .find(|(p, _)| *p == m)
                        .map_or(1.0, |(_, q)| *q);
                    let value = merged.quantile(q).unwrap_or(0) as f64;
                    let mut record = Record::new(id, metric, value);
                    record.passes = Some(passes);
                    record
                }
                _ => Record::from_passes(id, metric, passes),
            }
        })
        .collect()
}

/// Reads a JSON array of records written by [`emit_records`].
pub fn load_records(path: &Path) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a list of records: {e}", path.display()))
}
