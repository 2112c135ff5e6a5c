//! How a thread is scheduled (Linux): its CPU affinity (`sched_setaffinity`), which CPUs it may
//! run on, so that a load generator and the server it drives can be kept off each other's cores
//! (a thread created by a pinned thread inherits its set); and its timer slack, how late the
//! kernel may wake it from a sleep.

use std::fmt;

/// CPUs this thread may run on now, in ascending order (empty where the kernel will not say).
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain data for which all-zero is the empty set; the call writes at
    // most `size_of::<cpu_set_t>()` bytes into `set`, which lives across the call. Exercised by
    // `a_thread_pinned_to_one_cpu_runs_only_there`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; pid 0 is the calling thread.
    let status = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if status != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity, so the test reads inside `set`.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// Restricts the calling thread to `cpus`; threads it creates afterwards inherit the set.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), String> {
    if cpus.is_empty() {
        return Err("cannot pin a thread to no CPU".to_owned());
    }
    // SAFETY: all-zero is the empty set (see `allowed_cpus`).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(format!("CPU {cpu} is beyond the kernel's CPU set"));
        }
        // SAFETY: `cpu` is below CPU_SETSIZE (checked above), so the write stays inside `set`.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed, read by the call only; pid 0 is the
    // calling thread.
    let status = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if status != 0 {
        return Err(format!(
            "cannot pin this thread to CPUs {cpus:?}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Lets the kernel wake the calling thread from a sleep at most 1 ns late rather than its default
/// 50 µs (`PR_SET_TIMERSLACK`): for a thread that keeps a schedule. Other threads keep theirs.
pub fn fine_timer_slack() -> Result<(), String> {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument by value and touches no memory of
    // ours. Exercised by `fine_timer_slack_applies_to_the_calling_thread_only`.
    let status = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    if status != 0 {
        return Err(format!(
            "cannot set this thread's timer slack: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Two disjoint CPU sets out of the process's: a load generator's and its server's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub client: Vec<usize>,
    pub server: Vec<usize>,
}

impl Split {
    /// The allowed CPUs halved, the client on the lower half (one CPU each on two cores); `None`
    /// when fewer than two CPUs are allowed, and client and server must share.
    pub fn halves(cpus: &[usize]) -> Option<Self> {
        if cpus.len() < 2 {
            return None;
        }
        let (client, server) = cpus.split_at(cpus.len() / 2);
        Some(Self {
            client: client.to_vec(),
            server: server.to_vec(),
        })
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "client on CPUs {:?}, server on {:?}",
            self.client, self.server
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's timer slack in ns (`PR_GET_TIMERSLACK`).
    fn timer_slack_ns() -> i32 {
        // SAFETY: PR_GET_TIMERSLACK takes no argument and returns the slack; it touches no memory.
        unsafe { libc::prctl(libc::PR_GET_TIMERSLACK) }
    }

    #[test]
    fn a_thread_pinned_to_one_cpu_runs_only_there() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty(), "the kernel reports this thread's CPUs");
        let last = *allowed.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(&[last]).unwrap();
            assert_eq!(allowed_cpus(), vec![last]);
            let child = std::thread::spawn(allowed_cpus).join().unwrap();
            assert_eq!(child, vec![last], "a new thread inherits the set");
        })
        .join()
        .unwrap();
        assert_eq!(allowed_cpus(), allowed, "other threads keep theirs");
    }

    #[test]
    fn fine_timer_slack_applies_to_the_calling_thread_only() {
        let default = timer_slack_ns();
        let fine = std::thread::spawn(|| {
            fine_timer_slack().unwrap();
            timer_slack_ns()
        })
        .join()
        .unwrap();
        assert_eq!(fine, 1);
        assert_eq!(timer_slack_ns(), default, "other threads keep theirs");
    }

    #[test]
    fn bad_sets_are_refused_with_a_reason() {
        assert!(pin_current_thread(&[]).unwrap_err().contains("no CPU"));
        let err = pin_current_thread(&[1 << 20]).unwrap_err();
        assert!(err.contains("beyond"), "{err}");
    }

    #[test]
    fn halves_split_the_allowed_cpus_apart() {
        assert_eq!(Split::halves(&[0]), None);
        let split = Split::halves(&[0, 1]).unwrap();
        assert_eq!((split.client, split.server), (vec![0], vec![1]));
        let split = Split::halves(&[0, 1, 2, 3, 4]).unwrap();
        assert_eq!((split.client, split.server), (vec![0, 1], vec![2, 3, 4]));
    }
}
