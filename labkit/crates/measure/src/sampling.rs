//! Samplers behind the labs' `compare` binaries, and a line protocol that serves them to another
//! process.
//!
//! A source says what its cases are and how to take one ns/op sample of an implementation on
//! one ([`SampleSource`]; every lab is one through [`crate::measure::compare_main`]); [`compare_main`] then either interleaves two implementations in this
//! process (in rounds of freshly opened samplers, see [`crate::paired::rounds_for`]) or, with
//! `--serve IMPL`, answers requests on stdin so that `cargo xtask compare --rev` can interleave
//! two processes built from different git revisions, sample by sample, in rounds of fresh
//! processes.
//!
//! Protocol, one line each way: `cases [NAME...]` → `ok <experiment>/<parameter> ...`;
//! `open <experiment>/<parameter>` → `ok`; `sample` → `ok <ns/op>`; any failure → `error <why>`.

use std::io::{BufRead, Write};

use crate::args::{RunArgs, exit_with_usage_error};
use crate::lab::BenchCase;
use crate::paired::{PairSide, estimate_rounds, paired_records, rounds_for, run_rounds};
use crate::record::Record;

/// Takes one sample, in ns/op, of a prepared implementation on one case, or says why it could
/// not (a JVM that died).
pub type Sampler = Box<dyn FnMut() -> Result<f64, String>>;

/// What a lab's `compare` binary provides.
pub trait SampleSource {
    /// The cases `filters` (experiment and parameter names) select on which every one of
    /// `implementations` is measured; an error names an unknown word and lists the valid ones.
    fn cases(&self, implementations: &[&str], filters: &[String])
    -> Result<Vec<BenchCase>, String>;

    /// `implementation` prepared (and warmed up) on `case`.
    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String>;
}

/// The `main` of a lab's `compare` binary:
/// `A B [NAME...] [--quick|--test] [--out FILE]` interleaves A and B in this process and writes
/// paired records; `--serve IMPL` answers the protocol on stdin/stdout.
pub fn compare_main(source: &impl SampleSource) {
    let mut words: Vec<String> = std::env::args().skip(1).collect();
    let serving = match words.iter().position(|w| w == "--serve") {
        Some(at) => {
            words.remove(at);
            true
        }
        None => false,
    };
    let args = RunArgs::parse(words).unwrap_or_else(|e| exit_with_usage_error(&e));
    let result = if serving {
        match args.filters.as_slice() {
            [implementation] => serve(
                source,
                implementation,
                std::io::stdin().lock(),
                std::io::stdout().lock(),
            ),
            _ => Err("usage: compare --serve IMPLEMENTATION".to_owned()),
        }
    } else {
        compare_in_process(source, &args)
    };
    result.unwrap_or_else(|e| exit_with_usage_error(&e));
}

fn compare_in_process(source: &impl SampleSource, args: &RunArgs) -> Result<(), String> {
    let [a, b, names @ ..] = args.filters.as_slice() else {
        return Err(
            "usage: compare A B [EXPERIMENT|PARAMETER...] [--quick|--test] [--out FILE]".into(),
        );
    };
    let (rounds, pairs) = rounds_for(args.mode());
    let mut records: Vec<Record> = Vec::new();
    for case in source.cases(&[a.as_str(), b.as_str()], names)? {
        eprintln!("compare: {case}: {a} vs {b}");
        let failure = std::cell::RefCell::new(None);
        let samples = run_rounds(
            rounds,
            pairs,
            |side| match side {
                PairSide::A => source.open(a, &case),
                PairSide::B => source.open(b, &case),
            },
            |sampler: &mut Sampler| {
                sampler().unwrap_or_else(|e| {
                    failure.borrow_mut().get_or_insert(e);
                    f64::NAN
                })
            },
        )?;
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        let estimate = estimate_rounds(&samples).ok_or("fewer than 6 rounds")?;
        records.extend(paired_records(
            &case.experiment,
            a,
            b,
            &case.parameter,
            &estimate,
        ));
    }
    crate::record::emit_records(args.out.as_deref(), &records)
}

