//! `launch!`'s check of its most common launch, in types: a block of integer literals, the
//! grid computed, no `cluster` and no flag (`cooperative`, `programmatic_serialization`)
//! written (or written `false`). The launch builds its config through the kernel's
//! [`LiteralBlock<B>`](LiteralBlock), `B` the block as a type: [`Block1<X, W, L>`](Block1) for
//! `(X, 1, 1)`, [`Block3<X, Y, Z, W, L>`](Block3) for any other, of `32·W + L` threads (`W` and
//! `L` are counts, [`N0`] … `N32`, types; the extents are literal const arguments, no
//! constant for rustc to evaluate per launch). Its `__config` coerces a `*const KERNEL`
//! ([`Pointer::NULL`]) to its `Dyn`: the kernel itself where its rules accept the launch, else
//! a trait object of the trait of [`refusals`](super::refusals) that words the rule it breaks.
//! The kernel does not implement that trait, and rustc reports the trait's message (E0277) at
//! the launch, as for the launches checked through `Refusal`. `LiteralBlock` is written once
//! for all kernels; `#[kernel]` states each kernel's rules as its `TypedKernel::Literal`, a
//! type of this module ([`Rule`] gives its `Dyn`):
//!
//! - [`AnyBlock`]: the kernel, for one that fixes nothing about its block and needs no flag
//!   (most kernels);
//! - [`Refused<dyn R>`](Refused): a rule every such launch breaks (`.explicitcluster`, a grid
//!   barrier, a `co_resident` declaration), `R` its trait;
//! - [`Exact`]: `dyn CompiledBlock<X, Y, Z>`, for a kernel compiled with `.reqntid A, B, C`,
//!   which implements only `CompiledBlock<A, B, C>`;
//! - [`AtMost`], `.maxntid` of `N = 32·WN + LN` threads: what [`ThreadsFit`] picks from the
//!   comparison of `W` with `WN` ([`Compare`]'s table of the counts: a block has at most
//!   1024 threads) and, for `W == WN`, of `L` with `LN`: the kernel, or `dyn BlockWithin<…>`.
//!
//! Before this, each such launch evaluated a constant (`refusal_block`), which cost
//! `cargo check` about 0.3 ms per launch (`scripts/compile_bench.sh`); with the five numbers
//! of the block as const arguments (`LiteralBlock<256, 1, 1, 8, 0>`), rustc checked each as a
//! constant of its own, about 30 µs per launch.

use core::marker::PhantomData;

use super::refusals::{BlockWithin, CompiledBlock};
use super::typed::TypedKernel;
use counts::*;

/// The counts 0 to 32 as types, in their module (`chevron::traits::counts`), with their
/// [`Compare`] table: one list of names for both.
macro_rules! counts {
    ($($n:ident = $v:literal)*) => {
        /// The counts 0 to 32 as types: the warps and the remaining lanes of a literal block's
        /// threads (`LiteralBlock<Block1<256, N8, N0>>`: 8 warps and 0 lanes, 256 threads), as
        /// `launch!` names them, and [`Compare`] compares them. A launch names
        /// them as types, not as const arguments, which rustc would check as a constant each
        /// (about 7 µs of `cargo check` apiece).
        pub mod counts {
            $(
                #[doc = concat!("The count ", stringify!($v), " as a type. Never made.")]
                #[derive(Debug)]
                pub enum $n {}
            )*
        }
        compare_table!($($n)*);
    };
}

/// [`Compare`]'s answer: less.
#[derive(Debug)]
pub enum Fewer {}
/// [`Compare`]'s answer: equal.
#[derive(Debug)]
pub enum Same {}
/// [`Compare`]'s answer: greater.
#[derive(Debug)]
pub enum More {}

