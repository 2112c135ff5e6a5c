//! Where the load generator and the server run: on disjoint halves of the process's CPUs (one
//! core each on two), so that the client's reading of bodies does not take the server's core and
//! the `static-body` ceiling is the server's, not the two sides' sum. Every server thread (tokio's
//! workers and blocking pool, and the design's generator threads, made from a pinned thread)
//! runs on the server's half; the client's runtime runs on the calling thread, pinned to the
//! client's half for the run and given its CPUs back after.

use std::sync::OnceLock;

use labkit::affinity::{Split, allowed_cpus, pin_current_thread};

/// The split, read once from the CPUs the process was allowed when the first server started;
/// `None` on a single CPU, where both sides share it.
pub fn split() -> Option<&'static Split> {
    static SPLIT: OnceLock<Option<Split>> = OnceLock::new();
    SPLIT
        .get_or_init(|| {
            let split = Split::halves(&allowed_cpus());
            if split.is_none() {
                eprintln!("coalesce: one CPU allowed; the load generator shares the server's");
            }
            split
        })
        .as_ref()
}

/// How many CPUs the load generator runs on: its half, or all allowed on a single CPU.
pub fn client_cpus() -> usize {
    split()
        .map_or_else(|| allowed_cpus().len(), |s| s.client.len())
        .max(1)
}

/// Pins the calling thread to the server's half (nothing on a single CPU).
pub fn pin_to_server() {
    if let Some(split) = split()
        && let Err(e) = pin_current_thread(&split.server)
    {
        eprintln!("coalesce: {e}; the server shares the client's CPUs");
    }
}

/// Runs `f` on the calling thread pinned to the client's half, then restores the thread's CPUs.
pub fn on_client<T>(f: impl FnOnce() -> T) -> T {
    let Some(split) = split() else {
        return f();
    };
    let before = allowed_cpus();
    if let Err(e) = pin_current_thread(&split.client) {
        eprintln!("coalesce: {e}; the load generator shares the server's CPUs");
    }
    let result = f();
    if !before.is_empty() {
        let _ = pin_current_thread(&before);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_runs_on_its_half_and_gets_its_cpus_back() {
        let before = allowed_cpus();
        let during = on_client(allowed_cpus);
        match split() {
            Some(split) => assert_eq!(during, split.client),
            None => assert_eq!(during, before),
        }
        assert_eq!(client_cpus(), during.len().max(1));
        assert_eq!(allowed_cpus(), before);
        let server = std::thread::spawn(|| {
            pin_to_server();
            allowed_cpus()
        })
        .join()
        .unwrap();
        if let Some(split) = split() {
            assert_eq!(server, split.server);
        }
    }
}
