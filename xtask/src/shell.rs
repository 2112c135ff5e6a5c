//! Running the tools the driver calls: the workspace root, cargo, and child processes whose
//! output is passed through.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The cargo that runs this driver.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Commands run in the workspace root unless they chose a directory (bench binaries run in their
/// package's, as under `cargo bench`).
fn in_root_unless_set(cmd: &mut Command) {
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
}

/// A command as it is shown in errors: the program's file name and its arguments.
fn shown(cmd: &Command) -> String {
    let program = Path::new(cmd.get_program()).file_name().map_or_else(
        || cmd.get_program().to_string_lossy(),
        |n| n.to_string_lossy(),
    );
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!("`{program} {}`", args.join(" "))
}

/// Runs a command, streaming its output.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = shown(cmd);
    in_root_unless_set(cmd);
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// Runs a command with its stdout and stderr merged into one stream, in the order it wrote them
/// (so each benchmark's lines stay together), passing every line to `on_line`.
pub fn run_merged(cmd: &mut Command, mut on_line: impl FnMut(&str)) -> Result<()> {
    let shown = shown(cmd);
    in_root_unless_set(cmd);
    let (reader, writer) = std::io::pipe().context("cannot create a pipe")?;
    let mut child = cmd
        .stdout(writer.try_clone().context("cannot share a pipe")?)
        .stderr(writer)
        .spawn()
        .with_context(|| format!("cannot start {shown}"))?;
    // The command holds the writing ends; dropping it lets the pipe end when the child exits.
    drop(std::mem::replace(cmd, Command::new("true")));
    for line in std::io::BufReader::new(reader).lines() {
        on_line(&line.with_context(|| format!("reading {shown}"))?);
    }
    let status = child
        .wait()
        .with_context(|| format!("waiting for {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// Runs a command and returns its stdout, passing its stderr through.
pub fn output(cmd: &mut Command) -> Result<String> {
    let shown = shown(cmd);
    in_root_unless_set(cmd);
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start {shown}"))?;
    if !out.status.success() {
        bail!("{shown} failed ({})", out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_output_keeps_the_order_of_both_streams() {
        let mut lines = Vec::new();
        run_merged(
            Command::new("sh").args(["-c", "echo one; echo two >&2; echo three"]),
            |l| lines.push(l.to_owned()),
        )
        .unwrap();
        assert_eq!(lines, ["one", "two", "three"]);
        let err = run(Command::new("sh").args(["-c", "exit 3"])).unwrap_err();
        assert!(err.to_string().contains("`sh -c exit 3` failed"), "{err}");
    }
}
