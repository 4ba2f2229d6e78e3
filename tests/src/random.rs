//! Random valid encodings of any message in the test schemas, driven by their
//! descriptors: every field kind, packed and unpacked runs, repeated
//! occurrences of singular fields, map entries missing their key or value,
//! unknown enum numbers and edge values. Used by the differential tests.

use std::collections::HashMap;

use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};
use fastrs::Message as _;

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// A 64-bit value biased towards the edges protobuf cares about.
    fn edgy(&mut self) -> u64 {
        const EDGES: [u64; 12] = [
            0,
            1,
            2,
            127,
            128,
            16_383,
            16_384,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            i64::MAX as u64,
            u64::MAX,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => self.below(300),
            2 => self.next_u64() >> self.below(64),
            _ => self.next_u64(),
        }
    }
}

/// The test schemas' messages and enums by full name (leading dot).
pub struct Schema {
    messages: HashMap<String, DescriptorProto>,
    /// Enum values, and whether the enum is closed (proto2): closed enums only
    /// get named values, since prost keeps unnamed ones in the field where
    /// protobuf (and fastrs) moves them to the unknown fields.
    enums: HashMap<String, (Vec<i32>, bool)>,
}

impl Schema {
    pub fn load(encoded_set: &[u8]) -> Self {
        let set = FileDescriptorSet::decode(encoded_set).expect("descriptors decode");
        let mut schema = Schema {
            messages: HashMap::new(),
            enums: HashMap::new(),
        };
        for file in &set.file {
            let prefix = if file.package().is_empty() {
                String::new()
            } else {
                format!(".{}", file.package())
            };
            let closed = file.syntax() != "proto3";
            for e in &file.enum_type {
                let values = e.value.iter().map(|v| v.number()).collect();
                schema.enums.insert(format!("{prefix}.{}", e.name()), (values, closed));
            }
            for m in &file.message_type {
                schema.add(&prefix, m, closed);
            }
        }
        schema
    }

    fn add(&mut self, prefix: &str, m: &DescriptorProto, closed: bool) {
        let full = format!("{prefix}.{}", m.name());
        for e in &m.enum_type {
            let values = e.value.iter().map(|v| v.number()).collect();
            self.enums.insert(format!("{full}.{}", e.name()), (values, closed));
        }
        for nested in &m.nested_type {
            self.add(&full, nested, closed);
        }
        self.messages.insert(full, m.clone());
    }

    /// A random valid encoding of message `name`. `unordered` is set when
    /// two valid encoders may order its bytes differently: it holds map
    /// entries (in no specified order), or a oneof whose members are split by
    /// other fields in number order (fastrs writes in number order, as C++
    /// does; prost writes the oneof at its lowest number).
    /// One time in three the fields come shuffled (repeated values and map
    /// entries interleaved with other fields), as a valid encoder may write
    /// them: decoders must not depend on field order.
    pub fn encode(&self, name: &str, rng: &mut Rng, depth: u32, unordered: &mut bool) -> Vec<u8> {
        let m = &self.messages[name];
        *unordered |= has_split_oneof(m);
        let mut out = Vec::new();
        for f in &m.field {
            if f.label() != Label::Required && !rng.chance(3) {
                continue;
            }
            let times = if rng.chance(8) { 2 } else { 1 };
            for _ in 0..times {
                self.field(f, rng, depth, unordered, &mut out);
            }
        }
        if rng.chance(3) {
            if let Some(mut fields) = split_fields(&out) {
                for i in (1..fields.len()).rev() {
                    fields.swap(i, rng.below(i as u64 + 1) as usize);
                }
                return fields.concat();
            }
        }
        out
    }

