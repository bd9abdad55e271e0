//! `launch!`'s check of its most common launch, in types: a block of integer literals, the
//! grid computed, no `cluster` and no flag (`cooperative`, `programmatic_serialization`)
//! written (or written `false`). The launch builds its config through the kernel's
//! [`LiteralBlock`] for the block `(X, Y, Z)` of `32·W + L` threads (const arguments that are
//! literals: no constant for rustc to evaluate per launch), whose `__config` coerces a
//! `*const KERNEL` ([`Pointer::NULL`]) to its `Dyn`: the kernel itself where its rules accept
//! the launch, else a trait object of the trait of [`refusals`](super::refusals) that words
//! the rule it breaks. The kernel does not
//! implement that trait, and rustc reports the trait's message (E0277) at the launch, as for
//! the launches checked through `Refusal`. `LiteralBlock` is written once for all kernels;
//! `#[kernel]` states each kernel's rules as its `TypedKernel::Literal`, a type of this module
//! ([`Rule`] gives its `Dyn`):
//!
//! - [`AnyBlock`]: the kernel, for one that fixes nothing about its block and needs no flag
//!   (most kernels);
//! - [`Refused<dyn R>`](Refused): a rule every such launch breaks (`.explicitcluster`, a grid
//!   barrier, a `co_resident` declaration), `R` its trait;
//! - [`Exact`]: `dyn CompiledBlock<X, Y, Z>`, for a kernel compiled with `.reqntid A, B, C`,
//!   which implements only `CompiledBlock<A, B, C>`;
//! - [`AtMost`], `.maxntid` of `N = 32·WN + LN` threads: what [`ThreadsFit`] picks from the
//!   comparison of `W` with `WN` ([`Compare`]'s table, each at most 32: a block has at most
//!   1024 threads) and, for `W == WN`, of `L` with `LN`: the kernel, or `dyn BlockWithin<…>`.
//!
//! Before this, each such launch evaluated a constant (`refusal_block`), which cost
//! `cargo check` about 0.3 ms per launch (`scripts/compile_bench.sh`).

use core::marker::PhantomData;

use super::refusals::{BlockWithin, CompiledBlock};
use super::typed::TypedKernel;

/// A number of warps (or, for the lanes, of threads below a warp): what [`Compare`] compares.
/// Never made.
#[derive(Debug)]
pub struct Warps<const N: u32>;

/// [`Compare`]'s answer: less.
#[derive(Debug)]
pub enum Fewer {}
/// [`Compare`]'s answer: equal.
#[derive(Debug)]
pub enum Same {}
/// [`Compare`]'s answer: greater.
#[derive(Debug)]
pub enum More {}

/// `Warps<A>: Compare<B>`: `Out` is [`Fewer`], [`Same`] or [`More`] as `A` is less than,
/// equal to or greater than `B`, for `A` and `B` up to 32 (a table: const generics have no
/// comparison rustc evaluates without a constant).
pub trait Compare<const B: u32> {
    /// How `A` compares with `B`.
    type Out;
}

impl<const A: u32> Compare<A> for Warps<A> {
    type Out = Same;
}

/// The table of `Compare` for `A != B`: the first number of the list against each later one,
/// then the rest of the list.
macro_rules! compare_table {
    ($a:literal $($b:literal)*) => {
        $(
            impl Compare<$b> for Warps<$a> {
                type Out = Fewer;
            }
            impl Compare<$a> for Warps<$b> {
                type Out = More;
            }
        )*
        compare_table!($($b)*);
    };
    () => {};
}

compare_table!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
);

/// Implemented by `(how W compares with WN, Warps<L>)` for a block of `32·W + L` threads
/// against a bound of `32·WN + LN`: `Dyn` is `A` (accepted) where the block is within the
/// bound, `R` (refused) where it is over.
pub trait ThreadsFit<A: ?Sized, R: ?Sized, const LN: u32> {
    /// `A` or `R`.
    type Dyn: ?Sized;
}

impl<A: ?Sized, R: ?Sized, const L: u32, const LN: u32> ThreadsFit<A, R, LN> for (Fewer, Warps<L>) {
    type Dyn = A;
}

impl<A: ?Sized, R: ?Sized, const L: u32, const LN: u32> ThreadsFit<A, R, LN> for (More, Warps<L>) {
    type Dyn = R;
}

impl<A: ?Sized, R: ?Sized, const L: u32, const LN: u32> ThreadsFit<A, R, LN> for (Same, Warps<L>)
where
    Warps<L>: Compare<LN>,
    <Warps<L> as Compare<LN>>::Out: LanesFit<A, R>,
{
    type Dyn = <<Warps<L> as Compare<LN>>::Out as LanesFit<A, R>>::Dyn;
}

