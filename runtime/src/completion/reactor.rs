//! One thread per process that watches pending completions: it queries their events
//! ([`Watch::Event`]), reads the flags their streams write ([`Watch::Flag`]), and checks the
//! streams of flag and host-function completions for a failed context, which neither would
//! report otherwise. Its pace follows the fastest sync policy among the streams it watches.
//!
//! Also here: the per-context pools of events and flags, so that after warm-up a completion
//! creates nothing.

use std::alloc::Layout;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DriverError};

use super::driver;
use super::slot::Slot;
use crate::config::attr::SyncPolicy;
use crate::error::Error;
use crate::sys;

/// How eagerly the reactor looks, from the stream's `sync` policy; the fastest among pending
/// completions wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Pace {
    /// `BlockingSync`: sleep between looks.
    Block,
    /// `Auto` or no policy: spin shortly after a completion is registered or done, then yield,
    /// then sleep.
    Auto,
    /// `Yield`: look again after yielding the core.
    Yield,
    /// `Spin`: look again at once.
    Spin,
}

impl Pace {
    pub(crate) fn of(policy: Option<SyncPolicy>) -> Self {
        match policy {
            Some(SyncPolicy::Spin) => Pace::Spin,
            Some(SyncPolicy::Yield) => Pace::Yield,
            Some(SyncPolicy::BlockingSync) => Pace::Block,
            Some(SyncPolicy::Auto) | None => Pace::Auto,
        }
    }
}

/// Under `Auto`, how long the reactor spins, then yields, after the last thing that happened.
const AUTO_SPIN: Duration = Duration::from_micros(20);
const AUTO_YIELD: Duration = Duration::from_micros(200);
/// How long the reactor sleeps between looks when it sleeps (`Block`, and `Auto` after
/// [`AUTO_YIELD`]); the OS adds its timer slack (50 µs by default on Linux).
const SLEEP: Duration = Duration::from_micros(50);
/// How often the streams of flag and host-function completions are checked for a failed
/// context (`cuStreamQuery`), and how long the reactor sleeps when only those are pending.
const HEALTH: Duration = Duration::from_millis(1);

/// What tells the reactor that a completion's work is done.
pub(crate) enum Watch {
    /// An event recorded on the stream: `cuEventQuery`.
    Event(CudaEvent),
    /// A flag the stream writes.
    Flag(Flag),
    /// A host function sets the slot; the reactor only checks the stream for a failed context,
    /// in which the driver never calls the function.
    Host,
}

/// A word of pinned host memory that a stream writes with `cuStreamWriteValue32`.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) word: &'static AtomicU32,
    pub(crate) device: sys::CUdeviceptr,
    /// The value the stream writes this time; the next use of the word writes the next value,
    /// so a late write of an earlier use is never taken for this one.
    pub(crate) value: u32,
}

impl Flag {
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        self.word.load(Ordering::Acquire) == self.value
    }
}

/// A pending completion, held by the reactor until its work is done or its stream failed.
pub(crate) struct Entry {
    pub(crate) slot: &'static Slot,
    /// Kept alive until then (the health check queries it); dropped on the reactor's thread.
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) watch: Watch,
    pub(crate) pace: Pace,
}

struct Reactor {
    incoming: Mutex<Vec<Entry>>,
    thread: Thread,
}

static REACTOR: OnceLock<Option<Reactor>> = OnceLock::new();

/// A panic elsewhere while a lock was held leaves these consistent (pushes, pops and swaps), so
/// poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Hands `entry` to the reactor, starting its thread the first time; gives it back when the
/// thread could not be started ([`no_reactor`] is the error). Allocates nothing once the
/// reactor's lists have grown to the most completions pending at once.
pub(crate) fn register(entry: Entry) -> Result<(), Entry> {
    let reactor = REACTOR.get_or_init(|| {
        let incoming = Mutex::new(Vec::with_capacity(64));
        thread::Builder::new()
            .name("chevron-completion".into())
            .spawn(run)
            .ok()
            .map(|handle| Reactor {
                incoming,
                thread: handle.thread().clone(),
            })
    });
    let Some(reactor) = reactor else {
        return Err(entry);
    };
    lock(&reactor.incoming).push(entry);
    reactor.thread.unpark();
    Ok(())
}

/// Wakes the reactor if it sleeps, so that it collects a host-function completion whose
/// function just ran. No CUDA call: a driver callback may call it.
pub(crate) fn nudge() {
    if let Some(Some(reactor)) = REACTOR.get() {
        reactor.thread.unpark();
    }
}