    fn field(&self, f: &FieldDescriptorProto, rng: &mut Rng, depth: u32, unordered: &mut bool, out: &mut Vec<u8>) {
        let number = f.number() as u32;
        if matches!(f.r#type(), Type::Message | Type::Group) && depth == 0 && f.label() != Label::Required {
            return;
        }
        if f.label() != Label::Repeated {
            self.tagged_value(f, number, rng, depth, unordered, out);
            return;
        }
        if let Some(entry) = self.map_entry(f) {
            for _ in 0..rng.below(4) {
                *unordered = true;
                let mut body = Vec::new();
                for ef in &entry.field {
                    if ef.r#type() == Type::Message || !rng.chance(6) {
                        self.tagged_value(
                            ef,
                            ef.number() as u32,
                            rng,
                            depth.saturating_sub(1),
                            unordered,
                            &mut body,
                        );
                    }
                }
                put_len_field(out, number, &body);
            }
            return;
        }
        let count = rng.below(5);
        if is_packable(f.r#type()) && rng.chance(2) {
            let mut body = Vec::new();
            for _ in 0..count {
                self.value(f, rng, depth, unordered, &mut body);
            }
            put_len_field(out, number, &body);
        } else {
            for _ in 0..count {
                self.tagged_value(f, number, rng, depth, unordered, out);
            }
        }
    }

    fn map_entry(&self, f: &FieldDescriptorProto) -> Option<&DescriptorProto> {
        let m = self.messages.get(f.type_name())?;
        m.options.as_ref().is_some_and(|o| o.map_entry()).then_some(m)
    }

    fn tagged_value(
        &self,
        f: &FieldDescriptorProto,
        number: u32,
        rng: &mut Rng,
        depth: u32,
        unordered: &mut bool,
        out: &mut Vec<u8>,
    ) {
        put_varint(out, u64::from(number << 3 | wire_type(f.r#type())));
        self.value(f, rng, depth, unordered, out);
    }

    fn value(&self, f: &FieldDescriptorProto, rng: &mut Rng, depth: u32, unordered: &mut bool, out: &mut Vec<u8>) {
        let v = rng.edgy();
        match f.r#type() {
            Type::Enum if (self.enums[f.type_name()].1 || !rng.chance(4)) => {
                let values = &self.enums[f.type_name()].0;
                let e = values[rng.below(values.len() as u64) as usize];
                put_varint(out, i64::from(e) as u64);
            }
            Type::Int32 | Type::Enum => put_varint(out, i64::from(v as i32) as u64),
            Type::Int64 | Type::Uint64 => put_varint(out, v),
            Type::Uint32 => put_varint(out, u64::from(v as u32)),
            Type::Sint32 => put_varint(out, u64::from((((v as i32) << 1) ^ ((v as i32) >> 31)) as u32)),
            Type::Sint64 => put_varint(out, (((v as i64) << 1) ^ ((v as i64) >> 63)) as u64),
            Type::Bool => put_varint(out, u64::from(rng.chance(2))),
            Type::Fixed32 | Type::Sfixed32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
            Type::Fixed64 | Type::Sfixed64 => out.extend_from_slice(&v.to_le_bytes()),
            Type::Float => out.extend_from_slice(&finite_f32(rng).to_le_bytes()),
            Type::Double => out.extend_from_slice(&finite_f64(rng).to_le_bytes()),
            Type::String => {
                let s = random_string(rng);
                put_varint(out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
            Type::Bytes => {
                let b: Vec<u8> = (0..rng.below(12)).map(|_| rng.next_u64() as u8).collect();
                put_varint(out, b.len() as u64);
                out.extend_from_slice(&b);
            }
            Type::Message => {
                let body = match depth.checked_sub(1) {
                    Some(depth) => self.encode(f.type_name(), rng, depth, unordered),
                    None => Vec::new(),
                };
                put_varint(out, body.len() as u64);
                out.extend_from_slice(&body);
            }
            Type::Group => {
                if let Some(depth) = depth.checked_sub(1) {
                    out.extend(self.encode(f.type_name(), rng, depth, unordered));
                }
                put_varint(out, u64::from((f.number() as u32) << 3 | 4));
            }
        }
    }
}

/// True if a oneof of `m` has a field of `m` outside it numbered between
/// two of its members.
fn has_split_oneof(m: &DescriptorProto) -> bool {
    let member_of = |f: &FieldDescriptorProto| f.oneof_index.filter(|_| !f.proto3_optional());
    (0..m.oneof_decl.len()).any(|o| {
        let numbers = m
            .field
            .iter()
            .filter(|f| member_of(f) == Some(o as i32))
            .map(|f| f.number());
        let (low, high) = numbers.fold((i32::MAX, i32::MIN), |(l, h), n| (l.min(n), h.max(n)));
        m.field
            .iter()
            .any(|f| member_of(f) != Some(o as i32) && (low..=high).contains(&f.number()))
    })
}

/// The fields of an encoded message, each with its tag (None if malformed).
fn split_fields(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut fields = Vec::new();
    while !bytes.is_empty() {
        let len = field_len(bytes)?;
        fields.push(&bytes[..len]);
        bytes = &bytes[len..];
    }
    Some(fields)
}

/// The length of the field at the start of `bytes`, tag included.
fn field_len(bytes: &[u8]) -> Option<usize> {
    let (tag, mut at) = get_varint(bytes)?;
    match tag & 7 {
        0 => at += get_varint(&bytes[at..])?.1,
        1 => at += 8,
        2 => {
            let (len, n) = get_varint(&bytes[at..])?;
            at += n + usize::try_from(len).ok()?;
        }
        3 => loop {
            let (inner, n) = get_varint(&bytes[at..])?;
            if inner == (tag & !7) | 4 {
                at += n;
                break;
            }
            at += field_len(&bytes[at..])?;
        },
        5 => at += 4,
        _ => return None,
    }
    (at <= bytes.len()).then_some(at)
}

fn get_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

fn is_packable(t: Type) -> bool {
    !matches!(t, Type::String | Type::Bytes | Type::Message | Type::Group)
}

fn wire_type(t: Type) -> u32 {
    match t {
        Type::Double | Type::Fixed64 | Type::Sfixed64 => 1,
        Type::Float | Type::Fixed32 | Type::Sfixed32 => 5,
        Type::String | Type::Bytes | Type::Message => 2,
        Type::Group => 3,
        _ => 0,
    }
}

/// Finite, and never -0.0 (prost drops -0.0 from implicit-presence fields,
/// fastrs writes it as C++ and Go do; both are valid, but bytes would differ).
fn finite_f32(rng: &mut Rng) -> f32 {
    let v = [0.0, 1.0, -1.5, f32::MAX, f32::MIN_POSITIVE, 3.25e-20][rng.below(6) as usize];
    if rng.chance(2) {
        v
    } else {
        (rng.next_u64() as i32) as f32 / 7.0
    }
}

fn finite_f64(rng: &mut Rng) -> f64 {
    let v = [0.0, 1.0, -2.5, f64::MAX, f64::MIN_POSITIVE, 1e300][rng.below(6) as usize];
    if rng.chance(2) {
        v
    } else {
        (rng.next_u64() as i64) as f64 / 3.0
    }
}

fn random_string(rng: &mut Rng) -> String {
    const PIECES: [&str; 6] = ["a", "Zz", " ", "é", "日本", "🦀"];
    (0..rng.below(8))
        .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
        .collect()
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_len_field(out: &mut Vec<u8>, number: u32, body: &[u8]) {
    put_varint(out, u64::from(number << 3 | 2));
    put_varint(out, body.len() as u64);
    out.extend_from_slice(body);
}
