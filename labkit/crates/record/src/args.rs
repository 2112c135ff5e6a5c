//! Command-line arguments shared by the labs' measurement binaries (run through `cargo bench`,
//! which adds `--bench`). Unknown flags are errors, so a typo never silently measures the wrong
//! thing.

/// Parsed arguments of a measurement binary.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunArgs {
    /// Where to write the result set (JSON).
    pub out: Option<std::path::PathBuf>,
    /// Smoke mode: as few operations as still exercise every code path.
    pub test: bool,
    /// Fewer operations than a full run.
    pub quick: bool,
    /// Seeds a wall-time pass's placement and orders (see `crate::measure::pass_main`).
    pub seed: u64,
    /// Positional words: names that select implementations, shapes or datasets.
    pub filters: Vec<String>,
    /// `--case EXPERIMENT/PARAMETER[=CELL,…]`, repeatable: a wall-time pass measures only these
    /// cases, and of each only the named cells beside the baseline (the driver's repeats and
    /// added passes); none given, every selected case.
    pub cases: Vec<String>,
}

impl RunArgs {
    /// Parses `args` (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut parsed = Self::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--bench" => {} // added by `cargo bench`
                "--test" => parsed.test = true,
                "--quick" => parsed.quick = true,
                "--out" => {
                    let path = args.next().ok_or("--out needs a file path")?;
                    parsed.out = Some(path.into());
                }
                "--case" => {
                    let case = args.next().ok_or("--case needs EXPERIMENT/PARAMETER")?;
                    if !case.split('=').next().is_some_and(|c| c.contains('/')) {
                        return Err(format!(
                            "--case takes EXPERIMENT/PARAMETER[=CELL,…], not `{case}`"
                        ));
                    }
                    parsed.cases.push(case);
                }
                "--seed" => {
                    let seed = args.next().ok_or("--seed needs a number")?;
                    parsed.seed = seed.parse().map_err(|_| {
                        format!("--seed takes a whole number from 0 to 2^64-1, not `{seed}`")
                    })?;
                }
                flag if flag.starts_with('-') => {
                    return Err(format!(
                        "unknown option `{flag}`; valid: --out PATH, --quick, --test, --seed N, \
                         --case EXPERIMENT/PARAMETER"
                    ));
                }
                word => parsed.filters.push(word.to_owned()),
            }
        }
        Ok(parsed)
    }

    /// This run's mode: smoke (`--test`), quick, or full.
    pub fn mode(&self) -> crate::record::RunMode {
        use crate::record::RunMode;
        self.by_mode(RunMode::Smoke, RunMode::Quick, RunMode::Full)
    }

    /// The value for this run's mode: smoke (`--test`), quick, or full.
    pub fn by_mode<T>(&self, smoke: T, quick: T, full: T) -> T {
        if self.test {
            smoke
        } else if self.quick {
            quick
        } else {
            full
        }
    }
}

/// Prints `message` as an error and exits with status 2: for measurement binaries' `main`.
pub fn exit_with_usage_error(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<RunArgs, String> {
        RunArgs::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_flags_and_filters_and_rejects_unknown_options() {
        let a = parse(&["--bench", "--quick", "--out", "x.json", "atomic-slot"]).unwrap();
        assert!(a.quick && !a.test);
        assert_eq!(a.out.as_deref(), Some(std::path::Path::new("x.json")));
        assert_eq!(a.filters, ["atomic-slot"]);
        assert!(parse(&["--out"]).unwrap_err().contains("--out"));
        assert_eq!(parse(&["--seed", "7"]).unwrap().seed, 7);
        assert!(parse(&["--seed", "-1"]).unwrap_err().contains("not `-1`"));
        assert!(parse(&["--seed"]).unwrap_err().contains("--seed"));
        let cases = parse(&[
            "--case",
            "op/small",
            "--case",
            "cleanup/big=fast,base-again",
        ])
        .unwrap();
        assert_eq!(cases.cases, ["op/small", "cleanup/big=fast,base-again"]);
        assert!(parse(&["--case", "small=fast"]).is_err());
        assert!(cases.filters.is_empty());
        assert!(
            parse(&["--case", "small"])
                .unwrap_err()
                .contains("not `small`")
        );
        assert!(parse(&["--case"]).unwrap_err().contains("--case needs"));
        assert!(
            parse(&["--fast"])
                .unwrap_err()
                .contains("unknown option `--fast`")
        );
    }
}
