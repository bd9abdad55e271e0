//! The shared state of one completion: where the side that learns of the stream's completion (a
//! driver callback or the reactor) leaves the result and finds the waker of the side that waits.
//!
//! Slots are never freed: a driver callback holds a raw pointer to its slot until it has run,
//! and may run after the future that asked for it was dropped, so the memory it touches must
//! outlive both. A slot goes back to a free list when its last owner lets go of it, and the next
//! completion takes it from there: after warm-up (as many slots as completions were ever in
//! flight at once) taking and returning one allocates nothing.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::sys;

/// In the free list.
const IDLE: u32 = 0;
/// Waiting for the stream.
const PENDING: u32 = 1;
/// The stream's work is done.
const DONE: u32 = 2;
/// The stream failed; the code is in `code`.
const FAILED: u32 = 3;

/// Slots made at once when the free list is empty.
const CHUNK: usize = 64;

/// One completion's result and waker.
pub(crate) struct Slot {
    state: AtomicU32,
    /// The `CUresult` of a failed stream, as its `u32` value.
    code: AtomicU32,
    /// How many of the future, the driver callback and the reactor still hold the slot.
    owners: AtomicU32,
    waker: Mutex<Option<Waker>>,
}

/// Slots nobody holds, and how many slots were ever made (the list's capacity covers them all,
/// so that returning a slot never allocates).
static FREE: Mutex<(Vec<&'static Slot>, usize)> = Mutex::new((Vec::new(), 0));

/// A panic elsewhere while a lock was held leaves these consistent (each critical section is a
/// push, a pop or a swap), so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Slot {
    const fn new() -> Self {
        Self {
            state: AtomicU32::new(IDLE),
            code: AtomicU32::new(0),
            owners: AtomicU32::new(0),
            waker: Mutex::new(None),
        }
    }

    /// A pending slot held by `owners` parties, each of which calls [`Slot::release`] once.
    pub(crate) fn acquire(owners: u32) -> &'static Slot {
        let slot = {
            let mut guard = lock(&FREE);
            let (free, made) = &mut *guard;
            match free.pop() {
                Some(slot) => slot,
                None => {
                    // Made once and kept for the process: a callback may still point at a slot.
                    let chunk: &'static [Slot] =
                        Box::leak((0..CHUNK).map(|_| Slot::new()).collect::<Box<[Slot]>>());
                    *made += CHUNK;
                    free.reserve(*made);
                    free.extend(chunk[1..].iter());
                    &chunk[0]
                }
            }
        };
        slot.owners.store(owners, Ordering::Relaxed);
        slot.state.store(PENDING, Ordering::Release);
        slot
    }

    /// The result, once there is one: `Err` holds the failed stream's code.
    #[inline]
    pub(crate) fn result(&self) -> Option<Result<(), sys::CUresult>> {
        match self.state.load(Ordering::Acquire) {
            DONE => Some(Ok(())),
            FAILED => {
                let code = self.code.load(Ordering::Relaxed);
                // SAFETY: `code` holds the `u32` value of a `CUresult` the driver returned (see
                // `complete`), a valid discriminant of the `#[repr(u32)]` enum.
                Some(Err(unsafe {
                    core::mem::transmute::<u32, sys::CUresult>(code)
                }))
            }
            _ => None,
        }
    }

    /// Records the stream's result and wakes the waiter, unless a result was recorded already
    /// (`false` then). Makes no CUDA call, so a driver callback may call it.
    pub(crate) fn complete(&self, result: Result<(), sys::CUresult>) -> bool {
        let state = match result {
            Ok(()) => DONE,
            Err(code) => {
                self.code.store(code as u32, Ordering::Relaxed);
                FAILED
            }
        };
        if self
            .state
            .compare_exchange(PENDING, state, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return false;
        }
        // Taken under the lock, woken outside it: `poll` either saw the new state under the
        // lock or left its waker here before this thread took the lock.
        let waker = lock(&self.waker).take();
        if let Some(waker) = waker {
            // A waker that panics must not unwind into the driver's thread (that aborts).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| waker.wake()));
        }
        true
    }

    /// Ready with the result, or pending with `cx`'s waker kept for [`Slot::complete`].
    /// Allocates nothing when the waker is the one kept already, or when cloning it does not
    /// allocate (tokio's and `std::task::Wake` wakers: a reference count).
    pub(crate) fn poll(&self, cx: &mut Context<'_>) -> Poll<Result<(), sys::CUresult>> {
        if let Some(result) = self.result() {
            return Poll::Ready(result);
        }
        let mut waker = lock(&self.waker);
        if let Some(result) = self.result() {
            return Poll::Ready(result);
        }
        match &mut *waker {
            Some(kept) if kept.will_wake(cx.waker()) => {}
            other => *other = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Drops the waiter's waker (its future is going away), on the waiter's thread.
    pub(crate) fn forget_waker(&self) {
        let waker = lock(&self.waker).take();
        drop(waker);
    }

    /// Lets go of one ownership; the last owner returns the slot to the free list. Makes no CUDA
    /// call.
    pub(crate) fn release(&'static self) {
        if self.owners.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let stale = lock(&self.waker).take();
        self.state.store(IDLE, Ordering::Release);
        // The free list's capacity covers every slot ever made, so this push allocates nothing.
        lock(&FREE).0.push(self);
        drop(stale);
    }

    /// The slot as the `userData` of a driver callback.
    pub(crate) fn as_user_data(&'static self) -> *mut core::ffi::c_void {
        self as *const Slot as *mut core::ffi::c_void
    }

    /// The slot a driver callback was given.
    ///
    /// # Safety
    /// `user` came from [`Slot::as_user_data`].
    pub(crate) unsafe fn from_user_data(user: *mut core::ffi::c_void) -> &'static Slot {
        // SAFETY: slots are never freed, and `user` points at one (the caller's promise).
        unsafe { &*(user as *const Slot) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The tests take and return slots of the one free list: one at a time, so that a test's
    /// slot is not taken by another while it checks it.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn waker() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn a_completion_wakes_the_waker_left_by_poll_once() {
        let _serial = lock(&SERIAL);
        let slot = Slot::acquire(2);
        let (count, w) = waker();
        let mut cx = Context::from_waker(&w);
        assert!(slot.poll(&mut cx).is_pending());
        assert!(slot.poll(&mut cx).is_pending()); // the same waker: kept, not cloned again
        assert!(slot.complete(Ok(())));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(!slot.complete(Err(sys::CUresult::CUDA_ERROR_LAUNCH_FAILED)));
        assert_eq!(slot.poll(&mut cx), Poll::Ready(Ok(())));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        slot.release();
        slot.release();
    }

    #[test]
    fn a_failed_stream_carries_its_code() {
        let _serial = lock(&SERIAL);
        let slot = Slot::acquire(2);
        let (count, w) = waker();
        let mut cx = Context::from_waker(&w);
        assert!(slot.poll(&mut cx).is_pending());
        slot.complete(Err(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(
            slot.poll(&mut cx),
            Poll::Ready(Err(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS))
        );
        slot.release();
        slot.release();
    }

    #[test]
    fn a_slot_returns_to_the_free_list_only_after_its_last_owner() {
        let _serial = lock(&SERIAL);
        let slot = Slot::acquire(3);
        let (count, w) = waker();
        let mut cx = Context::from_waker(&w);
        assert!(slot.poll(&mut cx).is_pending());
        slot.forget_waker(); // the future is dropped early
        slot.release();
        assert_eq!(slot.state.load(Ordering::SeqCst), PENDING);
        slot.complete(Ok(())); // the callback runs later: nobody to wake
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        slot.release();
        assert_eq!(slot.state.load(Ordering::SeqCst), DONE);
        slot.release();
        assert_eq!(slot.state.load(Ordering::SeqCst), IDLE);
        assert!(lock(&FREE).0.iter().any(|s| core::ptr::eq(*s, slot)));
    }

    #[test]
    fn completion_and_poll_racing_never_lose_the_wake() {
        let _serial = lock(&SERIAL);
        for _ in 0..2000 {
            let slot = Slot::acquire(2);
            let (count, w) = waker();
            let done = std::thread::spawn(move || {
                slot.complete(Ok(()));
                slot.release();
            });
            let mut cx = Context::from_waker(&w);
            let first = slot.poll(&mut cx);
            done.join().unwrap();
            // Either the poll saw the result, or the completion woke the waker it left.
            assert!(first.is_ready() || count.0.load(Ordering::SeqCst) == 1);
            assert_eq!(slot.poll(&mut cx), Poll::Ready(Ok(())));
            slot.release();
        }
    }
}
