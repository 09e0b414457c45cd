//! Memory for large tables: zeroed by the system as pages are first
//! touched, refused with an error rather than an abort, and backed by huge
//! pages where the kernel allows.

use std::sync::atomic::AtomicU64;

/// Why a table could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The system would not allocate the memory.
    #[error("cannot allocate a table of {bytes} bytes")]
    OutOfMemory {
        /// The size asked for.
        bytes: usize,
    },
}

/// Types whose all-zero bit pattern is a valid value, so that a table of
/// them can come zeroed from the allocator.
///
/// # Safety
///
/// Implement only for types made of integers (atomic or not) and arrays
/// of them.
pub(crate) unsafe trait ZeroBits {}
// SAFETY: plain integers.
unsafe impl ZeroBits for AtomicU64 {}
// SAFETY: plain integers.
unsafe impl ZeroBits for [u64; 2] {}
// SAFETY: a plain integer.
unsafe impl ZeroBits for u128 {}

/// `n` zeroed values, or an error if the allocator refuses them. The
/// memory is not written here: the system supplies zeroed pages as they
/// are first touched, so a large table that is little used costs little,
/// and a table too large for the system is an error, not an abort.
pub(crate) fn zeroed<T: ZeroBits>(n: usize) -> Result<Box<[T]>, TableError> {
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let too_big = || TableError::OutOfMemory { bytes };
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| too_big())?;
    if layout.size() == 0 {
        return Ok(Box::new([]));
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(too_big());
    }
    // SAFETY: the pointer comes from the global allocator with the layout of
    // `[T; n]`, and all-zero bits are a valid `T` (`ZeroBits`).
    Ok(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)) })
}

/// Asks the kernel to back a table with 2 MiB pages.
///
/// Every probe lands on a random entry, so with 4 KiB pages nearly every
/// probe of a large table also misses the TLB; huge pages make the page
/// walks rare. A huge page is zeroed whole when first touched, so a
/// short solve in a fresh table pays for zeroing pages it barely uses.
///
/// A request only: where the kernel declines, nothing changes.
#[cfg(target_os = "linux")]
pub(crate) fn ask_for_huge_pages<T>(entries: &[T]) {
    const HUGE: usize = 2 << 20;
    let start = entries.as_ptr() as usize;
    let end = start + std::mem::size_of_val(entries);
    // madvise wants page-aligned ranges, and only whole huge pages can be huge.
    let first = start.next_multiple_of(HUGE);
    let last = end / HUGE * HUGE;
    if last > first {
        // SAFETY: the range lies inside memory this table owns, and
        // MADV_HUGEPAGE changes how it is backed, never its contents.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn ask_for_huge_pages<T>(_: &[T]) {}

/// Starts loading the memory at `entry` into the cache, so that a later
/// read of a table entry does not wait for it. Only a hint: any address
/// will do, and a prefetch never faults.
#[inline(always)]
pub(crate) fn prefetch<T>(entry: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetching is only a hint and never faults; SSE is part
        // of every x86_64 target.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entry;
}

/// Makes the system supply every page of `words` now (see
/// [`Table::touch`](crate::solver::table::Table::touch)); their values are
/// unchanged.
pub(crate) fn touch(words: &mut [AtomicU64]) {
    // One word per 4 KiB page. It must be a write: reads of untouched
    // pages all map one shared zero page. A volatile write, because an
    // atomic add of zero, or a store of the value just read, may be
    // compiled to a plain read or to nothing.
    for word in words.iter_mut().step_by(4096 / 8) {
        let value = *word.get_mut();
        // SAFETY: `word` is a valid, exclusive `u64` (`&mut`).
        unsafe { std::ptr::write_volatile(word.get_mut(), value) };
    }
}
