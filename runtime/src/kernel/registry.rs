//! The [`Kernel`] of each `#[kernel]` declaration of a PTX file, by the declaration's type: what
//! `KERNEL::kernel()` returns, made at its first call and kept for the life of the process.
//!
//! Why not a `static` per declaration, as before: rustc checks a `static` as an item of its own
//! (its type's `Sync`, its initializer's qualification, evaluation and borrow check), which cost
//! `cargo check` about 0.25 ms per declaration (`rustc` on the expanded code of
//! `scripts/compile_bench.sh`: 0.223 s with the statics, 0.198 s without). Here a declaration's
//! `kernel()` is one call with the kernel's name, entry, path and text as arguments.
//!
//! The hot path, each `kernel()` after the first: the type's `TypeId` hashed to a slot of an
//! open-addressed table of atomic pointers, read without a lock (one load per probe, the first
//! probe almost always the answer). A kernel's first call takes one process-wide mutex, looks
//! again, and publishes its entry; a type whose probes are all taken goes to a locked list.

use core::any::TypeId;
use core::hash::{Hash, Hasher};
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, PoisonError};

use super::Kernel;

/// The kernels of this process.
static KERNELS: Table<{ 1 << 13 }> = Table::new();

/// The kernel of the declaration whose type is `id`, made by `make` at the first call for `id`
/// (from any thread: every call for `id` gets the same kernel).
#[inline]
pub(crate) fn kernel(id: TypeId, make: impl FnOnce() -> Kernel) -> &'static Kernel {
    match KERNELS.find(id) {
        Some(kernel) => kernel,
        None => KERNELS.insert(id, make()),
    }
}

/// A kernel and the type it belongs to.
struct Entry {
    id: TypeId,
    kernel: Kernel,
}

/// Slots probed from a type's own before the locked list: a full run of them is a table far
/// fuller than any program's kernels make it.
const PROBES: usize = 16;

/// `N` slots (a power of two) of leaked entries, null until taken; entries never move or go.
struct Table<const N: usize> {
    slots: [AtomicPtr<Entry>; N],
    /// Taken while an entry is added, so that two threads' first calls for one type make one.
    adding: Mutex<()>,
    /// Entries whose probes were all taken.
    overflow: Mutex<Vec<&'static Entry>>,
}

impl<const N: usize> Table<N> {
    const fn new() -> Self {
        Self {
            slots: [const { AtomicPtr::new(ptr::null_mut()) }; N],
            adding: Mutex::new(()),
            overflow: Mutex::new(Vec::new()),
        }
    }

    /// The first slot probed for `id`.
    fn home(id: TypeId) -> usize {
        let mut hasher = Fold(0);
        id.hash(&mut hasher);
        // Fibonacci hashing: the high bits of the product, which every bit of the id moves.
        (hasher.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % N
    }

    #[inline]
    fn find(&self, id: TypeId) -> Option<&'static Kernel> {
        let home = Self::home(id);
        for probe in 0..PROBES.min(N) {
            let entry = self.slots[(home + probe) % N].load(Ordering::Acquire);
            if entry.is_null() {
                return None;
            }
            // SAFETY: a non-null slot holds a leaked `Box<Entry>`, published with `Release`
            // after it was written (`insert`), and never freed.
            let entry: &'static Entry = unsafe { &*entry };
            if entry.id == id {
                return Some(&entry.kernel);
            }
        }
        self.overflowed(id)
    }

    #[cold]
    fn overflowed(&self, id: TypeId) -> Option<&'static Kernel> {
        let overflow = self.overflow.lock().unwrap_or_else(PoisonError::into_inner);
        overflow.iter().find(|e| e.id == id).map(|e| &e.kernel)
    }

    /// Adds `kernel` for `id`, unless another thread's first call did first: the kernel of
    /// `id` either way.
    #[cold]
    fn insert(&self, id: TypeId, kernel: Kernel) -> &'static Kernel {
        let _adding = self.adding.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = self.find(id) {
            return found;
        }
        let entry: &'static mut Entry = Box::leak(Box::new(Entry { id, kernel }));
        let home = Self::home(id);
        for probe in 0..PROBES.min(N) {
            let slot = &self.slots[(home + probe) % N];
            // Only this thread adds (`adding`), so a null slot stays null until this store.
            if slot.load(Ordering::Relaxed).is_null() {
                slot.store(entry, Ordering::Release);
                return &entry.kernel;
            }
        }
        let entry: &'static Entry = entry;
        self.overflow
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry);
        &entry.kernel
    }
}

/// A hasher that folds what it is given into one word: a `TypeId` is already a hash.
struct Fold(u64);

impl Hasher for Fold {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(29) ^ n;
    }

    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ty<const I: usize>;

    fn kernel_named(name: &'static str) -> Kernel {
        Kernel::ptx(name, name, "/k.ptx", "")
    }

    fn ids<const M: usize>() -> Vec<TypeId> {
        // Distinct types, each with its own id.
        macro_rules! ids {
            ($($i:literal)*) => { vec![$(TypeId::of::<Ty<$i>>()),*] };
        }
        let all = ids!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
            28 29 30 31 32 33 34 35 36 37 38 39);
        all.into_iter().take(M).collect()
    }

    /// Each type gets the kernel its first call made, the same reference at every later call,
    /// and another type's calls do not reach it.
    #[test]
    fn each_type_keeps_the_kernel_of_its_first_call() {
        static TABLE: Table<64> = Table::new();
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        let ids = ids::<10>();
        let first: Vec<&'static Kernel> = ids
            .iter()
            .zip(names)
            .map(|(&id, name)| {
                assert!(TABLE.find(id).is_none());
                TABLE.insert(id, kernel_named(name))
            })
            .collect();
        for ((&id, name), kernel) in ids.iter().zip(names).zip(&first) {
            assert_eq!(kernel.name, name);
            let again = TABLE.find(id).expect("found after its insert");
            assert!(ptr::eq(again, *kernel));
            // A second insert (a thread that lost the race) keeps the first kernel.
            let raced = TABLE.insert(id, kernel_named("late"));
            assert!(ptr::eq(raced, *kernel));
        }
    }

    /// More types than a small table's probes hold: the rest are kept in the locked list and
    /// found there.
    #[test]
    fn types_beyond_the_probes_are_found_in_the_overflow() {
        static TABLE: Table<4> = Table::new();
        let ids = ids::<40>();
        for (i, &id) in ids.iter().enumerate() {
            let name: &'static str = Box::leak(format!("k{i}").into_boxed_str());
            TABLE.insert(id, kernel_named(name));
        }
        assert_eq!(TABLE.overflow.lock().unwrap().len(), 36);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(
                TABLE.find(id).expect("every type found").name,
                format!("k{i}")
            );
        }
        assert!(TABLE.find(TypeId::of::<u8>()).is_none());
    }

    /// Threads racing to the first call of each type all get one kernel per type.
    #[test]
    fn racing_first_calls_make_one_kernel() {
        static TABLE: Table<16> = Table::new();
        let ids = ids::<24>();
        let got: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        ids.iter()
                            .map(|&id| {
                                let k = match TABLE.find(id) {
                                    Some(k) => k,
                                    None => TABLE.insert(id, kernel_named("r")),
                                };
                                k as *const Kernel as usize
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for thread in &got[1..] {
            assert_eq!(thread, &got[0]);
        }
        let mut distinct = got[0].clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), ids.len());
    }
}
