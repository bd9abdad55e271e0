//! The words of `launch!`'s errors for a launch a kernel's PTX refuses: one trait per rule
//! (and per directive where a rule has two), which no kernel implements, whose
//! `#[diagnostic::on_unimplemented]` message says what the kernel is compiled with and the fix.
//! `#[kernel]` names the trait of each rule a launch may break on the kernel, with the
//! kernel's numbers as the trait's const parameters (`BlockWithin<256, 1, 1, 256>`); a launch
//! that breaks the rule makes rustc report `the trait … is not implemented for KERNEL` (E0277)
//! with that message, at the launch's value. The traits live in chevron so that the attribute
//! is read in chevron's crate (`diagnostic::` does not resolve in a crate declared
//! `#![no_implicit_prelude]`) and one trait serves every kernel.
//!
//! The run-time errors say the same with the PTX file and line
//! (`chevron_cuda_rules::fit::read_info`); these name the kernel's declaration instead, which
//! rustc's help points at.
//!
//! For example, `launch!(saxpy<<<4, 256, s, programmatic_serialization>>>(…))` of a `saxpy`
//! that never executes `griddepcontrol.wait` is refused with [`AcceptsProgrammaticSerialization`]'s
//! message at `programmatic_serialization` (`ui-tests/fail/launch_pdl_without_wait.rs`).

/// A kernel compiled with `.maxntid X, Y, Z` (`__launch_bounds__`) does not implement it: a
/// block of more than `THREADS` (`X·Y·Z`) threads cannot launch it.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.maxntid {X}, {Y}, {Z}` (from \
               `__launch_bounds__`): a block of more than {THREADS} threads cannot launch it; \
               use a smaller block, or raise the kernel's bound",
    label = "more than {THREADS} threads"
)]
pub trait BlockWithin<const X: u32, const Y: u32, const Z: u32, const THREADS: u64>:
    sealed::Never
{
}

/// A kernel compiled with `.reqntid X, Y, Z` does not implement it: it launches only with a
/// block of exactly `(X, Y, Z)`.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.reqntid {X}, {Y}, {Z}`: it launches only with \
               a block of exactly ({X}, {Y}, {Z}); use that block",
    label = "not ({X}, {Y}, {Z})"
)]
pub trait BlockOf<const X: u32, const Y: u32, const Z: u32>: sealed::Never {}

/// Implemented by `#[kernel]` for a kernel compiled with `.reqntid X, Y, Z`, for that block
/// only: a launch whose only literal is its block (the grid computed) coerces the kernel to
/// `dyn CompiledBlock` of its block, which it implements only for its own. Sealed: only
/// `#[kernel]` implements it.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.reqntid` for another block: it launches only \
               with exactly its own block, not ({X}, {Y}, {Z}); use its block (the help below \
               names it), or `_` for it",
    label = "not its compiled block"
)]
pub trait CompiledBlock<const X: u32, const Y: u32, const Z: u32>:
    super::SealedBlock<X, Y, Z>
{
}

/// A kernel compiled with `.reqnctapercluster X, Y, Z` (`__cluster_dims__`) does not implement
/// it: a `cluster` other than `(X, Y, Z)` conflicts with it.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.reqnctapercluster {X}, {Y}, {Z}` (from \
               `__cluster_dims__`): a `cluster` other than ({X}, {Y}, {Z}) conflicts with it; \
               leave `cluster` out (the compiled-in clusters apply) or make it ({X}, {Y}, {Z})",
    label = "not ({X}, {Y}, {Z})"
)]
pub trait ClusterOf<const X: u32, const Y: u32, const Z: u32>: sealed::Never {}

/// A kernel compiled with `.maxclusterrank MAX` does not implement it: a cluster of more than
/// `MAX` blocks cannot launch it.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.maxclusterrank {MAX}`: a cluster of more than \
               {MAX} blocks cannot launch it; use a smaller `cluster`",
    label = "more than {MAX} blocks"
)]
pub trait ClusterOfAtMost<const MAX: u32>: sealed::Never {}

