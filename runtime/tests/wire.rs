//! Wire-format edges of the runtime primitives: extremes of every type,
//! truncation at every byte, wrong wire types, groups, lengths past the end.

use fastrs::__private::{self as encoding, Codec};
use fastrs::{DecodeErrorKind, Reader, UnknownFields};

/// Encodes one value with codec `C` (no tag).
fn encode<C: Codec>(v: &C::Value) -> Vec<u8> {
    encoding::write_exactly(C::size(v), |w| C::write(v, w))
}

fn decode<C: Codec>(bytes: &[u8]) -> Result<C::Value, fastrs::DecodeError> {
    let mut r = Reader::new(bytes);
    let v = C::read(&mut r, 100)?;
    assert!(r.is_empty(), "value consumed exactly");
    Ok(v)
}

/// Round trip, expected encoding, and an error at every truncation.
fn check<C: Codec>(v: C::Value, expected: &[u8])
where
    C::Value: PartialEq + std::fmt::Debug,
{
    let bytes = encode::<C>(&v);
    assert_eq!(bytes, expected, "encoding of {v:?}");
    assert_eq!(decode::<C>(&bytes).unwrap(), v);
    for cut in 0..bytes.len() {
        let err = decode::<C>(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                DecodeErrorKind::Truncated | DecodeErrorKind::LengthOutOfBounds
            ),
            "{v:?} cut at {cut}: {err}"
        );
    }
}

#[test]
fn int32_extremes_and_sign_extension() {
    check::<encoding::Int32>(0, &[0]);
    check::<encoding::Int32>(i32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x07]);
    check::<encoding::Int32>(-1, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    check::<encoding::Int32>(i32::MIN, &[0x80, 0x80, 0x80, 0x80, 0xf8, 0xff, 0xff, 0xff, 0xff, 0x01]);
}

#[test]
fn int32_keeps_low_bits_of_a_64_bit_varint() {
    // 2^32 + 5 as a varint: int32 and uint32 read it as 5, as protobuf specifies.
    let bytes = [0x85, 0x80, 0x80, 0x80, 0x10];
    assert_eq!(decode::<encoding::Int32>(&bytes).unwrap(), 5);
    assert_eq!(decode::<encoding::Uint32>(&bytes).unwrap(), 5);
}

