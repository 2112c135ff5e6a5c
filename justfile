# Developer shortcuts; each recipe is one `cargo xtask` call, so nothing here needs `just`
# to be installed on CI or a fresh machine.

# The full result set: every lab's benches, rendered into bench-results/
bench *ARGS:
    cargo xtask bench {{ARGS}}

# The same with short measurements (wider intervals), labelled quick
bench-quick *ARGS:
    cargo xtask bench --quick {{ARGS}}

# Re-render bench-results/*.md from the committed raw JSON
report *ARGS:
    cargo xtask report {{ARGS}}

# DHAT heap profile of one implementation, e.g. `just alloc dedup per-key-cas shared-2` or
# `just alloc pending-ack nested-tree dispatch-and-ack-cycle 50k-in-5`
alloc LAB IMPLEMENTATION +PARAMETERS:
    cargo xtask alloc {{LAB}} {{IMPLEMENTATION}} {{PARAMETERS}}

# The whole test suite plus a smoke run of every benchmark and of the report pipeline
test:
    cargo xtask test

# Install the pinned gungraun-runner into .tools/
tools:
    cargo xtask tools

# Formatting and lints, as reviewers expect them
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
