//! One JVM running `labkit.Harness` for one design: started once per process, design and fork,
//! and asked one request at a time over its stdin and stdout.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use super::Fork;
use crate::lab::{BenchCase, MeasuredHeap};

/// How long one request may take before its JVM is taken for hung and stopped: far above the
/// longest request (a warm-up of at most 5 s plus one run, a footprint build and two full
/// collections of a million producers).
const PATIENCE: Duration = Duration::from_secs(300);

/// The JVM's flags beyond its defaults: an initial heap of 1 GiB, so that the full collection of
/// the harness's first heap histogram (at start) does not shrink the heap to a few tens of MiB,
/// which would put young collections inside the first cases' operations.
pub const JVM_FLAGS: [&str; 1] = ["-Xms1g"];

/// Lines of a JVM's stderr kept for the error that reports its end.
const STDERR_TAIL: usize = 4;

/// What one measured run on the JVM returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    pub nanos: u64,
    pub events: Vec<(String, u64)>,
    pub heap: MeasuredHeap,
}

/// A running JVM of one design: requests are serialised, so cases of the design opened by several
/// threads (tests) take turns.
pub struct Jvm {
    design: String,
    io: Mutex<Io>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

struct Io {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    /// Why it can no longer answer, once it cannot.
    ended: Option<String>,
}

type Key = (String, String, Fork, bool);

fn registry() -> MutexGuard<'static, HashMap<Key, Arc<Jvm>>> {
    static JVMS: OnceLock<Mutex<HashMap<Key, Arc<Jvm>>>> = OnceLock::new();
    JVMS.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The running JVM of `design` and `fork` whose harness runs `lab_class` from `classes`, started
/// now when there is none or the last one ended.
pub(super) fn started(
    classes: &Path,
    lab_class: &str,
    design: &str,
    fork: Fork,
    full_warm_up: bool,
) -> Result<Arc<Jvm>, String> {
    let key = (lab_class.to_owned(), design.to_owned(), fork, full_warm_up);
    let mut jvms = registry();
    if let Some(jvm) = jvms.get(&key).filter(|j| j.alive()) {
        return Ok(Arc::clone(jvm));
    }
    let jvm = Arc::new(Jvm::start(classes, lab_class, design, full_warm_up)?);
    jvms.insert(key, Arc::clone(&jvm));
    Ok(jvm)
}

impl Jvm {
    fn start(
        classes: &Path,
        lab_class: &str,
        design: &str,
        full_warm_up: bool,
    ) -> Result<Self, String> {
        let warm_up = if full_warm_up { "full" } else { "smoke" };
        let mut child = Command::new("java")
            .args(JVM_FLAGS)
            .arg("-cp")
            .arg(classes)
            .arg(format!("-Dlabkit.warmup={warm_up}"))
            .args(["labkit.Harness", lab_class, design])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{design}: cannot start `java`: {e}"))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err(format!("{design}: the JVM's pipes were not opened")),
            };
        let (send, replies) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        let name = design.to_owned();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[{name}] {line}");
                let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let jvm = Self {
            design: design.to_owned(),
            io: Mutex::new(Io {
                child,
                stdin,
                replies,
                ended: None,
            }),
            stderr_tail,
        };
        jvm.reply()?;
        Ok(jvm)
    }

    fn io(&self) -> MutexGuard<'_, Io> {
        self.io.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn alive(&self) -> bool {
        self.io().ended.is_none()
    }

    /// The next reply line's words after `ok`, or the error it or the JVM's end reports.
    fn reply(&self) -> Result<String, String> {
        let mut io = self.io();
        self.reply_locked(&mut io)
    }