#[test]
fn sixty_four_bit_extremes() {
    check::<encoding::Int64>(i64::MIN, &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    check::<encoding::Int64>(i64::MAX, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    check::<encoding::Uint64>(u64::MAX, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    check::<encoding::Uint32>(u32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x0f]);
}

#[test]
fn zigzag_extremes() {
    check::<encoding::Sint32>(-1, &[0x01]);
    check::<encoding::Sint32>(i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]);
    check::<encoding::Sint32>(i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]);
    check::<encoding::Sint64>(i64::MIN, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    check::<encoding::Sint64>(i64::MAX, &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
}

#[test]
fn fixed_width_extremes() {
    check::<encoding::Fixed32>(u32::MAX, &[0xff; 4]);
    check::<encoding::Sfixed32>(i32::MIN, &[0, 0, 0, 0x80]);
    check::<encoding::Fixed64>(u64::MAX, &[0xff; 8]);
    check::<encoding::Sfixed64>(i64::MIN, &[0, 0, 0, 0, 0, 0, 0, 0x80]);
    check::<encoding::Float>(f32::MAX, &f32::MAX.to_le_bytes());
    check::<encoding::Float>(f32::NEG_INFINITY, &f32::NEG_INFINITY.to_le_bytes());
    check::<encoding::Double>(f64::MIN_POSITIVE, &f64::MIN_POSITIVE.to_le_bytes());
    check::<encoding::Double>(-0.0, &(-0.0f64).to_le_bytes());
    let nan = decode::<encoding::Double>(&f64::NAN.to_le_bytes()).unwrap();
    assert!(nan.is_nan());
}

#[test]
fn bool_reads_any_nonzero_varint_as_true() {
    check::<encoding::Bool>(true, &[1]);
    check::<encoding::Bool>(false, &[0]);
    assert!(decode::<encoding::Bool>(&[0x80, 0x01]).unwrap());
    assert!(decode::<encoding::Bool>(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).unwrap());
}

#[test]
fn strings_and_bytes() {
    check::<encoding::Str>("héllo".to_string(), b"\x06h\xc3\xa9llo");
    check::<encoding::Str>(String::new(), &[0]);
    check::<encoding::Bytes>(vec![0, 255, 7], &[3, 0, 255, 7]);
    let long = "x".repeat(300);
    let bytes = encode::<encoding::Str>(&long);
    assert_eq!(&bytes[..2], &[0xac, 0x02]);
    check::<encoding::Str>(long, &bytes);
    // Lengths of one, two and three bytes take different paths.
    for len in [127, 128, 16_383, 16_384, 100_000] {
        let value = vec![7u8; len];
        let bytes = encode::<encoding::Bytes>(&value);
        assert_eq!(bytes.len(), fastrs::varint::len(len as u64) + len);
        check::<encoding::Bytes>(value, &bytes);
        let err = decode::<encoding::Bytes>(&bytes[..bytes.len() - 1]).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::LengthOutOfBounds, "{len}");
    }
}

/// Decoding into a field that already has an allocation replaces its
/// contents: short values copied inline when they fit, longer ones or those
/// that do not fit through the general path.
#[test]
fn strings_and_bytes_replace_reused_values_of_every_short_length() {
    // Capacity 0 is a fresh field: allocated exactly.
    for capacity in [0, 1, 5, 8, 16, 40] {
        for len in 0..=40 {
            let text: String = ('a'..='z').cycle().skip(len).take(len).collect();
            let input = encode::<encoding::Str>(&text);
            let mut s = String::with_capacity(capacity);
            let mut b = Vec::with_capacity(capacity);
            if capacity > 0 {
                s.push('x');
                b.push(b'x');
            }
            let kept = s.capacity();
            encoding::Str::merge(&mut s, &mut Reader::new(&input), 100).unwrap();
            encoding::Bytes::merge(&mut b, &mut Reader::new(&input), 100).unwrap();
            assert_eq!(s, text, "string of {len} into capacity {capacity}");
            assert_eq!(b, text.as_bytes(), "bytes of {len} into capacity {capacity}");
            if capacity == 0 {
                assert_eq!((s.capacity(), b.capacity()), (len, len), "exact allocation");
            } else if len <= kept {
                assert_eq!(s.capacity(), kept, "allocation kept");
            }
        }
    }
}

#[test]
fn invalid_utf8_is_an_error_at_the_bad_byte() {
    let err = decode::<encoding::Str>(b"\x04ab\xffc").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidUtf8);
    assert_eq!(err.offset(), 3);
    // Overlong encodings and lone surrogates are invalid too.
    assert_eq!(
        decode::<encoding::Str>(b"\x02\xc0\xaf").unwrap_err().kind(),
        DecodeErrorKind::InvalidUtf8
    );
    assert_eq!(
        decode::<encoding::Str>(b"\x03\xed\xa0\x80").unwrap_err().kind(),
        DecodeErrorKind::InvalidUtf8
    );
}

#[test]
fn a_non_ascii_byte_anywhere_in_a_short_string_is_seen() {
    // Strings up to 16 bytes are checked for ASCII by overlapping word loads:
    // a high byte at any position must reach the UTF-8 check.
    for len in 1..=40u8 {
        for at in 0..usize::from(len) {
            let mut input = vec![len];
            input.extend(std::iter::repeat_n(b'a', usize::from(len)));
            input[1 + at] = 0xff;
            let err = decode::<encoding::Str>(&input).unwrap_err();
            assert_eq!(
                (err.kind(), err.offset()),
                (DecodeErrorKind::InvalidUtf8, 1 + at),
                "{len} {at}"
            );
            if at + 2 <= usize::from(len) {
                input[1 + at..3 + at].copy_from_slice("é".as_bytes());
                let mut expected = "a".repeat(at);
                expected.push('é');
                expected.push_str(&"a".repeat(usize::from(len) - at - 2));
                assert_eq!(decode::<encoding::Str>(&input).unwrap(), expected);
            }
        }
    }
}