/// Answers protocol requests from `input` on `output` until `input` ends.
pub fn serve(
    source: &impl SampleSource,
    implementation: &str,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), String> {
    let mut sampler: Option<Sampler> = None;
    for line in input.lines() {
        let line = line.map_err(|e| format!("cannot read a request: {e}"))?;
        let (verb, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let reply = match verb {
            "cases" => {
                let filters: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
                source.cases(&[implementation], &filters).map(|cases| {
                    let ids: Vec<String> = cases.iter().map(ToString::to_string).collect();
                    ids.join(" ")
                })
            }
            "open" => rest
                .parse::<BenchCase>()
                .and_then(|case| source.open(implementation, &case))
                .map(|opened| {
                    sampler = Some(opened);
                    String::new()
                }),
            "sample" => sampler
                .as_mut()
                .ok_or_else(|| "`sample` before `open`".to_owned())
                .and_then(|sample| sample().map(|ns| ns.to_string())),
            _ => Err(format!("unknown request `{line}`")),
        };
        let written = match reply {
            Ok(payload) => writeln!(output, "ok {payload}"),
            Err(why) => writeln!(output, "error {why}"),
        };
        written
            .and_then(|()| output.flush())
            .map_err(|e| format!("cannot answer: {e}"))?;
    }
    Ok(())
}

/// The requesting side of the protocol, over any pair of streams (a child's stdin and stdout).
pub struct SampleClient<W, R> {
    requests: W,
    replies: R,
    /// Named in errors: which side answered.
    pub name: String,
}

impl<W: Write, R: BufRead> SampleClient<W, R> {
    pub fn new(name: &str, requests: W, replies: R) -> Self {
        Self {
            requests,
            replies,
            name: name.to_owned(),
        }
    }

    fn request(&mut self, line: &str) -> Result<String, String> {
        let fail = |e: std::io::Error| format!("{}: `{line}`: {e}", self.name);
        writeln!(self.requests, "{line}")
            .and_then(|()| self.requests.flush())
            .map_err(fail)?;
        let mut reply = String::new();
        let read = self.replies.read_line(&mut reply).map_err(fail)?;
        let reply = reply.trim_end();
        if read == 0 {
            return Err(format!("{}: ended without answering `{line}`", self.name));
        }
        if let Some(payload) = reply.strip_prefix("ok") {
            Ok(payload.trim_start().to_owned())
        } else {
            let why = reply.strip_prefix("error ").unwrap_or(reply);
            Err(format!("{}: `{line}`: {why}", self.name))
        }
    }

    pub fn cases(&mut self, filters: &[String]) -> Result<Vec<BenchCase>, String> {
        let ids = self.request(format!("cases {}", filters.join(" ")).trim_end())?;
        ids.split_whitespace().map(str::parse).collect()
    }

    pub fn open(&mut self, case: &BenchCase) -> Result<(), String> {
        self.request(&format!("open {case}")).map(drop)
    }

    pub fn sample(&mut self) -> Result<f64, String> {
        let reply = self.request("sample")?;
        reply
            .parse()
            .map_err(|_| format!("{}: `{reply}` is not a sample", self.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cases; implementation `x` takes 2 ns/op, `y` 3 ns/op, anything else is unknown.
    struct Fixed;

    impl SampleSource for Fixed {
        fn cases(&self, _: &[&str], filters: &[String]) -> Result<Vec<BenchCase>, String> {
            let all = [BenchCase::new("e", "p1"), BenchCase::new("e", "p2")];
            match filters {
                [] => Ok(all.to_vec()),
                [p] if all.iter().any(|c| &c.parameter == p) => {
                    Ok(all.into_iter().filter(|c| &c.parameter == p).collect())
                }
                _ => Err("unknown name; valid: p1, p2".into()),
            }
        }

        fn open(&self, implementation: &str, _: &BenchCase) -> Result<Sampler, String> {
            match implementation {
                "x" => Ok(Box::new(|| Ok(2.0))),
                "y" => Ok(Box::new(|| Ok(3.0))),
                other => Err(format!("unknown implementation `{other}`")),
            }
        }
    }

    fn served(implementation: &str, requests: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve(&Fixed, implementation, requests.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn server_answers_every_request_and_reports_errors_in_band() {
        let replies = served(
            "x",
            "sample\ncases\ncases p2\ncases nope\nopen e/p1\nsample\nopen bad\nfly\n",
        );
        assert_eq!(
            replies,
            [
                "error `sample` before `open`",
                "ok e/p1 e/p2",
                "ok e/p2",
                "error unknown name; valid: p1, p2",
                "ok ",
                "ok 2",
                "error `bad` is not a case `<experiment>/<parameter>`",
                "error unknown request `fly`",
            ]
        );
        assert_eq!(
            served("z", "open e/p1\n"),
            ["error unknown implementation `z`"]
        );
    }

    #[test]
    fn client_reads_what_the_server_writes() {
        let replies = served("y", "cases\nopen e/p2\nsample\nsample\n").join("\n") + "\n";
        let mut sent = Vec::new();
        let mut client = SampleClient::new("rev", &mut sent, replies.as_bytes());
        assert_eq!(client.cases(&[]).unwrap().len(), 2);
        client.open(&BenchCase::new("e", "p2")).unwrap();
        assert_eq!(client.sample().unwrap(), 3.0);
        assert_eq!(client.sample().unwrap(), 3.0);
        let err = client.sample().unwrap_err();
        assert!(err.contains("rev") && err.contains("ended"), "{err}");
        assert_eq!(
            String::from_utf8(sent).unwrap(),
            "cases\nopen e/p2\nsample\nsample\nsample\n"
        );

        let mut sent = Vec::new();
        let mut client = SampleClient::new("rev", &mut sent, "error no such case\n".as_bytes());
        let err = client.open(&BenchCase::new("e", "p9")).unwrap_err();
        assert_eq!(err, "rev: `open e/p9`: no such case");
    }
}
