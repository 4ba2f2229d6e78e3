//! Repeated fields written unpacked (one tag per element), and the exact
//! sizing of a fresh vector for the run of values about to be read.

use alloc::vec::Vec;

use crate::codec::Codec;
use crate::wire::reader::Reader;
use crate::wire::writer::Writer;

/// Size of a repeated field written unpacked, one tag per element.
#[inline]
pub fn size_repeated<C: Codec>(values: &[C::Value], key_len: usize) -> usize {
    key_len * values.len() + values.iter().map(C::size).sum::<usize>()
}

/// Writes a repeated field unpacked, one tag per element.
#[inline]
pub fn write_repeated<C: Codec>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    w.in_registers(|w| {
        for v in values.iter().rev() {
            C::write_keyed(v, tag, w);
        }
    });
}

/// Sizes a fresh repeated field (no capacity yet) for the run of `tag` values
/// about to be read (see [`Reader::count_run`]), so it is allocated once
/// instead of growing; a reused vector keeps its capacity. Never more than the
/// decode's allocation budget would let the values take.
#[inline(always)]
pub fn reserve_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    if values.capacity() == 0 {
        allocate_run(values, r, tag);
    }
}

/// [`reserve_run`]'s allocation, out of line: once per fresh field.
#[inline(never)]
fn allocate_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    *values = Vec::with_capacity(run_length::<T>(r, tag));
}

pub(crate) fn run_length<T>(r: &Reader<'_>, tag: u32) -> usize {
    r.count_run(tag).min(r.budget() / core::mem::size_of::<T>().max(1))
}
