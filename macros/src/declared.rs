//! What the `#[kernel]` declarations this process expanded fix about literal launches, for
//! `launch!` to leave out a compile-time check that cannot fail.
//!
//! `launch!` checks a launch whose grid, block or cluster are literals in a `const` item against
//! the kernel's rules (`TypedKernel::INFO`, evaluated by rustc's const evaluator). For most
//! kernels nothing a literal launch writes can break a rule (no `.reqntid`, `.maxntid` or
//! cluster directive, no grid sync: `KernelInfo::may_refuse_literal`), and the item then costs
//! `cargo check` about a million instructions for nothing (`scripts/compile_bench.sh`).
//!
//! Proc macros run in one process per crate, so `#[kernel]` records each declaration's rules
//! here, by the kernel's name and place, and `launch!` leaves the item out when the kernel is
//! written as a plain name, some declaration of that name was recorded, and none of them may
//! refuse this launch. Where that cannot be known (a kernel from another crate, declared later
//! in expansion order, behind a path, or rust-analyzer's process serving another crate), the
//! item stays. The one case this gets wrong: a plain name that is imported from another crate
//! (or declared later) while a kernel of the same name declared earlier in this crate fixes
//! nothing. Its launch is then checked when it runs, as every launch is (the same message, as
//! `Error::InvalidConfig`), not at compile time: a missing check, never a wrong one.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use chevron_cuda_rules::fit::KernelInfo;

/// Where a declaration is: its file, line and column; or a number of its own where the file is
/// not known, so that no other declaration takes its place.
type Place = (std::path::PathBuf, usize, usize);

static DECLARED: Mutex<Option<HashMap<String, HashMap<Place, KernelInfo>>>> = Mutex::new(None);

/// Records the rules of the kernel `name` declared at `site` (replacing what an earlier
/// expansion of the same declaration recorded).
pub fn record(name: &str, site: &Option<Place>, info: KernelInfo) {
    static UNPLACED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let place = site.clone().unwrap_or_else(|| {
        let n = UNPLACED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (std::path::PathBuf::new(), usize::MAX, n)
    });
    let mut guard = DECLARED.lock().unwrap_or_else(PoisonError::into_inner);
    guard
        .get_or_insert_with(HashMap::new)
        .entry(name.to_string())
        .or_default()
        .insert(place, info);
}

/// Whether no kernel named `name` recorded here may refuse a literal launch with the flags
/// `known` (`LaunchFacts::literal`'s), some being recorded. Only in a macro's expansion: the
/// macro crate's own tests expand in parallel threads of one process, each with its own kernels.
pub fn literal_free(name: &str, known: u8) -> bool {
    proc_macro::is_available() && recorded_free(name, known)
}

fn recorded_free(name: &str, known: u8) -> bool {
    let guard = DECLARED.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(infos) = guard.as_ref().and_then(|all| all.get(name)) else {
        return false;
    };
    !infos.is_empty() && infos.values().all(|i| !i.may_refuse_literal(known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_free_only_when_every_declaration_of_it_is() {
        let free = KernelInfo::UNKNOWN;
        let fixed = KernelInfo {
            reqntid: Some([128, 1, 1]),
            ..KernelInfo::UNKNOWN
        };
        let at = |line| Some((std::path::PathBuf::from("src/a.rs"), line, 1));
        assert!(!recorded_free("declared_test_never", 0));
        record("declared_test_k", &at(1), free);
        assert!(recorded_free("declared_test_k", 0));
        // A flag turned on may break a rule of any kernel.
        assert!(!recorded_free("declared_test_k", 1 << 2));
        record("declared_test_k", &at(9), fixed);
        assert!(!recorded_free("declared_test_k", 0));
        // The same declaration expanded again replaces its record.
        record("declared_test_k", &at(9), free);
        assert!(recorded_free("declared_test_k", 0));
        // Without a place, a record never replaces another.
        record("declared_test_k", &None, fixed);
        record("declared_test_k", &None, free);
        assert!(!recorded_free("declared_test_k", 0));
    }
}
