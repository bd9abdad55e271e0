//! The typed launch and graph updates of `#[kernel]` declarations, written once for every
//! kernel: [`Typed`](crate::Typed)'s `launch` and `update*` take the arguments as one tuple of
//! the kernel's parameter types, and these generic functions do the rest.
//!
//! Written out per declaration, the same work made rustc type-check and borrow-check a few
//! hundred lines for each `#[kernel]`; here it is checked once, in this crate, and
//! monomorphized into the same code (`scripts/host_cost_callgrind.sh` counts it).

use core::ffi::c_void;

use crate::config::LaunchConfig;
use crate::error::Error;
use crate::graph::{Graph, GraphNode, OrderedPtr};
use crate::kernel::param::KernelParam;
use crate::kernel::{Kernel, LaunchRules};
use crate::launch::args::ArgSlot;
use crate::launch::Checked;
use crate::sys;
use cudarc::driver::{CudaFunction, CudaStream};

/// The arguments of a typed launch or graph update: a tuple of the kernel's parameter types,
/// one per parameter, in order, each a [`KernelParam`] of the marker in its place in `M` (a
/// tuple of markers, which rustc infers). Implemented for tuples of up to 64
/// ([`MAX_TUPLE_PARAMS`](chevron_cuda_rules::limits::MAX_TUPLE_PARAMS)), and for an
/// [`ArgChain`] of two of them, which is how a kernel of more parameters takes its arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` are no kernel arguments",
    label = "a parameter type of this kernel is no kernel parameter",
    note = "the `#[kernel]` declaration reports which one"
)]
pub trait ArgTuple<M, const N: usize>: Sized {
    /// Launches with these arguments once `checked` passed: each argument's slot is made on
    /// `stream` and its pointer taken in order (for a value, its address, which the compiler
    /// then sees without reading the slot back), then the launch; the slots of device buffers
    /// record the launch on the buffers' events when dropped, after it is enqueued.
    ///
    /// # Safety
    /// As [`Checked::launch`].
    unsafe fn __chevron_launch(
        self,
        checked: Checked<'_>,
        stream: &CudaStream,
    ) -> Result<(), Error>;

    /// The arguments' slots for `stream`, in order.
    fn __chevron_slots<'s>(&'s mut self, stream: &'s CudaStream) -> [ArgSlot<'s>; N];
}

/// `1`, for counting a macro repetition.
macro_rules! one {
    ($x:tt) => {
        1
    };
}

