//! What the whole measuring process costs: CPU time and peak resident set size (Linux `/proc`).

use std::time::Duration;

/// CPU time (user + system) the process has used, over all its threads.
pub fn cpu_time() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time (user + system) the calling thread has used.
pub fn thread_cpu_time() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn clock(id: libc::clockid_t) -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the duration of the call, and both CPU-time
    // clocks used here are clocks every Linux and POSIX system provides; the call only writes
    // `now`. Exercised by `cpu_time_advances_with_work`.
    let status = unsafe { libc::clock_gettime(id, &mut now) };
    if status != 0 {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// CPU time (user + system) of this process's children that have ended and been waited for.
pub fn children_cpu_time() -> Duration {
    let Some(usage) = rusage(libc::RUSAGE_CHILDREN) else {
        return Duration::ZERO;
    };
    timeval(usage.ru_utime) + timeval(usage.ru_stime)
}

/// Kernel-side CPU time (system time) of the whole process, over all its threads: the part of
/// [`cpu_time`] spent in system calls and the kernel work they do (a socket's copies, TCP).
pub fn system_cpu_time() -> Duration {
    rusage(libc::RUSAGE_SELF).map_or(Duration::ZERO, |u| timeval(u.ru_stime))
}

/// Kernel-side CPU time of the calling thread.
pub fn thread_system_cpu_time() -> Duration {
    rusage(libc::RUSAGE_THREAD).map_or(Duration::ZERO, |u| timeval(u.ru_stime))
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000)
}

/// Voluntary context switches of the whole process, over all its threads: the times a thread
/// gave up its CPU to wait (for I/O, a lock, a timer, work).
pub fn voluntary_switches() -> u64 {
    rusage(libc::RUSAGE_SELF).map_or(0, |u| u.ru_nvcsw as u64)
}

/// Voluntary context switches of the calling thread.
pub fn thread_voluntary_switches() -> u64 {
    rusage(libc::RUSAGE_THREAD).map_or(0, |u| u.ru_nvcsw as u64)
}

fn rusage(who: libc::c_int) -> Option<libc::rusage> {
    // SAFETY: all-zero is a valid `rusage` (plain integers and timevals); the call only writes
    // it. Exercised by `children_cpu_time_counts_a_waited_child` and
    // `voluntary_switches_count_a_thread_s_sleeps`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid and writable for the duration of the call.
    (unsafe { libc::getrusage(who, &mut usage) } == 0).then_some(usage)
}

/// Starts a new peak-RSS measurement (Linux: writing 5 to `/proc/self/clear_refs` resets
/// `VmHWM` to the current RSS). Returns whether the kernel allowed it.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident set size since it started or since [`reset_peak_rss`]; `None`
/// where `/proc/self/status` has no `VmHWM`.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    vm_hwm_bytes(&status)
}

/// Raises this process's soft limit on open files to at least `wanted` (up to the hard limit), for
/// a test or bench that opens many connections; returns the limit now in force, or an error saying
/// what stands in the way.
pub fn raise_open_files(wanted: u64) -> Result<u64, String> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the duration of the call, which only
    // writes it. Exercised by `open_files_limit_is_raised`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(format!(
            "cannot read the open-files limit: {}",
            std::io::Error::last_os_error()
        ));
    }
    if limit.rlim_cur >= wanted {
        return Ok(limit.rlim_cur);
    }
    if limit.rlim_max < wanted {
        return Err(format!(
            "{wanted} open files needed, but the hard limit is {} (raise it with `ulimit -Hn`)",
            limit.rlim_max
        ));
    }
    limit.rlim_cur = wanted;
    // SAFETY: `limit` is a valid rlimit read just above, with a soft limit within its hard one;
    // the call only reads it.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
        return Err(format!(
            "cannot raise the open-files limit to {wanted}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(wanted)
}

fn vm_hwm_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// How much the machine disturbed a stretch of this process's run: CPU time the hypervisor stole
/// from the whole machine (`/proc/stat`), and this process's involuntary context switches and CPU
/// migrations (`/proc/self/status`, `/proc/self/sched`), each from [`Disturbance::start`] on.
/// A kernel without one of the files gives no record for it.
pub struct Disturbance {
    started: std::time::Instant,
    steal_ticks: Option<u64>,
    switches: Option<u64>,
    migrations: Option<u64>,
}

/// The id of a pass's disturbance records.
pub fn disturbance_id() -> crate::record::BenchId {
    crate::record::BenchId::new("pass", "machine", "whole-pass")
}

/// What a pass's disturbance records count.
pub const STEAL_SHARE: crate::record::EventName = crate::record::EventName::new("steal-share");
pub const INVOLUNTARY_SWITCHES: crate::record::EventName =
    crate::record::EventName::new("involuntary-switches");
pub const MIGRATIONS: crate::record::EventName = crate::record::EventName::new("migrations");

impl Disturbance {
    pub fn start() -> Self {
        Self {
            started: std::time::Instant::now(),
            steal_ticks: read_steal_ticks(),
            switches: read_field("/proc/self/status", "nonvoluntary_ctxt_switches:"),
            migrations: read_field("/proc/self/sched", "se.nr_migrations"),
        }
    }

    /// Records since the start: the stolen share of the machine's CPU time over the wall time
    /// (all cores), the involuntary switches and the migrations.
    pub fn records(&self) -> Vec<crate::record::Record> {
        use crate::record::{Metric, Record};
        let wall = self.started.elapsed().as_secs_f64();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let mut records = Vec::new();
        let mut push = |event, value: f64| {
            records.push(Record::new(
                disturbance_id(),
                Metric::PassDisturbance(event),
                value,
            ))
        };
        if let (Some(before), Some(after)) = (self.steal_ticks, read_steal_ticks()) {
            // /proc/stat counts in USER_HZ ticks, 100 per second on Linux.
            let stolen = after.saturating_sub(before) as f64 / 100.0;
            push(STEAL_SHARE, stolen / (wall * cores).max(f64::MIN_POSITIVE));
        }
        let fields = [
            (
                INVOLUNTARY_SWITCHES,
                self.switches,
                "/proc/self/status",
                "nonvoluntary_ctxt_switches:",
            ),
            (
                MIGRATIONS,
                self.migrations,
                "/proc/self/sched",
                "se.nr_migrations",
            ),
        ];
        for (event, before, file, field) in fields {
            if let (Some(before), Some(after)) = (before, read_field(file, field)) {
                push(event, after.saturating_sub(before) as f64);
            }
        }
        records
    }
}

/// The machine's stolen CPU time so far, in ticks (the eighth value of `/proc/stat`'s `cpu` line).
fn read_steal_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    steal_ticks(&stat)
}

