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

/// Copies `src` into `dst` (of the same length, at least 32 bytes) if it is
/// all ASCII, and says whether it is: one pass over a long string's bytes,
/// where a check and then a copy would read them twice. Blocks of four
/// vectors (32 bytes each with AVX2, 16 with SSE2, part of x86-64) are copied
/// and ORed for their high bits; at the first block with one it stops, `dst`
/// partly written, so text that is not ASCII costs little more than its
/// validation and a plain copy. Elsewhere `is_ascii` and then a copy.
#[inline]
pub(crate) fn copy_ascii(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> bool {
    debug_assert!(dst.len() == src.len() && src.len() >= 32);
    #[cfg(all(target_arch = "x86_64", feature = "std", not(miri)))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        #[allow(unsafe_code)]
        return unsafe { x86::copy_ascii_avx2(dst, src) };
    }
    // SAFETY: SSE2 is enabled at compile time (the `cfg`). Not under Miri,
    // which cannot run the kernel's `asm!`.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
    #[allow(unsafe_code)]
    unsafe {
        x86::copy_ascii_sse2(dst, src)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(miri))))]
    {
        let ascii = src.is_ascii();
        if ascii {
            dst.write_copy_of_slice(src);
        }
        ascii
    }
}

/// Whether [`put_short_varints_by_eight`] writes anything on this CPU: it
/// has SSSE3. The answer is cached by `std`: one load and a test.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn short_varints_by_eight() -> bool {
    #[cfg(feature = "std")]
    {
        std::is_x86_feature_detected!("ssse3")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "ssse3")
    }
}

