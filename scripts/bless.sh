#!/usr/bin/env bash
# Regenerates everything that is generated from the tables and the compiler's output, in one
# command: the key tables of guide/src/launch.md and the `launch!` docs, the reference table of
# ATTRIBUTES.md (all from the rules crate's kinds table), and the ui snapshots (trybuild), under
# the default CUDA version and the oldest one. Then lists what changed: read every changed
# `.stderr` before committing it.
#
#   scripts/bless.sh          # everything
#   scripts/bless.sh tables   # the Markdown tables only (seconds)
set -euo pipefail
cd "$(dirname "$0")/.."

CHEVRON_BLESS=1 cargo test -q -p chevron-cuda-rules --test attributes_md
CHEVRON_BLESS=1 cargo test -q -p chevron-cuda-macros --lib doc_tables
if [ "${1:-}" != "tables" ]; then
    TRYBUILD=overwrite cargo test -q --test ui
    TRYBUILD=overwrite cargo test -q --test ui_versions --no-default-features --features cuda-12000
fi
echo "changed (read every snapshot before committing):"
git status --short -- guide/src/launch.md ATTRIBUTES.md src/lib.rs ui-tests
