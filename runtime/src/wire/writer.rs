//! The encode cursor: writes backwards from the end of an exactly sized buffer.
//!
//! Writing back to front means an embedded message's length is known the moment
//! its last byte is written, so encoding needs one size pass at the top and never
//! asks a nested message for its size again: cost stays linear at any depth. Each
//! method writes its bytes in their normal order at the end of the free space, so
//! callers emit fields, elements and tags in reverse.

use core::mem::MaybeUninit;

use super::{simd, varint};

/// Backward writer over a buffer the encoder owns. Allocates nothing.
///
/// The buffer may be uninitialised memory (the spare capacity of a `Vec`, so
/// encoding need not zero it first). Invariant: every byte after `free` up to
/// the end of the buffer has been written; only methods of this crate claim
/// space, and each one initialises all of what it claims.
///
/// Only this crate makes writers, and hands them out by `&mut` for the length
/// of one encode: code that gets one (a hand-written `write_backward`) cannot
/// put another writer in its place, so an encoder that finds its writer with
/// nothing free knows every byte of its buffer was written.
///
/// ```compile_fail
/// // Not public: such a writer could replace the one an encoder hands out.
/// let mut buf = [0u8; 4];
/// let _ = fastrs::Writer::new(&mut buf);
/// ```
#[derive(Debug)]
pub struct Writer<'a> {
    /// The part of the buffer not written yet (its start); the rest of the
    /// buffer, after it, is written. Holding only this part lets the compiler
    /// see that every split stays in bounds.
    free: &'a mut [MaybeUninit<u8>],
}