    fn reply_locked(&self, io: &mut Io) -> Result<String, String> {
        if let Some(ended) = &io.ended {
            return Err(ended.clone());
        }
        let line = match io.replies.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                let _ = io.child.kill();
                let _ = io.child.wait();
                return Err(self.end(io, &format!("did not answer within {PATIENCE:?}; stopped")));
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = io
                    .child
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string());
                return Err(self.end(io, &format!("the JVM ended ({status})")));
            }
        };
        match line.split_once(' ') {
            Some(("ok", rest)) => Ok(rest.to_owned()),
            Some(("error", message)) => Err(format!("{}: {message}", self.design)),
            _ => Err(self.end(io, &format!("unreadable reply `{line}`"))),
        }
    }

    /// Marks the JVM ended for `why`, with the last lines it wrote on stderr (its own message).
    fn end(&self, io: &mut Io, why: &str) -> String {
        // The stderr reader may still be taking the JVM's last lines.
        std::thread::sleep(Duration::from_millis(50));
        let tail: Vec<String> = self
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        let said = if tail.is_empty() {
            String::new()
        } else {
            format!(": {}", tail.join(" / "))
        };
        let ended = format!("{}: {why}{said}", self.design);
        io.ended = Some(ended.clone());
        ended
    }

    /// Sends one request and waits for its reply.
    fn request(&self, line: &str) -> Result<String, String> {
        let mut io = self.io();
        if let Some(ended) = &io.ended {
            return Err(ended.clone());
        }
        if let Err(e) = writeln!(io.stdin, "{line}").and_then(|()| io.stdin.flush()) {
            return Err(self.end(&mut io, &format!("cannot be written to ({e})")));
        }
        self.reply_locked(&mut io)
    }

    /// Opens `case`; returns its handle.
    pub(super) fn open(&self, case: &BenchCase) -> Result<u64, String> {
        let reply = self.request(&format!("open {} {}", case.experiment, case.parameter))?;
        let handle = reply.split(' ').next().unwrap_or_default();
        if let Some(warm) = field(&reply, "warm").filter(|w| *w == "compiling") {
            eprintln!(
                "{}: {case} was still {warm} after {} ms of warm-up",
                self.design,
                field(&reply, "warm-ms").unwrap_or("?")
            );
        }
        handle
            .parse()
            .map_err(|_| format!("{}: no handle in `{reply}`", self.design))
    }

    /// Runs `warm_up` untimed and `ops` measured operations of an open case.
    pub(super) fn run(&self, handle: u64, warm_up: u64, ops: u64) -> Result<Ran, String> {
        let reply = self.request(&format!("run {handle} {warm_up} {ops}"))?;
        parse_ran(&reply).map_err(|e| format!("{}: {e} in `{reply}`", self.design))
    }

    /// Closes an open case; a JVM that has ended has nothing left to close.
    pub(super) fn close(&self, handle: u64) {
        let _ = self.request(&format!("close {handle}"));
    }

    pub(super) fn trace(&self, case: &BenchCase, n: u64) -> Result<u64, String> {
        let reply = self.request(&format!("trace {} {} {n}", case.experiment, case.parameter))?;
        field(&reply, "checksum")
            .and_then(|c| c.parse::<i64>().ok())
            // Java prints a signed long.
            .map(|c| c as u64)
            .ok_or_else(|| format!("{}: no checksum in `{reply}`", self.design))
    }

    pub(super) fn check(&self) -> Result<(), String> {
        self.request("check").map(drop)
    }
}

impl Drop for Jvm {
    fn drop(&mut self) {
        let io = self.io.get_mut().unwrap_or_else(PoisonError::into_inner);
        // End of input ends the harness; a JVM that does not end is stopped.
        let _ = io.child.kill();
        let _ = io.child.wait();
    }
}

/// The value of `name=value` among a reply's words.
fn field<'a>(reply: &'a str, name: &str) -> Option<&'a str> {
    reply
        .split(' ')
        .find_map(|w| w.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
}

/// A `run` reply: `ns=N allocated=B [event.NAME=C ...]` or `ns=N retained=B`.
fn parse_ran(reply: &str) -> Result<Ran, String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        field(reply, name)
            .map(|v| v.parse().map_err(|_| format!("`{name}` is not a count")))
            .transpose()
    };
    let nanos = number("ns")?.ok_or("no time")?;
    let mut events = Vec::new();
    for word in reply.split(' ') {
        if let Some((name, n)) = word.strip_prefix("event.").and_then(|w| w.split_once('=')) {
            let n = n
                .parse()
                .map_err(|_| format!("event `{name}` is not a count"))?;
            events.push((name.to_owned(), n));
        }
    }
    Ok(Ran {
        nanos,
        events,
        heap: MeasuredHeap {
            allocated_bytes: number("allocated")?,
            retained_bytes: number("retained")?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_replies_parse_into_time_events_and_heap() {
        let ran = parse_ran("ns=1200 allocated=48 event.lost-races=7").unwrap();
        assert_eq!(ran.nanos, 1200);
        assert_eq!(ran.events, [("lost-races".to_owned(), 7)]);
        assert_eq!(ran.heap.allocated_bytes, Some(48));
        assert_eq!(ran.heap.retained_bytes, None);
        let built = parse_ran("ns=5 retained=4096").unwrap();
        assert_eq!(built.heap.retained_bytes, Some(4096));
        assert!(parse_ran("allocated=48").unwrap_err().contains("no time"));
        assert!(parse_ran("ns=x").unwrap_err().contains("not a count"));
        assert!(
            parse_ran("ns=1 event.a=b")
                .unwrap_err()
                .contains("event `a`")
        );
    }
}