/// Writes the last values of `values` backwards, eight at a time, as varints
/// below 2^14 (`wire` gives each value's varint) ending at `free[end]`, while
/// eight values and 16 bytes of room are left; returns the values left (a
/// prefix of `values`) and the new end. Each eight take one 16-byte store: the
/// varints packed against its end by one byte shuffle, which a table indexed
/// by the eight lengths gives. The bytes stored before them stay free space.
/// Without SSSE3 (and off x86-64) it writes nothing.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn put_short_varints_by_eight<T: Copy>(
    free: &mut [MaybeUninit<u8>],
    end: usize,
    values: &[T],
    wire: impl Fn(T) -> u64,
) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if short_varints_by_eight() {
        // SAFETY: the CPU has SSSE3 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { x86::put_by_eight(free, end, values, wire) };
    }
    (values.len(), end)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    #[allow(clippy::wildcard_imports)] // intrinsics
    use core::arch::x86_64::*;
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

    /// Generates a [`super::copy_ascii`] kernel for one vector width: blocks
    /// of four vectors, a test of their high bits after each, then the whole
    /// vectors left and the last vector's worth again (overlapping; `src` is
    /// at least one vector long).
    macro_rules! copy_ascii_kernel {
        ($(#[$attr:meta])* $name:ident, $width:literal, $vector:ty, $reg:ident, $load:ident, $store:ident, $or:ident, $zero:ident, $mask:ident) => {
            $(#[$attr])*
            pub(super) fn $name(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> bool {
                let n = src.len();
                let Some(last) = n.checked_sub($width) else {
                    return false;
                };
                let dst = &mut dst[..n];
                let copy = |to: &mut [MaybeUninit<u8>; $width], from: &[u8; $width]| {
                    // SAFETY: `from` is $width readable bytes and `to` as
                    // many writable ones (neither needs alignment).
                    unsafe {
                        let mut v = $load(from.as_ptr().cast::<$vector>());
                        // Hides that `v` is the loaded bytes: the compiler
                        // would otherwise make the loop a `memcpy` call and a
                        // second pass for the high bits. No instruction.
                        core::arch::asm!("/* {0} */", inout($reg) v, options(pure, nomem, nostack, preserves_flags));
                        $store(to.as_mut_ptr().cast::<$vector>(), v);
                        v
                    }
                };
                let copy_all = |to: &mut [MaybeUninit<u8>], from: &[u8]| {
                    let (to, _) = to.as_chunks_mut::<$width>();
                    let (from, _) = from.as_chunks::<$width>();
                    to.iter_mut().zip(from).fold($zero(), |high, (t, f)| $or(high, copy(t, f)))
                };
                let (blocks, _) = src.as_chunks::<{ 4 * $width }>();
                let (room, _) = dst.as_chunks_mut::<{ 4 * $width }>();
                for (to, from) in room.iter_mut().zip(blocks) {
                    if $mask(copy_all(to, from)) != 0 {
                        return false;
                    }
                }
                let done = blocks.len() * 4 * $width;
                let mut high = copy_all(&mut dst[done..], &src[done..]);
                let (to, from) = (&mut dst[last..], &src[last..]);
                if let (Some(to), Some(from)) = (to.first_chunk_mut(), from.first_chunk()) {
                    high = $or(high, copy(to, from));
                }
                $mask(high) == 0
            }
        };
    }

    copy_ascii_kernel!(
        /// [`super::copy_ascii`] with AVX2; the caller checks that the CPU has it.
        #[cfg(all(feature = "std", not(miri)))]
        #[target_feature(enable = "avx2")]
        copy_ascii_avx2, 32, __m256i, ymm_reg, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_or_si256,
        _mm256_setzero_si256, _mm256_movemask_epi8
    );

    copy_ascii_kernel!(
        /// [`super::copy_ascii`] with SSE2 (enabled at compile time).
        #[cfg(all(target_feature = "sse2", not(miri)))]
        #[target_feature(enable = "sse2")]
        #[inline]
        copy_ascii_sse2, 16, __m128i, xmm_reg, _mm_loadu_si128, _mm_storeu_si128, _mm_or_si128, _mm_setzero_si128,
        _mm_movemask_epi8
    );

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

    type CopyAscii = fn(&mut [MaybeUninit<u8>], &[u8]) -> bool;

    /// Each kernel of `copy_ascii` this CPU runs, and the dispatcher.
    fn copy_ascii_kernels() -> alloc::vec::Vec<CopyAscii> {
        // Under Miri only the dispatcher runs, and nothing is pushed.
        #[cfg_attr(miri, allow(unused_mut))]
        let mut kernels: alloc::vec::Vec<CopyAscii> = alloc::vec![copy_ascii];
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
        #[allow(unsafe_code)]
        // SAFETY: SSE2 is enabled at compile time.
        kernels.push(|dst, src| unsafe { x86::copy_ascii_sse2(dst, src) });
        #[cfg(all(target_arch = "x86_64", feature = "std", not(miri)))]
        if std::is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            // SAFETY: the CPU has AVX2.
            kernels.push(|dst, src| unsafe { x86::copy_ascii_avx2(dst, src) });
        }
        kernels
    }

    #[test]
    fn copy_ascii_copies_every_byte_and_finds_any_high_bit() {
        let lengths = if cfg!(miri) { 32..=70 } else { 32..=300 };
        for n in lengths {
            let src: alloc::vec::Vec<u8> = (0..n).map(|i| u8::try_from(i * 7 % 128).unwrap()).collect();
            // No high bit, then one at every position (each vector and the
            // overlapping last one).
            for high in core::iter::once(None).chain((0..n).map(Some)) {
                let mut src = src.clone();
                if let Some(at) = high {
                    src[at] |= 0x80;
                }
                for kernel in copy_ascii_kernels() {
                    let mut dst = alloc::vec![MaybeUninit::new(0xeeu8); n + 1];
                    let ascii = kernel(&mut dst[..n], &src);
                    assert_eq!(ascii, high.is_none(), "{n} bytes, high bit at {high:?}");
                    // SAFETY: every byte of `dst` was initialised above.
                    #[allow(unsafe_code)]
                    let copied: alloc::vec::Vec<u8> = dst.iter().map(|b| unsafe { b.assume_init() }).collect();
                    if ascii {
                        assert_eq!(copied[..n], src[..], "{n} bytes copied");
                    }
                    assert_eq!(copied[n], 0xee, "nothing past the end");
                }
            }
        }
    }

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
