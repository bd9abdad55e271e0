//! Buffers ordered once for many updates: [`Typed::update`](crate::Typed::update) takes the
//! buffer itself, ordered after its earlier uses on other streams at each call;
//! [`Typed::update_ordered`](crate::Typed::update_ordered) takes an [`Ordered`] /
//! [`OrderedRead`], ordered once for any number of updates.
//!
//! Why the second form keeps the same guarantee: cudarc orders a buffer after its earlier uses
//! on other streams by waiting for its events (`cuStreamWaitEvent`, two for a buffer that is
//! written), and the only way to a buffer's device pointer goes through those waits. An
//! `Ordered` takes the pointer once, with the waits, on the stream the graph's next replay
//! follows, and then borrows the buffer (mutably, for a written one) for as long as it lives: no
//! other stream can use the buffer in between, so the waits made at its creation order every
//! later update, as the per-update waits would.

use core::marker::PhantomData;

use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};

use super::Graph;
use crate::error::{Error, KernelName};
use crate::sys;

/// A written buffer ordered once for the updates of one graph: made by [`Graph::ordered`], it
/// stands for the buffer in any number of
/// [`Typed::update_ordered`](crate::Typed::update_ordered) calls of that graph (for written and
/// read parameters alike), each of which then copies its pointer instead of waiting for the
/// buffer's events again, as `update` does. Borrows the buffer mutably while it lives.
///
/// ```no_run
/// # use chevron::{Graph, GraphNode};
/// # use chevron::cudarc::driver::CudaSlice;
/// # fn f(graph: &mut Graph<'_>, nodes: &[GraphNode], z: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
/// let z = graph.ordered(z)?; // two cuStreamWaitEvent, once
/// for node in nodes {
///     // no wait per update:
///     // chain::kernel().update_ordered(graph, node, (256, 0.25, 2.0), (&z,))?;
/// #   let _ = node;
/// }
/// # let _ = z; Ok(()) }
/// ```
#[derive(Debug)]
pub struct Ordered<'b, T> {
    ptr: sys::CUdeviceptr,
    graph: u64,
    _buffer: PhantomData<&'b mut [T]>,
}

/// A read buffer ordered once for the updates of one graph: [`Ordered`] for buffers the kernels
/// only read, made by [`Graph::ordered_read`] (one wait, for the buffer's last writer). Borrows
/// the buffer shared while it lives, so nothing writes it meanwhile; stands only for read
/// parameters.
#[derive(Debug)]
pub struct OrderedRead<'b, T> {
    ptr: sys::CUdeviceptr,
    graph: u64,
    _buffer: PhantomData<&'b [T]>,
}

impl<T> Ordered<'_, T> {
    /// The buffer's device pointer.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
}

impl<T> OrderedRead<'_, T> {
    /// The buffer's device pointer.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
}

/// Drops the guard cudarc returns with a pointer without recording this use on the buffer's
/// event: the graph uses the buffer later, when it replays (see `__private::skip_record`).
#[inline]
pub(super) fn skip_record(mut guard: SyncOnDrop<'_>) {
    if let SyncOnDrop::Record(target) = &mut guard {
        *target = None;
    }
}

