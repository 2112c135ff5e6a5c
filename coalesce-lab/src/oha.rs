//! The cross-check: `oha` (an established HTTP load generator, pinned and installed by the
//! driver into `.tools/`) drives the same server as the lab's own generator ([`crate::load`]),
//! on the client's CPUs, so that a result of the lab's generator can be told apart from an
//! artefact of it.
//!
//! oha prints every successful request with `--output-format csv` (its start, relative to oha's
//! own, and its duration; with `-q` and `--latency-correction` the start is the scheduled one,
//! so an open loop's latencies run from the intended start as the lab's do). Those durations go
//! into the same latency recorder as the lab's, and the measured time is the span from the first
//! request's start to the last one's end — oha's process start-up is not in it. oha does not
//! verify bodies: a 200 is counted as served, as oha counts it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use labkit::lab::Window;
use labkit::process::children_cpu_time;
use labkit::tools::Tool;

use crate::load::{ClientCost, Load, Plan};

/// The pinned oha.
pub fn tool() -> Tool {
    Tool::new("oha", "oha", "1.16.0")
}

/// oha's workers in an open loop: requests in flight at once (the lab's open loop opens a
/// connection whenever none is idle; 64 is more than any scenario keeps busy below 2× the serial
/// capacity, and oha delays, rather than drops, a send that finds none free).
const OPEN_LOOP_WORKERS: usize = 64;

/// What one oha run measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Outcome {
    /// From the first request's start to the last one's end.
    pub elapsed: Duration,
    /// 200s.
    pub served: u64,
    /// Requests oha did not report as successes (errors, timeouts, other statuses).
    pub not_served: u64,
    pub body_bytes: u64,
    /// oha's CPU time (user + system) for the measured run, less [`Oha::start_up_cpu`]: what its
    /// requests cost it, comparable per request with the lab's client thread.
    pub client_cpu: Duration,
    /// What the lab's thread that started oha and waited for it spent: in this process's
    /// totals, and not the server's.
    pub waiting: ClientCost,
}

/// oha bound to one server.
pub struct Oha {
    path: PathBuf,
    url: String,
    /// The CPU time of an oha process that serves one request: its start-up (a runtime, a
    /// client, its report), plus that one request, which the subtraction then also takes off a
    /// measured run: one request's cost out of the run's (1/12 of the test's 12-request run).
    start_up_cpu: Duration,
}

impl Oha {
    pub fn new(addr: SocketAddr) -> Result<Self, String> {
        let mut oha = Self {
            path: tool().installed()?,
            url: format!("http://{addr}/metrics"),
            start_up_cpu: Duration::ZERO,
        };
        let one = Plan {
            load: Load::Closed { users: 1 },
            requests: 1,
            timeout: None,
            gzip: false,
            cap: None,
        };
        let cpu = children_cpu_time();
        oha.oha(&one)?;
        oha.start_up_cpu = children_cpu_time().saturating_sub(cpu);
        Ok(oha)
    }

    /// Runs `warm_up` unmeasured requests (closed loops only), then `plan` with `window` opened
    /// and closed around oha's process; each served request's latency goes to the window's sink.
    pub fn run(
        &self,
        plan: Plan,
        warm_up: u64,
        window: &mut dyn Window,
    ) -> Result<Outcome, String> {
        if warm_up > 0
            && let Load::Closed { .. } = plan.load
        {
            self.oha(&Plan {
                requests: warm_up,
                ..plan
            })?;
        }
        window.open();
        let (cpu, waiting) = (children_cpu_time(), ClientCost::of_this_thread());
        let csv = self.oha(&plan);
        let client_cpu = children_cpu_time()
            .saturating_sub(cpu)
            .saturating_sub(self.start_up_cpu);
        let waiting = ClientCost::since(waiting);
        window.close();
        let rows = parse_csv(&csv?)?;
        if let Some(sink) = window.latencies() {
            let mut recorder = sink.recorder();
            for row in rows.iter().filter(|r| r.status == 200) {
                recorder.record(row.duration);
            }
        }
        Ok(Outcome {
            client_cpu,
            waiting,
            ..outcome(&rows, plan.requests)
        })
    }

