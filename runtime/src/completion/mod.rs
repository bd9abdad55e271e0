//! Completion of a stream as a future: await what a stream has been given so far, under any
//! executor (tokio's current-thread and multi-thread runtimes, a hand-written `block_on`), with
//! no async runtime as a dependency.
//!
//! ```no_run
//! # async fn f() -> Result<(), chevron::Error> {
//! use chevron::{completion, context};
//! let ctx = context(0)?;
//! let stream = ctx.new_stream()?;
//! // … launches on `stream` …
//! completion(&stream).await?; // everything enqueued on `stream` before this line is done
//! # Ok(()) }
//! ```
//!
//! How a completion learns that the stream is done is its [`Mechanism`]; see there for each one's
//! cost and for how the stream's `sync` policy ([`SyncPolicy`]) applies to it.

mod driver;
mod reactor;
mod slot;

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::result as cu;
use cudarc::driver::{CudaStream, DriverError};

use crate::config::attr::{StreamAttribute, SyncPolicy};
use crate::error::driver_error;
use crate::error::{Error, KernelName};
use crate::sys;
use reactor::{Entry, Flag, Pace, Watch};
use slot::Slot;

/// How a [`Completion`] learns that its stream's work is done. Each one wakes the awaiting task
/// once that work is done, and with [`Error::StreamFailed`] when the stream's context fails
/// first (a kernel that trapped or faulted). Chosen per completion with [`completion_with`];
/// [`completion`] uses [`Mechanism::DEFAULT`].
///
/// The stream's `sync` policy (`stream(sync = …)` in `launch!`, or
/// [`set_stream_attribute`](crate::set_stream_attribute)), read when the completion is made,
/// applies as follows:
///
/// | policy | [`Flag`](Mechanism::Flag), [`Event`](Mechanism::Event) | [`Callback`](Mechanism::Callback), [`HostFunc`](Mechanism::HostFunc) | [`HostFuncV2`](Mechanism::HostFuncV2) |
/// |---|---|---|---|
/// | `Spin` | the reactor looks again at once; the first poll spins up to [`SPIN_LIMIT`] | the first poll spins up to [`SPIN_LIMIT`] | `CU_HOST_TASK_SPINWAIT`, and the first poll spins |
/// | `Yield` | the reactor yields between looks | no effect | `CU_HOST_TASK_SPINWAIT` |
/// | `Auto`, unset | the reactor spins 20 µs after each event, yields until 200 µs, then sleeps 50 µs between looks | no effect | `CU_HOST_TASK_BLOCKING` |
/// | `BlockingSync` | the reactor sleeps 50 µs between looks | no effect | `CU_HOST_TASK_BLOCKING` |
///
/// Only the first poll spins (under `Spin`), and only the awaiting task: a poll never blocks
/// longer than [`SPIN_LIMIT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mechanism {
    /// The stream writes a word of pinned host memory (`cuStreamWriteValue32`) after the work;
    /// one reactor thread per process reads the words of pending completions (memory loads, no
    /// driver call), and the awaiting task reads its own on every poll. A failed context is seen
    /// by the reactor's `cuStreamQuery` every millisecond. Costs one driver call per completion.
    Flag,
    /// An event recorded on the stream (`cuEventRecord`), queried by the reactor thread
    /// (`cuEventQuery`, which also reports a failed context). One driver call per completion,
    /// one per pending completion per look.
    Event,
    /// `cuStreamAddCallback`: the driver calls back on a thread of its own, which wakes the
    /// task; the driver also calls back, with the error, when the context failed. No thread of
    /// chevron's. The waker runs on the driver's thread, which must make no CUDA call: tokio's
    /// and other executors' wakers only schedule the task.
    Callback,
    /// `cuLaunchHostFunc`: as [`Mechanism::Callback`], but the driver does not call a host
    /// function in a failed context, so the reactor checks the stream every millisecond.
    HostFunc,
    /// `cuLaunchHostFunc_v2` (CUDA 13.2): as [`Mechanism::HostFunc`], with the driver's host
    /// task thread spinning (`CU_HOST_TASK_SPINWAIT`) for a stream whose policy is `Spin` or
    /// `Yield` and blocking (`CU_HOST_TASK_BLOCKING`) otherwise. Needs a `cuda-13020` or later
    /// feature and a CUDA 13.2 driver: [`Error::Unavailable`] says which is missing.
    HostFuncV2,
}

/// How long the first poll of a completion on a `Spin` stream spins before it leaves its waker
/// and returns `Pending`.
pub const SPIN_LIMIT: Duration = Duration::from_micros(100);

