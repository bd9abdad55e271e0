//! Untyped argument updates of kernel nodes ([`Graph::set_params`],
//! [`Graph::set_params_keeping`]), which the typed updates of [`Typed`](crate::Typed) call, and
//! the record of each updated node's arguments.

use core::ffi::c_void;

use cudarc::driver::CudaFunction;

use super::{graph_err, Graph, GraphNode};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// One 64-byte cache line of [`Records`]' storage: each record starts on one.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// Where a node's record lies in [`Records`]' lines, and its parameters' sizes.
#[derive(Clone, Copy)]
struct Slot {
    /// The record's first line.
    at: usize,
    /// The sizes of the node's function's parameters (the function's, shared by its nodes).
    sizes: &'static [u32],
}

/// What writing a node's record back into the graph needs (cold: read before instantiating
/// again only): the node and its launch (function, grid, block, shared memory), as captured.
#[derive(Clone, Copy)]
struct Launch {
    node: sys::CUgraphNode,
    params: sys::CUDA_KERNEL_NODE_PARAMS,
}

/// The last update of each updated node: its arguments' bytes, with one pointer per parameter
/// into them (the kernel-parameter array the driver reads when the graph's node is written
/// back, and where an update copies each new argument).
///
/// Laid out for the update path's caches: all records in one allocation, one after another,
/// each starting on a 64-byte line, its pointer array first and its arguments right after (a
/// kernel of four 4- and 8-byte parameters: 56 bytes, one line). An update reads its node's
/// 24-byte slot (the slots of nodes updated in order lie side by side) and its record, and
/// nothing else of chevron's that is not shared by every node (the parameter sizes are the
/// function's). What only writing back needs lies apart, in `launches`.
pub(super) struct Records {
    /// Per node slot ([`GraphNode`]'s): its record, `None` before its first update.
    slots: Vec<Option<Slot>>,
    /// Per node slot: what writing it back needs.
    launches: Vec<Option<Launch>>,
    /// The records. Grows at a node's first update only; the pointers in the records are made
    /// again when it moves.
    lines: Vec<Line>,
}

impl Records {
    /// No records.
    pub(super) fn new() -> Self {
        Self {
            slots: Vec::new(),
            launches: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// The record of `slot` when it is one of `n` parameters: its pointers and their sizes.
    #[inline(always)]
    fn get(&mut self, slot: u32, n: usize) -> Option<(&mut [*mut c_void], &'static [u32])> {
        let s = (*self.slots.get(slot as usize)?)?;
        if s.sizes.len() != n {
            return None;
        }
        // SAFETY: the record at `s.at` starts with `n` pointers (see `Records::add`), in
        // `lines`, which `self` borrows mutably for as long as the slice lives.
        let ptrs = unsafe {
            core::slice::from_raw_parts_mut(
                self.lines.as_mut_ptr().add(s.at) as *mut *mut c_void,
                n,
            )
        };
        Some((ptrs, s.sizes))
    }

    /// Adds the record of `node`, whose function's parameters have `sizes` bytes (replacing its
    /// earlier one, if any): its bytes zero until the first [`record`]. Returns its pointers.
    fn add(&mut self, node: &GraphNode, sizes: &'static [u32]) -> &mut [*mut c_void] {
        let n = sizes.len();
        let bytes = n * 8 + sizes.iter().map(|&s| s as usize).sum::<usize>();
        let at = self.lines.len();
        let old = self.lines.as_ptr();
        self.lines
            .resize(at + bytes.div_ceil(64).max(1), Line([0; 8]));
        let slot = node.slot as usize;
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, None);
            self.launches.resize(slot + 1, None);
        }
        self.slots[slot] = Some(Slot { at, sizes });
        self.launches[slot] = Some(Launch {
            node: node.node,
            params: node.params,
        });
        if self.lines.as_ptr() != old {
            // Moved: every record's pointers again.
            for s in self.slots.iter().flatten() {
                // SAFETY: each slot's record lies in `lines` (see below).
                unsafe { point(self.lines.as_mut_ptr().add(s.at), s.sizes) };
            }
        } else {
            // SAFETY: the lines from `at` on hold `bytes` bytes.
            unsafe { point(self.lines.as_mut_ptr().add(at), sizes) };
        }
        self.get(node.slot, n)
            .map(|(ptrs, _)| ptrs)
            .unwrap_or_default()
    }

