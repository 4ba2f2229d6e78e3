//! Which entries clearing visits, and the runs of implicit scalars it
//! zeroes at once: worked out when a table is made (`Table::new`, in a
//! constant), so that `run::clear` does no more than it must.
//!
//! An implicit scalar's default (an integer's, a float's, a bool's) is all
//! zero bytes, and a struct's scalars mostly sit side by side (rustc
//! orders fields by alignment). So clearing zeroes each run of scalar
//! fields that follow one another in the struct at once: the two longest
//! from the table ([`Table::scalars`](super::Table)) before it visits any
//! entry, any other at the run's first entry by offset ([`Raw::zero`]).
//! It steps over the entries of scalars that a run covers, and over those
//! it has nothing to do for, by a chain of indices ([`Raw::clear_next`]).
//! fastpb's Number, 13 scalars in two runs, visits no entry: its reused
//! decode went from 1,120 instructions to 1,013, where clearing had
//! visited each entry.

use super::{Entry, MemberAt, Op, Raw};

/// Tables of more entries than this zero each scalar field on its own:
/// finding runs compares scalar entries pairwise, work the compiler does
/// (tables are constants) that grows with the square of their number.
const MOST_TO_JOIN: usize = 256;

/// Bytes of a message to zero: a run of scalar fields.
#[derive(Clone, Copy, Default)]
pub(super) struct Zeroed {
    pub(super) offset: u32,
    pub(super) len: u32,
}

/// Sets [`Raw::zero`] and [`Raw::clear_next`] on `entries`, and returns the
/// index of the first entry that clearing visits and the two longest runs
/// of scalars (empty ones if fewer), which no entry zeroes.
///
/// # Panics
/// At compile time (tables are constants), for a table of more than 65,535
/// entries.
#[allow(clippy::cast_possible_truncation)] // checked, or at most 8 × `MOST_TO_JOIN`
pub(super) const fn plan<M>(entries: &mut [Entry<M>]) -> (u16, [Zeroed; 2]) {
    let n = entries.len();
    assert!(
        n <= u16::MAX as usize,
        "fastrs: a message has too many fields for a table"
    );
    let join = n <= MOST_TO_JOIN;
    let mut at = 0;
    while at < n {
        let start = entries[at].raw.offset as usize;
        let width = scalar_width(&entries[at].raw);
        // A run starts at a scalar that no other scalar ends at.
        if width > 0 && !(join && ending_at(entries, start)) {
            let mut end = start + width;
            if join {
                while let Some(next) = starting_at(entries, end) {
                    end += scalar_width(&entries[next].raw);
                }
            }
            entries[at].raw.zero = (end - start) as u16;
        }
        at += 1;
    }
    let scalars = [take_longest(entries), take_longest(entries)];
    let mut next = n as u16;
    while at > 0 {
        at -= 1;
        entries[at].raw.clear_next = next;
        if visited(&entries[at].raw) {
            next = at as u16;
        }
    }
    (next, scalars)
}

/// The longest run that an entry of `entries` zeroes (an empty one if
/// none), which it then no longer zeroes.
const fn take_longest<M>(entries: &mut [Entry<M>]) -> Zeroed {
    let (mut at, mut longest): (usize, Option<usize>) = (0, None);
    while at < entries.len() {
        let zero = entries[at].raw.zero;
        match longest {
            Some(l) if zero <= entries[l].raw.zero => {}
            _ if zero > 0 => longest = Some(at),
            _ => {}
        }
        at += 1;
    }
    match longest {
        Some(l) => {
            let raw = &mut entries[l].raw;
            let run = Zeroed {
                offset: raw.offset,
                len: raw.zero as u32,
            };
            raw.zero = 0;
            run
        }
        None => Zeroed { offset: 0, len: 0 },
    }
}

/// The size of the field of `e` if it is an implicit scalar, else 0.
pub(super) const fn scalar_width(e: &Raw) -> usize {
    match e.op.scalar() {
        Some(scalar) => scalar.width,
        None => 0,
    }
}

/// Whether a scalar field of `entries` ends at offset `end`.
const fn ending_at<M>(entries: &[Entry<M>], end: usize) -> bool {
    let mut at = 0;
    while at < entries.len() {
        let width = scalar_width(&entries[at].raw);
        if width > 0 && entries[at].raw.offset as usize + width == end {
            return true;
        }
        at += 1;
    }
    false
}

/// The entry of the scalar field of `entries` that starts at `start`, if
/// any.
const fn starting_at<M>(entries: &[Entry<M>], start: usize) -> Option<usize> {
    let mut at = 0;
    while at < entries.len() {
        if scalar_width(&entries[at].raw) > 0 && entries[at].raw.offset as usize == start {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// Whether clearing has something to do at `e` (it has not for the
/// members of a oneof's run after its first, which the first clears, and
/// for the scalars that a run zeroed elsewhere covers).
const fn visited(e: &Raw) -> bool {
    match e.op {
        Op::HookRead(_) | Op::CheckedUtf8 | Op::Member(MemberAt { run: None, .. }) => false,
        _ => scalar_width(e) == 0 || e.zero > 0,
    }
}