impl Mechanism {
    /// The mechanism of [`completion`].
    pub const DEFAULT: Mechanism = Mechanism::Flag;

    /// Every mechanism, for benchmarks and tests.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::Flag,
        Mechanism::Event,
        Mechanism::Callback,
        Mechanism::HostFunc,
        Mechanism::HostFuncV2,
    ];

    /// A short name: `flag`, `event`, `callback`, `host-func`, `host-func-v2`.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Flag => "flag",
            Mechanism::Event => "event",
            Mechanism::Callback => "callback",
            Mechanism::HostFunc => "host-func",
            Mechanism::HostFuncV2 => "host-func-v2",
        }
    }

    /// `Ok` where this build and the loaded driver have the mechanism: all but
    /// [`Mechanism::HostFuncV2`] always, that one with a `cuda-13020` or later feature and a
    /// driver that exports `cuLaunchHostFunc_v2`. Needs the driver for that last check.
    pub fn available(self) -> Result<(), Error> {
        if self != Mechanism::HostFuncV2 {
            return Ok(());
        }
        host_func_v2_available()
    }

    /// The call whose error a failed stream reports.
    fn failure_call(self) -> &'static str {
        match self {
            Mechanism::Event => "cuEventQuery",
            Mechanism::Callback => "cuStreamAddCallback",
            Mechanism::Flag | Mechanism::HostFunc | Mechanism::HostFuncV2 => "cuStreamQuery",
        }
    }
}

const V2: &str = "`Mechanism::HostFuncV2` (cuLaunchHostFunc_v2)";
const V2_FIX: &str = "use another `Mechanism` (`Mechanism::HostFunc` is the same without the \
                      sync mode)";

#[cfg(not(cuda_13020))]
fn host_func_v2_available() -> Result<(), Error> {
    Err(Error::Unavailable {
        what: V2,
        why: "this build uses an older CUDA API than 13.2, where cuLaunchHostFunc_v2 appeared; \
              build with feature cuda-13020 or later for it"
            .to_string(),
        fix: V2_FIX,
    })
}

#[cfg(cuda_13020)]
fn host_func_v2_available() -> Result<(), Error> {
    crate::driver::device::ensure_driver()?;
    if driver::has_host_func_v2() {
        return Ok(());
    }
    let version = crate::driver::driver_version().unwrap_or(0);
    Err(Error::Unavailable {
        what: V2,
        why: format!(
            "the driver supports CUDA {}.{} (cuDriverGetVersion) and does not export \
             cuLaunchHostFunc_v2, which needs a CUDA 13.2 driver",
            version / 1000,
            version % 1000 / 10
        ),
        fix: V2_FIX,
    })
}

// A completion can move to another thread and be awaited there, and needs no pinning.
const _: () = {
    const fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<Completion>();
};

/// A future that completes once the work enqueued on a stream before it was made is done:
/// `Ok(())`, or [`Error::StreamFailed`] when the stream's context failed first.
///
/// Made by [`completion`] or [`completion_with`], which enqueue the marker at once (later work
/// is not waited for); any error doing so is returned by the first poll. `Send`, `Unpin`; dropping
/// it before it completes is safe at any time (the driver's callback or the reactor still holds
/// the shared state, which outlives both). After warm-up, making, polling and dropping one
/// allocates nothing, with a waker whose clone does not allocate (tokio's do not).
#[must_use = "the work is already enqueued; dropping its completion only stops waiting for it and loses its error: `.await` it in async code, or call `.wait()`"]
pub struct Completion {
    state: State,
}

enum State {
    Pending {
        slot: &'static Slot,
        /// The flag the stream writes, read on every poll (`Mechanism::Flag`).
        flag: Option<Flag>,
        /// Spin in the first poll (a `Spin` stream).
        spin: bool,
        device: usize,
        mechanism: Mechanism,
    },
    /// Making it failed: the error, until the first poll takes it.
    Failed(Option<Error>),
}

impl core::fmt::Debug for Completion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.state {
            State::Pending {
                slot,
                device,
                mechanism,
                ..
            } => f
                .debug_struct("Completion")
                .field("device", device)
                .field("mechanism", mechanism)
                .field("done", &slot.result().is_some())
                .finish(),
            State::Failed(e) => f.debug_struct("Completion").field("error", e).finish(),
        }
    }
}