/// `A: Compare<B>` for two counts ([`N0`] … `N32`, of [`counts`]): `Out` is [`Fewer`],
/// [`Same`] or [`More`] as `A` is less than, equal to or greater than `B` (a table: const generics have no
/// comparison rustc evaluates without a constant).
pub trait Compare<B> {
    /// How `A` compares with `B`.
    type Out;
}

/// The table of `Compare`: the first count of the list against itself and each later one, then
/// the rest of the list.
macro_rules! compare_table {
    ($a:ident $($b:ident)*) => {
        impl Compare<$a> for $a {
            type Out = Same;
        }
        $(
            impl Compare<$b> for $a {
                type Out = Fewer;
            }
            impl Compare<$a> for $b {
                type Out = More;
            }
        )*
        compare_table!($($b)*);
    };
    () => {};
}

counts!(
    N0 = 0 N1 = 1 N2 = 2 N3 = 3 N4 = 4 N5 = 5 N6 = 6 N7 = 7 N8 = 8 N9 = 9 N10 = 10 N11 = 11
    N12 = 12 N13 = 13 N14 = 14 N15 = 15 N16 = 16 N17 = 17 N18 = 18 N19 = 19 N20 = 20 N21 = 21
    N22 = 22 N23 = 23 N24 = 24 N25 = 25 N26 = 26 N27 = 27 N28 = 28 N29 = 29 N30 = 30 N31 = 31
    N32 = 32
);

/// Implemented by `(how W compares with WN, L)` for a block of `32·W + L` threads against a
/// bound of `32·WN + LN`: `Dyn` is `A` (accepted) where the block is within the bound, `R`
/// (refused) where it is over.
pub trait ThreadsFit<A: ?Sized, R: ?Sized, LN> {
    /// `A` or `R`.
    type Dyn: ?Sized;
}

impl<A: ?Sized, R: ?Sized, L, LN> ThreadsFit<A, R, LN> for (Fewer, L) {
    type Dyn = A;
}

impl<A: ?Sized, R: ?Sized, L, LN> ThreadsFit<A, R, LN> for (More, L) {
    type Dyn = R;
}

impl<A: ?Sized, R: ?Sized, L, LN> ThreadsFit<A, R, LN> for (Same, L)
where
    L: Compare<LN>,
    <L as Compare<LN>>::Out: LanesFit<A, R>,
{
    type Dyn = <<L as Compare<LN>>::Out as LanesFit<A, R>>::Dyn;
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

/// A literal block `(X, 1, 1)` of `32·W + L` threads (`W` and `L` counts, [`N0`] … `N32`):
/// what a launch of a one-dimensional literal block names, with one const argument. Never
/// made.
#[derive(Debug)]
pub struct Block1<const X: u32, W, L>(PhantomData<(W, L)>);

/// A literal block `(X, Y, Z)` of `32·W + L` threads, any block ([`Block1`] is `(X, 1, 1)`).
/// Never made.
#[derive(Debug)]
pub struct Block3<const X: u32, const Y: u32, const Z: u32, W, L>(PhantomData<(W, L)>);

/// A literal block ([`Block1`], [`Block3`]): its extents, and its threads as `32·Warps + Lanes`.
pub trait Shape {
    /// The block's x extent.
    const X: u32;
    /// The block's y extent.
    const Y: u32;
    /// The block's z extent.
    const Z: u32;
    /// Its threads' whole warps, a count.
    type Warps;
    /// Its threads beyond the whole warps, a count.
    type Lanes;
}

impl<const X: u32, W, L> Shape for Block1<X, W, L> {
    const X: u32 = X;
    const Y: u32 = 1;
    const Z: u32 = 1;
    type Warps = W;
    type Lanes = L;
}

impl<const X: u32, const Y: u32, const Z: u32, W, L> Shape for Block3<X, Y, Z, W, L> {
    const X: u32 = X;
    const Y: u32 = Y;
    const Z: u32 = Z;
    type Warps = W;
    type Lanes = L;
}

/// What `launch!` asks of the kernel in a launch whose only literal is its block `B` (a
/// [`Block1`] or [`Block3`]): `Dyn`, what `*const KERNEL` coerces to, is the kernel itself or
/// the trait object of the refusal's trait (see the module's docs). Written once for all
/// kernels, from each kernel's `TypedKernel::Literal`; a type that is no kernel gets this
/// message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[kernel]` declaration",
    label = "not a `#[kernel]`",
    note = "`launch!(KERNEL<<<…>>>(…))` launches a kernel declared as `#[kernel(ptx = \"…\")] fn KERNEL(…);`",
    note = "for a `CudaFunction` (from `load_function` or `KERNEL::kernel().function(&ctx)`), write `launch!(dyn f<<<…>>>(…))`"
)]
pub trait LiteralBlock<B> {
    /// The kernel, or the trait object of the rule the launch breaks.
    type Dyn: ?Sized;

