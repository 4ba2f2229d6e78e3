//! The length-delimited value codecs: `string` (checked or not) and `bytes`
//! (owned or shared).

use alloc::string::String;
use alloc::vec::Vec;

use super::message::len_delimited_size;
use super::Codec;
use crate::message::lax_string::LaxString;
use crate::wire;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::utf8::{check_utf8, is_ascii, SIMD_UTF8_MIN};
use crate::wire::writer::{self, fill, Writer};

/// `string`: validated as UTF-8 on read.
#[derive(Debug)]
pub enum Str {}

impl Str {
    /// Replaces `v` with the string at the front of `r`, reusing its
    /// allocation. Forced inline into `merge` and `read`, so a string costs
    /// one call, not two.
    #[inline(always)]
    fn read_into(v: &mut String, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let bytes = r.read_bytes()?;
        Self::replace(v, bytes, r.offset())
    }

    /// Makes `v` hold `bytes` if they are UTF-8; else fails with an error at
    /// the first bad byte (`end` is the offset just past `bytes`), leaving
    /// `v` unchanged or empty.
    #[inline(always)]
    fn replace(v: &mut String, bytes: &[u8], end: usize) -> Result<(), DecodeError> {
        // SAFETY: `v` is left holding the bytes of a `str` (checked below),
        // or emptied.
        #[allow(unsafe_code)]
        let v = unsafe { v.as_mut_vec() };
        if bytes.len() >= SIMD_UTF8_MIN {
            return replace_text(v, bytes, end);
        }
        // ASCII is valid UTF-8. `from_utf8` costs ~10 instructions a byte on
        // short strings (callgrind, the Go message: 385 of its 1175
        // instructions).
        if !is_ascii(bytes) {
            check_utf8(bytes, end)?;
        }
        replace_bytes(v, bytes);
        Ok(())
    }
}

/// Makes `v` hold exactly `text` (of [`SIMD_UTF8_MIN`] bytes or more) if it
/// is UTF-8, else empties it; `end` is the offset just past `text`, for the
/// error. The copy finds out whether the bytes are ASCII as it goes (one pass
/// instead of a check and then a copy); others are validated by `simdutf8`
/// and then copied. Out of line: it would tip `Str::merge` over the size at
/// which decoders inline it.
#[inline(never)]
fn replace_text(v: &mut Vec<u8>, text: &[u8], end: usize) -> Result<(), DecodeError> {
    let n = text.len();
    if v.capacity() == 0 {
        *v = Vec::with_capacity(n);
    } else {
        v.clear();
        v.reserve(n);
    }
    let room = &mut v.spare_capacity_mut()[..n];
    if !crate::wire::simd::copy_ascii(room, text) {
        check_utf8(text, end)?;
        fill(room, text);
    }
    // SAFETY: `copy_ascii` (for ASCII) or `fill` initialised the first `n`
    // spare bytes.
    #[allow(unsafe_code)]
    unsafe {
        v.set_len(n);
    }
    Ok(())
}

impl Codec for Str {
    type Value = String;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &String) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &String) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &String, w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &String, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut String, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    /// Allocates exactly the string's length.
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<String, DecodeError> {
        let mut v = String::new();
        Self::read_into(&mut v, r)?;
        Ok(v)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut String, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `string` without UTF-8 validation (proto2; editions'
/// `utf8_validation = NONE`): any bytes read, kept exactly.
#[derive(Debug)]
pub enum LaxStr {}

impl LaxStr {
    /// Replaces `v` with the string at the front of `r`: through `Str`'s
    /// validated copy (reusing the allocation), and kept as bytes if that
    /// finds them not UTF-8.
    #[inline(always)]
    fn read_into(v: &mut LaxString, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let bytes = r.read_bytes()?;
        if Str::replace(v.text_for_decode(), bytes, r.offset()).is_err() {
            v.set_invalid(bytes);
        }
        Ok(())
    }
}

impl Codec for LaxStr {
    type Value = LaxString;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &LaxString) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &LaxString) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &LaxString, w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &LaxString, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut LaxString, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut LaxString, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `bytes`.
#[derive(Debug)]
pub enum Bytes {}

impl Codec for Bytes {
    type Value = Vec<u8>;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &Vec<u8>) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &Vec<u8>) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &Vec<u8>, w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &Vec<u8>, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut Vec<u8>, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    /// Allocates exactly the value's length.
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<Vec<u8>, DecodeError> {
        r.read_bytes().map(<[u8]>::to_vec)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut Vec<u8>, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `bytes` held as `bytes::Bytes` (the generator's `bytes` option): decoded
/// from a shared buffer (`Message::decode_shared`), values are slices of it,
/// not copies.
#[cfg(feature = "bytes")]
#[derive(Debug)]
pub enum SharedBytes {}

#[cfg(feature = "bytes")]
impl Codec for SharedBytes {
    type Value = bytes::Bytes;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &bytes::Bytes) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &bytes::Bytes) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &bytes::Bytes, w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &bytes::Bytes, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_key_varint(key, v.len() as u64);
    }
    #[inline]
    fn merge(v: &mut bytes::Bytes, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        *v = r.read_shared()?;
        Ok(())
    }
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<bytes::Bytes, DecodeError> {
        r.read_shared()
    }
}

impl Bytes {
    /// Replaces `v` with the bytes at the front of `r`, reusing its allocation.
    #[inline(always)]
    fn read_into(v: &mut Vec<u8>, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        replace_bytes(v, r.read_bytes()?);
        Ok(())
    }
}

/// An empty vector with room for exactly `n` bytes (`n` > 0), from the
/// allocator itself: `Vec::with_capacity`'s generic checks, when the
/// compiler leaves them out of line, cost about 40 instructions a string
/// (the Go message's fresh decode, callgrind).
#[inline(always)]
#[allow(unsafe_code)]
fn exact(n: usize) -> Vec<u8> {
    // `n` is the length of bytes in memory, so at most `isize::MAX`.
    let Ok(layout) = core::alloc::Layout::array::<u8>(n) else {
        unreachable!("a slice's length fits a layout")
    };
    // SAFETY: `layout` is not zero-sized (`n` > 0).
    let at = unsafe { alloc::alloc::alloc(layout) };
    if at.is_null() {
        alloc::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `at` was allocated by the global allocator (the one `Vec`
    // uses) with the layout of `n` bytes, so a capacity of `n`; none of
    // them is initialised, and the length is 0.
    unsafe { Vec::from_raw_parts(at, 0, n) }
}

/// Makes `v` hold exactly `bytes`, keeping its allocation when it has one
/// (and room). A fresh field gets one exact allocation, without `reserve`'s
/// growth path (about 60 instructions a string on the Go message).
#[inline(always)]
fn replace_bytes(v: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if n > 16 {
        if v.capacity() == 0 {
            *v = exact(n);
            v.extend_from_slice(bytes);
        } else {
            v.clear();
            v.extend_from_slice(bytes);
        }
        return;
    }
    // Names, ids and keys: copied inline rather than by a call to `memcpy`,
    // whose entry and size dispatch cost more than the copy (about 30
    // instructions a string on the Go message).
    if v.capacity() < n {
        *v = exact(n);
    } else {
        v.clear();
    }
    if let Some(room) = v.spare_capacity_mut().get_mut(..n) {
        writer::copy_short(room, bytes);
        // SAFETY: the first `n` bytes after the (empty) contents were
        // initialised just above.
        #[allow(unsafe_code)]
        unsafe {
            v.set_len(n);
        }
    }
}