impl<'a> Graph<'a> {
    /// `buffer`, ordered once after its earlier uses on other streams (its cudarc events, waited
    /// for on the stream the next replay follows), for any number of typed `update_ordered`
    /// calls of this graph: see [`Ordered`]. A typed `update` given the buffer itself waits for
    /// its events at every call (two `cuStreamWaitEvent` for a written buffer);
    /// `update_ordered` given the `Ordered` copies the pointer. The same ordering either way.
    ///
    /// `Error::Graph` when the buffer belongs to another CUDA context; `Error::Driver` when a
    /// wait failed.
    pub fn ordered<'b, T, B>(&self, buffer: &'b mut B) -> Result<Ordered<'b, T>, Error>
    where
        B: DevicePtrMut<T> + DeviceSlice<T> + ?Sized,
    {
        self.check_buffer_context(buffer.stream().context())?;
        let (ptr, guard) = buffer.device_ptr_mut(self.order_stream());
        skip_record(guard);
        self.ctx
            .check_err()
            .map_err(|e| Error::driver("cuStreamWaitEvent", KernelName(None), e))?;
        Ok(Ordered {
            ptr,
            graph: self.id,
            _buffer: PhantomData,
        })
    }

    /// [`Graph::ordered`] for a buffer the kernels only read: one wait, for its last writer.
    pub fn ordered_read<'b, T, B>(&self, buffer: &'b B) -> Result<OrderedRead<'b, T>, Error>
    where
        B: DevicePtr<T> + DeviceSlice<T> + ?Sized,
    {
        self.check_buffer_context(buffer.stream().context())?;
        let (ptr, guard) = buffer.device_ptr(self.order_stream());
        skip_record(guard);
        self.ctx
            .check_err()
            .map_err(|e| Error::driver("cuStreamWaitEvent", KernelName(None), e))?;
        Ok(OrderedRead {
            ptr,
            graph: self.id,
            _buffer: PhantomData,
        })
    }

    fn check_buffer_context(&self, ctx: &cudarc::driver::CudaContext) -> Result<(), Error> {
        if ctx.cu_ctx() != self.ctx.cu_ctx() {
            return Err(Error::Graph {
                kernel: KernelName(None),
                message: "the buffer belongs to another CUDA context than the graph: update \
                          with a buffer of the graph's context"
                    .to_string(),
            });
        }
        Ok(())
    }

    /// `Error::Graph` unless an ordered buffer was made by this graph.
    #[inline]
    fn check_ordered(&self, graph: u64) -> Result<(), Error> {
        if graph == self.id {
            return Ok(());
        }
        Err(Error::Graph {
            kernel: KernelName(None),
            message: "the ordered buffer was made for another graph, whose replays it is \
                      ordered with: make it with `ordered` on the graph you update"
                .to_string(),
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An ordered buffer a typed `update_ordered` takes for a buffer parameter the kernel reads:
/// an [`Ordered`] or an [`OrderedRead`] of the same graph (a written parameter takes an
/// `&Ordered` only). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ordered buffer of `{T}`",
    label = "not made by `graph.ordered(…)` or `graph.ordered_read(…)`",
    note = "order the buffer once with `graph.ordered(&mut buffer)` (or `graph.ordered_read(&buffer)` for a buffer the kernel only reads), then pass `&ordered`; or call `update` with the buffer itself"
)]
pub trait OrderedBuffer<T>: OrderedPtr + sealed::Sealed {}

/// What an ordered buffer gives a typed `update_ordered`, whatever its element type: its device
/// pointer. Not a public API: implemented by [`OrderedBuffer`]s only.
#[doc(hidden)]
pub trait OrderedPtr: sealed::Sealed {
    /// The device pointer, once the ordered buffer is checked to be of `graph`.
    fn __chevron_ptr(&self, graph: &Graph<'_>) -> Result<sys::CUdeviceptr, Error>;
}

impl<T> sealed::Sealed for Ordered<'_, T> {}
impl<T> OrderedBuffer<T> for Ordered<'_, T> {}
impl<T> OrderedPtr for Ordered<'_, T> {
    #[inline]
    fn __chevron_ptr(&self, graph: &Graph<'_>) -> Result<sys::CUdeviceptr, Error> {
        graph.check_ordered(self.graph)?;
        Ok(self.ptr)
    }
}

impl<T> sealed::Sealed for OrderedRead<'_, T> {}
impl<T> OrderedBuffer<T> for OrderedRead<'_, T> {}
impl<T> OrderedPtr for OrderedRead<'_, T> {
    #[inline]
    fn __chevron_ptr(&self, graph: &Graph<'_>) -> Result<sys::CUdeviceptr, Error> {
        graph.check_ordered(self.graph)?;
        Ok(self.ptr)
    }
}
