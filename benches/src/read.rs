//! Decode, then read every field once: the rows that show what a user who
//! reads what they decoded pays. Views decode lazily, so decode-only rows
//! flatter them; here every integer is summed, every repeated element and
//! map entry visited, every nested message entered, every string and byte
//! string's length taken. The traversal is written the same way for each
//! library, and every library's sum is checked against prost's before
//! anything is timed.

use std::hint::black_box;

use crate::harness::{sink, Cycle, Op};
use crate::{bf, fast, pb, qp};

/// Reads every field of a decoded message (or view) once, into a sum.
pub trait ReadAll {
    fn read_all(&self) -> u64;
}

fn add(sum: u64, v: u64) -> u64 {
    sum.wrapping_add(v)
}

/// A repeated integer field, read by the library's own iterator.
macro_rules! int_lists {
    ($($list:ident),*) => {$(
        impl ReadAll for pb::bench::ints::$list {
            fn read_all(&self) -> u64 {
                self.values.iter().fold(0, |s, &v| add(s, v as u64))
            }
        }
        impl ReadAll for fast::bench::ints::$list {
            fn read_all(&self) -> u64 {
                self.values.iter().fold(0, |s, &v| add(s, v as u64))
            }
        }
        impl ReadAll for <fast::bench::ints::$list as fastrs::HasView>::View<'_> {
            fn read_all(&self) -> u64 {
                self.values.iter().fold(0, |s, v| add(s, v as u64))
            }
        }
        impl ReadAll for <bf::bench::ints::$list as buffa::HasMessageView>::View<'_> {
            fn read_all(&self) -> u64 {
                self.values.iter().fold(0, |s, &v| add(s, v as u64))
            }
        }
    )*};
}

int_lists!(Int64List, Uint64List, Sint64List, Fixed64List, Sfixed64List);

macro_rules! quick_lists {
    ($($list:ty),*) => {$(
        impl ReadAll for $list {
            fn read_all(&self) -> u64 {
                self.values.iter().fold(0, |s, &v| add(s, v as u64))
            }
        }
    )*};
}

quick_lists!(qp::bench::ints::Int64List, qp::bench::ints::Sint64List);

/// A chain of nodes: each level's value and string, then its child.
macro_rules! nodes {
    ($($ty:ty => |$n:ident| $child:expr;)*) => {$(
        impl ReadAll for $ty {
            fn read_all(&self) -> u64 {
                let $n = self;
                add(add($n.v as u64, $n.s.len() as u64), $child)
            }
        }
    )*};
}

nodes! {
    pb::bench::nested::Node => |n| n.child.as_deref().map_or(0, ReadAll::read_all);
    fast::bench::nested::Node => |n| n.child.as_deref().map_or(0, ReadAll::read_all);
    <fast::bench::nested::Node as fastrs::HasView>::View<'_> => |n| n.child.as_ref().map_or(0, |c| c.get().read_all());
    <bf::bench::nested::Node as buffa::HasMessageView>::View<'_> => |n| n.child.as_option().map_or(0, ReadAll::read_all);
    qp::bench::nested::Node<'_> => |n| n.child.as_deref().map_or(0, ReadAll::read_all);
}

/// An integer as its 64 bits.
trait Bits: Copy {
    fn bits(self) -> u64;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn bits(self) -> u64 {
                self as u64
            }
        }
        impl Bits for &$t {
            fn bits(self) -> u64 {
                *self as u64
            }
        }
    )*};
}

bits!(i32, i64, u32, u64);

/// A map of integers: every key and value.
fn int_map<K: Bits, V: Bits>(entries: impl IntoIterator<Item = (K, V)>) -> u64 {
    entries
        .into_iter()
        .fold(0, |s, (k, v)| add(s, k.bits() ^ v.bits().rotate_left(7)))
}

/// A map of strings to bytes, as the lengths of every key and value.
fn len_map(entries: impl IntoIterator<Item = (usize, usize)>) -> u64 {
    entries
        .into_iter()
        .fold(0, |s, (k, v)| add(s, (k as u64) << 32 | v as u64))
}

