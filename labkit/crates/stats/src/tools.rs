//! External programs a lab drives (a load generator to cross-check its own against), declared by
//! the lab ([`crate::lab::Describe::tools`]) at a pinned version and installed by the driver into
//! the workspace's `.tools/`, like the gungraun runner: nothing is installed by hand.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A program installed from crates.io with `cargo install <package> --version <version>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// The executable's name under `.tools/bin/`.
    pub binary: String,
    pub package: String,
    /// The exact version; `<binary> --version` must print it.
    pub version: String,
}

impl Tool {
    pub fn new(binary: &str, package: &str, version: &str) -> Self {
        Self {
            binary: binary.to_owned(),
            package: package.to_owned(),
            version: version.to_owned(),
        }
    }

    /// Where the driver installs it: `$LABKIT_TOOLS/<binary>` when the driver said where, else
    /// this workspace's `.tools/bin/<binary>`.
    pub fn path(&self) -> PathBuf {
        let dir = std::env::var_os(TOOLS_ENV).map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../.tools/bin"),
            PathBuf::from,
        );
        dir.join(&self.binary)
    }

    /// The installed path, or an error that says how to install it.
    pub fn installed(&self) -> Result<PathBuf, String> {
        let path = self.path();
        if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "{} {} is not installed at {} (`cargo xtask tools` installs it)",
                self.package,
                self.version,
                path.display()
            ))
        }
    }
}

/// The environment variable in which the driver passes the tools' directory to lab binaries and
/// tests.
pub const TOOLS_ENV: &str = "LABKIT_TOOLS";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_says_how_to_install_it() {
        let tool = Tool::new("no-such-tool-here", "no-such-tool", "0.0.1");
        let err = tool.installed().unwrap_err();
        assert!(err.contains("cargo xtask tools"), "{err}");
        assert!(tool.path().ends_with("no-such-tool-here"));
    }
}
