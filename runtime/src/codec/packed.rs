//! Packed repeated fields: sizes, backwards writes (SIMD for short
//! varints), and reads that count the run and decode it in blocks.

use alloc::vec::Vec;

use super::{len_delimited_size, Scalar};
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::varint;
use crate::wire::writer::Writer;

/// Size of a packed field's payload (without tag and length).
#[inline]
fn packed_payload_size<C: Scalar>(values: &[C::Value]) -> usize {
    match C::FIXED_WIDTH {
        0 => varint_run_len::<C>(values),
        width => width * values.len(),
    }
}

/// Whether a packed run starts with a varint of three bytes or more: then
/// its values are most likely large (ids, hashes, timestamps, negative
/// int32s), and the OR over the run that looks for one- and two-byte runs
/// is skipped (about 1.5 instructions a value, twice per encode).
#[inline(always)]
fn starts_long<C: Scalar>(values: &[C::Value]) -> bool {
    values.first().is_some_and(|&v| C::to_wire(v) >= 0x4000)
}

/// Total varint length of a run. An OR over the run (which vectorises) first
/// detects the common all-one-byte case, where the length is the count.
#[inline]
fn varint_run_len<C: Scalar>(values: &[C::Value]) -> usize {
    if starts_long::<C>(values) {
        return values.iter().map(|&v| varint::len(C::to_wire(v))).sum();
    }
    match values.iter().fold(0, |acc, &v| acc | C::to_wire(v)) {
        0..0x80 => values.len(),
        // At most two bytes each: one more for every value of 0x80 or above.
        // `((v >> 7) + 127) >> 7` is that one (shifts and adds vectorise; a
        // 64-bit compare has no SSE2 instruction).
        #[allow(clippy::cast_possible_truncation)] // at most `values.len()`
        0x80..0x4000 => values.len() + values.iter().map(|&v| ((C::to_wire(v) >> 7) + 127) >> 7).sum::<u64>() as usize,
        _ => values.iter().map(|&v| varint::len(C::to_wire(v))).sum(),
    }
}

/// Size of a packed field with its tag and length; 0 when empty (nothing is written).
#[inline]
pub fn size_packed<C: Scalar>(values: &[C::Value], key_len: usize) -> usize {
    if values.is_empty() {
        return 0;
    }
    key_len + len_delimited_size(packed_payload_size::<C>(values))
}

/// Writes a packed field; nothing when empty.
#[inline]
pub fn write_packed<C: Scalar>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    if values.is_empty() {
        return;
    }
    let end = w.remaining();
    match C::FIXED_WIDTH {
        0 => write_varint_run::<C>(values, w),
        _ => C::write_fixed(values, w),
    }
    w.put_key_varint(tag, (end - w.remaining()) as u64);
}

/// The number of bytes below 0x80: the number of varints in a valid run. Summed
/// in 255-byte blocks of `u8` counters so the compiler vectorises it.
#[inline]
pub(crate) fn terminators(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| usize::from(block.iter().fold(0u8, |n, &b| n + u8::from(b < 0x80))))
        .sum()
}

/// Writes the varints of a packed run backwards. An OR over the run (which
/// vectorises) detects the all-one-byte case, written as one narrowing copy.
#[inline]
fn write_varint_run<C: Scalar>(values: &[C::Value], w: &mut Writer<'_>) {
    let or = if starts_long::<C>(values) {
        u64::MAX
    } else {
        values.iter().fold(0, |acc, &v| acc | C::to_wire(v))
    };
    match or {
        0..0x80 => {
            #[allow(clippy::cast_possible_truncation)] // every value is below 0x80
            for (d, &v) in w.claim(values.len()).iter_mut().zip(values) {
                d.write(C::to_wire(v) as u8);
            }
        }
        0x80..0x4000 => w.put_short_varints(values, C::to_wire),
        _ => w.in_registers(|w| {
            for &v in values.iter().rev() {
                w.put_varint_long(C::to_wire(v));
            }
        }),
    }
}

/// Reads a packed run and appends its elements to `values`, reserving the exact
/// element count once.
pub fn merge_packed<C: Scalar>(r: &mut Reader<'_>, values: &mut Vec<C::Value>) -> Result<(), DecodeError> {
    let inner = r.read_nested()?;
    append_run::<C>(inner.rest(), values).map_err(|e| DecodeError::new(e.kind(), inner.offset() + e.offset()))
}

/// Appends the values of a packed run that a decode has checked (a view's),
/// with the same block decoders as [`merge_packed`].
#[inline]
pub(crate) fn extend_packed_run<C: Scalar>(bytes: &[u8], values: &mut Vec<C::Value>) {
    let appended = append_run::<C>(bytes, values);
    debug_assert!(appended.is_ok(), "a checked packed run decodes");
}

/// Appends the values of the packed run `bytes`; error offsets are
/// relative to `bytes`.
#[inline(always)]
fn append_run<C: Scalar>(bytes: &[u8], values: &mut Vec<C::Value>) -> Result<(), DecodeError> {
    match C::FIXED_WIDTH {
        0 => {
            // Every varint ends in exactly one byte below 0x80.
            let count = terminators(bytes);
            reserve(values, count);
            if count == bytes.len() {
                // All one-byte varints: a straight map the compiler vectorises.
                values.extend(bytes.iter().map(|&b| C::from_wire(u64::from(b))));
                return Ok(());
            }
            let start = values.len();
            let (filled, decoded) = decode_varints::<C>(bytes, &mut values.spare_capacity_mut()[..count]);
            // SAFETY: `decode_varints` initialised the first `filled` spare slots.
            #[allow(unsafe_code)]
            unsafe {
                values.set_len(start + filled);
            }
            decoded?;
        }
        width => {
            if !bytes.len().is_multiple_of(width) {
                return Err(DecodeError::new(DecodeErrorKind::PackedLengthMismatch, 0));
            }
            reserve(values, bytes.len() / width);
            C::extend_fixed(values, bytes);
        }
    }
    Ok(())
}

