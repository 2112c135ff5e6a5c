//! `cargo xtask rerun FIRST SECOND`: how the decisive verdicts of one run fared in another, and
//! each lab's travel section of SECOND against FIRST, as a full run's report gives it against the
//! run it replaced; each lab's binary writes its own (`lab --rerun`).

use super::*;

pub(crate) fn rerun(args: &RerunArgs) -> Result<()> {
    let binaries = BenchBinaries::this_checkout()?;
    for lab in named_labs(&args.labs)? {
        let file = |dir: &PathBuf| crate::output::absolute(&crate::output::results_file(lab, dir));
        let mut cmd = binaries.command(lab, LAB_BINARY)?;
        run(cmd
            .arg("--rerun")
            .arg(file(&args.first)?)
            .arg(file(&args.second)?))?;
    }
    Ok(())
}