    /// Every record with what writing it back needs: the node, its launch, and its pointers.
    fn each(
        &mut self,
    ) -> impl Iterator<
        Item = (
            sys::CUgraphNode,
            sys::CUDA_KERNEL_NODE_PARAMS,
            *mut *mut c_void,
        ),
    > + '_ {
        let lines = self.lines.as_mut_ptr();
        self.slots
            .iter()
            .zip(&self.launches)
            .filter_map(move |(s, l)| match (s, l) {
                // SAFETY: the record lies in `lines`.
                (Some(s), Some(l)) => Some((l.node, l.params, unsafe { lines.add(s.at) }
                    as *mut *mut c_void)),
                _ => None,
            })
    }

    /// Forgets every record (keeping the storage).
    fn clear(&mut self) {
        self.slots.clear();
        self.launches.clear();
        self.lines.clear();
    }
}

/// Writes the pointers of a record at `record` for parameters of `sizes`: pointer `k` to
/// parameter `k`'s bytes, which follow the pointers one parameter after another.
///
/// # Safety
/// `record` is `sizes.len() * 8 + sum(sizes)` writable bytes, 8-byte aligned.
unsafe fn point(record: *mut Line, sizes: &[u32]) {
    let ptrs = record as *mut *mut c_void;
    let base = record as *mut u8;
    let mut at = sizes.len() * 8;
    for (k, &size) in sizes.iter().enumerate() {
        // SAFETY: within the record (the caller's promise).
        unsafe { ptrs.add(k).write(base.add(at) as *mut c_void) };
        at += size as usize;
    }
}

/// Copies the arguments `params` points at into a record (its pointers `ptrs`, of `sizes`
/// bytes), all of them (`keep` `None`) or those whose `keep` flag is false: allocates nothing.
///
/// # Safety
/// `params`, `ptrs` and `sizes` have one entry per parameter (checked by the callers); entry
/// `k` of `params` points at `sizes[k]` readable bytes unless it is kept, and of `ptrs` at as
/// many writable ones.
#[inline(always)]
unsafe fn record(
    params: &[*mut c_void],
    ptrs: &[*mut c_void],
    sizes: &[u32],
    keep: Option<&[bool]>,
) {
    // Cut to `params`' length (which the callers checked), so that for an array of a known
    // length the loop unrolls.
    let n = params.len();
    let (Some(ptrs), Some(sizes)) = (ptrs.get(..n), sizes.get(..n)) else {
        return;
    };
    let slots = params.iter().zip(ptrs).zip(sizes);
    match keep {
        // SAFETY: the caller's promise, for every parameter.
        None => slots.for_each(|((&from, &to), &size)| unsafe { copy_param(from, to, size) }),
        Some(keep) => {
            for (((&from, &to), &size), &keep) in slots.zip(keep) {
                if !keep {
                    // SAFETY: the caller's promise, for a parameter not kept.
                    unsafe { copy_param(from, to, size) };
                }
            }
        }
    }
}

/// Copies parameter bytes `from` → `to`: one load and one store for 4 or 8 bytes.
///
/// # Safety
/// `from` is `size` readable bytes, `to` `size` writable ones (they may be the same).
#[inline(always)]
unsafe fn copy_param(from: *mut c_void, to: *mut c_void, size: u32) {
    let (from, to) = (from as *const u8, to as *mut u8);
    // SAFETY: the caller's promise. `copy`, not `copy_nonoverlapping`: an argument may be the
    // record's own bytes.
    unsafe {
        match size {
            4 => (to as *mut u32).write_unaligned((from as *const u32).read_unaligned()),
            8 => (to as *mut u64).write_unaligned((from as *const u64).read_unaligned()),
            _ => core::ptr::copy(from, to, size as usize),
        }
    }
}