/// Strings of 64 bytes and more are validated by SIMD: text in several scripts
/// on both sides of that length and of the 32- and 64-byte blocks, valid and
/// with each kind of bad sequence at positions throughout, must decode as
/// `core::str::from_utf8` says, errors at the same byte.
#[test]
fn long_strings_are_validated_like_core_at_every_length_and_position() {
    let script = "aé€😀Жx我ü🎉 ok ";
    let text: String = script.chars().cycle().take(400).collect();
    let bad: [&[u8]; 5] = [b"\xff", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf0\x9f\x98"];
    let step = if cfg!(miri) { 29 } else { 1 };
    for len in (40..200).step_by(step).chain([1000]) {
        let mut cut = len.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let valid = &text.as_bytes()[..cut];
        let input = encode::<encoding::Bytes>(&valid.to_vec());
        assert_eq!(
            decode::<encoding::Str>(&input).unwrap().as_bytes(),
            valid,
            "{cut} bytes"
        );
        for at in (0..cut).step_by(7 * step).chain([cut.saturating_sub(1)]) {
            for seq in bad {
                let mut body = valid[..at].to_vec();
                body.extend_from_slice(seq);
                body.extend_from_slice(&valid[at..]);
                let expected = std::str::from_utf8(&body).map(|_| ()).map_err(|e| e.valid_up_to());
                let input = encode::<encoding::Bytes>(&body);
                let header = input.len() - body.len();
                let got = decode::<encoding::Str>(&input).map(|_| ()).map_err(|e| {
                    assert_eq!(e.kind(), DecodeErrorKind::InvalidUtf8);
                    e.offset() - header
                });
                assert_eq!(got, expected, "{seq:x?} at {at} of {cut}");
            }
        }
    }
}

#[test]
fn strings_merge_into_a_reused_string_of_any_length() {
    // Long strings are copied and checked for ASCII in one pass into the
    // string's own buffer: shorter and longer than what it held, ASCII and
    // not; an invalid one leaves it empty (still UTF-8).
    let mut reused = "x".repeat(100);
    for len in [0usize, 5, 63, 64, 65, 99, 100, 101, 500, 64] {
        for fill in ["a", "é"] {
            let text: String = fill.repeat(len / fill.len());
            let input = encode::<encoding::Str>(&text);
            encoding::Str::merge(&mut reused, &mut Reader::new(&input), 100).unwrap();
            assert_eq!(reused, text);
        }
    }
    let mut body = "a".repeat(80).into_bytes();
    body[70] = 0xff;
    let err = encoding::Str::merge(&mut reused, &mut Reader::new(&encode::<encoding::Bytes>(&body)), 100).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::InvalidUtf8, 1 + 70));
    assert_eq!(reused, "");
}

#[test]
fn length_past_the_end() {
    let err = decode::<encoding::Bytes>(&[5, 1, 2]).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LengthOutOfBounds);
    // A length near u64::MAX must not allocate or overflow.
    let huge = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0];
    assert_eq!(
        decode::<encoding::Bytes>(&huge).unwrap_err().kind(),
        DecodeErrorKind::LengthOutOfBounds
    );
    // 2 GiB claimed, 3 bytes present.
    assert_eq!(
        decode::<encoding::Str>(&[0x80, 0x80, 0x80, 0x80, 0x08, b'a'])
            .unwrap_err()
            .kind(),
        DecodeErrorKind::LengthOutOfBounds
    );
}

#[test]
fn a_tenth_byte_above_one_drops_the_bits_past_64_as_cpp_does() {
    // Nine bytes of all-ones groups (63 bits), then a tenth byte of 0x02..0x7f:
    // only its lowest bit lands in the value (bit 63), the rest is dropped.
    for tenth in [0x00u8, 0x01, 0x02, 0x03, 0x7e, 0x7f] {
        let mut bytes = vec![0xff; 9];
        bytes.push(tenth);
        let expected = u64::MAX >> 1 | u64::from(tenth & 1) << 63;
        assert_eq!(
            decode::<encoding::Uint64>(&bytes).unwrap(),
            expected,
            "tenth byte {tenth:#x}"
        );
        assert_eq!(decode::<encoding::Int64>(&bytes).unwrap(), expected as i64);
    }
    // The same inside a packed run, which decodes varints in blocks.
    let mut packed = vec![0x01, 0x02];
    packed.extend([0xff; 9]);
    packed.push(0x02);
    packed.push(0x03);
    let mut input = vec![u8::try_from(packed.len()).unwrap()];
    input.extend(&packed);
    let mut out = Vec::new();
    encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&input), &mut out).unwrap();
    assert_eq!(out, [1, 2, u64::MAX >> 1, 3]);
}