/// [`ThreadsFit`] for a block of as many whole warps as the bound: `A` unless its remaining
/// threads are more than the bound's.
pub trait LanesFit<A: ?Sized, R: ?Sized> {
    /// `A` or `R`.
    type Dyn: ?Sized;
}

impl<A: ?Sized, R: ?Sized> LanesFit<A, R> for Fewer {
    type Dyn = A;
}

impl<A: ?Sized, R: ?Sized> LanesFit<A, R> for Same {
    type Dyn = A;
}

impl<A: ?Sized, R: ?Sized> LanesFit<A, R> for More {
    type Dyn = R;
}

/// What `launch!` asks of the kernel in a launch whose only literal is its block `(X, Y, Z)`
/// of `32·W + L` threads: `Dyn`, what `*const KERNEL` coerces to, is the kernel itself or the
/// trait object of the refusal's trait (see the module's docs). Written once for all kernels, from
/// each kernel's `TypedKernel::Literal`; a type that is no kernel gets this message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[kernel]` declaration",
    label = "not a `#[kernel]`",
    note = "`launch!(KERNEL<<<…>>>(…))` launches a kernel declared as `#[kernel(ptx = \"…\")] fn KERNEL(…);`",
    note = "for a `CudaFunction` (from `load_function` or `KERNEL::kernel().function(&ctx)`), write `launch!(dyn f<<<…>>>(…))`"
)]
pub trait LiteralBlock<const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32> {
    /// The kernel, or the trait object of the rule the launch breaks.
    type Dyn: ?Sized;

    /// [`LaunchConfig::__from_grid_block`](crate::LaunchConfig::__from_grid_block) of `grid`
    /// (any extents, converted here) and the block `(X, Y, Z)`: `launch!`'s config of such a
    /// launch, whose `kernel` (a `*const KERNEL`, [`Pointer::NULL`], never read) coerces to
    /// [`Self::Dyn`], the check.
    #[doc(hidden)]
    #[inline(always)]
    fn __config<G: crate::config::dim::IntoDim>(
        grid: G,
        kernel: *const Self::Dyn,
    ) -> crate::LaunchConfig<'static> {
        let _ = kernel;
        crate::LaunchConfig::__from_grid_block(grid.into_dim(), X, Y, Z)
    }
}

impl<K, const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32>
    LiteralBlock<X, Y, Z, W, L> for K
where
    K: TypedKernel,
    K::Literal: Rule<K, X, Y, Z, W, L>,
{
    type Dyn = <K::Literal as Rule<K, X, Y, Z, W, L>>::Dyn;
}

/// A kernel's rules on a literal block, by the type `#[kernel]` states as its
/// `TypedKernel::Literal`: `Dyn` for the kernel `K` and the block `(X, Y, Z)` of `32·W + L`
/// threads.
pub trait Rule<K, const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32> {
    /// `K`, or the refusal's trait object.
    type Dyn: ?Sized;
}

/// Any block: the kernel fixes nothing about its block and needs no flag.
#[derive(Debug)]
pub enum AnyBlock {}

impl<K, const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32> Rule<K, X, Y, Z, W, L>
    for AnyBlock
{
    type Dyn = K;
}

/// No launch of a literal block alone: `R`, the refusal's trait object, whatever the block.
#[derive(Debug)]
pub struct Refused<R: ?Sized>(PhantomData<R>);

impl<K, R: ?Sized, const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32>
    Rule<K, X, Y, Z, W, L> for Refused<R>
{
    type Dyn = R;
}

/// `.reqntid`: the kernel implements `refusals::CompiledBlock` of its own block only.
#[derive(Debug)]
pub enum Exact {}

impl<K, const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32> Rule<K, X, Y, Z, W, L>
    for Exact
{
    type Dyn = dyn CompiledBlock<X, Y, Z>;
}

/// `.maxntid MX, MY, MZ` of `N = 32·WN + LN` threads: `A` (the kernel, or the trait object of
/// a rule every such launch breaks) within it, `dyn BlockWithin<MX, MY, MZ, N>` over it.
#[derive(Debug)]
pub struct AtMost<
    A: ?Sized,
    const MX: u32,
    const MY: u32,
    const MZ: u32,
    const N: u64,
    const WN: u32,
    const LN: u32,
>(PhantomData<A>);

impl<
        K,
        A: ?Sized,
        const MX: u32,
        const MY: u32,
        const MZ: u32,
        const N: u64,
        const WN: u32,
        const LN: u32,
        const X: u32,
        const Y: u32,
        const Z: u32,
        const W: u32,
        const L: u32,
    > Rule<K, X, Y, Z, W, L> for AtMost<A, MX, MY, MZ, N, WN, LN>
