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

/// Reads a message with plain `for` loops, as users write them (`next`
/// one value at a time, where [`ReadAll`] folds).
pub trait ReadFor {
    fn read_for(&self) -> u64;
}

/// A message read by [`ReadFor`].
pub struct ForLoop<M>(pub M);

impl<M: ReadFor> ReadAll for ForLoop<M> {
    fn read_all(&self) -> u64 {
        self.0.read_for()
    }
}

/// A repeated integer field, read in a `for` loop over a reference to it.
macro_rules! int_lists_for {
    ($($ty:ty),*) => {$(
        impl ReadFor for $ty {
            fn read_for(&self) -> u64 {
                let mut sum = 0;
                for v in &self.values {
                    sum = add(sum, v.bits());
                }
                sum
            }
        }
    )*};
}

macro_rules! all_int_lists_for {
    ($($list:ident),*) => {$(
        int_lists_for!(
            pb::bench::ints::$list,
            fast::bench::ints::$list,
            <fast::bench::ints::$list as fastrs::HasView>::View<'_>,
            <bf::bench::ints::$list as buffa::HasMessageView>::View<'_>
        );
    )*};
}

all_int_lists_for!(Int64List, Uint64List, Sint64List, Fixed64List, Sfixed64List);
int_lists_for!(qp::bench::ints::Int64List, qp::bench::ints::Sint64List);

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
    (for $($rest:tt)*) => { $crate::read::read_rows!(@wrap $crate::read::ForLoop, $($rest)*) };
    (@wrap $wrap:path, $payloads:expr, $($path:ident)::+ $(, $quick:ty)?) => {{
        let payloads: &[Vec<u8>] = $payloads;
        let expected: Vec<u64> = payloads
            .iter()
            .map(|p| $crate::read::ReadAll::read_all(&<pb::$($path)::+ as prost::Message>::decode(&p[..]).unwrap()))
            .collect();
        #[allow(unused_mut)]
        let mut libs = vec![
            $crate::read::op("prost", payloads, &expected, |p| {
                $wrap(<pb::$($path)::+ as prost::Message>::decode(p).unwrap())
            }),
            $crate::read::op("fastrs", payloads, &expected, |p| {
                $wrap(<fast::$($path)::+ as fastrs::Message>::decode(p).unwrap())
            }),
            $crate::read::op("fastrs view", payloads, &expected, |p| {
                $wrap(<<fast::$($path)::+ as fastrs::HasView>::View<'static> as fastrs::View>::decode(p).unwrap())
            }),
            $crate::read::op("buffa view", payloads, &expected, |p| {
                $wrap(<<bf::$($path)::+ as buffa::HasMessageView>::View<'static> as buffa::MessageView>::decode_view(p).unwrap())
            }),
        ];
        $(libs.push($crate::read::op("quick", payloads, &expected, |p| {
            let mut r = quick_protobuf::BytesReader::from_bytes(p);
            $wrap(<$quick as quick_protobuf::MessageRead>::from_reader(&mut r, p).unwrap())
        }));)?
        libs
    }};
    ($($rest:tt)*) => { $crate::read::read_rows!(@wrap core::convert::identity, $($rest)*) };
}
pub(crate) use read_rows;

/// An optional message field, whatever a library holds it in.
trait Opt<T> {
    fn opt(&self) -> Option<&T>;
}

impl<T> Opt<T> for Option<T> {
    fn opt(&self) -> Option<&T> {
        self.as_ref()
    }
}

impl<V> Opt<V> for buffa::MessageFieldView<V> {
    fn opt(&self) -> Option<&V> {
        self.as_option()
    }
}

/// An enum field's number, whatever a library holds it in.
trait Number {
    fn number(&self) -> u64;
}

impl Number for i32 {
    fn number(&self) -> u64 {
        *self as u64
    }
}

impl<E: fastrs::Enum> Number for fastrs::EnumValue<E> {
    fn number(&self) -> u64 {
        self.to_i32() as u64
    }
}

impl<E: buffa::Enumeration> Number for buffa::EnumValue<E> {
    fn number(&self) -> u64 {
        self.to_i32() as u64
    }
}

impl Number for qp::bench::telemetry::SpanKind {
    fn number(&self) -> u64 {
        *self as i32 as u64
    }
}

impl Number for qp::bench::telemetry::StatusCode {
    fn number(&self) -> u64 {
        *self as i32 as u64
    }
}

/// The sum of each element's reading (elements or references to them).
fn each<T: ReadAll>(items: impl Iterator<Item = impl core::borrow::Borrow<T>>) -> u64 {
    items.fold(0, |s, item| add(s, item.borrow().read_all()))
}

fn opt<T: ReadAll>(field: &impl Opt<T>) -> u64 {
    field.opt().map_or(0, ReadAll::read_all)
}

/// The telemetry messages but `AnyValue` (whose oneof each library spells
/// its own way), for one library: `$t` maps a message name to its type.
macro_rules! telemetry {
    ($($lib:ident: $t:ident;)*) => {$(
        mod $lib {
            use super::*;

            impl ReadAll for $t!(ExportRequest) {
                fn read_all(&self) -> u64 {
                    each::<$t!(ResourceSpans)>(self.resource_spans.iter())
                }
            }
            impl ReadAll for $t!(ResourceSpans) {
                fn read_all(&self) -> u64 {
                    let scopes = each::<$t!(ScopeSpans)>(self.scope_spans.iter());
                    add(add(opt::<$t!(Resource)>(&self.resource), scopes), self.schema_url.len() as u64)
                }
            }
            impl ReadAll for $t!(Resource) {
                fn read_all(&self) -> u64 {
                    add(each::<$t!(KeyValue)>(self.attributes.iter()), self.dropped_attributes_count as u64)
                }
            }
            impl ReadAll for $t!(ScopeSpans) {
                fn read_all(&self) -> u64 {
                    let spans = each::<$t!(Span)>(self.spans.iter());
                    add(add(opt::<$t!(Scope)>(&self.scope), spans), self.schema_url.len() as u64)
                }
            }
            impl ReadAll for $t!(Scope) {
                fn read_all(&self) -> u64 {
                    let attributes = each::<$t!(KeyValue)>(self.attributes.iter());
                    [self.name.len() as u64, self.version.len() as u64, attributes, self.dropped_attributes_count as u64]
                        .into_iter()
                        .fold(0, add)
                }
            }
            impl ReadAll for $t!(Span) {
                fn read_all(&self) -> u64 {
                    [
                        self.trace_id.len() as u64,
                        self.span_id.len() as u64,
                        self.trace_state.len() as u64,
                        self.parent_span_id.len() as u64,
                        self.name.len() as u64,
                        self.kind.number(),
                        self.start_time_unix_nano,
                        self.end_time_unix_nano,
                        each::<$t!(KeyValue)>(self.attributes.iter()),
                        self.dropped_attributes_count as u64,
                        each::<$t!(Event)>(self.events.iter()),
                        self.dropped_events_count as u64,
                        each::<$t!(Link)>(self.links.iter()),
                        self.dropped_links_count as u64,
                        opt::<$t!(Status)>(&self.status),
                        self.flags as u64,
                    ]
                    .into_iter()
                    .fold(0, add)
                }
            }
            impl ReadAll for $t!(Event) {
                fn read_all(&self) -> u64 {
                    let attributes = each::<$t!(KeyValue)>(self.attributes.iter());
                    [self.time_unix_nano, self.name.len() as u64, attributes, self.dropped_attributes_count as u64]
                        .into_iter()
                        .fold(0, add)
                }
            }
            impl ReadAll for $t!(Link) {
                fn read_all(&self) -> u64 {
                    [
                        self.trace_id.len() as u64,
                        self.span_id.len() as u64,
                        self.trace_state.len() as u64,
                        each::<$t!(KeyValue)>(self.attributes.iter()),
                        self.dropped_attributes_count as u64,
                        self.flags as u64,
                    ]
                    .into_iter()
                    .fold(0, add)
                }
            }
            impl ReadAll for $t!(Status) {
                fn read_all(&self) -> u64 {
                    add(self.message.len() as u64, self.code.number())
                }
            }
            impl ReadAll for $t!(KeyValue) {
                fn read_all(&self) -> u64 {
                    add(self.key.len() as u64, opt::<$t!(AnyValue)>(&self.value))
                }
            }
            impl ReadAll for $t!(ArrayValue) {
                fn read_all(&self) -> u64 {
                    each::<$t!(AnyValue)>(self.values.iter())
                }
            }
            impl ReadAll for $t!(KeyValueList) {
                fn read_all(&self) -> u64 {
                    each::<$t!(KeyValue)>(self.values.iter())
                }
            }
        }
    )*};
}

macro_rules! prost_t {
    ($name:ident) => {
        pb::bench::telemetry::$name
    };
}
macro_rules! fastrs_t {
    ($name:ident) => {
        fast::bench::telemetry::$name
    };
}
macro_rules! fastrs_view_t {
    ($name:ident) => { <fast::bench::telemetry::$name as fastrs::HasView>::View<'_> };
}
macro_rules! buffa_view_t {
    ($name:ident) => { <bf::bench::telemetry::$name as buffa::HasMessageView>::View<'_> };
}
macro_rules! quick_t {
    ($name:ident) => { qp::bench::telemetry::$name<'_> };
}

telemetry! {
    prost_telemetry: prost_t;
    fastrs_telemetry: fastrs_t;
    fastrs_view_telemetry: fastrs_view_t;
    buffa_view_telemetry: buffa_view_t;
    quick_telemetry: quick_t;
}

/// An `AnyValue`'s value, in one library's spelling of the oneof.
macro_rules! any_value {
    ($($ty:ty => $path:path, $array:ty, $list:ty;)*) => {$(
        impl ReadAll for $ty {
            fn read_all(&self) -> u64 {
                use $path as V;
                match self.value.as_ref() {
                    Some(V::StringValue(s)) => s.len() as u64,
                    Some(V::BoolValue(b)) => *b as u64,
                    Some(V::IntValue(i)) => *i as u64,
                    Some(V::DoubleValue(d)) => d.to_bits(),
                    Some(V::ArrayValue(a)) => <$array as ReadAll>::read_all(a),
                    Some(V::KvlistValue(l)) => <$list as ReadAll>::read_all(l),
                    Some(V::BytesValue(b)) => b.len() as u64,
                    None => 0,
                }
            }
        }
    )*};
}

any_value! {
    prost_t!(AnyValue) => pb::bench::telemetry::any_value::Value,
        prost_t!(ArrayValue), prost_t!(KeyValueList);
    fastrs_t!(AnyValue) => fast::bench::telemetry::any_value::Value,
        fastrs_t!(ArrayValue), fastrs_t!(KeyValueList);
    fastrs_view_t!(AnyValue) => fast::bench::telemetry::any_value::ValueView, fastrs_view_t!(ArrayValue), fastrs_view_t!(KeyValueList);
    buffa_view_t!(AnyValue) => bf::bench::telemetry::__buffa::view::oneof::any_value::Value, buffa_view_t!(ArrayValue),
        buffa_view_t!(KeyValueList);
}

impl ReadAll for quick_t!(AnyValue) {
    fn read_all(&self) -> u64 {
        use qp::bench::telemetry::mod_AnyValue::OneOfvalue as V;
        match &self.value {
            V::string_value(s) => s.len() as u64,
            V::bool_value(b) => *b as u64,
            V::int_value(i) => *i as u64,
            V::double_value(d) => d.to_bits(),
            V::array_value(a) => a.read_all(),
            V::kvlist_value(l) => l.read_all(),
            V::bytes_value(b) => b.len() as u64,
            V::None => 0,
        }
    }
}