/// Decodes the varints of a packed run into `slots` (one per terminating byte,
/// so never too few), returning how many it filled and the first error, whose
/// offset is relative to `bytes`. Writing the reserved slots directly spares
/// `push`'s capacity check and length update per element.
#[inline(always)]
fn decode_varints<C: Scalar>(
    bytes: &[u8],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
) -> (usize, Result<(), DecodeError>) {
    let mut rest = bytes;
    let mut filled = 0;
    // Where blocks of one- and two-byte varints are tried again after one
    // held a longer varint: not before the next 64 bytes, so that a mix of
    // short and long varints does not pay for a block per value.
    let mut try_blocks_at = 0;
    // Ten bytes ahead: the loop-free decoder, no end-of-input checks.
    while let Some(head) = rest.first_chunk::<10>() {
        let at = bytes.len() - rest.len();
        let short = (head[0] & head[1]) < 0x80;
        if let Some(block) = rest.first_chunk().filter(|_| short && at >= try_blocks_at) {
            match decode_short_block::<C>(block, slots.get_mut(filled..).unwrap_or_default()) {
                Some((values, len)) => {
                    filled += values;
                    rest = &rest[len..];
                    continue;
                }
                None => try_blocks_at = at + 64,
            }
        }
        let (v, n) = match (head[0], head[1]) {
            (b0, _) if b0 < 0x80 => (u64::from(b0), 1),
            (b0, b1) if b1 < 0x80 => (u64::from(b0 & 0x7f) | u64::from(b1) << 7, 2),
            _ => {
                let decoded;
                (filled, rest, decoded) = decode_long_varints::<C>(bytes, rest, slots, filled);
                if decoded.is_err() {
                    return (filled, decoded);
                }
                continue;
            }
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
        rest = &rest[n..];
    }
    let mut tail = Reader::new(rest);
    while !tail.is_empty() {
        let at = bytes.len() - rest.len();
        let v = match tail.read_varint() {
            Ok(v) => v,
            Err(e) => return (filled, Err(DecodeError::new(e.kind(), at + e.offset()))),
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
    }
    (filled, Ok(()))
}

/// Decodes the one- and two-byte varints ending in the first 64 bytes of
/// `block` into `slots`, without a branch on any one's length (see
/// [`varint::ShortBlock`]); returns how many values and bytes it decoded, or
/// `None` (nothing written) if the block holds a longer varint.
#[inline(always)]
fn decode_short_block<C: Scalar>(
    block: &[u8; varint::SHORT_BLOCK],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
) -> Option<(usize, usize)> {
    let block = varint::ShortBlock::new(block, C::short_lane)?;
    let dst = slots.get_mut(..block.count())?;
    for (slot, lane) in dst.iter_mut().zip(block.lanes()) {
        slot.write(C::from_short_lane(lane));
    }
    Some((block.count(), block.len()))
}

/// Decodes the varints of three bytes or more at the front of `rest` (part of
/// `bytes`) into `slots` from `filled` on, until a shorter one or the last
/// ten bytes are left; returns the slots filled, the input left and the first
/// error. Out of line, so the loop over one- and two-byte varints keeps its
/// registers.
///
/// A run of varints of one length up to eight bytes (large values of one
/// magnitude: ids, timestamps, hashes) is decoded at a fixed stride: the next
/// load need not wait for this varint's end to be found, as a predicted branch
/// replaces the data dependency.
#[inline(never)]
fn decode_long_varints<'b, C: Scalar>(
    bytes: &[u8],
    mut rest: &'b [u8],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
    mut filled: usize,
) -> (usize, &'b [u8], Result<(), DecodeError>) {
    while let Some(head) = rest.first_chunk::<10>() {
        if head[0] < 0x80 || head[1] < 0x80 {
            break;
        }
        let Ok((v, n)) = varint::decode_ten(head) else {
            let at = bytes.len() - rest.len();
            return (filled, rest, Err(DecodeError::new(DecodeErrorKind::VarintOverflow, at)));
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, rest, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
        rest = &rest[n..];
        if n > 8 {
            continue;
        }
        while let (Some(word), Some(slot)) = (rest.first_chunk::<8>(), slots.get_mut(filled)) {
            let Some(v) = varint::decode_len(u64::from_le_bytes(*word), n) else {
                break;
            };
            slot.write(C::from_wire(v));
            filled += 1;
            rest = &rest[n..];
        }
    }
    (filled, rest, Ok(()))
}

/// Cannot happen (each varint ends in its own terminating byte, and there is a
/// slot per terminator); an error rather than a panic or a dropped value.
#[cold]
fn more_varints_than_terminators(bytes: &[u8], rest: &[u8]) -> DecodeError {
    DecodeError::new(DecodeErrorKind::PackedLengthMismatch, bytes.len() - rest.len())
}

/// Makes room for `n` more values: an empty vector (a fresh field) gets one
/// exact allocation without `reserve`'s growth path.
#[inline]
pub(crate) fn reserve<T>(values: &mut Vec<T>, n: usize) {
    if values.capacity() == 0 {
        *values = Vec::with_capacity(n);
    } else {
        values.reserve(n);
    }
}
