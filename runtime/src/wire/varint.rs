//! Base-128 varints and zigzag, as defined by the protobuf encoding spec
//! (<https://protobuf.dev/programming-guides/encoding/#varints>).

/// The number of bytes `v` takes as a varint (1 to 10).
#[inline]
#[must_use]
pub const fn len(v: u64) -> usize {
    // Each byte carries 7 bits; `| 1` makes zero take one byte. 9 * bits / 64 + 1
    // equals ceil(bits / 7) for 1..=64 bits without a division.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    (bits * 9 + 64) / 64
}

/// Writes `v` as a varint into `dst`, which must be exactly `len(v)` bytes long.
#[inline]
#[allow(clippy::cast_possible_truncation)] // each byte keeps the low 7 bits by design
pub fn encode_exact(mut v: u64, dst: &mut [u8]) {
    let (last, init) = dst.split_last_mut().expect("a varint takes at least one byte");
    for byte in init {
        *byte = (v as u8) | 0x80;
        v >>= 7;
    }
    *last = v as u8;
}

/// Appends `v` as a varint to `out`.
#[inline]
pub(crate) fn push(v: u64, out: &mut alloc::vec::Vec<u8>) {
    let mut buf = [0; 10];
    let n = len(v);
    encode_exact(v, &mut buf[..n]);
    out.extend_from_slice(&buf[..n]);
}