impl<'a> Writer<'a> {
    /// A writer that fills `buf` from its end towards its start.
    #[must_use]
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and the
        // writer only ever stores initialised bytes, so `buf` stays initialised.
        #[allow(unsafe_code)]
        let buf = unsafe { &mut *(core::ptr::from_mut::<[u8]>(buf) as *mut [MaybeUninit<u8>]) };
        Self::new_uninit(buf)
    }

    /// A writer over possibly uninitialised memory; once
    /// [`Writer::remaining`] is 0, all of `buf` has been initialised.
    #[must_use]
    pub(crate) fn new_uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        Self { free: buf }
    }

    /// The number of free bytes left before the start of the buffer.
    #[inline]
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.free.len()
    }

    /// Claims the `n` bytes just before what has been written. The caller must
    /// initialise all of them (the type's invariant).
    ///
    /// Panics if fewer than `n` bytes are free: the caller sized the buffer wrong.
    #[inline(always)]
    pub(crate) fn claim(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        let Some(start) = self.free.len().checked_sub(n) else {
            buffer_too_short(n, self.free.len())
        };
        let (head, tail) = core::mem::take(&mut self.free).split_at_mut(start);
        self.free = head;
        tail
    }

    /// Runs `f` on a copy of the writer that the compiler can keep in
    /// registers: through `&mut self`, every write that may be followed by a
    /// panic stores the writer back first (unwinding could reach code that
    /// reads it), one store and one load per value in a loop. After a panic
    /// inside `f` this writer is left empty, which is fine: a panic here
    /// means the buffer was sized wrong. Generated `write_backward` bodies
    /// run in it too (a field of scalars cost a load and a store of the
    /// writer each).
    #[inline(always)]
    pub fn in_registers<R>(&mut self, f: impl FnOnce(&mut Writer<'a>) -> R) -> R {
        let mut local = Writer {
            free: core::mem::take(&mut self.free),
        };
        let result = f(&mut local);
        self.free = local.free;
        result
    }

    /// Writes one byte.
    #[inline(always)]
    pub fn put_u8(&mut self, b: u8) {
        self.claim(1)[0].write(b);
    }

    /// Writes `bytes` unchanged.
    #[inline(always)]
    pub fn put_slice(&mut self, bytes: &[u8]) {
        let dst = self.claim(bytes.len());
        if bytes.len() <= 16 {
            copy_short(dst, bytes);
        } else {
            fill(dst, bytes);
        }
    }

    /// Writes a varint.
    #[inline(always)]
    pub fn put_varint(&mut self, v: u64) {
        if v < 0x80 {
            #[allow(clippy::cast_possible_truncation)] // v < 0x80
            self.put_u8(v as u8);
        } else if v < 0x4000 {
            // Lengths up to 16 KiB, most counts and small numbers: one two-byte
            // store, cheaper than spreading a whole word.
            self.put_varint_short(v);
        } else {
            self.put_varint_long(v);
        }
    }

    /// Writes a varint of any length with one eight-byte store (or byte by
    /// byte near the start of the buffer or for 9 and 10 bytes); for runs
    /// whose values are known to be mostly long.
    #[inline(always)]
    pub(crate) fn put_varint_long(&mut self, v: u64) {
        let n = varint::len(v);
        match self.free.last_chunk_mut::<8>() {
            // One eight-byte store that ends where the varint ends: the bytes
            // before the varint stay free space, so overwriting them is harmless.
            Some(room) if v >> 56 == 0 => {
                let word = varint::encode_word(v) << (64 - 8 * n);
                fill(room, &word.to_le_bytes());
                self.release(n);
            }
            // Nine or ten bytes (negative int32 and int64 values): the low 56
            // bits spread over eight bytes, all continued, then the rest.
            _ if n >= 9 => {
                let low = (varint::spread_groups(v) | 0x8080_8080_8080_8080).to_le_bytes();
                #[allow(clippy::cast_possible_truncation)] // seven bits
                let ninth = (v >> 56) as u8 & 0x7f;
                if n == 10 {
                    let dst = self.claim(10);
                    fill(&mut dst[..8], &low);
                    fill(&mut dst[8..], &[ninth | 0x80, 1]);
                } else {
                    let dst = self.claim(9);
                    fill(&mut dst[..8], &low);
                    dst[8].write(ninth);
                }
            }
            // Fewer than eight bytes free (the start of the buffer).
            _ => {
                let mut bytes = [0u8; 10];
                varint::encode_exact(v, &mut bytes[..n]);
                fill(self.claim(n), &bytes[..n]);
            }
        }
    }

    /// Writes a varint below 2^14 (one or two bytes) without branching on its
    /// length: one two-byte store ending where the varint ends.
    #[inline(always)]
    pub(crate) fn put_varint_short(&mut self, v: u64) {
        let (pair, n) = short_pair(v);
        match self.free.last_chunk_mut::<2>() {
            Some(room) => {
                fill(room, &pair);
                self.release(n);
            }
            None => self.put_varint_long(v),
        }
    }

    /// Writes `values` as varints below 2^14 (one or two bytes each, `wire`
    /// gives each value's varint) so that they read in order, with the end of
    /// the free space kept in a register. Nothing branches on a value's
    /// length: on real traffic the mix of lengths is not predictable, and a
    /// branch per value cost twice the time on the benchmark rows that cycle
    /// through 64 payloads (it wins by 10-30% only where one payload repeats
    /// and the predictor has learnt it). Eight at a time with SSSE3, then
    /// four to a word; the last few values, and those near the start of the
    /// buffer, take one two-byte store each; a one-byte
    /// varint's store also fills the free byte before it, which the varint
    /// written next (the one before it) covers.
    #[inline(always)]
    pub(crate) fn put_short_varints<T: Copy>(&mut self, values: &[T], wire: impl Fn(T) -> u64) {
        self.put_short_varints_by(values, wire, true);
    }

    /// [`Writer::put_short_varints`], eight values at a time (one byte
    /// shuffle, see [`simd::put_short_varints_by_eight`]) if `by_eight` and
    /// the CPU can.
    #[inline(always)]
    fn put_short_varints_by<T: Copy>(&mut self, values: &[T], wire: impl Fn(T) -> u64, by_eight: bool) {
        let free = core::mem::take(&mut self.free);
        let (mut left, mut end) = (values.len(), free.len());
        if by_eight {
            (left, end) = simd::put_short_varints_by_eight(free, end, values, &wire);
        }
        // Four at a time without a branch per value: each one's one or two
        // bytes are shifted into one word, stored as eight bytes ending where
        // the four end (the bytes before them stay free).
        while let (Some(four), Some(start)) = (values[..left].last_chunk::<4>(), end.checked_sub(8)) {
            let mut word = 0;
            let mut bits = 0;
            for &v in four {
                let (pair, two) = short_pair_bits(wire(v));
                word |= pair << bits;
                bits += 8 + 8 * two;
            }
            fill(&mut free[start..end], &(word << (64 - bits)).to_le_bytes());
            end -= (bits / 8) as usize;
            left -= 4;
        }
        while let (Some(&v), Some(start)) = (values[..left].last(), end.checked_sub(2)) {
            let (pair, n) = short_pair(wire(v));
            fill(&mut free[start..end], &pair);
            end -= n;
            left -= 1;
        }
        self.free = &mut free[..end];
        // Fewer than two bytes free (the start of the buffer): one at a time.
        for &v in values[..left].iter().rev() {
            self.put_varint_short(wire(v));
        }
    }

    /// Marks the last `n` free bytes as written, after a store that filled
    /// them (and possibly free bytes before them, which stay free). Callers
    /// store into at least `n` free bytes first; the saturating subtraction
    /// only lets the compiler see that no panic can follow, so the writer
    /// stays in registers instead of being stored at every value (a panic
    /// could unwind to code that sees it).
    #[inline(always)]
    fn release(&mut self, n: usize) {
        debug_assert!(n <= self.free.len());
        let free = core::mem::take(&mut self.free);
        let keep = free.len().saturating_sub(n);
        self.free = &mut free[..keep];
    }

    /// Writes `key` (a field's tag bytes) followed by the varint `v`, as the
    /// stream reads them. A key of up to three bytes with a one-byte varint
    /// (most fields), or of up to two with a two-byte varint (lengths up to
    /// 16 KiB), is one four-byte store and one bounds check instead of two of
    /// each; `key` is a constant in generated code, so only `v` is tested.
    /// (Forced inline only when optimised: see `copy_short`.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn put_key_varint(&mut self, key: &[u8], v: u64) {
        let done = if key.len() <= 3 && v < 0x80 {
            self.put_key_word(key, v, 1)
        } else if key.len() <= 2 && v < 0x4000 {
            // Two bytes: `v` is at least 0x80 here (a shorter key with a
            // one-byte varint took the branch above).
            self.put_key_word(key, short_pair_bits(v).0, 2)
        } else {
            false
        };
        if !done {
            self.put_varint(v);
            self.put_slice(key);
        }
    }

    /// [`Writer::put_key_varint`] for a key and varint of at most four bytes
    /// together (`varint` holds the varint's `len` bytes in stream order), if
    /// four bytes are free; returns whether it wrote them.
    #[inline(always)]
    fn put_key_word(&mut self, key: &[u8], varint: u64, len: usize) -> bool {
        let Some(room) = self.free.last_chunk_mut::<4>() else {
            return false;
        };
        let key_word = key.iter().rev().fold(0, |word, &b| word << 8 | u64::from(b));
        let n = key.len() + len;
        // The bytes in stream order, shifted to end where the store ends; the
        // bytes before them stay free space.
        let word = (key_word | varint << (8 * key.len())) << (8 * (4 - n));
        #[allow(clippy::cast_possible_truncation)] // at most four bytes by construction
        fill(room, &(word as u32).to_le_bytes());
        self.release(n);
        true
    }

    /// Writes `key` followed by `bytes` (a fixed-width value): one bounds check.
    #[inline(always)]
    pub(crate) fn put_key_slice(&mut self, key: &[u8], bytes: &[u8]) {
        let (k, b) = self.claim(key.len() + bytes.len()).split_at_mut(key.len());
        fill(k, key);
        fill(b, bytes);
    }

    /// Writes four little-endian bytes.
    #[inline(always)]
    pub fn put_fixed32(&mut self, v: u32) {
        self.put_slice(&v.to_le_bytes());
    }

    /// Writes eight little-endian bytes.
    #[inline(always)]
    pub fn put_fixed64(&mut self, v: u64) {
        self.put_slice(&v.to_le_bytes());
    }

    /// Writes the length prefix of a value whose bytes were written since the
    /// writer had `remaining_before` free bytes (see [`Writer::remaining`]).
    #[inline(always)]
    pub(crate) fn put_len_since(&mut self, remaining_before: usize) {
        let len = remaining_before - self.free.len();
        self.put_varint(len as u64);
    }
}