where
    Warps<W>: Compare<WN>,
    (<Warps<W> as Compare<WN>>::Out, Warps<L>): ThreadsFit<A, dyn BlockWithin<MX, MY, MZ, N>, LN>,
{
    type Dyn = <(<Warps<W> as Compare<WN>>::Out, Warps<L>) as ThreadsFit<
        A,
        dyn BlockWithin<MX, MY, MZ, N>,
        LN,
    >>::Dyn;
}

/// A null `*const Self`, for any type: what `launch!` coerces to a kernel's
/// [`LiteralBlock::Dyn`] (an unsizing coercion of a raw pointer asks the same trait of the
/// kernel as one of a reference), as a constant, where `&KERNEL {}` would be a temporary for
/// rustc to check at every launch. Never read.
pub trait Pointer: Sized {
    /// `core::ptr::null()`.
    const NULL: *const Self = core::ptr::null();
}

impl<T> Pointer for T {}

#[cfg(test)]
mod tests {
    use super::*;
    use core::any::TypeId;

    /// A kernel for the tests.
    struct K;

    /// `AtMost`'s answer for a block of `32·W + L` threads against `.maxntid N, 1, 1`
    /// (`N = 32·WN + LN`): the kernel where the block is within it, `dyn BlockWithin<…>` where it
    /// is over, for blocks around each multiple of 32 and each bound, against `P <= N`.
    #[test]
    fn at_most_accepts_exactly_the_blocks_within_the_bound() {
        macro_rules! check {
            ($w:literal, $l:literal, $wn:literal, $ln:literal, $within:literal) => {{
                const N: u64 = 32 * $wn + $ln;
                type Answer =
                    <AtMost<K, { N as u32 }, 1, 1, N, $wn, $ln> as Rule<K, 1, 1, 1, $w, $l>>::Dyn;
                let expected = if $within {
                    TypeId::of::<K>()
                } else {
                    TypeId::of::<dyn BlockWithin<{ N as u32 }, 1, 1, N>>()
                };
                assert_eq!(
                    TypeId::of::<Answer>(),
                    expected,
                    "{} threads against {}",
                    32 * $w + $l,
                    N
                );
            }};
        }
        check!(0, 1, 3, 4, true);
        check!(0, 31, 3, 4, true);
        check!(1, 0, 3, 4, true);
        check!(1, 1, 3, 4, true);
        check!(3, 3, 3, 4, true);
        check!(3, 4, 3, 4, true);
        check!(3, 5, 3, 4, false);
        check!(7, 31, 3, 4, false);
        check!(8, 0, 3, 4, false);
        check!(8, 1, 3, 4, false);
        check!(31, 7, 3, 4, false);
        check!(31, 8, 3, 4, false);
        check!(31, 9, 3, 4, false);
        check!(32, 0, 3, 4, false);
        check!(0, 1, 8, 0, true);
        check!(0, 31, 8, 0, true);
        check!(1, 0, 8, 0, true);
        check!(1, 1, 8, 0, true);
        check!(3, 3, 8, 0, true);
        check!(3, 4, 8, 0, true);
        check!(3, 5, 8, 0, true);
        check!(7, 31, 8, 0, true);
        check!(8, 0, 8, 0, true);
        check!(8, 1, 8, 0, false);
        check!(31, 7, 8, 0, false);
        check!(31, 8, 8, 0, false);
        check!(31, 9, 8, 0, false);
        check!(32, 0, 8, 0, false);
        check!(0, 1, 31, 8, true);
        check!(0, 31, 31, 8, true);
        check!(1, 0, 31, 8, true);
        check!(1, 1, 31, 8, true);
        check!(3, 3, 31, 8, true);
        check!(3, 4, 31, 8, true);
        check!(3, 5, 31, 8, true);
        check!(7, 31, 31, 8, true);
        check!(8, 0, 31, 8, true);
        check!(8, 1, 31, 8, true);
        check!(31, 7, 31, 8, true);
        check!(31, 8, 31, 8, true);
        check!(31, 9, 31, 8, false);
        check!(32, 0, 31, 8, false);
    }

    /// `Compare` is a total order on 0..=32: one answer for every pair.
    #[test]
    fn compare_answers_every_pair() {
        fn answer<const A: u32, const B: u32>() -> TypeId
        where
            Warps<A>: Compare<B>,
            <Warps<A> as Compare<B>>::Out: 'static,
        {
            TypeId::of::<<Warps<A> as Compare<B>>::Out>()
        }
        assert_eq!(answer::<0, 32>(), TypeId::of::<Fewer>());
        assert_eq!(answer::<32, 0>(), TypeId::of::<More>());
        assert_eq!(answer::<17, 17>(), TypeId::of::<Same>());
        assert_eq!(answer::<31, 32>(), TypeId::of::<Fewer>());
        assert_eq!(answer::<8, 7>(), TypeId::of::<More>());
    }
}
