//! Hand-written `Message` impls that misbehave in safe code: encoding must
//! panic, never expose memory it did not write. `make miri` runs these under
//! Miri, which would report the undefined behaviour of reading uninitialised
//! bytes.
//!
//! Putting another writer in the place of the one an encoder hands out (with
//! `*w = ...` or `mem::swap`) was the way to do that; safe code cannot make a
//! `Writer` now, which `Writer`'s `compile_fail` doctest checks. What is
//! left to try is writing too little or too much, from `write_backward`
//! directly or inside `Writer::in_registers`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use fastrs::{DecodeError, Message, Reader, UnknownFields, Writer};

/// How `write_backward` misbehaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Trick {
    /// Writes what `size()` says: the control.
    #[default]
    Honest,
    /// Writes one byte fewer than `size()`.
    WriteLess,
    /// Writes one byte more than `size()`.
    WriteMore,
    /// Writes one byte fewer, inside `Writer::in_registers`.
    WriteLessInRegisters,
    /// Writes nothing and returns.
    WriteNothing,
}

#[derive(Debug, Default)]
struct Rogue {
    trick: Trick,
    unknown: UnknownFields,
}

impl Message for Rogue {
    const FULL_NAME: &'static str = "test.Rogue";

    fn size(&self) -> usize {
        4
    }

    fn write_backward(&self, w: &mut Writer<'_>) {
        match self.trick {
            Trick::Honest => w.put_slice(&[1, 2, 3, 4]),
            Trick::WriteLess => w.put_slice(&[1, 2, 3]),
            Trick::WriteMore => w.put_slice(&[1, 2, 3, 4, 5]),
            Trick::WriteLessInRegisters => w.in_registers(|local| local.put_slice(&[1, 2, 3])),
            Trick::WriteNothing => {}
        }
    }

    fn merge_from(&mut self, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        let rest = r.rest();
        self.unknown.push_field(8, rest);
        Ok(())
    }

    fn clear(&mut self) {
        self.unknown.clear();
    }

    fn unknown_fields(&self) -> &UnknownFields {
        &self.unknown
    }

    fn unknown_fields_mut(&mut self) -> &mut UnknownFields {
        &mut self.unknown
    }
}

/// Every way to encode `m`, each caught if it panics: the bytes, or `None`.
fn encodings(m: &Rogue) -> Vec<Option<Vec<u8>>> {
    let to_vec = catch_unwind(AssertUnwindSafe(|| m.encode_to_vec())).ok();
    let append = catch_unwind(AssertUnwindSafe(|| {
        let mut out = Vec::with_capacity(64);
        out.push(0xaa);
        m.encode_append(&mut out);
        out
    }))
    .ok();
    let slice = catch_unwind(AssertUnwindSafe(|| {
        let mut buf = [0u8; 4];
        m.fast_write(&mut buf);
        buf.to_vec()
    }))
    .ok();
    vec![to_vec, append, slice]
}

#[test]
fn an_honest_message_encodes() {
    let m = Rogue::default();
    assert_eq!(
        encodings(&m),
        [
            Some(vec![1, 2, 3, 4]),
            Some(vec![0xaa, 1, 2, 3, 4]),
            Some(vec![1, 2, 3, 4])
        ]
    );
}

#[test]
fn writing_less_or_more_than_size_panics() {
    for trick in [
        Trick::WriteLess,
        Trick::WriteMore,
        Trick::WriteLessInRegisters,
        Trick::WriteNothing,
    ] {
        let m = Rogue {
            trick,
            ..Default::default()
        };
        assert_eq!(encodings(&m), [None, None, None], "{trick:?}");
    }
}