fn steal_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

/// The number after `field` on its line of `file` (`name: value` or `name : value`).
fn read_field(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    field_value(&text, field)
}

fn field_value(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.trim_start().starts_with(field))?;
    let value = line.trim_start()[field.len()..].trim_start_matches([' ', ':', '\t']);
    value.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn disturbance_fields_are_read_from_procs_formats() {
        let stat =
            "cpu  1242700 0 345569 936027 6516 0 57234 45903 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        assert_eq!(steal_ticks(stat), Some(45903));
        assert_eq!(steal_ticks("intr 1 2"), None);
        let sched = "se.exec_start      :    1.0\nse.nr_migrations                             :                    3\n";
        assert_eq!(field_value(sched, "se.nr_migrations"), Some(3));
        let status = "voluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t7\n";
        assert_eq!(field_value(status, "nonvoluntary_ctxt_switches:"), Some(7));
        assert_eq!(field_value(status, "missing"), None);
        // On this machine's kernel the files exist: a stretch gives its three records.
        let records = Disturbance::start().records();
        assert!(
            records
                .iter()
                .all(|r| r.id == disturbance_id() && r.value >= 0.0)
        );
    }

    use super::*;

    #[test]
    fn cpu_time_advances_with_work() {
        let before = cpu_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(cpu_time() > before, "{x}");
        let thread = thread_cpu_time();
        let mut y = 0u64;
        for i in 0..20_000_000u64 {
            y = std::hint::black_box(y.wrapping_mul(31).wrapping_add(i));
        }
        assert!(thread_cpu_time() > thread, "{y}");
    }

    #[test]
    fn children_cpu_time_counts_a_waited_child() {
        let before = children_cpu_time();
        let status = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(children_cpu_time() > before);
    }

    #[test]
    fn system_time_is_a_part_of_the_cpu_time() {
        let (process, thread) = (system_cpu_time(), thread_system_cpu_time());
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_millis(30) {
            // A system call each time round: the kernel's part grows.
            let _ = std::fs::metadata("/proc/self/stat");
        }
        assert!(thread_system_cpu_time() > thread);
        assert!(system_cpu_time() > process);
        assert!(thread_system_cpu_time() <= thread_cpu_time());
    }

    #[test]
    fn voluntary_switches_count_a_thread_s_sleeps() {
        let (process, thread) = (voluntary_switches(), thread_voluntary_switches());
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(
            thread_voluntary_switches() >= thread + 5,
            "each sleep gives up the CPU"
        );
        assert!(
            voluntary_switches() >= process + 5,
            "the process counts its threads'"
        );
    }

    #[test]
    fn open_files_limit_is_raised() {
        let now = raise_open_files(1).unwrap();
        assert!(now >= 1);
        assert_eq!(raise_open_files(now).unwrap(), now);
        // Beyond the hard limit (unless it is unlimited) there is an error, not a panic.
        if let Err(e) = raise_open_files(u64::MAX) {
            assert!(e.contains("hard limit"), "{e}");
        }
    }

    #[test]
    fn peak_rss_is_read_from_vm_hwm() {
        assert_eq!(
            vm_hwm_bytes("Name:\tx\nVmHWM:\t   2048 kB\nVmRSS:\t 1024 kB\n"),
            Some(2 << 20)
        );
        assert_eq!(vm_hwm_bytes("Name:\tx\n"), None);
        if reset_peak_rss() {
            let touched = vec![1u8; 32 << 20];
            let peak = peak_rss_bytes().unwrap();
            assert!(peak >= 32 << 20, "{peak} after touching 32 MiB");
            drop(std::hint::black_box(touched));
        }
    }
}
