//! Kernels that need instructions beyond the x86-64 baseline (SSE2), chosen
//! at run time where `std` can ask the CPU, and at compile time otherwise
//! (`-C target-feature=+ssse3` or a `target-cpu` that has it). Everything here
//! has a portable equivalent that callers fall back to.

use core::mem::MaybeUninit;

/// The high bits of 64 bytes, byte `i`'s at bit `i`: a varint's continuation
/// bits. SSE2 (part of x86-64) gathers sixteen at a time.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn high_bits(bytes: &[u8; 64]) -> u64 {
    x86::high_bits(bytes)
}

/// The high bits of 64 bytes, byte `i`'s at bit `i`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(crate) fn high_bits(bytes: &[u8; 64]) -> u64 {
    high_bits_by_words(bytes)
}

/// [`high_bits`] without SIMD: a multiply gathers each eight.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2", not(test)), allow(dead_code))]
#[inline(always)]
fn high_bits_by_words(bytes: &[u8; 64]) -> u64 {
    let (words, _) = bytes.as_chunks::<8>();
    words.iter().enumerate().fold(0, |bits, (i, word)| {
        let high = (u64::from_le_bytes(*word) & 0x8080_8080_8080_8080) >> 7;
        // Bit 8j of `high` lands at bit 56 + j, for each byte j; no carries,
        // as the products are at distinct bits.
        bits | high.wrapping_mul(0x0102_0408_1020_4080) >> 56 << (8 * i)
    })
}

/// Whether [`put_short_varints_by_eight`] can run on this CPU. The answer is
/// cached by `std`: one load and a test.
#[inline(always)]
pub(crate) fn short_varints_by_eight() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        std::is_x86_feature_detected!("ssse3")
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        cfg!(all(target_arch = "x86_64", target_feature = "ssse3"))
    }
}

/// Writes the last values of `values` backwards, eight at a time, as varints
/// below 2^14 (`wire` gives each value's varint) ending at `free[end]`, while
/// eight values and 16 bytes of room are left; returns the values left (a
/// prefix of `values`) and the new end. Each eight take one 16-byte store: the
/// varints packed against its end by one byte shuffle, which a table indexed
/// by the eight lengths gives. The bytes stored before them stay free space.
///
/// Must only be called when [`short_varints_by_eight`] is true.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn put_short_varints_by_eight<T: Copy>(
    free: &mut [MaybeUninit<u8>],
    end: usize,
    values: &[T],
    wire: impl Fn(T) -> u64,
) -> (usize, usize) {
    debug_assert!(short_varints_by_eight());
    // SAFETY: the caller checked that the CPU has SSSE3.
    #[allow(unsafe_code)]
    unsafe {
        x86::put_by_eight(free, end, values, wire)
    }
}