/// A varint below 2^14 as the two bytes that end where it ends, and its
/// length. Two bytes: the low seven bits with the continuation bit, then the
/// rest. One byte: the value in the second byte; the first is filler, left in
/// free space.
#[inline(always)]
fn short_pair(v: u64) -> ([u8; 2], usize) {
    debug_assert!(v < 0x4000);
    let two = v >= 0x80;
    let pair = if two { (v & 0x7f) | 0x80 | (v >> 7) << 8 } else { v << 8 };
    #[allow(clippy::cast_possible_truncation)] // below 2^16 by construction
    ((pair as u16).to_le_bytes(), 1 + usize::from(two))
}

/// The one- or two-byte varint of `v` (below 2^14) in stream order in the low
/// bits, and whether it takes two bytes (0 or 1), without a branch: for runs,
/// whose lengths vary unpredictably. [`short_pair`] keeps its branch for
/// single values (lengths, tags, a field's value), whose length a field
/// mostly repeats from one message to the next.
#[inline(always)]
const fn short_pair_bits(v: u64) -> (u64, u32) {
    debug_assert!(v < 0x4000);
    // 1 from 0x80 on: (v >> 7) is at most 127 below 2^14.
    let two = ((v >> 7) + 127) >> 7;
    // Two bytes: the low seven bits with the continuation bit, then the rest
    // one byte up, that is v + (v & !0x7f) + 0x80.
    #[allow(clippy::cast_possible_truncation)] // 0 or 1
    (v + (v & !0x7f) + (two << 7), two as u32)
}