impl<'a> Graph<'a> {
    /// Sets the parameters of kernel node `node` for the following replays, without
    /// instantiating again (`cuGraphExecKernelNodeSetParams`): the untyped form of a
    /// `#[kernel]`'s [`Typed::update`](crate::Typed::update). `func` must be the node's
    /// function, `name` is for messages. The graph remembers the new arguments, so that
    /// [`Graph::set_params_keeping`] and an instantiation again ([`Graph::set_node_attribute`])
    /// start from them, not from the captured ones. Allocates nothing after the first update of each node.
    ///
    /// `Error::Graph` when `node` is of another graph or another function.
    ///
    /// # Safety
    /// As [`crate::launch_function`]: `params` matches the kernel's parameters, and what it
    /// points at (buffers included) stays valid while the graph may replay, which for buffers
    /// means borrowed for the graph's lifetime `'a`.
    pub unsafe fn set_params(
        &mut self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.__set_params(node, func, name, params) }
    }

    /// [`Graph::set_params`] through a shared borrow, for the typed updates: they hold the
    /// stream of [`Graph::order_stream`] (borrowed from the graph) until the call, which a
    /// mutable borrow would make them clone. The graph is not `Sync`, and the record of the
    /// arguments is behind a `RefCell`.
    ///
    /// The hot path is what cannot be decided once: the node and function checks (two
    /// compares), the context check (`cuCtxGetCurrent`: the driver's graph calls may crash
    /// rather than fail without their context; one thread-local compare inside a
    /// [`Graph::updates`] batch), the driver call, and the copy of the arguments into the
    /// node's record (see [`Records`]).
    ///
    /// # Safety
    /// As [`Graph::set_params`].
    #[doc(hidden)]
    #[inline]
    pub unsafe fn __set_params(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let kernel = KernelName(name);
        self.check_kernel_node(node, func, kernel)?;
        // SAFETY: forwarded from the caller; the node is checked.
        unsafe { self.set_checked(node, func, kernel, params) }
    }

    /// [`Graph::set_params`] after its checks: the context check, the driver call, then the
    /// record of the arguments in the node's slot (one index, no hashing; the parameter sizes
    /// are looked up at the node's first update only).
    ///
    /// # Safety
    /// As [`Graph::set_params`]; `node` passed [`Graph::check_kernel_node`] with `func`.
    #[inline]
    unsafe fn set_checked(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.exec_set(node, kernel, params) }?;
        let mut records = self.records.borrow_mut();
        if let Some((ptrs, sizes)) = records.get(node.slot, params.len()) {
            // SAFETY: `params` matches the node's function, whose sizes these are.
            unsafe { record(params, ptrs, sizes, None) };
            return Ok(());
        }
        drop(records);
        // SAFETY: as above.
        unsafe { self.first_record(node, func, kernel, params) }
    }

    /// `cuGraphExecKernelNodeSetParams` for `node` with `params`, after the context check.
    ///
    /// # Safety
    /// As [`Graph::set_checked`].
    #[inline(always)]
    unsafe fn exec_set(
        &self,
        node: &GraphNode,
        kernel: KernelName,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let mut raw = node.params;
        raw.kernelParams = params.as_mut_ptr();
        // Checked at every call outside a batch: without its context the driver may crash.
        self.ensure_current(kernel)?;
        // SAFETY: `exec` was instantiated from the graph holding `node` (checked by the caller);
        // the parameters are the caller's promise. The driver copies them before returning.
        // Straight to the driver's entry point, as a program without chevron calls it.
        unsafe { driver::exec_set_kernel_params(self.exec, node.node, &raw) }
            .map_err(|e| exec_set_error(kernel, e.0))
    }

    /// The first update of a node: its slot, with the function's parameter sizes.
    ///
    /// # Safety
    /// As [`Graph::set_checked`]; `params` are the arguments the executable graph now has.
    #[cold]
    #[inline(never)]
    unsafe fn first_record(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        match crate::launch::function::function_info(func).param_sizes(&self.ctx, func) {
            Some(sizes) if sizes.len() == params.len() => {
                let mut records = self.records.borrow_mut();
                let ptrs = records.add(node, sizes);
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { record(params, ptrs, sizes, None) };
                Ok(())
            }
            // No parameter sizes from this driver (before CUDA 12.4): the graph's node gets the
            // arguments at once (one more driver call).
            _ => {
                let mut raw = node.params;
                raw.kernelParams = params.as_mut_ptr();
                // SAFETY: as above, for the graph's own node.
                unsafe { driver::kernel_node_set_params(node.node, &raw) }
                    .map_err(|e| Error::driver("cuGraphKernelNodeSetParams", kernel, e))
            }
        }
    }

    /// Writes the recorded arguments of updated nodes into the graph's nodes
    /// (`cuGraphKernelNodeSetParams`), before the graph is instantiated again.
    pub(super) fn write_back_updates(&mut self) -> Result<(), Error> {
        let records = self.records.get_mut();
        for (node, mut raw, ptrs) in records.each() {
            raw.kernelParams = ptrs;
            // SAFETY: the node belongs to this graph, which is live; the bytes were recorded
            // from parameters matching the node's function, in its parameter order and sizes.
            unsafe { driver::kernel_node_set_params(node, &raw) }
                .map_err(graph_err("cuGraphKernelNodeSetParams"))?;
        }
        records.clear();
        Ok(())
    }

    /// [`Graph::set_params`] keeping some of the node's current arguments: for each `k` with
    /// `keep[k]`, parameter `k` is the node's current value (the captured one, or the last
    /// update's), read into `kept[k]` (a 64-bit device pointer: `keep` marks buffer parameters
    /// only), and `params[k]` is ignored. The untyped form of a `#[kernel]`'s
    /// [`Typed::update_scalars`](crate::Typed::update_scalars). Allocates nothing.
    ///
    /// `Error::Graph` when `node` is of another graph or another function, or the slices'
    /// lengths differ from each other.
    ///
    /// # Safety
    /// As [`Graph::set_params`], and every kept parameter is 8 bytes.
    pub unsafe fn set_params_keeping(
        &mut self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.__set_params_keeping(node, func, name, params, keep, kept) }
    }

    /// [`Graph::set_params_keeping`] through a shared borrow, for the typed `update_scalars`
    /// (see [`Graph::__set_params`]).
    ///
    /// # Safety
    /// As [`Graph::set_params_keeping`].
    #[doc(hidden)]
    #[inline]
    pub unsafe fn __set_params_keeping(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        let kernel = KernelName(name);
        self.check_kernel_node(node, func, kernel)?;
        if keep.len() != params.len() || kept.len() != params.len() {
            return Err(lengths_error(kernel, params.len(), keep.len(), kept.len()));
        }
        let mut records = self.records.borrow_mut();
        if let Some((ptrs, sizes)) = records.get(node.slot, params.len()) {
            // The last update's arguments, where the record has them: one load per kept
            // parameter, the driver call, then one copy per parameter given. The record's
            // lengths equal `params'` (checked by `get`).
            let slots = params.iter_mut().zip(keep).zip(kept.iter_mut());
            for (k, (((param, &keep), kept), (&from, &size))) in
                slots.zip(ptrs.iter().zip(sizes)).enumerate()
            {
                if keep {
                    if size != 8 {
                        return Err(not_8_bytes(kernel, k));
                    }
                    // SAFETY: 8 bytes of the record (see `Records::add`).
                    *kept = unsafe { (from as *const u64).read_unaligned() };
                    *param = kept as *mut u64 as *mut c_void;
                }
            }
            // SAFETY: forwarded from the caller; the node is checked.
            unsafe { self.exec_set(node, kernel, params) }?;
            // SAFETY: `params` matches the node's function, whose sizes these are; the kept
            // ones are in the record already.
            unsafe { record(params, ptrs, sizes, Some(keep)) };
            return Ok(());
        }
        drop(records);
        // SAFETY: forwarded from the caller.
        unsafe { self.keeping_first(node, func, kernel, params, keep, kept) }
    }

    /// [`Graph::set_params_keeping`] for a node not updated yet (or whose record does not
    /// match `params`): the kept arguments from the graph's node, the captured ones.
    ///
    /// # Safety
    /// As [`Graph::set_params_keeping`]; `node` passed [`Graph::check_kernel_node`].
    #[cold]
    #[inline(never)]
    unsafe fn keeping_first(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        params: &mut [*mut c_void],
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.kept_from_node(node, kernel, keep, kept) }?;
        for (k, param) in params.iter_mut().enumerate() {
            if keep[k] {
                *param = &mut kept[k] as *mut u64 as *mut c_void;
            }
        }
        // SAFETY: forwarded from the caller; the node is checked.
        unsafe { self.set_checked(node, func, kernel, params) }
    }

    /// The kept arguments of a node not updated yet: the graph's node's, the captured ones.
    ///
    /// # Safety
    /// As [`Graph::set_params_keeping`]; `node` passed [`Graph::check_kernel_node`].
    #[cold]
    unsafe fn kept_from_node(
        &self,
        node: &GraphNode,
        kernel: KernelName,
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
        // SAFETY: the node belongs to this graph (checked), which is live.
        let current = unsafe { driver::kernel_node_params(node.node) }
            .map_err(|e| Error::driver("cuGraphKernelNodeGetParams", kernel, e))?;
        if current.kernelParams.is_null() {
            return Err(Error::Graph {
                kernel,
                message: "the driver gave no parameters for the node: update all of them"
                    .to_string(),
            });
        }
        for (k, slot) in kept.iter_mut().enumerate() {
            if keep[k] {
                // SAFETY: the driver's array has one pointer per parameter of the node's
                // function (checked to be the caller's), whose parameters `keep` covers (the
                // caller's promise), and each kept parameter is 8 bytes. The copy is taken
                // before the node is set again.
                *slot = unsafe { (*current.kernelParams.add(k) as *const u64).read_unaligned() };
            }
        }
        Ok(())
    }

    /// [`Graph::check_node`], and that the node launches `func`: two compares.
    #[inline(always)]
    fn check_kernel_node(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
    ) -> Result<(), Error> {
        self.check_node(node, kernel)?;
        if node.params.func != func.cu_function() {
            return Err(other_kernel(kernel));
        }
        Ok(())
    }
}

/// The error of `cuGraphExecKernelNodeSetParams`, made off the hot path.
#[cold]
#[inline(never)]
fn exec_set_error(kernel: KernelName, rc: sys::CUresult) -> Error {
    Error::driver(
        "cuGraphExecKernelNodeSetParams",
        kernel,
        cudarc::driver::DriverError(rc),
    )
}

#[cold]
#[inline(never)]
fn other_kernel(kernel: KernelName) -> Error {
    Error::Graph {
        kernel,
        message: "the node launches another kernel: update it with that kernel's `update`"
            .to_string(),
    }
}

#[cold]
#[inline(never)]
fn lengths_error(kernel: KernelName, params: usize, keep: usize, kept: usize) -> Error {
    Error::Graph {
        kernel,
        message: format!(
            "{params} parameters, {keep} keep flags and {kept} kept slots: give one of each per \
             parameter"
        ),
    }
}

#[cold]
#[inline(never)]
fn not_8_bytes(kernel: KernelName, k: usize) -> Error {
    Error::Graph {
        kernel,
        message: format!("parameter {k} is not 8 bytes: update it"),
    }
}

#[cfg(test)]
mod tests;
