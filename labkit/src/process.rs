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