#[test]
fn varint_of_eleven_bytes_is_rejected() {
    let mut bytes = vec![0x80; 10];
    bytes.push(0x01);
    assert_eq!(
        decode::<encoding::Uint64>(&bytes).unwrap_err().kind(),
        DecodeErrorKind::VarintOverflow
    );
}

/// Skips one field of `bytes` (tag included) and returns what `UnknownFields` kept.
fn skip(bytes: &[u8]) -> Result<Vec<u8>, fastrs::DecodeError> {
    let mut r = Reader::new(bytes);
    let mut unknown = UnknownFields::new();
    while !r.is_empty() {
        let tag = r.read_tag()?;
        r.skip_field(tag, 100, &mut unknown)?;
    }
    Ok(unknown.as_bytes().to_vec())
}

#[test]
fn every_wire_type_is_skipped_and_kept() {
    let fields: [&[u8]; 5] = [
        &[0x08, 0x96, 0x01],                   // 1: varint
        &[0x11, 1, 2, 3, 4, 5, 6, 7, 8],       // 2: fixed64
        &[0x1a, 0x02, b'h', b'i'],             // 3: length-delimited
        &[0x23, 0x08, 0x01, 0x2b, 0x2c, 0x24], // 4: group with a varint and an empty group
        &[0x2d, 1, 2, 3, 4],                   // 5: fixed32
    ];
    let all: Vec<u8> = fields.concat();
    assert_eq!(skip(&all).unwrap(), all);
    for field in fields {
        for cut in 1..field.len() {
            assert!(skip(&field[..cut]).is_err(), "{field:02x?} cut at {cut}");
        }
    }
}

#[test]
fn bad_tags_are_errors() {
    let kind = |bytes: &[u8]| skip(bytes).unwrap_err().kind();
    assert_eq!(kind(&[0x0e, 0]), DecodeErrorKind::InvalidWireType(6));
    assert_eq!(kind(&[0x0f, 0]), DecodeErrorKind::InvalidWireType(7));
    assert_eq!(kind(&[0x00, 0]), DecodeErrorKind::InvalidFieldNumber);
    assert_eq!(kind(&[0x0c]), DecodeErrorKind::UnexpectedEndGroup);
    assert_eq!(kind(&[0x0b, 0x14]), DecodeErrorKind::EndGroupMismatch);
    assert_eq!(kind(&[0x0b, 0x08, 0x01]), DecodeErrorKind::UnterminatedGroup);
    // A tag varint above 32 bits.
    assert_eq!(
        kind(&[0x80, 0x80, 0x80, 0x80, 0x10, 0]),
        DecodeErrorKind::InvalidFieldNumber
    );
}

#[test]
fn tags_longer_than_five_bytes_are_malformed_even_when_their_value_fits() {
    // Field 1, wire type 0 (tag 8), padded to 5 to 10 bytes, then the value 0.
    for len in 5..=10 {
        let mut bytes = vec![0x80; len];
        bytes[0] = 0x88;
        bytes[len - 1] = 0x00;
        bytes.push(0);
        let mut r = Reader::new(&bytes);
        if len == 5 {
            assert_eq!(r.read_tag().unwrap(), 8, "a five-byte tag is valid");
        } else {
            let err = r.read_tag().unwrap_err();
            assert_eq!(err.kind(), DecodeErrorKind::InvalidFieldNumber, "{len}-byte tag");
        }
    }
}

#[test]
fn nested_unknown_groups_stop_at_the_depth_limit() {
    let depth = 150;
    let mut bytes = vec![0x0b; depth];
    bytes.extend(std::iter::repeat_n(0x0c, depth));
    assert_eq!(skip(&bytes).unwrap_err().kind(), DecodeErrorKind::RecursionLimit);
    let shallow: Vec<u8> = [vec![0x0b; 50], vec![0x0c; 50]].concat();
    assert_eq!(skip(&shallow).unwrap(), shallow);
}

#[test]
fn every_wrong_wire_type_for_a_known_field_goes_to_unknown() {
    // Field 1 declared as int32 (varint); arriving as each other wire type it is
    // not the field, so it is kept as unknown.
    let others: [&[u8]; 4] = [
        &[0x09, 0, 0, 0, 0, 0, 0, 0, 0],
        &[0x0a, 0],
        &[0x0b, 0x0c],
        &[0x0d, 0, 0, 0, 0],
    ];
    for field in others {
        let mut r = Reader::new(field);
        let tag = r.read_tag().unwrap();
        assert_ne!(tag, 0x08);
        let mut unknown = UnknownFields::new();
        r.skip_field(tag, 100, &mut unknown).unwrap();
        assert_eq!(unknown.as_bytes(), field);
    }
}

