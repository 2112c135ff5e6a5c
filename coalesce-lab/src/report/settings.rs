//! The workload's settings the report's prose names, read from the code that ran them so that no
//! template types a number.

use std::time::Duration;

use labkit::table::{format_bytes, format_count};

use crate::implementations::bounded_pool::{QUEUE, THREADS};
use crate::lab::{HEADLINE, SCRAPE};
use crate::load::LAG_EDGES;
use crate::waiting::SLOT;
use crate::workload::{BODIES, CAP, CLOSED, GZIP, OPEN_DEADLINE, OPEN_PERCENTS, OVERLOAD};

/// Every `{{ name }}` the coalesce pages may print besides their slots.
pub fn settings() -> Vec<(&'static str, String)> {
    let [small, large] = BODIES;
    let largest = |bytes: usize| {
        let users = CLOSED.iter().filter(|(_, body, _)| body.bytes == bytes);
        users
            .map(|(users, _, _)| *users)
            .max()
            .unwrap_or(0)
            .to_string()
    };
    let percents: Vec<String> = OPEN_PERCENTS.iter().map(|p| format!("{p} %")).collect();
    let (last, first) = percents.split_last().expect("the open loops have rates");
    let headline: Vec<String> = HEADLINE.iter().map(|p| format!("{SCRAPE}:{p}")).collect();
    vec![
        ("cap", duration(CAP)),
        // A p99 may fall among censored values once they are more than 1 − 0.99 of a cell.
        ("censored_p99", format!("{:.0} %", (1.0 - 0.99) * 100.0)),
        ("small_body", mebibytes(small.bytes)),
        ("large_body", mebibytes(large.bytes)),
        ("largest_small_users", largest(small.bytes)),
        ("largest_large_users", largest(large.bytes)),
        ("pool_threads", THREADS.to_string()),
        ("pool_queue", QUEUE.to_string()),
        ("overload_users", OVERLOAD.0.to_string()),
        ("overload_deadline", duration(OVERLOAD.1)),
        ("gzip_deadline", duration(GZIP.1)),
        ("slot", duration(SLOT)),
        ("open_percents", format!("{} and {last}", first.join(", "))),
        ("open_top", last.clone()),
        ("open_deadline", duration(OPEN_DEADLINE)),
        ("lag_0", duration(LAG_EDGES[0])),
        ("lag_1", duration(LAG_EDGES[1])),
        ("lag_2", duration(LAG_EDGES[2])),
        (
            "hdr_digits",
            labkit::latency::SIGNIFICANT_DIGITS.to_string(),
        ),
        (
            "p999_needs",
            format_count((1.0 / (1.0 - 0.999_f64)).round() as u64),
        ),
        (
            "large_block",
            format_bytes(labkit::alloc::LARGE_BLOCK as f64),
        ),
        (
            "oha_version",
            format!("version {}", crate::oha::tool().version),
        ),
        // The main page's rows, as a table's selector ([`labkit::rows`]).
        ("headline", headline.join(" + ")),
    ]
}

/// A body's size as the scenarios name it: `1 MiB`, `16 MiB`.
fn mebibytes(bytes: usize) -> String {
    format!("{} MiB", bytes >> 20)
}

/// A setting's duration as prose writes it: `20 s`, `100 ms`, `0.1 ms`.
fn duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        return format!("{} s", d.as_secs());
    }
    let ms = d.as_secs_f64() * 1e3;
    format!("{} ms", (ms * 1e3).round() / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_a_short_phrase_with_its_unit() {
        let settings = settings();
        let get = |name: &str| {
            settings
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(get("censored_p99"), "1 %");
        assert_eq!(get("open_percents"), "50 %, 100 % and 200 %");
        assert_eq!(get("lag_0"), "0.1 ms");
        assert_eq!(get("cap"), "20 s");
        assert_eq!(get("large_body"), "16 MiB");
        assert_eq!(get("overload_deadline"), "100 ms");
        assert_eq!(get("p999_needs"), "1,000");
    }
}