/// fastpb's map message: five integer maps and one of strings to bytes.
/// `$entries` turns a field into (key, value) pairs, `$lens` into lengths.
macro_rules! maps {
    ($($ty:ty => |$f:ident| $entries:expr, $lens:expr;)*) => {$(
        impl ReadAll for $ty {
            fn read_all(&self) -> u64 {
                let m = self;
                let ints = [
                    { let $f = &m.field1; int_map($entries) },
                    { let $f = &m.field2; int_map($entries) },
                    { let $f = &m.field3; int_map($entries) },
                    { let $f = &m.field4; int_map($entries) },
                    { let $f = &m.field5; int_map($entries) },
                ];
                let $f = &m.field6;
                ints.into_iter().fold(len_map($lens), add)
            }
        }
    )*};
}

maps! {
    pb::benchmark::Map => |f| f, f.iter().map(|(k, v)| (k.len(), v.len()));
    fast::benchmark::Map => |f| f, f.iter().map(|(k, v)| (k.len(), v.len()));
    <fast::benchmark::Map as fastrs::HasView>::View<'_> => |f| f.iter(), f.iter().map(|(k, v)| (k.len(), v.len()));
    <bf::benchmark::Map as buffa::HasMessageView>::View<'_> => |f| f.iter().map(|&(k, v)| (k, v)), f.iter().map(|(k, v)| (k.len(), v.len()));
    qp::benchmark::Map<'_> => |f| f, f.iter().map(|(k, v)| (k.len(), v.len()));
}

/// The payloads, leaked so that borrowed messages of them can be `'static`.
fn leaked(payloads: &[Vec<u8>]) -> Vec<&'static [u8]> {
    payloads
        .iter()
        .map(|p| &*Box::leak(p.clone().into_boxed_slice()))
        .collect()
}

/// One library's decode-and-read, after checking its sums against `expected`.
pub(crate) fn op<M: ReadAll>(
    lib: &'static str,
    payloads: &[Vec<u8>],
    expected: &[u64],
    decode: impl Fn(&'static [u8]) -> M + 'static,
) -> [Op; 3] {
    let inputs = leaked(payloads);
    for (&p, &sum) in inputs.iter().zip(expected) {
        assert_eq!(decode(p).read_all(), sum, "{lib} reads what prost reads");
    }
    let mut inputs = Cycle::new(inputs);
    let n = inputs.period();
    [
        Op::skipped(),
        Op::cycling(lib, n, move || sink(decode(black_box(*inputs.next_item())).read_all())),
        Op::skipped(),
    ]
}

/// Every library's decode-and-read of one message type; `$quick` is left
/// out where quick-protobuf cannot read the payload (see the suite).
macro_rules! read_rows {
    ($payloads:expr, $($path:ident)::+ $(, $quick:ty)?) => {{
        let payloads: &[Vec<u8>] = $payloads;
        let expected: Vec<u64> = payloads
            .iter()
            .map(|p| $crate::read::ReadAll::read_all(&<pb::$($path)::+ as prost::Message>::decode(&p[..]).unwrap()))
            .collect();
        #[allow(unused_mut)]
        let mut libs = vec![
            $crate::read::op("prost", payloads, &expected, |p| {
                <pb::$($path)::+ as prost::Message>::decode(p).unwrap()
            }),
            $crate::read::op("fastrs", payloads, &expected, |p| {
                <fast::$($path)::+ as fastrs::Message>::decode(p).unwrap()
            }),
            $crate::read::op("fastrs view", payloads, &expected, |p| {
                <<fast::$($path)::+ as fastrs::HasView>::View<'static> as fastrs::View>::decode(p).unwrap()
            }),
            $crate::read::op("buffa view", payloads, &expected, |p| {
                <<bf::$($path)::+ as buffa::HasMessageView>::View<'static> as buffa::MessageView>::decode_view(p).unwrap()
            }),
        ];
        $(libs.push($crate::read::op("quick", payloads, &expected, |p| {
            let mut r = quick_protobuf::BytesReader::from_bytes(p);
            <$quick as quick_protobuf::MessageRead>::from_reader(&mut r, p).unwrap()
        }));)?
        libs
    }};
}
pub(crate) use read_rows;
