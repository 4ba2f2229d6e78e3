//! Hand-written `Message` impls that misbehave in safe code: encoding must
//! panic, never expose memory it did not write. `make miri` runs these under
//! Miri, which would report the undefined behaviour of reading uninitialised
//! bytes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use fastrs::{DecodeError, Message, Reader, UnknownFields, Writer};

/// How `write_backward` misbehaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Trick {
    /// Writes what `size()` says: the control.
    #[default]
    Honest,
    /// Puts a writer over its own (empty) memory in place of the one given.
    ReplaceWithEmpty,
    /// Puts a writer over its own memory in place of the one given, after
    /// filling that memory.
    ReplaceWithFilled,
    /// Does the same inside `Writer::in_registers`.
    ReplaceInRegisters,
    /// Writes one byte fewer than `size()`.
    WriteLess,
    /// Writes one byte more than `size()`.
    WriteMore,
}

#[derive(Debug, Default)]
struct Rogue {
    trick: Trick,
    unknown: UnknownFields,
}

/// A writer over memory that outlives any encode, so it can be put in the
/// place of any writer: an empty array, or leaked memory.
fn foreign_writer<'a>(len: usize) -> Writer<'a> {
    if len == 0 {
        return Writer::new(&mut []);
    }
    let memory: &'static mut [u8] = Box::leak(vec![0u8; len].into_boxed_slice());
    Writer::new(memory)
}

/// The tricks that swap writers. Miri reports the leaked memory of
/// `ReplaceWithFilled` as a leak, so under Miri it runs natively only.
const SWAPS: &[Trick] = if cfg!(miri) {
    &[Trick::ReplaceWithEmpty, Trick::ReplaceInRegisters]
} else {
    &[
        Trick::ReplaceWithEmpty,
        Trick::ReplaceWithFilled,
        Trick::ReplaceInRegisters,
    ]
};

impl Message for Rogue {
    const FULL_NAME: &'static str = "test.Rogue";

    fn size(&self) -> usize {
        4
    }

    fn write_backward(&self, w: &mut Writer<'_>) {
        match self.trick {
            Trick::Honest => w.put_slice(&[1, 2, 3, 4]),
            Trick::ReplaceWithEmpty => *w = foreign_writer(0),
            Trick::ReplaceWithFilled => {
                let mut mine = foreign_writer(4);
                mine.put_slice(&[9, 9, 9, 9]);
                *w = mine;
            }
            Trick::ReplaceInRegisters => w.in_registers(|local| *local = foreign_writer(0)),
            Trick::WriteLess => w.put_slice(&[1, 2, 3]),
            Trick::WriteMore => w.put_slice(&[1, 2, 3, 4, 5]),
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
fn a_writer_swapped_in_by_write_backward_is_caught_before_any_byte_is_exposed() {
    for &trick in SWAPS {
        let m = Rogue {
            trick,
            ..Default::default()
        };
        assert_eq!(encodings(&m), [None, None, None], "{trick:?}: every encoder panics");
    }
}

#[test]
fn writing_less_or_more_than_size_panics() {
    for trick in [Trick::WriteLess, Trick::WriteMore] {
        let m = Rogue {
            trick,
            ..Default::default()
        };
        assert_eq!(encodings(&m), [None, None, None], "{trick:?}");
    }
}