/// `$m!` for every prefix of the element groups, the empty one first.
macro_rules! for_prefixes {
    ($m:ident; [$($done:tt)*]) => {
        $m!($($done)*);
    };
    ($m:ident; [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $m!($($done)*);
        for_prefixes!($m; [$($done)* $next] $($rest)*);
    };
}

/// `$m!` for the tuples of 0 to 64 elements (`MAX_TUPLE_PARAMS`, tested below), each element
/// `[Type Marker Pointer index]` (names for the element's type parameter, its marker (or
/// slot) and its pointer, and its index in the tuple).
macro_rules! tuples {
    ($m:ident) => {
        for_prefixes! { $m; []
            [A0 S0 P0 0] [A1 S1 P1 1] [A2 S2 P2 2] [A3 S3 P3 3] [A4 S4 P4 4] [A5 S5 P5 5]
            [A6 S6 P6 6] [A7 S7 P7 7] [A8 S8 P8 8] [A9 S9 P9 9] [A10 S10 P10 10] [A11 S11 P11 11]
            [A12 S12 P12 12] [A13 S13 P13 13] [A14 S14 P14 14] [A15 S15 P15 15] [A16 S16 P16 16]
            [A17 S17 P17 17] [A18 S18 P18 18] [A19 S19 P19 19] [A20 S20 P20 20] [A21 S21 P21 21]
            [A22 S22 P22 22] [A23 S23 P23 23] [A24 S24 P24 24] [A25 S25 P25 25] [A26 S26 P26 26]
            [A27 S27 P27 27] [A28 S28 P28 28] [A29 S29 P29 29] [A30 S30 P30 30] [A31 S31 P31 31]
            [A32 S32 P32 32] [A33 S33 P33 33] [A34 S34 P34 34] [A35 S35 P35 35] [A36 S36 P36 36]
            [A37 S37 P37 37] [A38 S38 P38 38] [A39 S39 P39 39] [A40 S40 P40 40] [A41 S41 P41 41]
            [A42 S42 P42 42] [A43 S43 P43 43] [A44 S44 P44 44] [A45 S45 P45 45] [A46 S46 P46 46]
            [A47 S47 P47 47] [A48 S48 P48 48] [A49 S49 P49 49] [A50 S50 P50 50] [A51 S51 P51 51]
            [A52 S52 P52 52] [A53 S53 P53 53] [A54 S54 P54 54] [A55 S55 P55 55] [A56 S56 P56 56]
            [A57 S57 P57 57] [A58 S58 P58 58] [A59 S59 P59 59] [A60 S60 P60 60] [A61 S61 P61 61]
            [A62 S62 P62 62] [A63 S63 P63 63]
        }
    };
}

macro_rules! arg_tuple {
    ($([$a:ident $m:ident $p:ident $i:tt])*) => {
        impl<$($a: KernelParam<$m>, $m,)*> ArgTuple<($($m,)*), { 0 $(+ one!($i))* }> for ($($a,)*) {
            #[inline(always)]
            #[allow(unused_variables, unused_mut, non_snake_case)]
            unsafe fn __chevron_launch(
                self,
                checked: Checked<'_>,
                stream: &CudaStream,
            ) -> Result<(), Error> {
                let ($(mut $a,)*) = self;
                // Each slot (which holds a buffer's guard) stays alive, shadowed, to the end.
                $(
                    let $m = $a.__chevron_slot(stream);
                    let $p = $m.param();
                )*
                let mut params: [*mut c_void; { 0 $(+ one!($i))* }] = [$($p),*];
                // SAFETY: forwarded from the caller.
                unsafe { checked.launch(&mut params) }
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn __chevron_slots<'s>(
                &'s mut self,
                stream: &'s CudaStream,
            ) -> [ArgSlot<'s>; { 0 $(+ one!($i))* }] {
                [$(self.$i.__chevron_slot(stream)),*]
            }
        }
    };
}

tuples!(arg_tuple);

/// The ordered buffers of an `update_ordered`, in order: a tuple of references to
/// [`OrderedBuffer`](crate::graph::OrderedBuffer)s, `B` of them. Implemented for tuples of up
/// to [`MAX_TUPLE_PARAMS`](chevron_cuda_rules::limits::MAX_TUPLE_PARAMS), and for an
/// [`ArgChain`] of two of them.
pub trait OrderedArgs<M, const B: usize> {
    /// Their pointers, each checked to be of `graph` (`Error::Graph` for the first that is
    /// not).
    fn __chevron_ptrs(&self, graph: &Graph<'_>) -> Result<[sys::CUdeviceptr; B], Error>;
}

macro_rules! ordered_args {
    ($([$x:ident $s:ident $p:ident $i:tt])*) => {
        impl<$($x: OrderedPtr + ?Sized,)*> OrderedArgs<(), { 0 $(+ one!($i))* }> for ($(&$x,)*) {
            #[inline(always)]
            #[allow(unused_variables)]
            fn __chevron_ptrs(
                &self,
                graph: &Graph<'_>,
            ) -> Result<[sys::CUdeviceptr; { 0 $(+ one!($i))* }], Error> {
                Ok([$(self.$i.__chevron_ptr(graph)?),*])
            }
        }
    };
}

tuples!(ordered_args);

/// The arguments of a kernel of more than
/// [`MAX_TUPLE_PARAMS`](chevron_cuda_rules::limits::MAX_TUPLE_PARAMS) parameters: the first
/// ones (a tuple, or a chain) and the rest (a tuple, or a chain), `N` in all. `launch!` and
/// `#[kernel]` write it (in chunks of 64, chained two by two); a direct call of
/// [`Typed::launch`](crate::Typed::launch) or `update` for such a kernel writes it as the
/// kernel's `Args` type states it, e.g. `ArgChain((a0, …, a63), (a64, a65))` for 66.
///
/// Its slots are made in order (the first part's, then the rest's) and kept to the end of
/// the launch, as a tuple's are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArgChain<A, B, const N: usize>(pub A, pub B);

/// The slots of both parts of a chain, in order, as one array: `NA + NB` must be `N`, which
/// the `const` block asserts when the chain's code is compiled (`launch!` and `#[kernel]`
/// write `N` as the sum).
#[inline(always)]
fn chained<T, const NA: usize, const NB: usize, const N: usize>(a: [T; NA], b: [T; NB]) -> [T; N] {
    const {
        assert!(
            NA + NB == N,
            "an `ArgChain`'s `N` is the sum of its parts' counts"
        )
    };
    let mut parts = a.into_iter().chain(b);
    // Exactly `N` items, by the assertion above: the closure is called `N` times.
    core::array::from_fn(|_| match parts.next() {
        Some(item) => item,
        None => unreachable!("`NA + NB == N` is asserted at compile time"),
    })
}

// The markers name both parts' counts (`[(); NA]`, `[(); NB]`): a count of the trait's only
// in its predicates would be unconstrained, and their sum cannot be written where `N` is.
impl<A, B, MA, MB, const NA: usize, const NB: usize, const N: usize>
    ArgTuple<(MA, MB, [(); NA], [(); NB]), N> for ArgChain<A, B, N>
where
    A: ArgTuple<MA, NA>,
    B: ArgTuple<MB, NB>,
{
    #[inline(always)]
    unsafe fn __chevron_launch(
        mut self,
        checked: Checked<'_>,
        stream: &CudaStream,
    ) -> Result<(), Error> {
        let slots = self.__chevron_slots(stream);
        let mut params = slot_params(&slots);
        // SAFETY: forwarded from the caller; the slots live to the end of this function.
        unsafe { checked.launch(&mut params) }
    }

    #[inline(always)]
    fn __chevron_slots<'s>(&'s mut self, stream: &'s CudaStream) -> [ArgSlot<'s>; N] {
        let a = self.0.__chevron_slots(stream);
        let b = self.1.__chevron_slots(stream);
        chained(a, b)
    }
}

impl<A, B, MA, MB, const BA: usize, const BB: usize, const N: usize>
    OrderedArgs<(MA, MB, [(); BA], [(); BB]), N> for ArgChain<A, B, N>
where
    A: OrderedArgs<MA, BA>,
    B: OrderedArgs<MB, BB>,
{
    #[inline(always)]
    fn __chevron_ptrs(&self, graph: &Graph<'_>) -> Result<[sys::CUdeviceptr; N], Error> {
        Ok(chained(
            self.0.__chevron_ptrs(graph)?,
            self.1.__chevron_ptrs(graph)?,
        ))
    }
}

/// [`Typed::launch`](crate::Typed::launch): the function in the stream's context and the
/// config's checks (with the kernel's `rules`, which `Typed::launch` folds at compile time),
/// then the launch with `args`.
///
/// # Safety
/// As [`Checked::launch`]: what the kernel does with its arguments is the caller's promise.
#[inline(always)]
pub(crate) unsafe fn typed_launch<'a, A: ArgTuple<M, N>, M, const N: usize>(
    kernel: &'a Kernel,
    rules: LaunchRules,
    stream: &'a CudaStream,
    config: &'a LaunchConfig<'a>,
    args: A,
) -> Result<(), Error> {
    let checked = kernel.__check(rules, stream, config)?;
    // SAFETY: forwarded from the caller.
    unsafe { args.__chevron_launch(checked, stream) }
}

