//! UTF-8 checks: short ASCII inline, longer text with SIMD (`simdutf8`).

use crate::wire::error::{DecodeError, DecodeErrorKind};

/// The length from which strings are copied and checked for ASCII in one
/// pass, and validated by SIMD (`simdutf8`) if they are not ASCII.
pub(crate) const SIMD_UTF8_MIN: usize = 64;

/// Checks that `bytes` are UTF-8; `end` is the offset just past them, for
/// the error. On text that is not all ASCII (names, messages, reviews in most
/// of the world's scripts) `core::str::from_utf8` takes about 1.5 ns a byte
/// and `simdutf8` a tenth of that, from [`SIMD_UTF8_MIN`] bytes on; shorter
/// strings stay with `core`, which is as fast there. Out of line: rare.
#[inline(never)]
pub(crate) fn check_utf8(bytes: &[u8], end: usize) -> Result<(), DecodeError> {
    as_utf8(bytes, end).map(drop)
}

/// `bytes` as text, if they are UTF-8 (see [`check_utf8`]): for views,
/// which borrow strings rather than copy them. Short ASCII inline, the rest
/// out of line.
#[inline(always)]
pub(crate) fn as_utf8(bytes: &[u8], end: usize) -> Result<&str, DecodeError> {
    if bytes.len() < SIMD_UTF8_MIN && is_ascii(bytes) {
        // SAFETY: ASCII is UTF-8. (`from_utf8` costs ~10 instructions a
        // byte on short strings, the ASCII check a fraction of one.)
        #[allow(unsafe_code)]
        return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    as_utf8_slow(bytes, end)
}

/// [`as_utf8`] for longer text (SIMD) and text that is not ASCII.
#[inline(never)]
fn as_utf8_slow(bytes: &[u8], end: usize) -> Result<&str, DecodeError> {
    if bytes.len() >= SIMD_UTF8_MIN {
        if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            return Ok(text);
        }
    }
    // Short text, or invalid: `core` says where the error is.
    core::str::from_utf8(bytes)
        .map_err(|e| DecodeError::new(DecodeErrorKind::InvalidUtf8, end - bytes.len() + e.valid_up_to()))
}

/// `bytes.is_ascii()`, with strings of up to 16 bytes (names, keys, ids)
/// checked by two possibly overlapping word loads instead of the standard
/// library's byte loop after the last whole word.
#[inline(always)]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The slices below always hold the bytes loaded; were one short, the
    // answer would be "not ASCII" and the full UTF-8 check would run.
    let word = |b: &[u8]| b.first_chunk::<8>().map_or(HIGH, |w| u64::from_le_bytes(*w));
    let half = |b: &[u8]| b.first_chunk::<4>().map_or(HIGH, |w| u64::from(u32::from_le_bytes(*w)));
    let n = bytes.len();
    match n {
        8..=16 => (word(bytes) | word(&bytes[n - 8..])) & HIGH == 0,
        4..=7 => (half(bytes) | half(&bytes[n - 4..])) & HIGH == 0,
        1..=3 => (bytes[0] | bytes[n / 2] | bytes[n - 1]) < 0x80,
        0 => true,
        _ => bytes.is_ascii(),
    }
}
