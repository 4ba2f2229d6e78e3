//! The three operations of each library on one payload: encode into a reused
//! buffer, decode into a fresh message, and decode into a reused, cleared one.
//! Every library starts from the same encoded payload.

use std::hint::black_box;

use crate::harness::{sink, Cycle, Op};

/// Copies of `payloads` to go through in turn.
fn payload_cycle(payloads: &[Vec<u8>]) -> Cycle<Vec<u8>> {
    Cycle::new(payloads.to_vec())
}

/// An encode buffer with room for the largest payload, so no library grows it.
fn encode_buffer(payloads: &[Vec<u8>]) -> Vec<u8> {
    Vec::with_capacity(payloads.iter().map(Vec::len).max().unwrap_or(0) * 2)
}

/// One library's three operations over `payloads`: encode each decoded
/// payload into a reused buffer, decode into a fresh message, and clear one
/// reused message and merge into it (`clear_merge`). With several payloads,
/// each call takes the next, and the reused message is one message for all
/// of them, as in a service.
fn library<M, D, E, R>(lib: &'static str, payloads: &[Vec<u8>], decode: D, encode: E, clear_merge: R) -> [Op; 3]
where
    M: Default + 'static,
    D: Fn(&[u8]) -> M + Copy + 'static,
    E: Fn(&M, &mut Vec<u8>) + 'static,
    R: Fn(&mut M, &[u8]) + 'static,
{
    let mut messages = Cycle::new(payloads.iter().map(|p| decode(p)).collect());
    let mut buf = encode_buffer(payloads);
    let (mut p1, mut p2) = (payload_cycle(payloads), payload_cycle(payloads));
    let mut reused = M::default();
    let n = messages.period();
    [
        Op::cycling(lib, n, move || {
            buf.clear();
            encode(black_box(&*messages.next_item()), &mut buf);
            sink(&buf);
        }),
        Op::cycling(lib, n, move || sink(decode(black_box(p1.next_item())))),
        Op::cycling(lib, n, move || {
            clear_merge(&mut reused, black_box(p2.next_item()));
            sink(&reused);
        }),
    ]
}

/// fastrs (see [`library`]).
pub fn fastrs<M: fastrs::Message + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    fastrs_as::<M>("fastrs", payloads)
}

/// fastrs in size mode: the same calls on size-mode generated code.
pub fn fastrs_size<M: fastrs::Message + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    fastrs_as::<M>("fastrs size", payloads)
}

fn fastrs_as<M: fastrs::Message + 'static>(lib: &'static str, payloads: &[Vec<u8>]) -> [Op; 3] {
    library(
        lib,
        payloads,
        |p| M::decode(p).expect("fastrs decodes the payload"),
        |m: &M, buf| m.encode_append(buf),
        |m: &mut M, p| {
            m.clear();
            m.fast_read(p).unwrap();
        },
    )
}

/// prost (see [`library`]).
pub fn prost<M: prost::Message + Default + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    library(
        "prost",
        payloads,
        |p| M::decode(p).expect("prost decodes the payload"),
        |m: &M, buf| m.encode(buf).unwrap(),
        |m: &mut M, p| {
            m.clear();
            m.merge(p).unwrap();
        },
    )
}

/// buffa, owned messages (see [`library`]).
pub fn buffa<M: buffa::Message + Default + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    library(
        "buffa",
        payloads,
        |p| M::decode_from_slice(p).expect("buffa decodes the payload"),
        |m: &M, buf| m.encode(buf),
        |m: &mut M, p| {
            m.clear();
            m.merge_from_slice(p).unwrap();
        },
    )
}