/// The parameter pointers of a typed launch's slots, in order (`ArgSlot::param` of each).
#[inline(always)]
fn slot_params<const N: usize>(slots: &[ArgSlot<'_>; N]) -> [*mut c_void; N] {
    slots.each_ref().map(ArgSlot::param)
}

/// The slots of `args` for a graph update of `kernel` in `graph`: made on the stream the next
/// replay follows, which they order after the buffers' earlier uses on other streams, and
/// recording no event (the graph runs later; dropping the slots is what orders later uses).
/// Returns the function too, looked up first.
#[inline(always)]
fn update_slots<'s, A: ArgTuple<M, N>, M, const N: usize>(
    graph: &'s Graph<'_>,
    kernel: &'s Kernel,
    args: &'s mut A,
) -> Result<(&'s CudaFunction, [ArgSlot<'s>; N]), Error> {
    let func = kernel.get(graph.context())?;
    let mut slots = args.__chevron_slots(graph.order_stream());
    for slot in &mut slots {
        slot.skip_record();
    }
    Ok((func, slots))
}

/// A `#[kernel]`'s `update`: sets all the arguments of `kernel`'s node `node` in `graph`, `args`
/// being the kernel's parameters and `slots` the kernel's slots function.
///
/// # Safety
/// As [`Typed::update`](crate::Typed::update): `args` match the kernel's parameters, and what
/// they point at stays valid while the graph may replay with them.
#[inline(always)]
pub(crate) unsafe fn typed_update<A: ArgTuple<M, N>, M, const N: usize>(
    graph: &Graph<'_>,
    node: &GraphNode,
    kernel: &Kernel,
    mut args: A,
) -> Result<(), Error> {
    let (func, slots) = update_slots(graph, kernel, &mut args)?;
    let mut params = slot_params(&slots);
    // SAFETY: forwarded from the caller.
    unsafe { graph.__set_params(node, func, Some(kernel.name()), &mut params) }
}