    /// [`LaunchConfig::__from_grid_block`](crate::LaunchConfig::__from_grid_block) of `grid`
    /// (any extents, converted here) and the block `B`: `launch!`'s config of such a launch,
    /// whose `kernel` (a `*const KERNEL`, [`Pointer::NULL`], never read) coerces to
    /// [`Self::Dyn`], the check.
    #[doc(hidden)]
    #[inline(always)]
    fn __config<G: crate::config::dim::IntoDim>(
        grid: G,
        kernel: *const Self::Dyn,
    ) -> crate::LaunchConfig<'static>
    where
        B: Shape,
    {
        let _ = kernel;
        crate::LaunchConfig::__from_grid_block(grid.into_dim(), B::X, B::Y, B::Z)
    }
}

impl<K, B> LiteralBlock<B> for K
where
    K: TypedKernel,
    K::Literal: Rule<K, B>,
{
    type Dyn = <K::Literal as Rule<K, B>>::Dyn;
}

/// A kernel's rules on a literal block, by the type `#[kernel]` states as its
/// `TypedKernel::Literal`: `Dyn` for the kernel `K` and the block `B`.
pub trait Rule<K, B> {
    /// `K`, or the refusal's trait object.
    type Dyn: ?Sized;
}

/// Any block: the kernel fixes nothing about its block and needs no flag.
#[derive(Debug)]
pub enum AnyBlock {}

impl<K, B> Rule<K, B> for AnyBlock {
    type Dyn = K;
}

/// No launch of a literal block alone: `R`, the refusal's trait object, whatever the block.
#[derive(Debug)]
pub struct Refused<R: ?Sized>(PhantomData<R>);

impl<K, B, R: ?Sized> Rule<K, B> for Refused<R> {
    type Dyn = R;
}

/// `.reqntid`: the kernel implements `refusals::CompiledBlock` of its own block only.
#[derive(Debug)]
pub enum Exact {}

impl<K, const X: u32, W, L> Rule<K, Block1<X, W, L>> for Exact {
    type Dyn = dyn CompiledBlock<X, 1, 1>;
}

impl<K, const X: u32, const Y: u32, const Z: u32, W, L> Rule<K, Block3<X, Y, Z, W, L>> for Exact {
    type Dyn = dyn CompiledBlock<X, Y, Z>;
}

/// `.maxntid MX, MY, MZ` of `N = 32·WN + LN` threads (`WN`, `LN` counts): `A` (the kernel, or
/// the trait object of a rule every such launch breaks) within it, `dyn BlockWithin<MX, MY,
/// MZ, N>` over it.
#[derive(Debug)]
pub struct AtMost<A: ?Sized, const MX: u32, const MY: u32, const MZ: u32, const N: u64, WN, LN>(
    PhantomData<(WN, LN)>,
    PhantomData<A>,
);

impl<K, A: ?Sized, const MX: u32, const MY: u32, const MZ: u32, const N: u64, WN, LN, B> Rule<K, B>
    for AtMost<A, MX, MY, MZ, N, WN, LN>
