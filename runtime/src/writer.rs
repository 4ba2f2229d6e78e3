//! The encode cursor: writes backwards from the end of an exactly sized buffer.
//!
//! Writing back to front means an embedded message's length is known the moment
//! its last byte is written, so encoding needs one size pass at the top and never
//! asks a nested message for its size again: cost stays linear at any depth. Each
//! method writes its bytes in their normal order at the end of the free space, so
//! callers emit fields, elements and tags in reverse.

use core::mem::MaybeUninit;

use crate::varint;

/// Backward writer over a caller's buffer. Allocates nothing.
///
/// The buffer may be uninitialised memory (the spare capacity of a `Vec`, so
/// encoding need not zero it first). Invariant: every byte from `pos` to the
/// end has been written; only methods of this crate claim space, and each one
/// initialises all of what it claims.
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
    pub fn new(buf: &'a mut [u8]) -> Self {
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and the
        // writer only ever stores initialised bytes, so `buf` stays initialised.
        #[allow(unsafe_code)]
        let buf = unsafe { &mut *(core::ptr::from_mut::<[u8]>(buf) as *mut [MaybeUninit<u8>]) };
        Self::new_uninit(buf)
    }

    /// A writer over possibly uninitialised memory; once
    /// [`Writer::remaining`] is 0, all of `buf` has been initialised.
    #[must_use]
    pub fn new_uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
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

    /// Writes one byte.
    #[inline(always)]
    pub fn put_u8(&mut self, b: u8) {
        self.claim(1)[0].write(b);
    }

    /// Writes `bytes` unchanged.
    #[inline(always)]
    pub fn put_slice(&mut self, bytes: &[u8]) {
        fill(self.claim(bytes.len()), bytes);
    }

    /// Writes a varint.
    #[inline(always)]
    pub fn put_varint(&mut self, v: u64) {
        if v < 0x80 {
            #[allow(clippy::cast_possible_truncation)] // v < 0x80
            self.put_u8(v as u8);
            return;
        }
        let n = varint::len(v);
        match self.free.last_chunk_mut::<8>() {
            // One eight-byte store that ends where the varint ends: the bytes
            // before the varint stay free space, so overwriting them is harmless.
            Some(room) if v >> 56 == 0 => {
                let word = varint::encode_word(v) << (64 - 8 * n);
                fill(room, &word.to_le_bytes());
                let free = core::mem::take(&mut self.free);
                let keep = free.len() - n;
                self.free = &mut free[..keep];
            }
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
    pub fn put_varint_short(&mut self, v: u64) {
        debug_assert!(v < 0x4000);
        let two = v >= 0x80;
        let n = 1 + usize::from(two);
        // Two bytes: low seven bits with the continuation bit, then the rest.
        // One byte: the value in the second (last) byte; the first is free space.
        let pair = if two { (v & 0x7f) | 0x80 | (v >> 7) << 8 } else { v << 8 };
        match self.free.last_chunk_mut::<2>() {
            Some(room) => {
                #[allow(clippy::cast_possible_truncation)] // below 2^16 by construction
                fill(room, &(pair as u16).to_le_bytes());
                let free = core::mem::take(&mut self.free);
                let keep = free.len() - n;
                self.free = &mut free[..keep];
            }
            None => self.put_varint(v),
        }
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
    pub fn put_len_since(&mut self, remaining_before: usize) {
        let len = remaining_before - self.free.len();
        self.put_varint(len as u64);
    }
}

/// Initialises `dst` with `src` (same length); compiles to a plain copy.
#[inline(always)]
pub(crate) fn fill(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    dst.write_copy_of_slice(src);
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
    #[should_panic(expected = "encode buffer too short")]
    fn short_buffer_panics_clearly() {
        let mut buf = [0u8; 2];
        Writer::new(&mut buf).put_fixed32(7);
    }
}