/// Initialises `dst` with `src` (same length); compiles to a plain copy.
#[inline(always)]
pub(crate) fn fill(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    dst.write_copy_of_slice(src);
}

/// [`fill`] for at most 16 bytes without a call to `memcpy` (whose entry and
/// size dispatch cost more than the copy for names, ids and one-word values):
/// two possibly overlapping loads and stores of the widest size that fits.
// Forced inline only in optimised builds: inlined at every field of a message,
// its locals would grow a debug build's encode frames (about 5 KiB a level for
// a message of a dozen fields), and deep messages would overflow the stack.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn copy_short(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    // The words go through integers: copied slice to slice, the compiler
    // merged the two arms' first copies (8 and 4 bytes) into one `memcpy`
    // call of either length.
    let n = src.len();
    match n {
        8..=16 => {
            if let (Some(head), Some(tail)) = (src.first_chunk::<8>(), src.last_chunk::<8>()) {
                let (head, tail) = (u64::from_le_bytes(*head), u64::from_le_bytes(*tail));
                fill(&mut dst[n - 8..n], &tail.to_le_bytes());
                fill(&mut dst[..8], &head.to_le_bytes());
            }
        }
        4..=7 => {
            if let (Some(head), Some(tail)) = (src.first_chunk::<4>(), src.last_chunk::<4>()) {
                let (head, tail) = (u32::from_le_bytes(*head), u32::from_le_bytes(*tail));
                fill(&mut dst[n - 4..n], &tail.to_le_bytes());
                fill(&mut dst[..4], &head.to_le_bytes());
            }
        }
        1..=3 => {
            dst[n - 1].write(src[n - 1]);
            dst[n / 2].write(src[n / 2]);
            dst[0].write(src[0]);
        }
        _ => {}
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn buffer_too_short(needed: usize, free: usize) -> ! {
    panic!(
        "fastrs: encode buffer too short: {needed} more bytes needed, {free} free \
         (the buffer must hold at least `size()` bytes)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `n` bytes with `fast` and with `plain` into buffers with
    /// `spare` free bytes before them and a written byte after: both must
    /// leave the same bytes, the spare ones free and the byte after intact.
    fn same_bytes(
        n: usize,
        spare: usize,
        fast: impl FnOnce(&mut Writer<'_>),
        plain: impl FnOnce(&mut Writer<'_>),
    ) -> bool {
        let mut a = vec![0xeeu8; spare + n + 1];
        let mut b = a.clone();
        let (mut wa, mut wb) = (Writer::new(&mut a), Writer::new(&mut b));
        wa.put_u8(0x42);
        wb.put_u8(0x42);
        fast(&mut wa);
        plain(&mut wb);
        (wa.remaining(), wb.remaining()) == (spare, spare) && a[spare..] == b[spare..]
    }

    #[test]
    fn writes_back_to_front() {
        let mut buf = [0u8; 7];
        let mut w = Writer::new(&mut buf);
        w.put_varint(300);
        w.put_u8(0x08);
        w.put_fixed32(0x0403_0201);
        assert_eq!(w.remaining(), 0);
        assert_eq!(buf, [1, 2, 3, 4, 0x08, 0xac, 0x02]);
    }

    #[test]
    fn length_prefix_counts_what_was_written() {
        let mut buf = [0u8; 4];
        let mut w = Writer::new(&mut buf);
        let before = w.remaining();
        w.put_slice(b"abc");
        w.put_len_since(before);
        assert_eq!(&buf, b"\x03abc");
    }

    #[test]
    fn varints_of_every_length_near_the_start_and_end() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            1 << 20,
            (1 << 49) + 5,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX,
        ] {
            let n = varint::len(v);
            let mut expected = vec![0u8; n];
            varint::encode_exact(v, &mut expected);
            for spare in [0usize, 1, 7, 8, 12] {
                let mut buf = vec![0xeeu8; spare + n + 1];
                let mut w = Writer::new(&mut buf);
                w.put_u8(0x42);
                w.put_varint(v);
                assert_eq!(w.remaining(), spare, "{v}");
                assert_eq!(&buf[spare..spare + n], expected.as_slice(), "{v} with {spare} spare");
                assert_eq!(buf[spare + n], 0x42, "the byte after the varint is intact");
            }
        }
    }

    #[test]
    fn short_varints_match_the_general_writer() {
        for v in [0u64, 1, 0x7f, 0x80, 0x81, 300, 0x3fff] {
            for spare in [0usize, 1, 3] {
                let mut a = vec![0u8; spare + 3];
                let mut b = a.clone();
                let (mut wa, mut wb) = (Writer::new(&mut a), Writer::new(&mut b));
                wa.put_u8(9);
                wb.put_u8(9);
                wa.put_varint_short(v);
                wb.put_varint(v);
                let free = wa.remaining();
                assert_eq!(free, wb.remaining(), "{v}");
                assert_eq!(a[free..], b[free..], "{v} with {spare} spare");
            }
        }
    }

    #[test]
    fn short_varint_runs_match_one_at_a_time() {
        // Sixteen groups of four: group g's value j takes two bytes if bit j
        // of g is set (every combination the writer's groups of four meet,
        // at every alignment as `len` grows), each length at its extremes.
        let values: Vec<u64> = (0..64usize)
            .map(|i| match ((i / 4) >> (i % 4)) & 1 {
                0 => [0, 1, 0x7f][i % 3],
                _ => [0x80, 300, 0x3fff][i % 3],
            })
            .collect();
        runs_match_one_at_a_time(&values, false);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn short_varint_runs_by_eight_match_one_at_a_time() {
        if !simd::short_varints_by_eight() {
            return;
        }
        // 256 groups of eight: group g's value j takes two bytes if bit j of
        // g is set (every row of the shuffle table).
        let groups = if cfg!(miri) { 24 } else { 256 };
        let values: Vec<u64> = (0..8 * groups)
            .map(|i| match ((i / 8) >> (i % 8)) & 1 {
                0 => [0, 1, 0x7f][i % 3],
                _ => [0x80, 300, 0x3fff][i % 3],
            })
            .collect();
        runs_match_one_at_a_time(&values, true);
    }

    /// Each prefix of `values` written as a run (eight at a time if
    /// `by_eight`, else four) leaves the bytes one varint at a time does.
    fn runs_match_one_at_a_time(values: &[u64], by_eight: bool) {
        for len in 0..=values.len() {
            let values = &values[..len];
            let bytes: usize = values.iter().map(|&v| varint::len(v)).sum();
            // Exactly sized (the last stores fall back), and with room before.
            for spare in [0usize, 1, 2, 5, 9, 17] {
                let run = |w: &mut Writer<'_>| w.put_short_varints_by(values, |v| v, by_eight);
                let single = |w: &mut Writer<'_>| values.iter().rev().for_each(|&v| w.put_varint(v));
                assert!(same_bytes(bytes, spare, run, single), "{len} values, {spare} spare");
            }
        }
    }

    #[test]
    fn keyed_varints_match_key_then_varint() {
        let keys: [&[u8]; 4] = [b"\x08", b"\x80\x01", b"\x80\x80\x01", b"\x80\x80\x80\x01"];
        for key in keys {
            for v in [0u64, 1, 0x7f, 0x80, 0xff, 300, 0x2345, 0x3fff, 0x4000, u64::MAX] {
                let n = key.len() + varint::len(v);
                for spare in [0usize, 1, 2, 3, 8] {
                    let fused = |w: &mut Writer<'_>| w.put_key_varint(key, v);
                    let apart = |w: &mut Writer<'_>| {
                        w.put_varint(v);
                        w.put_slice(key);
                    };
                    assert!(same_bytes(n, spare, fused, apart), "{key:?} {v} with {spare} spare");
                }
            }
        }
    }

    #[test]
    fn keyed_slices_and_short_copies_keep_every_byte() {
        let src: Vec<u8> = (1..=40).collect();
        for len in 0..=src.len() {
            for spare in [0usize, 1, 9] {
                let mut buf = vec![0u8; spare + 2 + len + 1];
                let mut w = Writer::new(&mut buf);
                w.put_u8(0xff);
                w.put_key_slice(&[0xaa, 0xbb], &src[..len]);
                assert_eq!(w.remaining(), spare);
                let mut plain = vec![0u8; len];
                Writer::new(&mut plain).put_slice(&src[..len]);
                assert_eq!(plain, src[..len], "put_slice of {len} bytes");
                assert_eq!(buf[spare..spare + 2], [0xaa, 0xbb]);
                assert_eq!(buf[spare + 2..spare + 2 + len], src[..len], "{len} bytes");
                assert_eq!(buf[spare + 2 + len], 0xff);
            }
        }
    }

    #[test]
    #[should_panic(expected = "encode buffer too short")]
    fn short_buffer_panics_clearly() {
        let mut buf = [0u8; 2];
        Writer::new(&mut buf).put_fixed32(7);
    }
}
