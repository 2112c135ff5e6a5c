//! The justfile's recipes are `cargo xtask` calls: each must name a command and options the
//! driver has, checked as `--help` would check them (so the shortcuts cannot drift from the CLI).

#[cfg(test)]
mod tests {
    use crate::cli_tests::parse;
    use crate::root;

    /// Every `cargo xtask …` line of the justfile, its `{{…}}` parameters left out.
    fn xtask_lines() -> Vec<Vec<String>> {
        let justfile = std::fs::read_to_string(root().join("justfile")).unwrap();
        justfile
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("cargo xtask "))
            .map(|l| {
                l.split_whitespace()
                    .filter(|w| !w.starts_with("{{"))
                    .map(str::to_owned)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_recipe_is_a_command_the_driver_has() {
        let lines = xtask_lines();
        assert!(lines.len() >= 8, "{lines:?}");
        for words in lines {
            let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
            args.push("--help");
            let Err(e) = parse(&args) else {
                panic!("`cargo xtask {}` printed no help", words.join(" "));
            };
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp,
                "`cargo xtask {}`: {e}",
                words.join(" ")
            );
        }
        assert!(
            parse(&["absent", "--help"])
                .is_err_and(|e| { e.kind() != clap::error::ErrorKind::DisplayHelp })
        );
    }
}