where
    B: Shape,
    B::Warps: Compare<WN>,
    (<B::Warps as Compare<WN>>::Out, B::Lanes): ThreadsFit<A, dyn BlockWithin<MX, MY, MZ, N>, LN>,
{
    type Dyn = <(<B::Warps as Compare<WN>>::Out, B::Lanes) as ThreadsFit<
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

    /// The count type of a number, for the tests' tables.
    trait CountOf {
        type T;
    }
    struct Num<const V: u32>;
    macro_rules! count_of {
        ($($v:literal $n:ident)*) => { $(impl CountOf for Num<$v> { type T = $n; })* };
    }
    count_of!(0 N0 1 N1 3 N3 4 N4 5 N5 7 N7 8 N8 9 N9 17 N17 31 N31 32 N32);
    type C<const V: u32> = <Num<V> as CountOf>::T;

    /// `AtMost`'s answer for a block of `32·W + L` threads against `.maxntid N, 1, 1`
    /// (`N = 32·WN + LN`): the kernel where the block is within it, `dyn BlockWithin<…>` where it
    /// is over, for blocks around each multiple of 32 and each bound, against `P <= N`, as a
    /// `Block3` and, where the threads fit one extent, as a `Block1`.
    #[test]
    fn at_most_accepts_exactly_the_blocks_within_the_bound() {
        macro_rules! check {
            ($w:literal, $l:literal, $wn:literal, $ln:literal, $within:literal) => {{
                const N: u64 = 32 * $wn + $ln;
                type Bound = AtMost<K, { N as u32 }, 1, 1, N, C<$wn>, C<$ln>>;
                type Answer3 = <Bound as Rule<K, Block3<1, 1, 1, C<$w>, C<$l>>>>::Dyn;
                type Answer1 = <Bound as Rule<K, Block1<{ 32 * $w + $l }, C<$w>, C<$l>>>>::Dyn;
                let expected = if $within {
                    TypeId::of::<K>()
                } else {
                    TypeId::of::<dyn BlockWithin<{ N as u32 }, 1, 1, N>>()
                };
                let threads = 32 * $w + $l;
                assert_eq!(
                    TypeId::of::<Answer3>(),
                    expected,
                    "{threads} threads against {N}"
                );
                assert_eq!(
                    TypeId::of::<Answer1>(),
                    expected,
                    "{threads} threads against {N}"
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

    /// `Compare` is a total order on the counts: one answer for every pair.
    #[test]
    fn compare_answers_every_pair() {
        fn answer<A: Compare<B>, B>() -> TypeId
        where
            A::Out: 'static,
        {
            TypeId::of::<A::Out>()
        }
        assert_eq!(answer::<N0, N32>(), TypeId::of::<Fewer>());
        assert_eq!(answer::<N32, N0>(), TypeId::of::<More>());
        assert_eq!(answer::<N17, N17>(), TypeId::of::<Same>());
        assert_eq!(answer::<N31, N32>(), TypeId::of::<Fewer>());
        assert_eq!(answer::<N8, N7>(), TypeId::of::<More>());
    }

    /// `Exact` asks for the kernel's `CompiledBlock` of the launch's block, in either form.
    #[test]
    fn exact_names_the_launched_block() {
        assert_eq!(
            TypeId::of::<<Exact as Rule<K, Block1<128, N4, N0>>>::Dyn>(),
            TypeId::of::<dyn CompiledBlock<128, 1, 1>>()
        );
        assert_eq!(
            TypeId::of::<<Exact as Rule<K, Block3<64, 2, 1, N4, N0>>>::Dyn>(),
            TypeId::of::<dyn CompiledBlock<64, 2, 1>>()
        );
        assert_eq!(<Block3<64, 2, 1, N4, N0> as Shape>::Y, 2);
        assert_eq!(<Block1<128, N4, N0> as Shape>::Y, 1);
    }
}
