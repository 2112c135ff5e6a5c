//! What the whole measuring process costs: CPU time and peak resident set size (Linux `/proc`).

use std::time::Duration;

/// CPU time (user + system) the process has used, over all its threads.
pub fn cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the duration of the call, and
    // CLOCK_PROCESS_CPUTIME_ID is a clock every Linux and POSIX system provides; the call only
    // writes `now`. Exercised by `cpu_time_advances_with_work`.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    if status != 0 {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances_with_work() {
        let before = cpu_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(cpu_time() > before, "{x}");
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