/// Zigzag-encodes a signed 32-bit value (small magnitudes become small varints).
#[inline]
#[must_use]
pub const fn zigzag32(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

/// Zigzag-encodes a signed 64-bit value.
#[inline]
#[must_use]
pub const fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Reverses [`zigzag32`].
#[inline]
#[must_use]
pub const fn unzigzag32(v: u32) -> i32 {
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

/// Reverses [`zigzag64`].
#[inline]
#[must_use]
pub const fn unzigzag64(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// The bytes the varint at the front of `buf` takes: up to its first byte
/// below 0x80, at most ten; `None` if it does not end there. One word's high
/// bits at a time: a loop over the bytes compiled to 15 instructions a byte.
#[inline(always)]
pub(crate) fn len_in(buf: &[u8]) -> Option<usize> {
    let Some(word) = buf.first_chunk::<8>() else {
        return buf.iter().position(|&b| b < 0x80).map(|i| i + 1);
    };
    let ends = !u64::from_le_bytes(*word) & 0x8080_8080_8080_8080;
    if ends != 0 {
        return Some(ends.trailing_zeros() as usize / 8 + 1);
    }
    match buf.get(8..) {
        Some([b, ..]) if *b < 0x80 => Some(9),
        Some([_, b, ..]) if *b < 0x80 => Some(10),
        _ => None,
    }
}

/// Why a varint could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The buffer ended before the last byte (high bit clear).
    Truncated,
    /// More than 10 bytes.
    Overflow,
}

/// Decodes a varint from the front of `buf`, returning the value and its length.
#[inline(always)]
pub(crate) fn decode(buf: &[u8]) -> Result<(u64, usize), VarintError> {
    match buf.first() {
        Some(&b) if b < 0x80 => Ok((u64::from(b), 1)),
        Some(_) => decode_multi(buf),
        None => Err(VarintError::Truncated),
    }
}

/// Decodes a varint of two or more bytes.
#[inline]
fn decode_multi(buf: &[u8]) -> Result<(u64, usize), VarintError> {
    match buf.first_chunk::<10>() {
        Some(head) => decode_ten(head),
        None => match decode_short(buf) {
            (_, 0) => Err(VarintError::Truncated),
            ok => Ok(ok),
        },
    }
}

/// Decodes a varint from the front of ten available bytes without a loop: the
/// first eight bytes are read as one word, the terminating byte is found from
/// the clear high bits, and the 7-bit groups are packed together in three
/// shift-and-mask steps (the technique of Lemire's and Google's fast varint
/// decoders). Nine- and ten-byte varints finish byte by byte.
#[inline(always)]
pub(crate) fn decode_ten(head: &[u8; 10]) -> Result<(u64, usize), VarintError> {
    let (low8, _) = head.split_first_chunk::<8>().expect("ten bytes hold eight");
    let word = u64::from_le_bytes(*low8);
    if let Some(decoded) = ended_in_word(word, !word & 0x8080_8080_8080_8080) {
        return Ok(decoded);
    }
    let low = pack_groups(word);
    let (b8, b9) = (u64::from(head[8]), u64::from(head[9]));
    if b8 < 0x80 {
        return Ok((low | b8 << 56, 9));
    }
    if b9 >= 0x80 {
        return Err(VarintError::Overflow);
    }
    // Bits past the 64th are dropped, as C++, Java and upb do: data those
    // accept must decode here too.
    Ok((low | (b8 & 0x7f) << 56 | b9 << 63, 10))
}

/// The varint at the front of `word` (eight bytes, little-endian) and its
/// length, if it ends there: `stops` has the high bit of each byte that may
/// end it (a clear high bit in `word`).
#[inline(always)]
const fn ended_in_word(word: u64, stops: u64) -> Option<(u64, usize)> {
    if stops == 0 {
        return None;
    }
    let len = (stops.trailing_zeros() as usize + 1) / 8;
    Some((pack_groups(word & (u64::MAX >> (64 - 8 * len))), len))
}

/// Decodes the varint at the front of `word` (eight bytes, little-endian) if
/// it is exactly `len` bytes long (2 to 8), else `None`. A run of same-length
/// varints decoded with this advances by the same `len` each time, so the next
/// load need not wait for this one's end to be found (a predicted branch
/// replaces the data dependency).
#[inline(always)]
pub(crate) const fn decode_len(word: u64, len: usize) -> Option<u64> {
    debug_assert!(len >= 2 && len <= 8);
    let used = u64::MAX >> (64 - 8 * len);
    let last_stop = 0x80 << (8 * (len - 1));
    if !word & 0x8080_8080_8080_8080 & used == last_stop {
        Some(pack_groups(word & used))
    } else {
        None
    }
}

/// Packs the low 7 bits of each of the eight bytes of `x` into 56 bits.
#[inline(always)]
const fn pack_groups(x: u64) -> u64 {
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// Spreads the low 56 bits of `v` into eight 7-bit groups, one per byte, high
/// bits clear: the inverse of [`pack_groups`].
#[inline(always)]
pub(crate) const fn spread_groups(v: u64) -> u64 {
    let x = (v & 0x0000_0000_0fff_ffff) | ((v & 0x00ff_ffff_f000_0000) << 4);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x0fff_c000_0fff_c000) << 2);
    (x & 0x007f_007f_007f_007f) | ((x & 0x3f80_3f80_3f80_3f80) << 1)
}

/// Encodes `v` (below 2^56, so at most eight bytes) as one little-endian word
/// whose first `len(v)` bytes are the varint; the rest are zero.
#[inline(always)]
#[must_use]
pub const fn encode_word(v: u64) -> u64 {
    // Continuation bits on every byte below the highest non-zero group.
    let continuation = 0x8080_8080_8080_8080 & ((1u64 << (8 * (len(v) - 1))) - 1);
    spread_groups(v) | continuation
}

/// Decodes a varint from a buffer shorter than ten bytes: the last field of a
/// nested message, which for a map entry's value or a timestamp's nanos is
/// most of them. The bytes are read as one word (two overlapping loads when
/// fewer than eight remain), not copied out; a varint running past the end is
/// truncated: length 0. Out of line (inlined, it grew every decoder that reads
/// a varint), returning in two registers.
#[inline(never)]
fn decode_short(buf: &[u8]) -> (u64, usize) {
    let (word, in_buf) = match buf.first_chunk::<8>() {
        Some(low8) => (u64::from_le_bytes(*low8), u64::MAX),
        // Past the end the word is zero, which would read as a final byte.
        None => (gather(buf), (1u64 << (8 * buf.len())) - 1),
    };
    if let Some(decoded) = ended_in_word(word, !word & 0x8080_8080_8080_8080 & in_buf) {
        return decoded;
    }
    // Eight bytes without an end: only a ninth can end it (ten do not fit).
    match buf.get(8) {
        Some(&b8) if b8 < 0x80 => (pack_groups(word) | u64::from(b8) << 56, 9),
        _ => (0, 0),
    }
}

/// The bytes of `buf` (fewer than eight) as a little-endian word, zero above
/// them, from two loads that overlap in the middle.
#[inline(always)]
fn gather(buf: &[u8]) -> u64 {
    let n = buf.len();
    match (
        buf.first_chunk::<4>(),
        buf.last_chunk::<4>(),
        buf.first_chunk::<2>(),
        buf.last_chunk::<2>(),
    ) {
        (Some(lo), Some(hi), ..) => {
            u64::from(u32::from_le_bytes(*lo)) | u64::from(u32::from_le_bytes(*hi)) << (8 * (n - 4))
        }
        (.., Some(lo), Some(hi)) => {
            u64::from(u16::from_le_bytes(*lo)) | u64::from(u16::from_le_bytes(*hi)) << (8 * (n - 2))
        }
        _ => buf.first().map_or(0, |&b| u64::from(b)),
    }
}

/// The varints that end in the first 64 bytes of a block, when none of them
/// takes more than two bytes (sint32/sint64 values within ±8191, counts,
/// small ids): decoded without a branch on any one's length. On a mix of one-
/// and two-byte varints whose lengths a branch predictor cannot learn (the
/// values of live traffic), a branch per value mispredicts often (for about a
/// third of the values of small sint64s); here every branch is a loop's.
///
/// Each byte's value as the start of a varint, mapped to a lane by the
/// caller's step (the sint types undo the zigzag there), is computed for all
/// 64 at once (the compiler vectorises it); the varints' ends come from one
/// mask of the bytes that end a varint, taken lowest first.
pub(crate) struct ShortBlock {
    /// Bit `i` is set when byte `i` ends a varint.
    stops: u64,
    /// The lane of the one- or two-byte varint starting at each byte.
    lanes: [u16; 64],
}

/// Bytes of input a [`ShortBlock`] reads: the 64 it decodes, and one more for
/// the second byte of a varint starting at the last.
pub(crate) const SHORT_BLOCK: usize = 65;

impl ShortBlock {
    /// The block at the front of `bytes`, its varints mapped by `lane`, or
    /// `None` if a varint in its first 64 bytes takes more than two bytes (or
    /// none ends there).
    #[inline(always)]
    pub(crate) fn new(bytes: &[u8; SHORT_BLOCK], lane: impl Fn(u16) -> u16) -> Option<Self> {
        let (head, _) = bytes.split_first_chunk::<64>()?;
        let continued = crate::wire::simd::high_bits(head);
        // Two continuation bytes in a row start a longer varint; no stop at
        // all leaves nothing to decode.
        if continued & continued << 1 != 0 {
            return None;
        }
        let stops = !continued;
        // Built in place (`from_fn`, not a zeroed array filled in a loop),
        // so the 128 bytes are written once.
        let lanes = core::array::from_fn(|i| {
            let (b0, b1) = (u16::from(bytes[i]), u16::from(bytes[i + 1]));
            // The second byte counts only after a continued first.
            let second = (b1 << 7) & 0u16.wrapping_sub(b0 >> 7);
            lane((b0 & 0x7f) | second)
        });
        Some(ShortBlock { stops, lanes })
    }

    /// How many varints end in the block.
    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        self.stops.count_ones() as usize
    }

    /// The bytes the block's varints take: through the last one's end.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        64 - self.stops.leading_zeros() as usize
    }

    /// The lanes of the block's varints, in order (with `count()`, the
    /// iterator's length).
    #[inline(always)]
    pub(crate) fn lanes(&self) -> impl Iterator<Item = u16> + '_ {
        // Each varint starts at byte 0 or after a stop; the start after the
        // last stop (a varint ending in the next block) is past `count()`.
        let mut starts = self.stops << 1 | 1;
        core::iter::from_fn(move || {
            // Bit 63 changes nothing within `count()` and bounds the index
            // below 64, so it needs no check.
            let start = (starts | 1 << 63).trailing_zeros() as usize;
            starts &= starts.wrapping_sub(1);
            Some(self.lanes[start])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn encode(v: u64) -> alloc::vec::Vec<u8> {
        let mut out = vec![0; len(v)];
        encode_exact(v, &mut out);
        out
    }

    #[test]
    fn lengths_at_every_boundary() {
        assert_eq!(len(0), 1);
        for bytes in 1..=9usize {
            let max = (1u64 << (7 * bytes)) - 1;
            assert_eq!(len(max), bytes, "max of {bytes} bytes");
            assert_eq!(len(max + 1), bytes + 1, "min of {} bytes", bytes + 1);
        }
        assert_eq!(len(u64::MAX), 10);
    }

    #[test]
    fn round_trips_one_to_ten_bytes() {
        for bytes in 1..=10u32 {
            let lo = if bytes == 1 { 0 } else { 1u64 << (7 * (bytes - 1)) };
            let hi = if bytes == 10 {
                u64::MAX
            } else {
                (1u64 << (7 * bytes)) - 1
            };
            for v in [lo, lo + 1, hi - 1, hi] {
                let enc = encode(v);
                assert_eq!(enc.len(), bytes as usize);
                assert_eq!(decode(&enc), Ok((v, enc.len())), "value {v}");
                // The same varint followed by padding decodes on the unrolled path.
                let mut padded = enc.clone();
                padded.extend_from_slice(&[0xff; 12]);
                assert_eq!(decode(&padded), Ok((v, enc.len())), "padded {v}");
            }
        }
    }

    #[test]
    fn known_encodings() {
        assert_eq!(encode(0), [0x00]);
        assert_eq!(encode(1), [0x01]);
        assert_eq!(encode(127), [0x7f]);
        assert_eq!(encode(128), [0x80, 0x01]);
        assert_eq!(encode(150), [0x96, 0x01]);
        assert_eq!(
            encode(u64::MAX),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        // A negative int32 is sign-extended to ten bytes.
        assert_eq!(encode(-1i64 as u64).len(), 10);
    }

    #[test]
    fn truncation_at_every_byte() {
        let enc = encode(u64::MAX);
        for cut in 0..enc.len() {
            assert_eq!(decode(&enc[..cut]), Err(VarintError::Truncated), "cut at {cut}");
        }
    }

    #[test]
    fn every_length_at_the_end_of_the_input_and_every_cut() {
        for bytes in 1..=9u32 {
            let lo = if bytes == 1 { 0 } else { 1u64 << (7 * (bytes - 1)) };
            let hi = (1u64 << (7 * bytes)) - 1;
            for v in [lo, lo | 0x55, hi] {
                let enc = encode(v);
                assert_eq!(decode(&enc), Ok((v, enc.len())), "value {v:#x} ends the input");
                for cut in 1..enc.len() {
                    assert_eq!(decode(&enc[..cut]), Err(VarintError::Truncated), "{v:#x} cut at {cut}");
                }
                // Followed by fewer than ten bytes in all.
                let mut short = enc.clone();
                short.resize(9, 0x7f);
                assert_eq!(decode(&short), Ok((v, enc.len())), "{v:#x} with a short tail");
            }
        }
        // Non-canonical: nine bytes encoding zero, and eight continuation bytes alone.
        let mut nine = [0x80u8; 9];
        nine[8] = 0;
        assert_eq!(decode(&nine), Ok((0, 9)));
        assert_eq!(decode(&nine[..8]), Err(VarintError::Truncated));
        assert_eq!(decode(&[0xff; 9]), Err(VarintError::Truncated));
    }

    #[test]
    fn eleven_bytes_are_rejected_and_a_tenth_byte_keeps_its_low_bit() {
        let eleven = [0x80u8; 10]
            .iter()
            .copied()
            .chain([0x00])
            .collect::<alloc::vec::Vec<_>>();
        assert_eq!(decode(&eleven), Err(VarintError::Overflow));
        let mut big_tenth = [0xffu8; 10];
        big_tenth[9] = 0x02;
        assert_eq!(decode(&big_tenth), Ok((u64::MAX >> 1, 10)), "bits past 64 are dropped");
        // Non-canonical but valid: ten bytes encoding zero.
        let mut padded_zero = [0x80u8; 10];
        padded_zero[9] = 0x00;
        assert_eq!(decode(&padded_zero), Ok((0, 10)));
    }

    #[test]
    fn word_encoding_matches_the_byte_loop() {
        for bits in 0..56 {
            for v in [1u64 << bits, (1u64 << bits) - 1, (1u64 << bits) | 0x55] {
                let v = v & ((1 << 56) - 1);
                let expected = encode(v);
                let word = encode_word(v).to_le_bytes();
                assert_eq!(&word[..expected.len()], expected.as_slice(), "{v:#x}");
                assert!(word[expected.len()..].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn ten_byte_decoder_agrees_on_every_length() {
        for bits in 0..64 {
            for v in [1u64 << bits, (1u64 << bits).wrapping_sub(1), u64::MAX >> (63 - bits)] {
                let mut bytes = encode(v);
                let n = bytes.len();
                bytes.resize(10, 0xff);
                let head: &[u8; 10] = bytes.as_slice().try_into().unwrap();
                assert_eq!(decode_ten(head), Ok((v, n)), "{v:#x}");
            }
        }
    }

    #[test]
    fn same_length_decoder_accepts_exactly_its_length() {
        for bits in 0..56 {
            for v in [1u64 << bits, (1u64 << bits) - 1, (1u64 << bits) | 0x55] {
                let v = v & ((1 << 56) - 1);
                let mut bytes = encode(v);
                let n = bytes.len();
                bytes.resize(8, 0xff);
                let word = u64::from_le_bytes(bytes.as_slice().try_into().unwrap());
                for len in 2..=8 {
                    let expected = (len == n).then_some(v);
                    assert_eq!(decode_len(word, len), expected, "{v:#x} as {len} bytes");
                }
            }
        }
    }

    #[test]
    fn zigzag_extremes() {
        for (v, z) in [
            (0i32, 0u32),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (i32::MAX, u32::MAX - 1),
            (i32::MIN, u32::MAX),
        ] {
            assert_eq!(zigzag32(v), z);
            assert_eq!(unzigzag32(z), v);
        }
        for (v, z) in [
            (0i64, 0u64),
            (-1, 1),
            (1, 2),
            (i64::MAX, u64::MAX - 1),
            (i64::MIN, u64::MAX),
        ] {
            assert_eq!(zigzag64(v), z);
            assert_eq!(unzigzag64(z), v);
        }
    }

    #[test]
    fn a_short_block_needs_every_varint_within_two_bytes() {
        let mut block = [0x01u8; SHORT_BLOCK];
        block[..4].copy_from_slice(&[0x81, 0x01, 0x82, 0x7f]);
        let short = ShortBlock::new(&block, |v| v).expect("one- and two-byte varints");
        assert_eq!(short.count(), 62);
        assert_eq!(short.len(), 64);
        let lanes: Vec<u16> = short.lanes().take(short.count()).collect();
        assert_eq!(lanes[..3], [0x81, 0x3f82, 1]);
        let stepped = ShortBlock::new(&block, |v| v ^ 1).expect("the same block");
        assert_eq!(
            stepped.lanes().take(3).collect::<Vec<_>>(),
            [0x80, 0x3f83, 0],
            "mapped by the step"
        );
        // A varint continued into the next block ends the block before it.
        block[63] = 0x80;
        assert_eq!(
            ShortBlock::new(&block, |v| v).map(|b| (b.count(), b.len())),
            Some((61, 63))
        );
        block[62] = 0x80;
        assert!(ShortBlock::new(&block, |v| v).is_none(), "a three-byte varint");
        assert!(ShortBlock::new(&[0x80; SHORT_BLOCK], |v| v).is_none(), "no varint ends");
    }
}