/// Why [`register`] failed.
pub(crate) fn no_reactor() -> Error {
    Error::Unavailable {
        what: "the completion reactor thread",
        why: "the thread could not be spawned".to_string(),
        fix: "free thread resources, or use `Mechanism::Callback`, which needs no thread of \
              chevron's",
    }
}

/// The reactor's loop.
fn run() {
    // The reactor exists once `run` is called through it: `get_or_init` stores it before any
    // entry is pushed, and this thread parks until the first push unparks it.
    let reactor = loop {
        match REACTOR.get() {
            Some(Some(r)) => break r,
            _ => thread::park(),
        }
    };
    let mut pending: Vec<Entry> = Vec::with_capacity(64);
    let mut spare: Vec<Entry> = Vec::with_capacity(64);
    let mut current_ctx: usize = 0;
    let mut last_event = Instant::now();
    let mut last_health = Instant::now();
    loop {
        {
            let mut incoming = lock(&reactor.incoming);
            if !incoming.is_empty() {
                // Swapped, not drained, so that neither list allocates once both have grown.
                core::mem::swap(&mut *incoming, &mut spare);
            }
        }
        if !spare.is_empty() {
            pending.append(&mut spare);
            last_event = Instant::now();
        }
        if pending.is_empty() {
            thread::park();
            continue;
        }
        let health = last_health.elapsed() >= HEALTH;
        if health {
            last_health = Instant::now();
        }
        let mut fastest = Pace::Block;
        let mut only_host = true;
        let mut i = 0;
        while i < pending.len() {
            match check(&pending[i], health, &mut current_ctx) {
                Some(result) => {
                    let entry = pending.swap_remove(i);
                    finish(entry, result);
                    // Dropping the entry's stream may have made another context current
                    // (cudarc binds its context to destroy a stream).
                    current_ctx = 0;
                    last_event = Instant::now();
                }
                None => {
                    let entry = &pending[i];
                    if !matches!(entry.watch, Watch::Host) {
                        only_host = false;
                        fastest = fastest.max(entry.pace);
                    }
                    i += 1;
                }
            }
        }
        if pending.is_empty() {
            continue;
        }
        if only_host {
            thread::park_timeout(HEALTH);
            continue;
        }
        match fastest {
            Pace::Spin => core::hint::spin_loop(),
            Pace::Yield => thread::yield_now(),
            Pace::Auto => {
                let quiet = last_event.elapsed();
                if quiet < AUTO_SPIN {
                    core::hint::spin_loop();
                } else if quiet < AUTO_YIELD {
                    thread::yield_now();
                } else {
                    thread::park_timeout(SLEEP);
                }
            }
            Pace::Block => thread::park_timeout(SLEEP),
        }
    }
}

/// `Some(result)` once the entry's work is done or its stream failed. `health`: also ask the
/// stream of a flag or host-function completion whether its context failed.
fn check(
    entry: &Entry,
    health: bool,
    current_ctx: &mut usize,
) -> Option<Result<(), sys::CUresult>> {
    match &entry.watch {
        Watch::Flag(flag) if flag.is_set() => return Some(Ok(())),
        Watch::Host if entry.slot.result().is_some() => return Some(Ok(())),
        Watch::Event(event) => {
            bind(entry, current_ctx);
            // SAFETY: the event is live: the entry owns it.
            return match unsafe { driver::event_done(event.cu_event()) } {
                Ok(true) => Some(Ok(())),
                Ok(false) => None,
                Err(e) => Some(Err(e.0)),
            };
        }
        _ => {}
    }
    if !health {
        return None;
    }
    bind(entry, current_ctx);
    // SAFETY: the stream is live: the entry holds it.
    match unsafe { driver::stream_done(entry.stream.cu_stream()) } {
        // Done or still running: the flag or the host function says when (a stream that is done
        // has written its flag, or will have called its function, by the next look).
        Ok(_) => None,
        Err(e) => Some(Err(e.0)),
    }
}

/// Makes the entry's context current on the reactor's thread, where it is not already.
fn bind(entry: &Entry, current_ctx: &mut usize) {
    let ctx = entry.stream.context().cu_ctx();
    if *current_ctx != ctx as usize {
        // SAFETY: the context is live: the entry's stream holds it. A failure shows up in the
        // query that follows.
        if unsafe { cudarc::driver::result::ctx::set_current(ctx) }.is_ok() {
            *current_ctx = ctx as usize;
        }
    }
}

