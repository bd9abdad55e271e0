#!/usr/bin/env bash
# `#[kernels]` over a directory of PTX files (a codebase compiled with `nvcc -ptx`): one module
# per file in a scratch crate, `cargo check`ed; prints how many entries were declared and what
# each refusal asks of the user, by kind.
#
# Usage: scripts/kernels_corpus_check.sh PTX_DIR [FEATURES]   (FEATURES default: f16)
#   CHEVRON_DIR  the chevron workspace to check with (default: this repository)
#   BENCH_DIR    where the scratch crate goes (default: target/corpus-check)
#
# A refusal is one error per entry that names its fix (a struct by value: `types(…)`; an
# `extern "C"` kernel: a declaration in the module; …); anything else is printed in full, as a
# finding.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chevron="$(cd "${CHEVRON_DIR:-$here}" && pwd)"
ptx_dir="$(cd "${1:?usage: $0 PTX_DIR [FEATURES]}" && pwd)"
features="${2:-f16}"
crate="${BENCH_DIR:-$here/target/corpus-check}"
mkdir -p "$crate/src"
cat >"$crate/Cargo.toml" <<TOML
[package]
name = "corpus-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
chevron-cuda = { path = "$chevron", features = ["$features"] }

[workspace]
TOML
{
    echo "#![allow(dead_code, non_camel_case_types, non_snake_case)]"
    for f in "$ptx_dir"/*.ptx; do
        name="$(basename "$f" .ptx | tr -c 'A-Za-z0-9_\n' '_')"
        echo "#[chevron::kernels(ptx = \"$f\")] pub mod m_$name {}"
    done
    echo "fn main() {}"
} >"$crate/src/main.rs"
entries=$(cat "$ptx_dir"/*.ptx | grep -cE '^\.(visible |weak )?\.?entry ' || true)
log="$crate/check.log"
(cd "$crate" && cargo check --message-format short >"$log" 2>&1) || true
errors=$(grep -c ': error: ' "$log" || true)
count() { grep ': error: ' "$log" | grep -c "$1" || true; }
echo "files: $(ls "$ptx_dir"/*.ptx | wc -l), entries: $entries, declared: $((entries - errors)), refused: $errors"
echo "  struct by value (types(…)):          $(count 'by value, a struct')"
echo "  extern \"C\" (a declaration):          $(count 'is an `extern')"
echo "  no Rust type (types(…)):             $(count 'no Rust type for')"
echo "  dependent typedef (types(…)):        $(count 'member typedef')"
echo "  needs the f16 feature:               $(count "chevron's \`f16\` feature")"
other=$(grep ': error: ' "$log" | grep -v 'by value, a struct\|is an `extern\|no Rust type for\|member typedef\|`f16` feature' || true)
if [ -n "$other" ]; then
    echo "other errors (findings):"
    echo "$other"
    exit 1
fi