/// quick-protobuf (borrowed messages that point into the payload; it has no
/// merge into an existing message, so "decode (reused)" is not measured).
pub fn quick<M>(payloads: &[Vec<u8>]) -> [Op; 3]
where
    M: quick_protobuf::MessageRead<'static> + quick_protobuf::MessageWrite + 'static,
{
    // The payloads live as long as the benchmark; borrowing them needs 'static.
    let owned: Vec<&'static [u8]> = payloads
        .iter()
        .map(|p| &*Box::leak(p.clone().into_boxed_slice()))
        .collect();
    let read = |bytes: &'static [u8]| M::from_reader(&mut quick_protobuf::BytesReader::from_bytes(bytes), bytes);
    let decoded = owned.iter().map(|&p| read(p).expect("quick-protobuf decodes"));
    let mut messages = Cycle::new(decoded.collect());
    let mut buf = encode_buffer(payloads);
    let mut bytes = Cycle::new(owned);
    let n = messages.period();
    [
        Op::cycling("quick", n, move || {
            buf.clear();
            let mut w = quick_protobuf::Writer::new(&mut buf);
            black_box(&*messages.next_item()).write_message(&mut w).unwrap();
            sink(&buf);
        }),
        Op::cycling("quick", n, move || sink(read(black_box(*bytes.next_item())).unwrap())),
        Op::skipped(),
    ]
}

/// The payloads, leaked so that views of them can be `'static`: they live
/// as long as the benchmark.
fn leaked(payloads: &[Vec<u8>]) -> Vec<&'static [u8]> {
    payloads
        .iter()
        .map(|p| &*Box::leak(p.clone().into_boxed_slice()))
        .collect()
}

/// fastrs's zero-copy views: decode a view (the whole input checked, as
/// owned decoding does) and encode one (it writes the bytes it was read
/// from). There is nothing to reuse.
pub fn fastrs_view<V: fastrs::View<'static> + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    let bytes = leaked(payloads);
    let read = |b: &'static [u8]| V::decode(b).expect("fastrs decodes the view");
    let mut views = Cycle::new(bytes.iter().map(|&b| read(b)).collect());
    let mut buf = encode_buffer(payloads);
    let mut inputs = Cycle::new(bytes);
    let n = views.period();
    [
        Op::cycling("fastrs view", n, move || {
            buf.clear();
            black_box(&*views.next_item()).encode_append(&mut buf);
            sink(&buf);
        }),
        Op::cycling("fastrs view", n, move || sink(read(black_box(*inputs.next_item())))),
        Op::skipped(),
    ]
}

/// fastrs's view of a page, its items then collected into one exactly
/// sized `Vec` of item views: the alternative to iterating them lazily
/// (each item is then read twice, once to check it, once to collect it).
pub fn fastrs_view_collected(payloads: &[Vec<u8>]) -> [Op; 3] {
    use crate::fast::bench::page::PageView;
    let mut inputs = Cycle::new(leaked(payloads));
    let n = inputs.period();
    [
        Op::skipped(),
        Op::cycling("fastrs view (Vec)", n, move || {
            let page = PageView::decode(black_box(*inputs.next_item())).expect("decodes");
            let items = page.items.to_vec();
            sink((page, items));
        }),
        Op::skipped(),
    ]
}

/// buffa's (eager) views: decode checks the whole input, as fastrs's does.
pub fn buffa_view<V: buffa::ViewEncode<'static> + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    let bytes = leaked(payloads);
    let read = |b: &'static [u8]| V::decode_view(b).expect("buffa decodes the view");
    let mut views = Cycle::new(bytes.iter().map(|&b| read(b)).collect());
    let mut buf = encode_buffer(payloads);
    let mut inputs = Cycle::new(bytes);
    let n = views.period();
    [
        Op::cycling("buffa view", n, move || {
            buf.clear();
            black_box(&*views.next_item()).encode(&mut buf);
            sink(&buf);
        }),
        Op::cycling("buffa view", n, move || sink(read(black_box(*inputs.next_item())))),
        Op::skipped(),
    ]
}

