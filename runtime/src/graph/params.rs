//! Untyped argument updates of kernel nodes ([`Graph::set_params`],
//! [`Graph::set_params_keeping`]), which the typed `update` functions call, and the record of
//! each updated node's arguments.

use core::ffi::c_void;

use cudarc::driver::CudaFunction;

use super::{graph_err, Graph, GraphNode};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// The last update of a node: the node, its launch (function, grid, block, shared memory, as
/// the node was captured) and its arguments' bytes, with one pointer per parameter into them:
/// the kernel-parameter array the driver reads when the graph's node is written back, and where
/// an update copies each new argument (one load and one store for a 4- or 8-byte parameter, no
/// offset arithmetic or bounds check per call).
pub(super) struct Recorded {
    node: sys::CUgraphNode,
    params: sys::CUDA_KERNEL_NODE_PARAMS,
    /// The arguments' bytes, one parameter after another with `sizes` (8-byte units, so that a
    /// parameter that starts on 8 bytes is aligned): read and written through `ptrs` only. A
    /// `Vec` (not a `Box`, which moving would assert unique), never resized.
    #[allow(dead_code)]
    bytes: Vec<u64>,
    /// Parameter `k`'s bytes in `bytes`, one pointer per entry of `sizes`.
    ptrs: Box<[*mut c_void]>,
    sizes: &'static [u32],
}

impl Recorded {
    /// The record of `node`, launching a function with parameters of `sizes` bytes, its bytes
    /// zero until the first [`Recorded::record`].
    fn new(node: &GraphNode, sizes: &'static [u32]) -> Self {
        let total: usize = sizes.iter().map(|&s| s as usize).sum();
        let mut bytes = vec![0u64; total.div_ceil(8)];
        let base = bytes.as_mut_ptr() as *mut u8;
        let mut at = 0usize;
        let ptrs = sizes
            .iter()
            .map(|&size| {
                // SAFETY: `at + size` is at most `total`, within `bytes`.
                let p = unsafe { base.add(at) } as *mut c_void;
                at += size as usize;
                p
            })
            .collect();
        Self {
            node: node.node,
            params: node.params,
            bytes,
            ptrs,
            sizes,
        }
    }

    /// Copies the arguments `params` points at into the record, all of them (`keep` `None`) or
    /// those whose `keep` flag is false: allocates nothing.
    ///
    /// # Safety
    /// `params` has one entry per parameter (`sizes.len()`, checked by the callers), and entry
    /// `k` points at `sizes[k]` readable bytes, unless it is kept.
    #[inline(always)]
    unsafe fn record(&mut self, params: &[*mut c_void], keep: Option<&[bool]>) {
        // Cut to `params`' length (which the callers checked), so that for an array of a known
        // length the loop unrolls.
        let n = params.len();
        let (Some(ptrs), Some(sizes)) = (self.ptrs.get(..n), self.sizes.get(..n)) else {
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
    /// instantiating again (`cuGraphExecKernelNodeSetParams`): the untyped form of the `update`
    /// function `#[kernel]` generates. `func` must be the node's function, `name` is for
    /// messages. The graph remembers the new arguments, so that [`Graph::set_params_keeping`]
    /// and an instantiation again ([`Graph::set_node_attribute`]) start from them, not from the
    /// captured ones. Allocates nothing after the first update of each node.
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
    /// rather than fail without their context), the driver call, and the copy of the arguments
    /// into the node's slot.
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
        let mut updated = self.updated.borrow_mut();
        if let Some(Some(recorded)) = updated.get_mut(node.slot as usize) {
            if recorded.ptrs.len() == params.len() {
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params, None) };
                return Ok(());
            }
        }
        drop(updated);
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
        // Checked at every call, never assumed: without its context the driver may crash.
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
        match crate::function::function_info(func).param_sizes(&self.ctx, func) {
            Some(sizes) if sizes.len() == params.len() => {
                let slot = node.slot as usize;
                let mut updated = self.updated.borrow_mut();
                if updated.len() <= slot {
                    updated.resize_with(slot + 1, || None);
                }
                let recorded = updated[slot].insert(Recorded::new(node, sizes));
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params, None) };
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
        let updated = self.updated.get_mut();
        for recorded in updated.iter_mut().flatten() {
            let mut raw = recorded.params;
            raw.kernelParams = recorded.ptrs.as_mut_ptr();
            // SAFETY: the node belongs to this graph, which is live; the bytes were recorded
            // from parameters matching the node's function, in its parameter order and sizes.
            unsafe { driver::kernel_node_set_params(recorded.node, &raw) }
                .map_err(graph_err("cuGraphKernelNodeSetParams"))?;
        }
        updated.clear();
        Ok(())
    }

    /// [`Graph::set_params`] keeping some of the node's current arguments: for each `k` with
    /// `keep[k]`, parameter `k` is the node's current value (the captured one, or the last
    /// update's), read into `kept[k]` (a 64-bit device pointer: `keep` marks buffer parameters
    /// only), and `params[k]` is ignored. The untyped form of the `update_scalars` function
    /// `#[kernel]` generates. Allocates nothing.
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
        let mut updated = self.updated.borrow_mut();
        if let Some(Some(recorded)) = updated.get_mut(node.slot as usize) {
            if recorded.ptrs.len() == params.len() {
                // The last update's arguments, where the record has them: one load per kept
                // parameter, the driver call, then one copy per parameter given.
                // The record's lengths equal `params`' (`ptrs` has one entry per size).
                let n = params.len();
                let (ptrs, sizes) = (&recorded.ptrs[..n], &recorded.sizes[..n]);
                let slots = params.iter_mut().zip(keep).zip(kept.iter_mut());
                for (k, (((param, &keep), kept), (&from, &size))) in
                    slots.zip(ptrs.iter().zip(sizes)).enumerate()
                {
                    if keep {
                        if size != 8 {
                            return Err(not_8_bytes(kernel, k));
                        }
                        // SAFETY: 8 bytes of the record (see `Recorded::new`).
                        *kept = unsafe { (from as *const u64).read_unaligned() };
                        *param = kept as *mut u64 as *mut c_void;
                    }
                }
                // SAFETY: forwarded from the caller; the node is checked.
                unsafe { self.exec_set(node, kernel, params) }?;
                // SAFETY: `params` matches the node's function, whose sizes these are; the kept
                // ones are in the record already.
                unsafe { recorded.record(params, Some(keep)) };
                return Ok(());
            }
        }
        drop(updated);
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
mod tests {
    use super::*;

