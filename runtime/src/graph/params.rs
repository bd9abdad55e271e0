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
/// the node was captured) and its arguments' bytes, one parameter after another with `sizes`.
pub(super) struct Recorded {
    node: sys::CUgraphNode,
    params: sys::CUDA_KERNEL_NODE_PARAMS,
    bytes: Vec<u8>,
    sizes: &'static [u32],
}

impl Recorded {
    /// Copies the arguments `params` points at into `bytes` (as long as the sizes' sum, from
    /// the first record): one store for a 4- or 8-byte parameter, allocates nothing.
    ///
    /// # Safety
    /// Parameter `k` points at `sizes[k]` readable bytes.
    #[inline]
    unsafe fn record(&mut self, params: &[*mut c_void]) {
        let mut at = 0usize;
        for (param, &size) in params.iter().zip(self.sizes) {
            let size = size as usize;
            let Some(to) = self.bytes.get_mut(at..at + size) else {
                return;
            };
            let from = *param as *const u8;
            // SAFETY: the caller's promise; `to` is `size` bytes of `bytes`.
            unsafe {
                match size {
                    4 => (to.as_mut_ptr() as *mut u32)
                        .write_unaligned((from as *const u32).read_unaligned()),
                    8 => (to.as_mut_ptr() as *mut u64)
                        .write_unaligned((from as *const u64).read_unaligned()),
                    _ => core::ptr::copy_nonoverlapping(from, to.as_mut_ptr(), size),
                }
            }
            at += size;
        }
    }
}

impl Graph<'_> {
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

    /// [`Graph::set_params`] after its checks: the driver call, then the record of the
    /// arguments in the node's slot (one index, no hashing; the parameter sizes are looked up
    /// at the node's first update only).
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
        let mut raw = node.params;
        raw.kernelParams = params.as_mut_ptr();
        raw.extra = core::ptr::null_mut();
        // SAFETY: `exec` was instantiated from the graph holding `node` (checked by the caller);
        // the parameters are the caller's promise. The driver copies them before returning.
        // Checked at every call, never assumed: without its context the driver may crash.
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
        unsafe { driver::exec_set_kernel_params(self.exec, node.node, &raw) }
            .map_err(|e| Error::driver("cuGraphExecKernelNodeSetParams", kernel, e))?;
        let mut updated = self.updated.borrow_mut();
        if let Some(Some(recorded)) = updated.get_mut(node.slot as usize) {
            if recorded.sizes.len() == params.len() {
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params) };
                return Ok(());
            }
        }
        drop(updated);
        // SAFETY: as above.
        unsafe { self.first_record(node, func, kernel, &raw, params) }
    }

    /// The first update of a node: its slot, with the function's parameter sizes.
    ///
    /// # Safety
    /// As [`Graph::set_checked`]; `raw` is the node's launch with `params`.
    #[cold]
    unsafe fn first_record(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        raw: &sys::CUDA_KERNEL_NODE_PARAMS,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        match crate::function::function_info(func).param_sizes(&self.ctx, func) {
            Some(sizes) if sizes.len() == params.len() => {
                let slot = node.slot as usize;
                let mut updated = self.updated.borrow_mut();
                if updated.len() <= slot {
                    updated.resize_with(slot + 1, || None);
                }
                let total = sizes.iter().map(|&s| s as usize).sum();
                let recorded = updated[slot].insert(Recorded {
                    node: node.node,
                    params: node.params,
                    bytes: vec![0; total],
                    sizes,
                });
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params) };
                Ok(())
            }
            // No parameter sizes from this driver (before CUDA 12.4): the graph's node gets the
            // arguments at once (one more driver call).
            // SAFETY: as above, for the graph's own node.
            _ => unsafe { driver::kernel_node_set_params(node.node, raw) }
                .map_err(|e| Error::driver("cuGraphKernelNodeSetParams", kernel, e)),
        }
    }

    /// Writes the recorded arguments of updated nodes into the graph's nodes
    /// (`cuGraphKernelNodeSetParams`), before the graph is instantiated again.
    pub(super) fn write_back_updates(&mut self) -> Result<(), Error> {
        let updated = self.updated.get_mut();
        for recorded in updated.iter_mut().flatten() {
            let mut pointers: Vec<*mut c_void> = Vec::with_capacity(recorded.sizes.len());
            let mut at = 0usize;
            for &size in recorded.sizes {
                pointers.push(recorded.bytes[at..].as_mut_ptr() as *mut c_void);
                at += size as usize;
            }
            let mut raw = recorded.params;
            raw.kernelParams = pointers.as_mut_ptr();
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
            return Err(Error::Graph {
                kernel,
                message: format!(
                    "{} parameters, {} keep flags and {} kept slots: give one of each per \
                     parameter",
                    params.len(),
                    keep.len(),
                    kept.len()
                ),
            });
        }
        let found = match self.updated.borrow().get(node.slot as usize) {
            Some(Some(recorded)) => {
                // The last update's arguments.
                let mut at = 0usize;
                for (k, &size) in recorded.sizes.iter().enumerate().take(params.len()) {
                    if keep[k] {
                        let value = recorded.bytes.get(at..at + 8).filter(|_| size == 8);
                        let Some(value) = value else {
                            return Err(Error::Graph {
                                kernel,
                                message: format!("parameter {k} is not 8 bytes: update it"),
                            });
                        };
                        kept[k] = u64::from_ne_bytes(value.try_into().unwrap_or([0; 8]));
                    }
                    at += size as usize;
                }
                true
            }
            _ => false,
        };
        if !found {
            // SAFETY: forwarded from the caller.
            unsafe { self.kept_from_node(node, kernel, keep, kept) }?;
        }
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

    /// [`Graph::check_node`], and that the node launches `func`.
    fn check_kernel_node(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
    ) -> Result<(), Error> {
        self.check_node(node, kernel)?;
        if node.params.func != func.cu_function() {
            return Err(Error::Graph {
                kernel,
                message: "the node launches another kernel: update it with that kernel's \
                          `update`"
                    .to_string(),
            });
        }
        Ok(())
    }
}
