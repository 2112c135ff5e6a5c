# Developer shortcuts, one recipe per driver command; each is one `cargo xtask` call, so nothing
# here needs `just` to be installed on CI or a fresh machine. `cargo xtask <command> --help`
# explains every option.

# The full result set: every lab's benches, rendered into bench-results/
bench *ARGS:
    cargo xtask bench {{ARGS}}

# The same with short measurements (wider intervals), labelled quick
bench-quick *ARGS:
    cargo xtask bench --quick {{ARGS}}

# Re-render bench-results/*.md from the committed raw JSON
report *ARGS:
    cargo xtask report {{ARGS}}

# Paired comparison, e.g. `just compare pending-ack nested-tree dense-window remove-all-up-to`
# or across revisions `just compare --rev main pending-ack dense-window`
compare +ARGS:
    cargo xtask compare {{ARGS}}

# The instruction-count regression gate: `just gate save` on main, `just gate check --limit 2`
gate +ARGS:
    cargo xtask gate {{ARGS}}

# DHAT heap profile of one implementation, e.g. `just alloc dedup atomic-slot shared-2` or
# `just alloc pending-ack nested-tree dispatch-and-ack-cycle 50k-in-5`
alloc LAB IMPLEMENTATION +CASE:
    cargo xtask alloc {{LAB}} {{IMPLEMENTATION}} {{CASE}}

# How many faster/slower verdicts of one run repeat in another, e.g. after
# `just bench --out-dir target/run1` and `just bench --out-dir target/run2`:
# `just rerun target/run1 target/run2`
rerun FIRST SECOND *LABS:
    cargo xtask rerun {{FIRST}} {{SECOND}} {{LABS}}

# The whole test suite plus smoke runs of every benchmark, the report pipeline and compare
test:
    cargo xtask test

# Install the pinned gungraun-runner and the labs' declared tools into .tools/
tools:
    cargo xtask tools

# A working lab to turn into your own question, e.g. `just new-lab ring-buffer`
new-lab NAME *ARGS:
    cargo xtask new-lab {{NAME}} {{ARGS}}

# Formatting and lints, as reviewers expect them
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