    /// One oha process on the client's CPUs; its CSV output.
    fn oha(&self, plan: &Plan) -> Result<String, String> {
        let mut command = Command::new(&self.path);
        // oha starts one runtime thread per physical core of the machine, whatever its CPU set:
        // on the client's one CPU two threads would take turns where the lab's generator runs one.
        command
            .args(["--no-tui", "--output-format", "csv", "--worker-threads"])
            .arg(crate::placement::client_cpus().to_string())
            .arg("-n")
            .arg(plan.requests.max(1).to_string());
        match plan.load {
            Load::Closed { users } => command.arg("-c").arg(users.max(1).to_string()),
            Load::Open { per_second } => command
                .args(["--latency-correction", "-c"])
                .arg(OPEN_LOOP_WORKERS.to_string())
                .arg("-q")
                .arg(per_second.to_string()),
        };
        if let Some(timeout) = plan.timeout {
            command.arg("-t").arg(format!("{}ms", timeout.as_millis()));
        }
        if !plan.gzip {
            // oha asks for gzip unless told not to; the lab's scenarios say which they want.
            command.arg("--disable-compression");
        }
        command.arg(&self.url);
        // Spawned from a thread pinned to the client's CPUs: the child inherits them.
        let output = crate::placement::on_client(|| command.output())
            .map_err(|e| format!("cannot run {}: {e}", self.path.display()))?;
        if !output.status.success() {
            return Err(format!(
                "oha failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        String::from_utf8(output.stdout).map_err(|_| "oha printed non-UTF-8 output".to_owned())
    }
}

/// One successful request as oha prints it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    start: Duration,
    duration: Duration,
    bytes: u64,
    status: u16,
}

/// oha's CSV: a header, then `request-start,DNS,DNS+dialup,Response-delay,request-duration,
/// bytes,status` per successful request, times in seconds.
fn parse_csv(csv: &str) -> Result<Vec<Row>, String> {
    let mut lines = csv.lines();
    let header = lines.next().unwrap_or_default();
    if !header.starts_with("request-start,") {
        return Err(format!("oha's CSV has no header: `{header}`"));
    }
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let seconds = |i: usize| {
                fields
                    .get(i)
                    .and_then(|f| f.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
            };
            let integer = |i: usize| fields.get(i).and_then(|f| f.trim().parse::<u64>().ok());
            match (fields.len(), seconds(0), seconds(4), integer(5), integer(6)) {
                (7, Some(start), Some(duration), Some(bytes), Some(status)) => Ok(Row {
                    start,
                    duration,
                    bytes,
                    status: u16::try_from(status).map_err(|_| format!("status {status}"))?,
                }),
                _ => Err(format!("oha's CSV line does not parse: `{line}`")),
            }
        })
        .collect()
}

fn outcome(rows: &[Row], requested: u64) -> Outcome {
    let served: Vec<&Row> = rows.iter().filter(|r| r.status == 200).collect();
    let first = rows.iter().map(|r| r.start).min().unwrap_or_default();
    let last = rows
        .iter()
        .map(|r| r.start + r.duration)
        .max()
        .unwrap_or_default();
    Outcome {
        elapsed: last.saturating_sub(first),
        served: served.len() as u64,
        not_served: requested.saturating_sub(served.len() as u64),
        body_bytes: served.iter().map(|r| r.bytes).sum(),
        ..Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_give_the_span_and_the_served_requests() {
        let csv = "request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status\n\
                   0.010,0,0.001,0.002,0.005,100,200\n\
                   0.012,0,0,0.001,0.008,100,200\n\
                   0.013,0,0,0.001,0.001,9,503\n";
        let rows = parse_csv(csv).unwrap();
        assert_eq!(rows.len(), 3);
        let outcome = outcome(&rows, 4);
        assert_eq!(outcome.served, 2);
        assert_eq!(
            outcome.not_served, 2,
            "the 503 and the one oha did not print"
        );
        assert_eq!(outcome.body_bytes, 200);
        let span = outcome.elapsed.as_secs_f64();
        assert!((span - 0.010).abs() < 1e-9, "{span}: 0.010 → 0.020");
    }

    #[test]
    fn output_that_is_not_oha_s_csv_is_a_clear_error() {
        assert!(parse_csv("").unwrap_err().contains("no header"));
        let err = parse_csv("request-start,a\n1,2,x\n").unwrap_err();
        assert!(err.contains("does not parse"), "{err}");
        let err = parse_csv("request-start,a\n-1,0,0,0,0.1,5,200\n").unwrap_err();
        assert!(err.contains("does not parse"), "{err}");
    }
}