/// Off x86-64 nothing is written here (never called: the check is false).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn put_short_varints_by_eight<T: Copy>(
    _: &mut [MaybeUninit<u8>],
    end: usize,
    values: &[T],
    _: impl Fn(T) -> u64,
) -> (usize, usize) {
    (values.len(), end)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use core::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_and_si128, _mm_cmpgt_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16,
        _mm_set1_epi16, _mm_setzero_si128, _mm_shuffle_epi8, _mm_storeu_si128,
    };
    use core::mem::MaybeUninit;

    /// For each mask of which of eight varints take two bytes (bit j for the
    /// j-th), the byte shuffle that packs them (two bytes per value in, the
    /// low byte first) against the end of 16 bytes; the bytes before them are
    /// zero (index 0x80).
    static SHUFFLES: [[u8; 16]; 256] = {
        let mut table = [[0x80u8; 16]; 256];
        let mut mask: usize = 0;
        while mask < 256 {
            // Eight bytes and one more per two-byte varint, ending at byte 16.
            let mut at = 8 - mask.count_ones() as usize;
            let mut j = 0;
            while j < 8 {
                table[mask][at] = 2 * j;
                at += 1;
                if mask >> j & 1 == 1 {
                    table[mask][at] = 2 * j + 1;
                    at += 1;
                }
                j += 1;
            }
            mask += 1;
        }
        table
    };

    /// The bytes eight varints take, by the same mask: 8 plus its set bits
    /// (a table, as SSSE3 does not imply `popcnt`).
    static LENGTHS: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut mask: usize = 0;
        while mask < 256 {
            #[allow(clippy::cast_possible_truncation)] // at most 16
            {
                table[mask] = 8 + mask.count_ones() as u8;
            }
            mask += 1;
        }
        table
    };

    /// See [`super::high_bits`].
    #[cfg(target_feature = "sse2")]
    #[inline(always)]
    pub(super) fn high_bits(bytes: &[u8; 64]) -> u64 {
        let (sixteens, _) = bytes.as_chunks::<16>();
        sixteens.iter().enumerate().fold(0, |bits, (i, sixteen)| {
            // SAFETY: SSE2 is enabled at compile time (the `cfg`), and
            // `sixteen` is 16 readable bytes (`loadu` needs no alignment).
            #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // sixteen bits
            let high = unsafe { _mm_movemask_epi8(_mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>())) as u16 };
            bits | u64::from(high) << (16 * i)
        })
    }

    /// See [`super::put_short_varints_by_eight`].
    #[target_feature(enable = "ssse3")]
    pub(super) fn put_by_eight<T: Copy>(
        free: &mut [MaybeUninit<u8>],
        mut end: usize,
        values: &[T],
        wire: impl Fn(T) -> u64,
    ) -> (usize, usize) {
        let mut left = values.len();
        while let (Some(eight), Some(start)) = (values[..left].last_chunk::<8>(), end.checked_sub(16)) {
            #[allow(clippy::cast_possible_truncation)] // below 2^14 (the caller's contract)
            let words: [u16; 8] = core::array::from_fn(|j| wire(eight[j]) as u16);
            // SAFETY: `words` is 16 readable bytes (`loadu` needs no alignment).
            let v = unsafe { _mm_loadu_si128(words.as_ptr().cast::<__m128i>()) };
            let two = _mm_cmpgt_epi16(v, _mm_set1_epi16(0x7f));
            // Two bytes: the low seven bits with the continuation bit, then
            // the rest one byte up, that is v + (v & !0x7f) + 0x80; one byte
            // (v below 0x80) is v itself.
            let high = _mm_and_si128(v, _mm_set1_epi16(!0x7f));
            let pairs = _mm_add_epi16(_mm_add_epi16(v, high), _mm_and_si128(two, _mm_set1_epi16(0x80)));
            // One bit per value: the 16-bit compare results narrowed to bytes.
            #[allow(clippy::cast_sign_loss)] // eight bits
            let mask = _mm_movemask_epi8(_mm_packs_epi16(two, _mm_setzero_si128())) as usize & 0xff;
            // SAFETY: a table row is 16 readable bytes.
            let shuffle = unsafe { _mm_loadu_si128(SHUFFLES[mask].as_ptr().cast::<__m128i>()) };
            let packed = _mm_shuffle_epi8(pairs, shuffle);
            let room = &mut free[start..end];
            // SAFETY: `room` is 16 writable bytes (`storeu` needs no alignment).
            unsafe { _mm_storeu_si128(room.as_mut_ptr().cast::<__m128i>(), packed) };
            end -= usize::from(LENGTHS[mask]);
            left -= 8;
        }
        (left, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_bits_gather_each_byte_in_order() {
        // Every pattern of high bits in each byte position's eight-byte
        // group, with varied low bits under them.
        for pattern in 0..=255u64 {
            for shift in [0, 8, 24, 56] {
                let bits = pattern << shift | pattern.rotate_left(17);
                let bytes: [u8; 64] = core::array::from_fn(|i| {
                    let high = (bits >> i & 1) << 7;
                    #[allow(clippy::cast_possible_truncation)] // below 0x100
                    let byte = (high | (i as u64 * 37 + pattern) & 0x7f) as u8;
                    byte
                });
                assert_eq!(high_bits(&bytes), bits, "{bits:#018x}");
                assert_eq!(high_bits_by_words(&bytes), bits, "{bits:#018x} by words");
            }
        }
    }
}