#[test]
fn packed_runs() {
    let mut values = Vec::new();
    // Three one-byte varints, then a run with a multi-byte one.
    encoding::merge_packed::<encoding::Int64>(&mut Reader::new(&[3, 1, 2, 3]), &mut values).unwrap();
    encoding::merge_packed::<encoding::Int64>(&mut Reader::new(&[3, 0x96, 0x01, 0x7f]), &mut values).unwrap();
    assert_eq!(values, [1, 2, 3, 150, 127]);
    let mut fixed = Vec::new();
    let err =
        encoding::merge_packed::<encoding::Fixed32>(&mut Reader::new(&[5, 1, 2, 3, 4, 5]), &mut fixed).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PackedLengthMismatch);
    let err =
        encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&[2, 0x80, 0x80]), &mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Truncated);
    encoding::merge_packed::<encoding::Sfixed64>(
        &mut Reader::new(&[8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        &mut Vec::new(),
    )
    .unwrap();
}

/// Writes `values` as a packed field of number 1, decodes it after an existing
/// value and checks both ways against `wire`, the expected payload.
fn check_packed_fixed<C: encoding::Scalar>(existing: C::Value, values: &[C::Value], wire: &[u8])
where
    C::Value: PartialEq + std::fmt::Debug,
{
    let tag = [0x0a];
    let buf = encoding::write_exactly(encoding::size_packed::<C>(values, 1), |w| {
        encoding::write_packed::<C>(values, &tag, w);
    });
    assert_eq!(buf[..2], [0x0a, wire.len() as u8]);
    assert_eq!(buf[2..], *wire);
    let mut decoded = vec![existing];
    encoding::merge_packed::<C>(&mut Reader::new(&buf[1..]), &mut decoded).unwrap();
    assert_eq!(decoded[0], existing);
    assert_eq!(decoded[1..], *values);
}

#[test]
fn packed_varint_sizes_at_every_length_boundary() {
    // Runs whose largest value is one, two and more bytes, each boundary both
    // sides; a run whose first value is long skips the look for short runs,
    // so long runs start with each kind of value too.
    let short_tail: Vec<u64> = (0..40).map(|i| [1, 0x80, 0x3fff][i % 3]).collect();
    let long_first = [&[1u64 << 40][..], &short_tail].concat();
    let long_last = [&short_tail[..], &[1u64 << 40]].concat();
    let runs: [&[u64]; 7] = [
        &[0, 0x7f],
        &[0x7f, 0x80, 0x3fff, 1],
        &[0x4000, 0x80, 0],
        &[u64::MAX, 0x3fff, 0x7f],
        &[0x3fff, 0x4000],
        &long_first,
        &long_last,
    ];
    for run in runs {
        let payload: usize = run.iter().map(|&v| fastrs::varint::len(v)).sum();
        let expected = 1 + fastrs::varint::len(payload as u64) + payload;
        assert_eq!(encoding::size_packed::<encoding::Uint64>(run, 1), expected, "{run:x?}");
        let buf = encoding::write_exactly(expected, |w| {
            encoding::write_packed::<encoding::Uint64>(run, &[0x0a], w);
        });
        let mut decoded = Vec::new();
        encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&buf[1..]), &mut decoded).unwrap();
        assert_eq!(decoded, run);
    }
    // Zigzag: -64 is one byte, 64 and -65 two.
    assert_eq!(encoding::size_packed::<encoding::Sint64>(&[-64, 63], 1), 4);
    assert_eq!(encoding::size_packed::<encoding::Sint64>(&[-65, 64, 0], 1), 7);
}