/// The completion of everything enqueued on `stream` so far, by [`Mechanism::DEFAULT`]:
///
/// ```no_run
/// use chevron::cudarc::driver::CudaStream;
/// use std::sync::Arc;
///
/// async fn serve(stream: &Arc<CudaStream>) -> Result<Vec<f32>, chevron::Error> {
///     let mut out = stream.alloc_zeros::<f32>(256)?;
///     // … `launch!` a kernel that writes `out` on `stream` …
///     chevron::completion(stream).await?; // the task sleeps, the thread serves others
///     Ok(stream.clone_dtoh(&out)?) // already done: returns without waiting for the GPU
/// }
/// ```
pub fn completion(stream: &Arc<CudaStream>) -> Completion {
    completion_with(stream, Mechanism::DEFAULT)
}

/// The completion of everything enqueued on `stream` so far, by `mechanism`.
pub fn completion_with(stream: &Arc<CudaStream>, mechanism: Mechanism) -> Completion {
    match start(stream, mechanism) {
        Ok(state) => Completion { state },
        Err(e) => Completion {
            state: State::Failed(Some(e)),
        },
    }
}

/// Enqueues the marker of `mechanism` on `stream`.
fn start(stream: &Arc<CudaStream>, mechanism: Mechanism) -> Result<State, Error> {
    mechanism.available()?;
    let ctx = stream.context();
    let kernel = KernelName(None);
    ctx.bind_to_thread()
        .map_err(|e| driver_error("cuCtxSetCurrent", kernel, ctx, e))?;
    if crate::driver::device::is_capturing(stream) {
        return Err(Error::Graph {
            kernel,
            message: "cannot await a stream that is capturing a graph (its work runs when the \
                      graph is replayed): await the stream after `Graph::replay` instead"
                .to_string(),
        });
    }
    let id = <SyncPolicy as crate::config::attr::Attribute>::ID;
    let policy = SyncPolicy::from_stream_value(
        &crate::driver::stream_attribute(stream, id).map_err(|source| {
            crate::launch::explain::stream_attribute_error(
                "cuStreamGetAttribute",
                id,
                None,
                kernel,
                source,
            )
        })?,
    );
    let pace = Pace::of(policy);
    let device = ctx.ordinal();
    let raw = stream.cu_stream();
    let fail = |call: &'static str| move |e: DriverError| driver_error(call, kernel, ctx, e);
    let mut flag = None;
    let slot = match mechanism {
        Mechanism::Callback => {
            let slot = Slot::acquire(2);
            // SAFETY: the stream is live; the slot outlives the callback (never freed).
            let enqueued =
                unsafe { driver::add_callback(raw, Some(on_callback), slot.as_user_data()) };
            if let Err(e) = enqueued {
                slot.release();
                slot.release();
                return Err(fail("cuStreamAddCallback")(e));
            }
            slot
        }
        Mechanism::HostFunc | Mechanism::HostFuncV2 => {
            let slot = Slot::acquire(3);
            let enqueued = enqueue_host_func(raw, slot, mechanism, pace);
            if let Err((call, e)) = enqueued {
                slot.release();
                slot.release();
                slot.release();
                return Err(fail(call)(e));
            }
            watch(slot, stream, Watch::Host, pace)?;
            slot
        }
        Mechanism::Event => {
            let event = reactor::take_event(ctx).map_err(fail("cuEventCreate"))?;
            // SAFETY: the event and the stream are live and of the same context.
            if let Err(e) = unsafe { cu::event::record(event.cu_event(), raw) } {
                reactor::give_back_event(ctx, event);
                return Err(fail("cuEventRecord")(e));
            }
            let slot = Slot::acquire(2);
            watch(slot, stream, Watch::Event(event), pace)?;
            slot
        }
        Mechanism::Flag => {
            let f = reactor::take_flag(ctx).map_err(fail("cuMemHostRegister"))?;
            // SAFETY: the flag's page is registered with the stream's context and never freed.
            if let Err(e) = unsafe { driver::write_value32(raw, f.device, f.value) } {
                reactor::give_back_flag(ctx, f);
                return Err(fail("cuStreamWriteValue32")(e));
            }
            flag = Some(f);
            let slot = Slot::acquire(2);
            watch(slot, stream, Watch::Flag(f), pace)?;
            slot
        }
    };
    Ok(State::Pending {
        slot,
        flag,
        spin: pace == Pace::Spin,
        device,
        mechanism,
    })
}

/// Hands the completion to the reactor; on failure lets go of the slot for the future and the
/// reactor (a host function still holds its own share).
fn watch(
    slot: &'static Slot,
    stream: &Arc<CudaStream>,
    watch: Watch,
    pace: Pace,
) -> Result<(), Error> {
    let entry = Entry {
        slot,
        stream: stream.clone(),
        watch,
        pace,
    };
    reactor::register(entry).map_err(|entry| {
        if let Watch::Event(event) = entry.watch {
            reactor::give_back_event(stream.context(), event);
        }
        slot.release();
        slot.release();
        reactor::no_reactor()
    })
}

