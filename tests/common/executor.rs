//! The smallest executor: `block_on` polls one future on the calling thread and parks between
//! polls, woken by the future's waker. For the completion tests, to show that completions need
//! no async runtime (`mod executor;` through `#[path]`).

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

/// Unparks the thread that waits, and counts the wakes.
pub struct Unpark {
    thread: Thread,
    pub wakes: AtomicUsize,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.thread.unpark();
    }
}

/// A waker of the calling thread, and its wake counter.
#[allow(dead_code)]
pub fn thread_waker() -> (Arc<Unpark>, Waker) {
    let unpark = Arc::new(Unpark {
        thread: std::thread::current(),
        wakes: AtomicUsize::new(0),
    });
    (unpark.clone(), Waker::from(unpark))
}

/// Runs `future` to completion on this thread.
#[allow(dead_code)]
pub fn block_on<F: Future>(future: F) -> F::Output {
    let (_, waker) = thread_waker();
    block_on_with(&waker, future)
}

/// [`block_on`] with a given waker (made once, so that a loop of `block_on`s allocates nothing).
#[allow(dead_code)]
pub fn block_on_with<F: Future>(waker: &Waker, future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}