/// A `#[kernel]`'s `update_scalars`: sets the arguments of `node` that `keep` marks `false`
/// from `scalars` (in order, through `slots`), and keeps the others (its buffers) as they are.
///
/// # Safety
/// As [`typed_update`]; the kept parameters are device pointers.
#[inline(always)]
pub(crate) unsafe fn typed_update_scalars<A: ArgTuple<M, S>, M, const S: usize, const N: usize>(
    graph: &Graph<'_>,
    node: &GraphNode,
    kernel: &Kernel,
    mut scalars: A,
    keep: &[bool; N],
) -> Result<(), Error> {
    let (func, slots) = update_slots(graph, kernel, &mut scalars)?;
    let mut given = slots.iter();
    let mut params = [core::ptr::null_mut(); N];
    for (param, &kept) in params.iter_mut().zip(keep) {
        if !kept {
            if let Some(slot) = given.next() {
                *param = slot.param();
            }
        }
    }
    let mut kept = [0u64; N];
    // SAFETY: forwarded from the caller.
    unsafe {
        graph.__set_params_keeping(
            node,
            func,
            Some(kernel.name()),
            &mut params,
            keep,
            &mut kept,
        )
    }
}

/// A `#[kernel]`'s `update_ordered`: sets the arguments of `node`, those that `is_buffer`
/// marks from the pointers of the ordered buffers `ordered` (each checked to be of `graph`
/// first), the others from `scalars`, in order.
///
/// # Safety
/// As [`typed_update`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn typed_update_ordered<
    O: OrderedArgs<MO, B>,
    A: ArgTuple<M, S>,
    M,
    MO,
    const B: usize,
    const S: usize,
    const N: usize,
>(
    graph: &Graph<'_>,
    node: &GraphNode,
    kernel: &Kernel,
    ordered: O,
    mut scalars: A,
    is_buffer: &[bool; N],
) -> Result<(), Error> {
    let buffers = ordered.__chevron_ptrs(graph)?;
    let (func, slots) = update_slots(graph, kernel, &mut scalars)?;
    let (mut given, mut pointers) = (slots.iter(), buffers.iter());
    let mut params = [core::ptr::null_mut(); N];
    for (param, &buffer) in params.iter_mut().zip(is_buffer) {
        let next = if buffer {
            pointers
                .next()
                .map(|p| p as *const sys::CUdeviceptr as *mut c_void)
        } else {
            given.next().map(ArgSlot::param)
        };
        if let Some(next) = next {
            *param = next;
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { graph.__set_params(node, func, Some(kernel.name()), &mut params) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Ordered;

    // The bound is the test: each call compiles only if the tuple implements the trait.
    #[allow(clippy::extra_unused_type_parameters)]
    fn args<A: ArgTuple<M, N>, M, const N: usize>() -> usize {
        N
    }

    #[allow(clippy::extra_unused_type_parameters)]
    fn ordered<O: OrderedArgs<M, B>, M, const B: usize>() -> usize {
        B
    }

    /// `(T, T, …)`, `$n` times `T` given as `[x x …]`.
    macro_rules! tuple {
        ($t:ty; $($x:tt)*) => { ($(tuple!(@ $x $t),)*) };
        (@ $x:tt $t:ty) => { $t };
    }

    #[test]
    fn both_traits_take_tuples_of_0_to_max_params() {
        type A = u32;
        type O<'a> = &'a Ordered<'a, f32>;
        assert_eq!(args::<(), _, 0>(), 0);
        assert_eq!(args::<(A,), _, 1>(), 1);
        assert_eq!(ordered::<(), _, 0>(), 0);
        assert_eq!(ordered::<(O<'static>,), _, 1>(), 1);
        let n40 = args::<
            tuple!(A; x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x),
            _,
            40,
        >();
        let n64 = args::<
            tuple!(A; x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
                      x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x),
            _,
            64,
        >();
        let b64 = ordered::<
            tuple!(O<'static>; x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
                               x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x),
            _,
            64,
        >();
        let max = chevron_cuda_rules::limits::MAX_TUPLE_PARAMS;
        assert_eq!((n40, n64, b64, max), (40, 64, 64, 64));
    }

    #[test]
    fn chains_take_any_number_of_arguments() {
        type A = u32;
        type O<'a> = &'a Ordered<'a, f32>;
        type T64 = tuple!(A; x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
                             x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x);
        assert_eq!(args::<ArgChain<T64, (A, A), 66>, _, 66>(), 66);
        assert_eq!(
            args::<ArgChain<ArgChain<T64, T64, 128>, (A,), 129>, _, 129>(),
            129
        );
        assert_eq!(ordered::<ArgChain<(O<'static>,), (), 1>, _, 1>(), 1);
    }

    #[test]
    fn a_chain_keeps_the_order_of_its_parts() {
        assert_eq!(chained::<_, 2, 3, 5>([1, 2], [3, 4, 5]), [1, 2, 3, 4, 5]);
        assert_eq!(chained::<u8, 0, 0, 0>([], []), []);
    }
}