/// A kernel compiled with `.explicitcluster` and no cluster of its own does not implement it:
/// it launches only in clusters.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is compiled with `.explicitcluster` (from `__cluster_dims__` \
               without dimensions): it launches only in clusters, and none is compiled in; give \
               the launch a `cluster = …`",
    label = "launched without a `cluster`"
)]
pub trait InClusters: sealed::Never {}

/// A kernel compiled with `.reqnctapercluster X, Y, Z` does not implement it: its grid must be
/// a whole number of clusters.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` runs in clusters of ({X}, {Y}, {Z}) blocks \
               (`.reqnctapercluster`): its grid must be a whole number of clusters; make each \
               grid extent a multiple of the cluster's",
    label = "not a whole number of ({X}, {Y}, {Z}) clusters"
)]
pub trait GridOfClusters<const X: u32, const Y: u32, const Z: u32>: sealed::Never {}

/// A kernel that syncs the whole grid (`this_grid().sync()`) does not implement it: it
/// launches only with `cooperative`.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` syncs the whole grid (the grid barrier of `this_grid().sync()`, \
               on the cooperative grid workspace): launch it with `cooperative`; a plain launch \
               has no grid barrier, and after one cooperative launch of the function the driver \
               may let plain ones pass unnoticed; if the kernel syncs only when \
               `this_grid().is_valid()`, declare it with \
               `#[kernel(…, cooperative = \"optional\")]`",
    label = "launched without `cooperative`"
)]
pub trait SyncsTheGrid: sealed::Never {}

/// A kernel declared `cooperative = "co_resident"` does not implement it: it launches only
/// with `cooperative`.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` is declared `cooperative = \"co_resident\"`: it relies on all \
               its blocks being resident together, which only a `cooperative` launch \
               guarantees; launch it with `cooperative`, or remove \
               `cooperative = \"co_resident\"` if it does not rely on that",
    label = "launched without `cooperative`"
)]
pub trait DeclaredCoResident: sealed::Never {}

/// A kernel that never executes `griddepcontrol.wait` (nor does any function it calls) does
/// not implement it: with `programmatic_serialization` it could read the previous kernel's
/// output before it is written.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` never executes `griddepcontrol.wait`, nor does any function it \
               calls: with `programmatic_serialization` it can start before the previous kernel \
               has finished and read that kernel's output before it is written; call \
               `cudaGridDependencySynchronize()` before reading it, or, if the kernel reads \
               nothing the previous kernel writes, declare it with \
               `#[kernel(…, pdl = \"no_upstream_reads\")]`",
    label = "the kernel never waits for the previous one"
)]
pub trait AcceptsProgrammaticSerialization: sealed::Never {}

/// A kernel that never syncs the whole grid (nor does any function it calls) does not
/// implement it: `cooperative` would only limit its grid.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` never syncs the whole grid, nor does any function it calls: \
               `cooperative` only limits its grid to what fits on the GPU at once; remove \
               `cooperative`, or, if the kernel relies on all its blocks being resident \
               together, declare it with `#[kernel(…, cooperative = \"co_resident\")]`",
    label = "the kernel never syncs the grid"
)]
pub trait NeedsCooperative: sealed::Never {}

/// A kernel without compiled-in block dimensions (no `.reqntid`) does not implement it: `_` in
/// the block position launches a kernel in its own block shape, which it does not have.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` has no compiled-in block dimensions (no `.reqntid`): `_` launches \
               a kernel in its own block shape, which only a kernel compiled with \
               `__block_size__` (or `.reqntid`) has; write the block",
    label = "the kernel has no block shape of its own"
)]
pub trait HasOwnBlock: sealed::Never {}

mod sealed {
    /// Implemented by no type: a refusal trait cannot be implemented outside chevron, so that
    /// no impl can make a refused launch compile.
    pub trait Never {}
}