/// Records the result (waking the waiter), returns the entry's event or flag to its pool and
/// lets go of the slot.
fn finish(entry: Entry, result: Result<(), sys::CUresult>) {
    let Entry {
        slot,
        stream,
        watch,
        ..
    } = entry;
    match watch {
        // A host function that has not run when its stream failed never will (the driver does
        // not call it in a failed context), so the slot stays owned by it: a few bytes kept for
        // the process rather than memory a late call could touch.
        Watch::Host => {
            if result.is_err() {
                slot.complete(result);
            }
        }
        Watch::Event(event) => {
            slot.complete(result);
            give_back_event(stream.context(), event);
        }
        Watch::Flag(flag) => {
            slot.complete(result);
            give_back_flag(stream.context(), flag);
        }
    }
    slot.release();
    drop(stream);
}

// ---------------------------------------------------------------------------------------------
// Pools per context.

/// Flags per page of pinned memory.
const FLAGS_PER_PAGE: usize = 1024;

/// A context's events and flags not in use. The pool holds the context, so its handle cannot be
/// reused by another context while the pool names it (as `#[kernel]` modules do).
struct Pools {
    ctx: Arc<CudaContext>,
    events: Vec<CudaEvent>,
    flags: Vec<Flag>,
    /// Pages of flags made; `flags` has capacity for all their flags, so returning one never
    /// allocates.
    pages: usize,
}

static POOLS: Mutex<Vec<Pools>> = Mutex::new(Vec::new());

fn pools_of<'a>(all: &'a mut Vec<Pools>, ctx: &Arc<CudaContext>) -> &'a mut Pools {
    let key = ctx.cu_ctx();
    match all.iter().position(|p| p.ctx.cu_ctx() == key) {
        Some(i) => &mut all[i],
        None => {
            all.push(Pools {
                ctx: ctx.clone(),
                events: Vec::new(),
                flags: Vec::new(),
                pages: 0,
            });
            all.last_mut().expect("just pushed")
        }
    }
}

/// An event of `ctx` (created with `CU_EVENT_DISABLE_TIMING`), from the pool or new. The
/// context must be current.
pub(crate) fn take_event(ctx: &Arc<CudaContext>) -> Result<CudaEvent, DriverError> {
    if let Some(event) = pools_of(&mut lock(&POOLS), ctx).events.pop() {
        return Ok(event);
    }
    ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
}

/// Returns an event to its context's pool (which grows, once, to the most events in use at once).
pub(crate) fn give_back_event(ctx: &Arc<CudaContext>, event: CudaEvent) {
    pools_of(&mut lock(&POOLS), ctx).events.push(event);
}

/// A flag of `ctx` with its next value, from the pool or from a new page of pinned host memory
/// (4 KiB, registered with the context and kept for the process). The context must be current.
pub(crate) fn take_flag(ctx: &Arc<CudaContext>) -> Result<Flag, DriverError> {
    let mut all = lock(&POOLS);
    let pools = pools_of(&mut all, ctx);
    let mut flag = match pools.flags.pop() {
        Some(flag) => flag,
        None => {
            let page = new_page()?;
            pools.pages += 1;
            pools.flags.reserve(pools.pages * FLAGS_PER_PAGE);
            pools.flags.extend(page[1..].iter().copied());
            page[0]
        }
    };
    // 0 is what a fresh word holds: never a value to wait for.
    flag.value = match flag.value.wrapping_add(1) {
        0 => 1,
        v => v,
    };
    Ok(flag)
}

/// Returns a flag to its context's pool.
pub(crate) fn give_back_flag(ctx: &Arc<CudaContext>, flag: Flag) {
    pools_of(&mut lock(&POOLS), ctx).flags.push(flag);
}

/// A page of zeroed host memory, registered with the current context for device writes, as
/// flags whose last value is 0.
fn new_page() -> Result<Vec<Flag>, DriverError> {
    let bytes = FLAGS_PER_PAGE * core::mem::size_of::<AtomicU32>();
    let layout = Layout::from_size_align(bytes, 4096).expect("a valid layout");
    // SAFETY: the layout has a nonzero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: the memory is live and never freed; on failure it stays allocated (a page lost
    // for the process, on an error path).
    let device = unsafe { driver::register_mapped(ptr.cast(), bytes) }?;
    // SAFETY: `ptr` is aligned and holds FLAGS_PER_PAGE zeroed words, valid as atomics, never
    // freed: a `'static` slice.
    let words: &'static [AtomicU32] =
        unsafe { core::slice::from_raw_parts(ptr.cast::<AtomicU32>(), FLAGS_PER_PAGE) };
    Ok(words
        .iter()
        .enumerate()
        .map(|(i, word)| Flag {
            word,
            device: device + (i * core::mem::size_of::<AtomicU32>()) as sys::CUdeviceptr,
            value: 0,
        })
        .collect())
}
