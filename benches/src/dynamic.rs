//! The dynamic rows: fastrs's `DynamicMessage` against prost-reflect's, each
//! with a pool built from the same descriptor set (the bench schemas, as
//! protoc writes them), beside fastrs's generated code on the same payload.

use std::hint::black_box;

use crate::harness::{sink, Op};

/// The bench schemas' descriptor set, with imports.
const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/prost/descriptors.bin"));

fn fastrs_type(name: &str) -> fastrs::reflect::MessageDescriptor {
    let pool = fastrs::reflect::DescriptorPool::decode(DESCRIPTORS).expect("the bench schemas link");
    pool.get_message_by_name(name).expect("a bench message")
}

fn prost_type(name: &str) -> prost_reflect::MessageDescriptor {
    let pool = prost_reflect::DescriptorPool::decode(DESCRIPTORS).expect("the bench schemas link");
    pool.get_message_by_name(name).expect("a bench message")
}

/// fastrs's `DynamicMessage` of type `name`: encode into a reused buffer,
/// decode a fresh message.
pub fn fastrs_dynamic(payload: &[u8], name: &str) -> [Op; 3] {
    use fastrs::reflect::DynamicMessage;
    let ty = fastrs_type(name);
    let m = DynamicMessage::decode(ty.clone(), payload).expect("fastrs decodes the payload");
    assert_eq!(m.encoded_len(), payload.len(), "the same size");
    let input = payload.to_vec();
    let mut buf = Vec::with_capacity(payload.len() * 2);
    [
        Op::new("fastrs dynamic", move || {
            buf.clear();
            black_box(&m).encode_append(&mut buf);
            sink(&buf);
        }),
        Op::new("fastrs dynamic", move || {
            sink(DynamicMessage::decode(ty.clone(), black_box(&input)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// prost-reflect's `DynamicMessage` of type `name` (see [`fastrs_dynamic`]).
pub fn prost_reflect(payload: &[u8], name: &str) -> [Op; 3] {
    use prost::Message;
    use prost_reflect::DynamicMessage;
    let ty = prost_type(name);
    let m = DynamicMessage::decode(ty.clone(), payload).expect("prost-reflect decodes the payload");
    assert_eq!(m.encoded_len(), payload.len(), "the same size");
    let input = payload.to_vec();
    let mut buf = Vec::with_capacity(payload.len() * 2);
    [
        Op::new("prost-reflect", move || {
            buf.clear();
            black_box(&m).encode(&mut buf).unwrap();
            sink(&buf);
        }),
        Op::new("prost-reflect", move || {
            sink(DynamicMessage::decode(ty.clone(), black_box(input.as_slice())).unwrap())
        }),
        Op::skipped(),
    ]
}

/// fastrs's `DynamicMessage` to and from JSON: print (the encode column),
/// parse (the decode column), on `json`, the text fastrs prints.
pub fn fastrs_dynamic_json(json: &[u8], name: &str) -> [Op; 3] {
    use fastrs::reflect::DynamicMessage;
    let ty = fastrs_type(name);
    let text = String::from_utf8(json.to_vec()).expect("JSON is UTF-8");
    let m = DynamicMessage::from_json(ty.clone(), &text).expect("fastrs parses the JSON");
    [
        Op::new("fastrs dynamic", move || sink(black_box(&m).to_json().unwrap())),
        Op::new("fastrs dynamic", move || {
            sink(DynamicMessage::from_json(ty.clone(), black_box(&text)).unwrap())
        }),
        Op::skipped(),
    ]
}

/// prost-reflect's JSON (its serde support), as [`fastrs_dynamic_json`].
pub fn prost_reflect_json(json: &[u8], name: &str) -> [Op; 3] {
    use prost_reflect::DynamicMessage;
    use serde::de::DeserializeSeed;
    let ty = prost_type(name);
    let text = json.to_vec();
    let parse = move |ty: &prost_reflect::MessageDescriptor, text: &[u8]| {
        let mut de = serde_json::Deserializer::from_slice(text);
        let m = ty.clone().deserialize(&mut de).expect("prost-reflect parses the JSON");
        de.end().expect("one value");
        m
    };
    let m: DynamicMessage = parse(&ty, &text);
    let mut buf = Vec::with_capacity(text.len() * 2);
    [
        Op::new("prost-reflect", move || {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&m)).unwrap();
            sink(&buf);
        }),
        Op::new("prost-reflect", move || sink(parse(&ty, black_box(&text)))),
        Op::skipped(),
    ]
}