    fn node() -> GraphNode {
        GraphNode {
            capture: 1,
            slot: 0,
            node: core::ptr::null_mut(),
            // SAFETY: a plain C struct of integers and pointers, for which zero is valid.
            params: unsafe { core::mem::zeroed() },
        }
    }

    /// The record's bytes as the driver would read them through `ptrs`.
    fn read(recorded: &Recorded) -> Vec<Vec<u8>> {
        recorded
            .ptrs
            .iter()
            .zip(recorded.sizes)
            .map(|(&p, &size)| {
                // SAFETY: `size` bytes of the record.
                unsafe { core::slice::from_raw_parts(p as *const u8, size as usize) }.to_vec()
            })
            .collect()
    }

    #[test]
    fn the_pointers_lie_one_parameter_after_another_in_the_bytes() {
        static SIZES: [u32; 5] = [4, 4, 8, 2, 12];
        let recorded = Recorded::new(&node(), &SIZES);
        let base = recorded.ptrs[0] as usize;
        let offsets: Vec<usize> = recorded.ptrs.iter().map(|&p| p as usize - base).collect();
        assert_eq!(offsets, [0, 4, 8, 16, 18]);
        assert_eq!(
            recorded.bytes.len() * 8,
            32,
            "30 bytes, in whole 8-byte units"
        );
        assert_eq!(base, recorded.bytes.as_ptr() as usize);
    }

    #[test]
    fn a_record_copies_every_parameter_or_only_those_not_kept() {
        static SIZES: [u32; 5] = [4, 4, 8, 2, 12];
        let mut recorded = Recorded::new(&node(), &SIZES);
        let (mut n, mut a, mut x, mut h, mut s) = (7u32, 2.5f32, 0xdead_beef_u64, 9u16, [3u8; 12]);
        let params = [
            &mut n as *mut u32 as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &mut x as *mut u64 as *mut c_void,
            &mut h as *mut u16 as *mut c_void,
            s.as_mut_ptr() as *mut c_void,
        ];
        // SAFETY: each parameter points at its size's bytes.
        unsafe { recorded.record(&params, None) };
        let want = |n: u32, a: f32, x: u64, h: u16, s: [u8; 12]| {
            vec![
                n.to_ne_bytes().to_vec(),
                a.to_ne_bytes().to_vec(),
                x.to_ne_bytes().to_vec(),
                h.to_ne_bytes().to_vec(),
                s.to_vec(),
            ]
        };
        assert_eq!(read(&recorded), want(7, 2.5, 0xdead_beef, 9, [3; 12]));
        // SAFETY: each parameter points at its local, written through it only from here on.
        unsafe {
            *(params[0] as *mut u32) = 8;
            *(params[1] as *mut f32) = -1.0;
            *(params[2] as *mut u64) = 0x1234;
            *(params[3] as *mut u16) = 10;
            *(params[4] as *mut [u8; 12]) = [4; 12];
        }
        let keep = [false, true, true, false, true];
        // SAFETY: as above; the kept ones are not read.
        unsafe { recorded.record(&params, Some(&keep)) };
        assert_eq!(read(&recorded), want(8, 2.5, 0xdead_beef, 10, [3; 12]));
        // A parameter that is the record's own bytes (a kept one passed through) stays as is.
        let own = [params[0], params[1], recorded.ptrs[2], params[3], params[4]];
        // SAFETY: as above; entry 2 points at the record's own 8 bytes.
        unsafe { recorded.record(&own, None) };
        assert_eq!(read(&recorded), want(8, -1.0, 0xdead_beef, 10, [4; 12]));
    }
}