fn enqueue_host_func(
    stream: sys::CUstream,
    slot: &'static Slot,
    mechanism: Mechanism,
    pace: Pace,
) -> Result<(), (&'static str, DriverError)> {
    let user = slot.as_user_data();
    #[cfg(cuda_13020)]
    if mechanism == Mechanism::HostFuncV2 {
        let spin = matches!(pace, Pace::Spin | Pace::Yield);
        // SAFETY: the stream is live; the slot outlives the call (never freed); `available`
        // checked that the driver has the function.
        return unsafe { driver::launch_host_func_v2(stream, Some(on_host_func), user, spin) }
            .map_err(|e| ("cuLaunchHostFunc_v2", e));
    }
    let _ = (mechanism, pace);
    // SAFETY: as above.
    unsafe { cu::stream::launch_host_function(stream, on_host_func, user) }
        .map_err(|e| ("cuLaunchHostFunc", e))
}

/// The `cuStreamAddCallback` callback: records the status and wakes the task. Runs on a driver
/// thread: no CUDA call, no unwinding.
unsafe extern "C" fn on_callback(
    _stream: sys::CUstream,
    status: sys::CUresult,
    user: *mut core::ffi::c_void,
) {
    // SAFETY: `user` is the slot given to cuStreamAddCallback.
    let slot = unsafe { Slot::from_user_data(user) };
    let result = match status {
        sys::cudaError_enum::CUDA_SUCCESS => Ok(()),
        code => Err(code),
    };
    slot.complete(result);
    slot.release();
}

/// The `cuLaunchHostFunc` function: marks the work done and wakes the task. Runs on a driver
/// thread: no CUDA call, no unwinding.
unsafe extern "C" fn on_host_func(user: *mut core::ffi::c_void) {
    // SAFETY: `user` is the slot given to cuLaunchHostFunc.
    let slot = unsafe { Slot::from_user_data(user) };
    slot.complete(Ok(()));
    slot.release();
    // The reactor still holds the slot (it watches the stream for a failed context): let it
    // hand the slot back now rather than at its next millisecond check.
    reactor::nudge();
}

impl Completion {
    /// Whether the stream's work is done (or failed), without waiting.
    pub fn is_done(&self) -> bool {
        match &self.state {
            State::Pending { slot, flag, .. } => {
                slot.result().is_some() || flag.is_some_and(|f| f.is_set())
            }
            State::Failed(_) => true,
        }
    }

    /// Blocks the calling thread until the completion is ready (parking it, whatever the
    /// stream's policy, after the first poll's spin on a `Spin` stream): for code outside an
    /// async runtime. Allocates nothing after the first call on a thread.
    pub fn wait(mut self) -> Result<(), Error> {
        thread_local! {
            static WAKER: Waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        }
        WAKER.with(|waker| {
            let mut cx = Context::from_waker(waker);
            loop {
                if let Poll::Ready(result) = Pin::new(&mut self).poll(&mut cx) {
                    return result;
                }
                std::thread::park();
            }
        })
    }
}

/// Wakes a parked thread.
struct Unpark(std::thread::Thread);

impl std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl Future for Completion {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match &mut this.state {
            State::Failed(error) => Poll::Ready(Err(error.take().unwrap_or(Error::Unavailable {
                what: "the completion's result",
                why: "an earlier poll returned it".to_string(),
                fix: "poll a completion until it is ready, and not after",
            }))),
            State::Pending {
                slot,
                flag,
                spin,
                device,
                mechanism,
            } => {
                if core::mem::take(spin) {
                    spin_until_done(slot, flag.as_ref());
                }
                if flag.is_some_and(|f| f.is_set()) {
                    return Poll::Ready(Ok(()));
                }
                slot.poll(cx).map(|result| {
                    result.map_err(|code| Error::StreamFailed {
                        device: *device,
                        call: mechanism.failure_call(),
                        source: DriverError(code),
                    })
                })
            }
        }
    }
}

/// Spins until the slot has a result or the flag is set, for at most [`SPIN_LIMIT`].
fn spin_until_done(slot: &Slot, flag: Option<&Flag>) {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if slot.result().is_some() || flag.is_some_and(|f| f.is_set()) {
                return;
            }
            core::hint::spin_loop();
        }
        if start.elapsed() >= SPIN_LIMIT {
            return;
        }
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        if let State::Pending { slot, .. } = self.state {
            slot.forget_waker();
            slot.release();
        }
    }
}