/// fastrs with `bytes` fields held as `bytes::Bytes`, decoded from a shared
/// buffer (`decode_shared`: those fields are slices of it). Cloning the
/// buffer handle per call is part of what is measured, as a server would.
pub fn fastrs_shared<M: fastrs::Message + 'static>(payloads: &[Vec<u8>]) -> [Op; 3] {
    let shared: Vec<fastrs::bytes::Bytes> = payloads.iter().map(|p| p.clone().into()).collect();
    let read = |b: &fastrs::bytes::Bytes| M::decode_shared(b).expect("fastrs decodes the payload");
    let mut messages = Cycle::new(shared.iter().map(read).collect());
    let mut buf = encode_buffer(payloads);
    let mut inputs = Cycle::new(shared);
    let n = messages.period();
    [
        Op::cycling("fastrs (Bytes)", n, move || {
            buf.clear();
            black_box(&*messages.next_item()).encode_append(&mut buf);
            sink(&buf);
        }),
        Op::cycling("fastrs (Bytes)", n, move || {
            sink(read(black_box(&inputs.next_item().clone())))
        }),
        Op::skipped(),
    ]
}

/// The memcpy floor: copying the payload, for every operation.
pub fn memcpy(payloads: &[Vec<u8>]) -> [Op; 3] {
    let copy = || {
        let mut p = payload_cycle(payloads);
        let mut buf = encode_buffer(payloads);
        Op::cycling("memcpy", p.period(), move || {
            buf.clear();
            buf.extend_from_slice(black_box(p.next_item()));
            sink(&buf);
        })
    };
    [copy(), copy(), copy()]
}

/// The JSON reference for workload 1: serde_json on `{"values": [...]}`
/// (encode into a reused buffer, decode into a fresh and a reused `Vec`).
pub fn serde_json_list(values: Vec<i64>) -> [Op; 3] {
    let mut buf = Vec::with_capacity(values.len() * 24);
    let text = serde_json::to_vec(&serde_json::json!({ "values": values })).expect("JSON encodes");
    let text2 = text.clone();
    let mut reused: Vec<i64> = Vec::with_capacity(values.len());
    [
        Op::new("serde_json", move || {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&ValuesRef(&values))).unwrap();
            sink(&buf);
        }),
        Op::new("serde_json", move || {
            sink(serde_json::from_slice::<Values>(black_box(&text)).unwrap())
        }),
        Op::new("serde_json", move || {
            reused.clear();
            let parsed: Values = serde_json::from_slice(black_box(&text2)).unwrap();
            reused.extend(parsed.values);
            sink(&reused);
        }),
    ]
}

/// `{"values": [...]}` borrowed, for encoding.
struct ValuesRef<'a>(&'a [i64]);

impl serde::Serialize for ValuesRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Values", 1)?;
        st.serialize_field("values", self.0)?;
        st.end()
    }
}

/// `{"values": [...]}` owned, for decoding.
struct Values {
    values: Vec<i64>,
}