#[test]
fn packed_fixed_width_runs_are_little_endian_for_every_type() {
    check_packed_fixed::<encoding::Fixed32>(
        9,
        &[1, 0x0403_0201, u32::MAX],
        &[1, 0, 0, 0, 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff],
    );
    check_packed_fixed::<encoding::Sfixed32>(9, &[-2, i32::MIN], &[0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0x80]);
    check_packed_fixed::<encoding::Float>(9.0, &[1.0, -0.0], &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x80]);
    check_packed_fixed::<encoding::Fixed64>(
        9,
        &[0x0807_0605_0403_0201, 0],
        &[1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0],
    );
    check_packed_fixed::<encoding::Sfixed64>(9, &[-2], &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    check_packed_fixed::<encoding::Double>(
        9.0,
        &[1.0, -0.0],
        &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x80],
    );
}

#[test]
fn packed_varints_of_every_length_append_after_existing_values() {
    // Long enough for the ten-bytes-ahead loop and the tail; every length 1-10.
    let expected: Vec<u64> = (0..40).map(|i| value_of_len(i % 10 + 1)).collect();
    let mut values = vec![7u64];
    encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&packed_input(&expected)), &mut values).unwrap();
    assert_eq!(values[0], 7);
    assert_eq!(values[1..], expected);
}

/// A packed field's bytes: the length, then each value's varint.
fn packed_input(values: &[u64]) -> Vec<u8> {
    let varint = |v: u64| {
        let mut bytes = vec![0u8; fastrs::varint::len(v)];
        fastrs::varint::encode_exact(v, &mut bytes);
        bytes
    };
    let run: Vec<u8> = values.iter().flat_map(|&v| varint(v)).collect();
    let mut input = varint(run.len() as u64);
    input.extend_from_slice(&run);
    input
}

/// `values` written as a packed field and read back as `uint64`s.
fn packed_round_trip(values: &[u64]) -> Vec<u64> {
    let mut decoded = Vec::new();
    encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&packed_input(values)), &mut decoded).unwrap();
    decoded
}

/// A value whose varint takes `len` bytes (1 to 10).
fn value_of_len(len: u32) -> u64 {
    if len == 10 {
        u64::MAX
    } else {
        1 << (7 * (len - 1))
    }
}

#[test]
fn runs_of_same_length_varints_break_on_any_other_length() {
    // Ten n-byte values with one value of every other length at every
    // position, so a same-length run ends early, late and at the input's end.
    for n in 3..=8u32 {
        let same = |i: u64| value_of_len(n) + i;
        for other_len in (1..=10).filter(|&l| l != n) {
            let other = value_of_len(other_len);
            for at in 0..=10 {
                let mut expected: Vec<u64> = (0..10).map(same).collect();
                expected.insert(at, other);
                assert_eq!(
                    packed_round_trip(&expected),
                    expected,
                    "{n}-byte run, a {other_len}-byte value at {at}"
                );
            }
        }
    }
}

#[test]
fn runs_of_one_and_two_byte_varints_decode_in_blocks_at_every_length() {
    // Pseudo-random one- and two-byte values (blocks of 64 bytes, and the
    // values before and after them), every run length up to a few blocks.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for len in (0..300).step_by(if cfg!(miri) { 37 } else { 1 }) {
        let expected: Vec<u64> = (0..len)
            .map(|_| match next() % 4 {
                0 => next() % 0x80,
                1 => 0x80 + next() % (0x4000 - 0x80),
                2 => 0x3fff,
                _ => 0x80,
            })
            .collect();
        assert_eq!(packed_round_trip(&expected), expected, "{len} values");
    }
}

#[test]
fn every_two_byte_value_decodes_in_a_block() {
    let step = if cfg!(miri) { 97 } else { 1 };
    let expected: Vec<u64> = (0x80..0x4000).step_by(step).collect();
    assert_eq!(packed_round_trip(&expected), expected);
    let mut narrow = Vec::new();
    encoding::merge_packed::<encoding::Int32>(&mut Reader::new(&packed_input(&expected)), &mut narrow).unwrap();
    assert!(narrow.iter().map(|&v| v as u64).eq(expected.iter().copied()), "int32");
    // The sint types undo the zigzag for a whole block at once.
    let small: Vec<i64> = (-8192..8192i64).step_by(step).collect();
    let zigzagged: Vec<u64> = small.iter().map(|&v| fastrs::varint::zigzag64(v)).collect();
    let mut signed = Vec::new();
    encoding::merge_packed::<encoding::Sint64>(&mut Reader::new(&packed_input(&zigzagged)), &mut signed).unwrap();
    assert_eq!(signed, small);
    let mut signed32 = Vec::new();
    encoding::merge_packed::<encoding::Sint32>(&mut Reader::new(&packed_input(&zigzagged)), &mut signed32).unwrap();
    assert!(
        signed32.iter().map(|&v| i64::from(v)).eq(small.iter().copied()),
        "sint32"
    );
}