impl<'de> serde::Deserialize<'de> for Values {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Values;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("{\"values\": [...]}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Values, A::Error> {
                let mut values = Vec::new();
                while let Some(key) = map.next_key::<&str>()? {
                    if key == "values" {
                        values = map.next_value()?;
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(Values { values })
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// The hand-written floor for workload 1's varint lists: a minimal loop over
/// the packed varints, into and out of preallocated buffers.
pub fn hand_varints(payload: &[u8]) -> [Op; 3] {
    let mut values = Vec::new();
    hand_decode(payload, &mut values);
    let mut out = Vec::with_capacity(payload.len());
    let decode = |payload: &[u8]| {
        let p = payload.to_vec();
        let mut values = Vec::with_capacity(1000);
        Op::new("hand", move || {
            values.clear();
            hand_decode(black_box(&p), &mut values);
            sink(&values);
        })
    };
    [
        Op::new("hand", move || {
            out.clear();
            hand_encode(black_box(&values), &mut out);
            sink(&out);
        }),
        decode(payload),
        decode(payload),
    ]
}

fn hand_decode(payload: &[u8], values: &mut Vec<u64>) {
    // Tag (1 byte), length (varint), then the run.
    let mut i = 1;
    let mut len = 0usize;
    let mut shift = 0;
    loop {
        let b = payload[i];
        i += 1;
        len |= usize::from(b & 0x7f) << shift;
        shift += 7;
        if b < 0x80 {
            break;
        }
    }
    let run = &payload[i..i + len];
    let mut v = 0u64;
    let mut shift = 0;
    for &b in run {
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            values.push(v);
            v = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
}

fn hand_encode(values: &[u64], out: &mut Vec<u8>) {
    let len: usize = values.iter().map(|&v| fastrs::varint::len(v)).sum();
    out.push(0x0a);
    let mut l = len as u64;
    while l >= 0x80 {
        out.push(l as u8 | 0x80);
        l >>= 7;
    }
    out.push(l as u8);
    for &v in values {
        let mut v = v;
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
}

/// fastrs on a deep chain: decoding raises the recursion limit to `depth`.
pub fn fastrs_deep<M: fastrs::Message + 'static>(payload: &[u8], depth: usize) -> [Op; 3] {
    let options = fastrs::DecodeOptions {
        recursion_limit: depth as u32 + 1,
        ..Default::default()
    };
    let mut m = M::default();
    m.fast_read_with(payload, &options).expect("fastrs decodes the chain");
    let mut buf = Vec::with_capacity(payload.len() * 2);
    let (p1, p2) = (payload.to_vec(), payload.to_vec());
    let mut reused = M::default();
    [
        Op::new("fastrs", move || {
            buf.clear();
            black_box(&m).encode_append(&mut buf);
            sink(&buf);
        }),
        Op::new("fastrs", move || {
            let mut fresh = M::default();
            fresh.fast_read_with(black_box(&p1), &options).unwrap();
            sink(fresh);
        }),
        Op::new("fastrs", move || {
            reused.clear();
            reused.fast_read_with(black_box(&p2), &options).unwrap();
            sink(&reused);
        }),
    ]
}

/// prost on a deep chain built natively (its decoder stops at depth 100, so
/// past that only encoding is measured).
pub fn prost_deep<M: prost::Message + Default + 'static>(m: M, payload: &[u8], depth: usize) -> [Op; 3] {
    let decodable = if depth <= 100 { payload.to_vec() } else { Vec::new() };
    let [_, decode, reused] = prost::<M>(&[decodable]);
    let mut buf = Vec::with_capacity(payload.len() * 2);
    let encode = Op::new("prost", move || {
        buf.clear();
        black_box(&m).encode(&mut buf).unwrap();
        sink(&buf);
    });
    if depth <= 100 {
        [encode, decode, reused]
    } else {
        [encode, Op::skipped(), Op::skipped()]
    }
}

/// buffa on a deep chain built natively (decoding stops at depth 100 too).
pub fn buffa_deep<M: buffa::Message + Default + 'static>(m: M, payload: &[u8], depth: usize) -> [Op; 3] {
    let decodable = if depth <= 100 { payload.to_vec() } else { Vec::new() };
    let [_, decode, reused] = buffa::<M>(&[decodable]);
    let mut buf = Vec::with_capacity(payload.len() * 2);
    let encode = Op::new("buffa", move || {
        buf.clear();
        black_box(&m).encode(&mut buf);
        sink(&buf);
    });
    if depth <= 100 {
        [encode, decode, reused]
    } else {
        [encode, Op::skipped(), Op::skipped()]
    }
}

/// fastrs's proto3 JSON: print into a reused buffer, parse into a fresh
/// message (there is no JSON merge into a reused one).
pub fn fastrs_json<M: fastrs::json::JsonMessage + 'static>(payload: &[u8]) -> [Op; 3] {
    let m = M::decode(payload).expect("fastrs decodes the payload");
    let text = fastrs::json::to_vec(&m).expect("prints as JSON");
    let mut buf = Vec::with_capacity(text.len() * 2);
    [
        Op::new("fastrs", move || {
            buf.clear();
            fastrs::json::to_writer(&mut buf, black_box(&m)).unwrap();
            sink(&buf);
        }),
        Op::new("fastrs", move || {
            sink(fastrs::json::from_slice::<M>(black_box(&text)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// prost with pbjson's generated serde impls, on the text fastrs prints.
pub fn pbjson<M>(json: &[u8]) -> [Op; 3]
where
    M: prost::Message + Default + serde::Serialize + serde::de::DeserializeOwned + 'static,
{
    let m: M = serde_json::from_slice(json).expect("pbjson parses fastrs's JSON");
    let text = json.to_vec();
    let mut buf = Vec::with_capacity(text.len() * 2);
    [
        Op::new("pbjson", move || {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&m)).unwrap();
            sink(&buf);
        }),
        Op::new("pbjson", move || {
            sink(serde_json::from_slice::<M>(black_box(&text)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// serde_json on a plain `#[derive]`d struct holding the same data: the
/// reference for JSON speed without any proto3 mapping rules.
pub fn serde_plain<T: serde::Serialize + serde::de::DeserializeOwned + 'static>(value: T) -> [Op; 3] {
    let text = serde_json::to_vec(&value).expect("serializes");
    let mut buf = Vec::with_capacity(text.len() * 2);
    [
        Op::new("serde_json", move || {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&value)).unwrap();
            sink(&buf);
        }),
        Op::new("serde_json", move || {
            sink(serde_json::from_slice::<T>(black_box(&text)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// The Go message as a plain serde struct.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlainGo {
    name: String,
    birth_day: i64,
    phone: String,
    siblings: i32,
    spouse: bool,
    money: f64,
    r#type: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_s: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_i: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_d: Option<f64>,
}

impl From<&crate::fast::bench::go::Go> for PlainGo {
    fn from(m: &crate::fast::bench::go::Go) -> Self {
        use crate::fast::bench::go::go::Values;
        PlainGo {
            name: m.name.clone(),
            birth_day: m.birth_day,
            phone: m.phone.clone(),
            siblings: m.siblings,
            spouse: m.spouse,
            money: m.money,
            r#type: m.r#type.to_i32(),
            value_s: match &m.values {
                Some(Values::ValueS(s)) => Some(s.clone()),
                _ => None,
            },
            value_i: match m.values {
                Some(Values::ValueI(i)) => Some(i),
                _ => None,
            },
            value_d: match m.values {
                Some(Values::ValueD(d)) => Some(d),
                _ => None,
            },
        }
    }
}

/// `{"values": [...]}` as a plain serde struct.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct PlainList {
    values: Vec<i64>,
}

impl PlainList {
    pub fn new(values: Vec<i64>) -> Self {
        PlainList { values }
    }
}

/// fastrs reading 3 of the wide message's 33 fields (`id`, `name` and the
/// `city` of `address`, with `fastrs::Mask`); the row's other libraries
/// decode it whole.
pub fn fastrs_masked(payload: &[u8]) -> [Op; 3] {
    use crate::fast::bench::wide::Wide;
    let mask = fastrs::Mask::new().field(1).field(21).with_path(&[33, 2]);
    let read: Wide = mask.decode(payload).expect("fastrs decodes the payload");
    assert!(read.id != 0 && !read.name.is_empty() && read.email.is_empty());
    let payload = payload.to_vec();
    [
        Op::skipped(),
        Op::cycling("fastrs", 1, move || {
            sink(mask.decode::<Wide>(black_box(&payload)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// fastrs reading a view of the same three fields of the wide payload as
/// [`fastrs_masked`], its scratch buffer reused.
pub fn fastrs_masked_view(payload: &[u8]) -> [Op; 3] {
    use crate::fast::bench::wide::WideView;
    let mask = fastrs::Mask::new().field(1).field(21).with_path(&[33, 2]);
    let mut scratch = Vec::new();
    let read: WideView<'_> = mask.view(payload, &mut scratch).expect("fastrs decodes the payload");
    assert!(read.id != 0 && !read.name.is_empty() && read.email.is_empty());
    let payload = payload.to_vec();
    [
        Op::skipped(),
        Op::cycling("fastrs view", 1, move || {
            let view: WideView<'_> = mask.view(black_box(&payload), &mut scratch).unwrap();
            sink(view);
        }),
        Op::skipped(),
    ]
}

/// prost decoding `payload` whole (the other operations left out).
pub fn prost_decode_only<M: prost::Message + Default + 'static>(payload: &[u8]) -> [Op; 3] {
    let [_, decode, _] = prost::<M>(std::slice::from_ref(&payload.to_vec()));
    [Op::skipped(), decode, Op::skipped()]
}