#[test]
fn a_longer_varint_anywhere_in_a_block_falls_back_to_one_at_a_time() {
    // 100 two-byte values with one value of three to ten bytes at every
    // position: in a block's first bytes, across its end, after it.
    for other_len in 3..=10u32 {
        let other = value_of_len(other_len);
        for at in (0..=100).step_by(if cfg!(miri) { 13 } else { 1 }) {
            let mut expected = vec![0x1234u64; 100];
            expected.insert(at, other);
            assert_eq!(
                packed_round_trip(&expected),
                expected,
                "a {other_len}-byte value at {at}"
            );
        }
    }
}

#[test]
fn a_bad_varint_after_blocks_is_reported_where_it_starts() {
    // 100 one- and two-byte values, then a truncated varint or one of eleven
    // bytes: the error's offset is the same as decoding one at a time.
    let good: Vec<u64> = (0..100).map(|i| if i % 3 == 0 { 300 } else { 5 }).collect();
    for (bad, kind) in [
        (&[0x80u8, 0x80][..], DecodeErrorKind::Truncated),
        (&[0xff; 11][..], DecodeErrorKind::VarintOverflow),
    ] {
        let mut input = packed_input(&good);
        let good_len = input.len() - 2; // after a two-byte length
        input.extend_from_slice(bad);
        let total = u16::try_from(good_len + bad.len()).unwrap();
        input[..2].copy_from_slice(&[0x80 | (total & 0x7f) as u8, (total >> 7) as u8]);
        let err = encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&input), &mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), kind);
        assert_eq!(err.offset(), 2 + good_len, "{kind:?}");
    }
}

#[test]
fn a_same_length_run_stops_at_a_truncated_varint() {
    // Four 5-byte values and then a varint cut short by the packed length.
    let mut input = packed_input(&[1 << 28; 4]);
    input.extend_from_slice(&[0x80, 0x80, 0x80]);
    input[0] += 3;
    let err = encoding::merge_packed::<encoding::Uint64>(&mut Reader::new(&input), &mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Truncated);
}

#[test]
fn runs_of_a_repeated_field_are_counted_up_to_another_field() {
    let long: Vec<u8> = [
        &b"\x0a\xc8\x01"[..],
        &[b'x'; 200],
        b"\x0a\xc8\x01",
        &[b'y'; 200],
        b"\x12\x00",
    ]
    .concat();
    let cases: [(&str, &[u8], u32, usize); 9] = [
        (
            "two-byte lengths (200-byte strings), twice, then field 2",
            &long,
            0x0a,
            2,
        ),
        (
            "a length in three bytes (not minimal), between one-byte ones",
            b"\x0a\x01a\x0a\x81\x80\x00b\x0a\x00",
            0x0a,
            3,
        ),
        ("a two-byte key cut after its first byte", b"\x82\x01\x01a\x82", 0x82, 1),
        (
            "field 1 strings: three in a row, then field 2, then field 1 again",
            b"\x0a\x01a\x0a\x00\x0a\x02bc\x10\x01\x0a\x01d",
            0x0a,
            3,
        ),
        (
            "a two-byte key (field 16) whose second value runs past the end, \
             which stops the count there (the decode itself reports it)",
            b"\x82\x01\x01a\x82\x01\x05ab",
            0x82,
            2,
        ),
        (
            "field 16, then field 32, whose key starts with the same byte",
            b"\x82\x01\x01a\x82\x01\x00\x82\x02\x01b",
            0x82,
            2,
        ),
        (
            "a three-byte key (field 2048), twice, then field 1",
            b"\x82\x80\x01\x01a\x82\x80\x01\x00\x0a\x00",
            0x4002,
            2,
        ),
        ("varints", b"\x08\x96\x01\x08\x01\x08\x7f", 0x08, 3),
        ("a lone value", b"\x0a\x00", 0x0a, 1),
    ];
    for (what, input, tag, expected) in cases {
        let mut r = Reader::new(input);
        assert_eq!(r.read_tag().unwrap(), tag, "{what}");
        assert_eq!(r.count_run(tag), expected, "{what}");
    }
}
