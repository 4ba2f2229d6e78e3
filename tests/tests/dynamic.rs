//! `fastrs::reflect`: the descriptor pool and `DynamicMessage`, checked
//! against generated code on random and mutated inputs of every test
//! message, and the pool's errors.

use fastrs::reflect::{Cardinality, DescriptorPool, DynamicMessage, Kind, PoolErrorKind, Value};
use fastrs::Message;
use fastrs_tests::fast::fastrs::{test as t, test2 as t2};
use fastrs_tests::fast::Rootless;
use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::DESCRIPTORS;
use proptest::prelude::*;

thread_local! {
    static SCHEMA: Schema = Schema::load(DESCRIPTORS);
    static POOL: DescriptorPool = DescriptorPool::decode(DESCRIPTORS).expect("the test descriptors link");
}

fn pool() -> DescriptorPool {
    POOL.with(Clone::clone)
}

/// Generated code and `DynamicMessage` on one random valid input of `name`:
/// both decode it; each reads the other's encoding to the same message;
/// `encoded_len` is exact; canonical encodings are identical.
fn agree<M: Message + PartialEq>(name: &str, seed: u64) {
    let mut unordered = false;
    let input = SCHEMA.with(|s| s.encode(&format!(".{name}"), &mut Rng::new(seed), 4, &mut unordered));
    let descriptor = pool().get_message_by_name(name).expect("declared");
    let generated = M::decode(&input).expect("generated code decodes valid input");
    let dynamic = DynamicMessage::decode(descriptor.clone(), &input)
        .unwrap_or_else(|e| panic!("DynamicMessage rejects valid {name}: {e}\ninput {input:02x?}"));
    let dynamic_bytes = dynamic.encode_to_vec();
    assert_eq!(dynamic.encoded_len(), dynamic_bytes.len(), "encoded_len of {name}");
    #[allow(clippy::eq_op)] // false exactly when a NaN is inside
    let comparable = generated == generated;
    let read_back = M::decode(&dynamic_bytes).expect("generated code reads DynamicMessage's encoding");
    assert!(
        !comparable || read_back == generated,
        "{name}: generated code reads DynamicMessage's encoding as the input\ninput {input:02x?}"
    );
    let generated_bytes = generated.encode_to_vec();
    let again =
        DynamicMessage::decode(descriptor, &generated_bytes).expect("DynamicMessage reads generated code's encoding");
    assert_eq!(
        again.encode_to_vec().len(),
        generated_bytes.len(),
        "{name}: same size both ways"
    );
    if !unordered {
        assert_eq!(
            dynamic_bytes, generated_bytes,
            "canonical bytes of {name}\ninput {input:02x?}"
        );
    }
}

/// On a mutation of a valid input: both decode it or both fail, with the
/// same error kind.
fn agree_on_mutation<M: Message>(name: &str, seed: u64, at: usize, byte: u8, cut: bool) {
    let mut unordered = false;
    let mut input = SCHEMA.with(|s| s.encode(&format!(".{name}"), &mut Rng::new(seed), 4, &mut unordered));
    if input.is_empty() {
        return;
    }
    let at = at % input.len();
    if cut {
        input.truncate(at);
    } else {
        input[at] = byte;
    }
    let descriptor = pool().get_message_by_name(name).expect("declared");
    let generated = M::decode(&input).map_err(|e| e.kind());
    let dynamic = DynamicMessage::decode(descriptor, &input).map_err(|e| e.kind());
    match (generated, dynamic) {
        (Ok(g), Ok(d)) => assert_eq!(d.encoded_len(), d.encode_to_vec().len(), "{name}: {}", g.size()),
        (g, d) => assert_eq!(g.err(), d.err(), "{name}: error kinds\ninput {input:02x?}"),
    }
}

macro_rules! both_ways {
    ($($test:ident: $name:literal => $ty:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]
            $(
                #[test]
                fn $test(seed in any::<u64>(), at in any::<usize>(), byte in any::<u8>(), cut in any::<bool>()) {
                    agree::<$ty>($name, seed);
                    agree_on_mutation::<$ty>($name, seed, at, byte, cut);
                }
            )*
        }
    };
}

both_ways! {
    scalars: "fastrs.test.Scalars" => t::Scalars;
    lists: "fastrs.test.Lists" => t::Lists;
    unpacked: "fastrs.test.Unpacked" => t::Unpacked;
    optionals: "fastrs.test.Optionals" => t::Optionals;
    maps: "fastrs.test.Maps" => t::Maps;
    choice: "fastrs.test.Choice" => t::Choice;
    tree: "fastrs.test.Tree" => t::Tree;
    outer: "fastrs.test.Outer" => t::Outer;
    edges: "fastrs.test.Edges" => t::Edges;
    everything: "fastrs.test.Everything" => t::Everything;
    rootless: "Rootless" => Rootless;
    p2_defaults: "fastrs.test2.Defaults" => t2::Defaults;
    p2_required: "fastrs.test2.Required" => t2::Required;
    p2_closed: "fastrs.test2.Closed" => t2::Closed;
    p2_groups: "fastrs.test2.Groups" => t2::Groups;
    p2_packed: "fastrs.test2.Packed" => t2::Packed;
    p2_extendable: "fastrs.test2.Extendable" => t2::Extendable;
}

#[test]
fn descriptors_describe_the_schema() {
    let pool = pool();
    let outer = pool.get_message_by_name("fastrs.test.Outer").unwrap();
    assert_eq!(outer.name(), "Outer");
    assert_eq!(outer.file().package_name(), "fastrs.test");
    let inners = outer.get_field_by_name("inners").unwrap();
    assert_eq!((inners.number(), inners.cardinality()), (2, Cardinality::Repeated));
    assert!(inners.is_list() && !inners.is_map());
    let Kind::Message(inner) = inners.kind() else {
        panic!("a message field")
    };
    assert_eq!(inner.full_name(), "fastrs.test.Outer.Inner");
    assert_eq!(inner.parent_message(), Some(outer.clone()));
    let Kind::Enum(kind) = inner.get_field(1).unwrap().kind() else {
        panic!("an enum field")
    };
    assert_eq!(kind.get_value_by_name("KIND_A").unwrap().number(), 1);
    assert!(!kind.is_closed());
    assert_eq!(outer.get_field_by_json_name("inners"), Some(inners));

    let maps = pool.get_message_by_name("fastrs.test.Maps").unwrap();
    let map = maps.fields().find(|f| f.is_map()).expect("a map field");
    let Kind::Message(entry) = map.kind() else {
        panic!("entries are messages")
    };
    assert!(entry.is_map_entry());
    assert_eq!(entry.map_entry_key_field().unwrap().number(), 1);

    let closed = pool.get_message_by_name("fastrs.test2.Closed").unwrap();
    let closed_enum = closed.fields().find_map(|f| match f.kind() {
        Kind::Enum(e) => Some(e),
        _ => None,
    });
    assert!(closed_enum.unwrap().is_closed(), "proto2 enums are closed");
}

#[test]
fn fields_are_read_and_written_by_descriptor() {
    let pool = pool();
    let scalars = pool.get_message_by_name("fastrs.test.Scalars").unwrap();
    let mut m = DynamicMessage::new(scalars.clone());
    let int32 = scalars.get_field_by_name("f_int32").unwrap();
    assert!(!m.has(&int32));
    assert_eq!(m.get_or_default(&int32), Value::I32(0));
    m.set(&int32, Value::I32(-3)).unwrap();
    m.set_by_name("f_string", Value::String("kept".into())).unwrap();
    assert!(m.set(&int32, Value::String("no".into())).is_err(), "type checked");
    assert!(m.has(&int32));
    let generated = t::Scalars::decode(&m.encode_to_vec()).unwrap();
    assert_eq!((generated.f_int32, generated.f_string.as_str()), (-3, "kept"));
    // Zero is not written for a field without presence.
    m.set(&int32, Value::I32(0)).unwrap();
    assert!(!m.has(&int32));
    m.clear_field(&int32);
    assert_eq!(m.get(&int32), None);

    // A oneof keeps its last member.
    let choice = pool.get_message_by_name("fastrs.test.Choice").unwrap();
    let oneof = choice.oneofs().find(|o| !o.is_synthetic()).unwrap();
    let members: Vec<_> = oneof.fields().collect();
    let mut c = DynamicMessage::new(choice);
    c.set(&members[0], Value::default_for(&members[0])).unwrap();
    c.set(&members[1], Value::default_for(&members[1])).unwrap();
    assert!(!c.has(&members[0]) && c.has(&members[1]));
}

#[test]
fn generated_and_dynamic_messages_convert() {
    let tree = t::Tree {
        value: 7,
        left: Some(Box::new(t::Tree {
            value: 8,
            ..Default::default()
        })),
        ..Default::default()
    };
    let mut pool = DescriptorPool::new();
    pool.add_described::<t::Tree>().unwrap();
    let d = DynamicMessage::decode(
        pool.get_message_by_name("fastrs.test.Tree").unwrap(),
        &tree.encode_to_vec(),
    )
    .unwrap();
    let left = d.get_by_name("left").and_then(Value::as_message).unwrap();
    assert_eq!(left.get_by_name("value"), Some(&Value::I64(8)));
    assert_eq!(t::Tree::decode(&d.encode_to_vec()).unwrap(), tree);
}

#[test]
fn unknown_fields_and_closed_enum_numbers_are_kept() {
    let pool = pool();
    let scalars = pool.get_message_by_name("fastrs.test.Scalars").unwrap();
    let input = [0x18, 0x05, 0xc8, 0x3e, 0x01]; // f_int32 (3), then unknown field 1001
    let m = DynamicMessage::decode(scalars, &input).unwrap();
    assert_eq!(m.unknown_fields().as_bytes(), [0xc8, 0x3e, 0x01]);
    let closed = t2::Closed::decode(&[]).unwrap();
    let descriptor = pool.get_message_by_name("fastrs.test2.Closed").unwrap();
    let field = descriptor.fields().find(|f| matches!(f.kind(), Kind::Enum(_))).unwrap();
    let tag = (field.number() << 3) as u8;
    let input = [tag, 0x63]; // 99: not a value of the closed enum
    let d = DynamicMessage::decode(descriptor, &input).unwrap();
    assert_eq!(d.get(&field), None);
    assert_eq!(d.unknown_fields().as_bytes(), input);
    assert_eq!(closed.size(), 0);
    assert_eq!(d.encode_to_vec(), t2::Closed::decode(&input).unwrap().encode_to_vec());
}

#[test]
fn required_fields_and_limits_are_checked() {
    let pool = pool();
    let required = pool.get_message_by_name("fastrs.test2.Required").unwrap();
    let missing = DynamicMessage::decode(required, &[]).unwrap_err();
    assert_eq!(missing.kind(), fastrs::DecodeErrorKind::MissingRequired);
    let tree = pool.get_message_by_name("fastrs.test.Tree").unwrap();
    let mut deep = Vec::new();
    for _ in 0..200 {
        // left (field 2) holding the rest.
        let mut next = vec![0x12];
        fastrs_tests::random::put_varint(&mut next, deep.len() as u64);
        next.extend_from_slice(&deep);
        deep = next;
    }
    let error = DynamicMessage::decode(tree, &deep).unwrap_err();
    assert_eq!(error.kind(), fastrs::DecodeErrorKind::RecursionLimit);
}

/// An encoded `FileDescriptorSet` of `files` (name, source), compiled by protoc.
fn compile(files: &[(&str, &str)]) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("fastrs-pool-{}-{}", std::process::id(), files[0].0));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, source) in files {
        std::fs::write(dir.join(name), source).unwrap();
    }
    let out = dir.join("set.pb");
    let status = std::process::Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg("-I")
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .args(files.iter().map(|(name, _)| name))
        .status()
        .unwrap();
    assert!(status.success());
    let set = std::fs::read(&out).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    set
}

#[test]
fn pool_errors_name_the_file_and_symbol_and_change_nothing() {
    let a = compile(&[("a.proto", "syntax = \"proto3\"; package p; message M { int32 x = 1; }")]);
    let mut pool = DescriptorPool::decode(&a).unwrap();
    // The same file again is fine.
    pool.add_file_descriptor_set(&a).unwrap();

    let other_a = compile(&[("a.proto", "syntax = \"proto3\"; package p; message N {}")]);
    let e = pool.add_file_descriptor_set(&other_a).unwrap_err();
    assert_eq!((e.kind(), e.file()), (PoolErrorKind::DuplicateFile, "a.proto"));

    let dup = compile(&[("b.proto", "syntax = \"proto3\"; package p; message M {}")]);
    let e = pool.add_file_descriptor_set(&dup).unwrap_err();
    assert_eq!(
        (e.kind(), e.file(), e.symbol()),
        (PoolErrorKind::DuplicateSymbol, "b.proto", "p.M")
    );
    assert!(pool.get_file_by_name("b.proto").is_none(), "the pool is unchanged");

    // c.proto imports a.proto; alone, the import is missing.
    let c = compile(&[
        ("a.proto", "syntax = \"proto3\"; package p; message M { int32 x = 1; }"),
        (
            "c.proto",
            "syntax = \"proto3\"; package q; import \"a.proto\"; message U { p.M m = 1; }",
        ),
    ]);
    let only_c = {
        let full = DescriptorPool::decode(&c).unwrap();
        full.get_file_by_name("c.proto").unwrap().encoded().to_vec()
    };
    let e = DescriptorPool::new().add_file_descriptor_proto(&only_c).unwrap_err();
    assert_eq!((e.kind(), e.symbol()), (PoolErrorKind::MissingImport, "a.proto"));
    pool.add_file_descriptor_proto(&only_c).unwrap();
    let u = pool.get_message_by_name("q.U").unwrap();
    let Kind::Message(m) = u.get_field(1).unwrap().kind() else {
        panic!()
    };
    assert_eq!(m.full_name(), "p.M");

    let ext = "syntax = \"proto2\"; package e; message Base { extensions 10 to 20; }";
    let one = compile(&[
        ("base.proto", ext),
        (
            "one.proto",
            "syntax = \"proto2\"; package e1; import \"base.proto\"; extend e.Base { optional int32 x = 10; }",
        ),
    ]);
    let two = compile(&[
        ("base.proto", ext),
        (
            "two.proto",
            "syntax = \"proto2\"; package e2; import \"base.proto\"; extend e.Base { optional int32 y = 10; }",
        ),
    ]);
    let mut pool = DescriptorPool::decode(&one).unwrap();
    let e = pool.add_file_descriptor_set(&two).unwrap_err();
    assert_eq!(
        (e.kind(), e.file(), e.symbol()),
        (PoolErrorKind::ConflictingExtension, "two.proto", "e2.y")
    );
    let base = pool.get_message_by_name("e.Base").unwrap();
    assert_eq!(base.get_extension(10).unwrap().full_name(), "e1.x");

    assert_eq!(
        DescriptorPool::decode(&[0xff]).unwrap_err().kind(),
        PoolErrorKind::Malformed
    );
}

#[test]
fn extensions_decode_into_their_values() {
    let ext = "syntax = \"proto2\"; package e; message Base { optional int32 a = 1; extensions 10 to 20; }\n\
               extend Base { repeated string tags = 10; optional Base nested = 11; }";
    let pool = DescriptorPool::decode(&compile(&[("ext.proto", ext)])).unwrap();
    let base = pool.get_message_by_name("e.Base").unwrap();
    let tags = pool.get_extension_by_name("e.tags").unwrap();
    let input = [0x08, 0x01, 0x52, 0x01, b'x', 0x5a, 0x02, 0x08, 0x02, 0x52, 0x01, b'y'];
    let m = DynamicMessage::decode(base, &input).unwrap();
    assert_eq!(
        m.get(&tags),
        Some(&Value::List(vec![Value::String("x".into()), Value::String("y".into())]))
    );
    assert!(m.unknown_fields().is_empty());
    // Fields, then extensions in number order.
    assert_eq!(
        m.encode_to_vec(),
        [0x08, 0x01, 0x52, 0x01, b'x', 0x52, 0x01, b'y', 0x5a, 0x02, 0x08, 0x02]
    );
}

#[test]
fn maps_stay_length_prefixed_under_delimited_encoding() {
    let source = "edition = \"2023\"; package d; option features.message_encoding = DELIMITED;\n\
                  message N { int32 a = 1; } message M { map<string, N> m = 1; N n = 2; }";
    let pool = DescriptorPool::decode(&compile(&[("delimited.proto", source)])).unwrap();
    let m = pool.get_message_by_name("d.M").unwrap();
    let (map, n) = (m.get_field(1).unwrap(), m.get_field(2).unwrap());
    assert!(map.is_map() && !map.is_group(), "map entries are length-prefixed");
    assert!(n.is_group(), "other message fields follow the feature");
    let Kind::Message(entry) = map.kind() else { panic!() };
    assert!(
        !entry.map_entry_value_field().unwrap().is_group(),
        "and so are map values"
    );
    // m { key: "k" value { a: 1 } }, then n { a: 2 } as a group.
    let input = [
        0x0a, 0x07, 0x0a, 0x01, b'k', 0x12, 0x02, 0x08, 0x01, 0x13, 0x08, 0x02, 0x14,
    ];
    let decoded = DynamicMessage::decode(m, &input).unwrap();
    assert!(decoded.unknown_fields().is_empty());
    assert_eq!(decoded.encode_to_vec(), input);
}

#[test]
fn json_and_text_round_trip_through_the_pool() {
    let pool = pool();
    let everything = pool.get_message_by_name("fastrs.test.Everything").unwrap();
    for seed in 0..200 {
        let input = SCHEMA.with(|s| s.encode(".fastrs.test.Everything", &mut Rng::new(seed), 3, &mut false));
        let generated = t::Everything::decode(&input).unwrap();
        let dynamic = DynamicMessage::decode(everything.clone(), &input).unwrap();
        #[allow(clippy::eq_op)] // false exactly when a NaN is inside
        let comparable = generated == generated;
        // JSON: the same value as generated code's, and each reads the other's.
        match (fastrs::json::to_string(&generated), dynamic.to_json()) {
            (Ok(g), Ok(d)) => {
                let (gv, dv): (serde_json::Value, serde_json::Value) =
                    (serde_json::from_str(&g).unwrap(), serde_json::from_str(&d).unwrap());
                assert_eq!(gv, dv, "seed {seed}");
                let back: t::Everything = fastrs::json::from_str(&d).unwrap();
                assert!(
                    !comparable || back == generated,
                    "seed {seed}: generated code reads dynamic JSON"
                );
                let again = DynamicMessage::from_json(everything.clone(), &g).unwrap();
                assert_eq!(again.to_json().unwrap(), d, "seed {seed}: dynamic reads generated JSON");
            }
            (g, d) => assert_eq!(g.is_ok(), d.is_ok(), "seed {seed}: {g:?} / {d:?}"),
        }
        // Text: the same text, and each reads the other's.
        let text = fastrs::text::to_string(&generated);
        assert_eq!(dynamic.to_text(), text, "seed {seed}");
        let parsed = DynamicMessage::parse_text(everything.clone(), &text).unwrap();
        assert_eq!(parsed.to_text(), text, "seed {seed}");
    }
}

#[test]
fn one_registration_serves_any_in_text_and_json() {
    use fastrs::well_known::Any;
    let outer = t::Outer {
        kind: t::outer::inner::Kind::A.into(),
        ..Default::default()
    };
    let any = Any::pack(&outer);
    // Registered through the pool's own call (this test binary never calls
    // `register_json_types`).
    DescriptorPool::register_described::<t::Outer>();
    let json = fastrs::json::to_string(&any).unwrap();
    assert_eq!(
        json,
        r#"{"@type":"type.googleapis.com/fastrs.test.Outer","kind":"KIND_A"}"#
    );
    let back: Any = fastrs::json::from_str(&json).unwrap();
    assert_eq!(back, any);
    assert!(fastrs::text::to_string(&any).starts_with("[type.googleapis.com/fastrs.test.Outer] {"));
}

/// A generated package whose set does not link (here, an import is
/// missing) registers nothing, and returns nothing: the errors of the
/// lookups that then fail say why.
#[test]
fn a_refused_registration_is_named_where_its_types_are_missing() {
    use fastrs::descriptor::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
    let set = FileDescriptorSet {
        file: vec![FileDescriptorProto {
            name: Some("lost.proto".into()),
            package: Some("lost".into()),
            dependency: vec!["missing.proto".into()],
            message_type: vec![DescriptorProto {
                name: Some("Thing".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let set: &'static [u8] = set.encode_to_vec().leak();
    DescriptorPool::register_package(set, &[]);
    assert!(DescriptorPool::global().get_message_by_name("lost.Thing").is_none());
    let any = fastrs::well_known::Any {
        type_url: "type.googleapis.com/lost.Thing".into(),
        ..Default::default()
    };
    let err = fastrs::json::to_string(&any).unwrap_err().to_string();
    assert!(err.contains("lost.Thing") && err.contains("missing.proto"), "{err}");
    let err = fastrs::text::from_str::<fastrs::well_known::Any>("[type.googleapis.com/lost.Thing] {}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.proto"), "{err}");
}

#[test]
fn one_registration_serves_extension_keys_in_json() {
    let mut m = t2::Extendable {
        base: Some(1),
        ..Default::default()
    };
    t2::EXT_INT.set(&mut m, &5);
    t2::EXT_LIST.push(&mut m, &-7);
    t2::EXT_MESSAGE.set(
        &mut m,
        &t2::Packed {
            values: vec![1, 2],
            ..Default::default()
        },
    );
    t2::scope::NESTED_EXT.set(&mut m, &true);
    // The extensions live in the extendee's package, so registering any of
    // its types makes them known; the generated JSON and the dynamic JSON
    // of the same bytes then agree.
    DescriptorPool::register_described::<t2::Packed>();
    let json = fastrs::json::to_string(&m).unwrap();
    assert_eq!(
        json,
        r#"{"base":1,"[fastrs.test2.ext_int]":5,"[fastrs.test2.ext_list]":["-7"],"[fastrs.test2.ext_message]":{"values":[1,2]},"[fastrs.test2.Scope.nested_ext]":true}"#
    );
    let ty = <t2::Extendable as fastrs::reflect::ReflectMessage>::descriptor();
    let dynamic = DynamicMessage::decode(ty, &m.encode_to_vec()).unwrap();
    assert_eq!(dynamic.to_json().unwrap(), json);
    let back: t2::Extendable = fastrs::json::from_str(&json).unwrap();
    assert_eq!(back.encode_to_vec(), m.encode_to_vec());
    let err = fastrs::json::from_str::<t2::Extendable>(r#"{"[fastrs.test2.ext_message]": {"values": ["x"]}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("values"), "{err}");
}

#[test]
fn generated_messages_reflect_through_their_descriptors() {
    use fastrs::reflect::ReflectMessage;
    assert_eq!(t::Everything::descriptor().full_name(), "fastrs.test.Everything");
    assert_eq!(
        t::Everything::descriptor()
            .pool()
            .get_file_by_name("types.proto")
            .is_some(),
        t::Everything::descriptor().file().name() == "types.proto"
    );
    for seed in 0..100 {
        let input = SCHEMA.with(|s| s.encode(".fastrs.test.Everything", &mut Rng::new(seed), 3, &mut false));
        let generated = t::Everything::decode(&input).unwrap();
        let dynamic = generated.to_dynamic().unwrap();
        assert_eq!(dynamic.descriptor(), &t::Everything::descriptor());
        let back = t::Everything::from_dynamic(&dynamic).unwrap();
        #[allow(clippy::eq_op)] // false exactly when a NaN is inside
        let comparable = generated == generated;
        assert!(!comparable || back == generated, "seed {seed}");
    }
}

#[test]
fn descriptors_from_two_versions_of_a_pool_are_equal() {
    let a = compile(&[("a.proto", "syntax = \"proto3\"; package p; message M { int32 x = 1; }")]);
    let b = compile(&[("b.proto", "syntax = \"proto3\"; package p; message N { int32 y = 1; }")]);
    let mut pool = DescriptorPool::decode(&a).unwrap();
    let before = pool.get_message_by_name("p.M").unwrap();
    pool.add_file_descriptor_set(&b).unwrap();
    let after = pool.get_message_by_name("p.M").unwrap();
    assert_eq!(before, after, "adding files keeps descriptors valid");
    let mut m = DynamicMessage::new(before);
    m.set(&after.get_field(1).unwrap(), Value::I32(3)).unwrap();
    let other = DescriptorPool::decode(&a).unwrap().get_message_by_name("p.M").unwrap();
    assert_ne!(after, other, "another pool's type is another type");
    assert!(m.set(&other.get_field(1).unwrap(), Value::I32(4)).is_err());
}

#[test]
fn a_closed_enum_in_a_oneof_keeps_unnamed_numbers_unknown() {
    // Closed.level_choice (5) = 34, which Level does not name.
    let closed = pool().get_message_by_name("fastrs.test2.Closed").unwrap();
    let m = DynamicMessage::decode(closed.clone(), &[0x28, 0x22]).unwrap();
    assert_eq!(m.get(&closed.get_field(5).unwrap()), None);
    assert_eq!(m.unknown_fields().as_bytes(), [0x28, 0x22]);
    assert_eq!(m.to_text(), "");
    assert_eq!(
        DynamicMessage::parse_text(closed, &m.to_text()).unwrap(),
        m.clone().tap_clear()
    );
}

trait TapClear {
    fn tap_clear(self) -> Self;
}

impl TapClear for DynamicMessage {
    fn tap_clear(mut self) -> Self {
        self.clear_unknown_fields();
        self
    }
}

#[test]
fn a_map_entry_with_an_unnamed_closed_enum_value_stays_unknown() {
    // Closed.level_map (4): {key 0: 5 then 767} (the last value counts, and
    // Level names neither), then {key 1: 2} (LEVEL_HIGH).
    let input = [
        0x22, 0x05, 0x10, 0x05, 0x10, 0xff, 0x05, 0x22, 0x04, 0x08, 0x01, 0x10, 0x02,
    ];
    let closed = pool().get_message_by_name("fastrs.test2.Closed").unwrap();
    let m = DynamicMessage::decode(closed.clone(), &input).unwrap();
    let generated = t2::Closed::decode(&input).unwrap();
    assert_eq!(m.unknown_fields().as_bytes(), generated.unknown_fields.as_bytes());
    assert_eq!(m.to_text(), fastrs::text::to_string(&generated));
    assert_eq!(m.to_text(), "level_map { key: 1 value: LEVEL_HIGH }");
    DynamicMessage::parse_text(closed.clone(), &m.to_text()).unwrap();
    // A value record of the wrong wire type is skipped: the varint before it
    // is the value, unnamed, so the entry stays unknown.
    let input = [0x22, 0x09, 0x10, 0x8e, 0x8e, 0x8e, 0x8e, 0x0e, 0x12, 0x01, 0x10];
    let m = DynamicMessage::decode(closed.clone(), &input).unwrap();
    assert_eq!(m.unknown_fields().as_bytes(), input);
    assert_eq!(m.to_text(), "");
}

#[test]
fn odd_map_entries_read_as_generated_code_reads_them() {
    // Maps.string_message (17) and string_enum (16), entry by entry: no key,
    // no value, the key twice, an unknown field inside, a value of the
    // wrong wire type, a message value merged from two records, and an
    // empty entry.
    let entries: [&[u8]; 7] = [
        &[0x12, 0x02, 0x08, 0x07],                         // value only: key ""
        &[0x0a, 0x01, b'a'],                               // key only: empty message
        &[0x0a, 0x01, b'x', 0x0a, 0x01, b'b', 0x12, 0x00], // the last key counts
        &[0x0a, 0x01, b'c', 0x18, 0x05, 0x12, 0x00],       // field 3 skipped
        &[0x0a, 0x01, b'd', 0x15, 1, 2, 3, 4],             // value as fixed32: skipped
        &[0x0a, 0x01, b'e', 0x12, 0x02, 0x08, 0x01, 0x12, 0x02, 0x10, 0x02],
        &[],
    ];
    let mut input = Vec::new();
    for entry in entries {
        input.extend([0x8a, 0x01, u8::try_from(entry.len()).unwrap()]);
        input.extend_from_slice(entry);
    }
    // string_enum: a value only, then an enum number the (open) enum does
    // not name.
    input.extend([
        0x82, 0x01, 0x02, 0x10, 0x02, 0x82, 0x01, 0x05, 0x0a, 0x01, b'z', 0x10, 0x63,
    ]);
    let maps = pool().get_message_by_name("fastrs.test.Maps").unwrap();
    let m = DynamicMessage::decode(maps, &input).unwrap();
    let generated = t::Maps::decode(&input).unwrap();
    assert_eq!(t::Maps::decode(&m.encode_to_vec()).unwrap(), generated);
    assert_eq!(m.to_text(), fastrs::text::to_string(&generated));
    assert_eq!(
        m.get_by_name("string_message").map(|v| match v {
            Value::Map(entries) => entries.len(),
            _ => 0,
        }),
        Some(6)
    );
}

/// Parses `json` as `M` with generated code and as a `DynamicMessage` of
/// the same type: both accept it (and agree) or both refuse it.
fn json_agrees<M: fastrs::json::JsonMessage + PartialEq + std::fmt::Debug>(name: &str, json: &str, lenient: bool) {
    let options = fastrs::json::JsonOptions::new().ignore_unknown_fields(lenient);
    let ty = pool().get_message_by_name(name).unwrap();
    let generated: Result<M, _> = fastrs::json::from_str_with(json, options);
    let dynamic = DynamicMessage::from_json_with(ty, json, options);
    match (generated, dynamic) {
        // Compared as text (a NaN is not equal to itself; maps in order).
        (Ok(g), Ok(d)) => {
            let g = DynamicMessage::decode(d.descriptor().clone(), &g.encode_to_vec()).unwrap();
            assert_eq!(d.to_text(), g.to_text(), "{json}");
        }
        (Err(_), Err(_)) => {}
        (g, d) => panic!("{json}: generated {g:?}, dynamic {d:?}"),
    }
}

#[test]
fn the_json_parser_accepts_and_refuses_what_generated_code_does() {
    let scalars = [
        r#"{"fInt32": 1, "fInt64": "-2", "fUint64": 3e2, "fFloat": "NaN", "fDouble": -1.5}"#,
        r#"{"f_int32": 1, "fString": "é\u00e9", "fBytes": "AQI=", "fEnum": "COLOR_RED"}"#,
        r#"{"fEnum": 2, "fBool": true, "fSfixed64": "9007199254740993"}"#,
        r#"{"fInt32": null, "fEnum": null, "fString": null}"#,
        r#"{"fInt32": 1, "f_int32": 2}"#,
        r#"{"fInt32": 1.5}"#,
        r#"{"fInt32": "x"}"#,
        r#"{"fUint32": -1}"#,
        r#"{"fBool": "true"}"#,
        r#"{"fEnum": "NOPE"}"#,
        r#"{"fBytes": "!!"}"#,
        r#"{"nope": {"a": [1, {"b": null}]}}"#,
        r#"{"fInt32": 1} x"#,
        r#"[]"#,
        r#"null"#,
    ];
    for json in scalars {
        json_agrees::<t::Scalars>("fastrs.test.Scalars", json, false);
        json_agrees::<t::Scalars>("fastrs.test.Scalars", json, true);
    }
    let lists = [
        r#"{"fInt32": [1, "2", 3.0], "fEnum": ["COLOR_RED", 2], "fMessage": [{}, {"fInt32": 4}]}"#,
        r#"{"fInt32": null, "fMessage": null}"#,
        r#"{"fInt32": [1, null]}"#,
        r#"{"fMessage": [null]}"#,
        r#"{"fEnum": ["COLOR_RED", "NOPE"]}"#,
        r#"{"fInt32": 1}"#,
        r#"{"fInt32": [[1]]}"#,
    ];
    for json in lists {
        json_agrees::<t::Lists>("fastrs.test.Lists", json, false);
        json_agrees::<t::Lists>("fastrs.test.Lists", json, true);
    }
    let maps = [
        r#"{"int32Int32": {"1": 2, "-3": 4}, "boolBool": {"true": false}, "stringMessage": {"a": {}}}"#,
        r#"{"int32Int32": {"x": 1}}"#,
        r#"{"int32Int32": {"1": null}}"#,
        r#"{"int32Int32": {"1": 1, "1": 2}}"#,
        r#"{"boolBool": {"yes": true}}"#,
        r#"{"stringEnum": {"a": "COLOR_GREEN", "b": "NOPE"}}"#,
        r#"{"int32Int32": null}"#,
        r#"{"int32Int32": []}"#,
    ];
    for json in maps {
        json_agrees::<t::Maps>("fastrs.test.Maps", json, false);
        json_agrees::<t::Maps>("fastrs.test.Maps", json, true);
    }
    let choices = [
        r#"{"aInt": 1, "after": 2}"#,
        r#"{"aInt": 1, "aString": "x"}"#,
        r#"{"aInt": null, "aString": "x"}"#,
        r#"{"aMessage": {"fInt32": 1}, "aDouble": "Infinity"}"#,
    ];
    for json in choices {
        json_agrees::<t::Choice>("fastrs.test.Choice", json, false);
    }
}

#[test]
fn json_errors_say_where() {
    let ty = pool().get_message_by_name("fastrs.test.Scalars").unwrap();
    let e = DynamicMessage::from_json(ty.clone(), "{\n  \"fInt32\": \"x\"\n}").unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    assert!(e.to_string().contains("f_int32"), "{e}");
    let e = DynamicMessage::from_json(ty, r#"{"fInt32": 1, "f_int32": 2}"#).unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
}

#[test]
fn a_struct_key_given_twice_keeps_its_last_value_as_in_generated_code() {
    use fastrs::reflect::ReflectMessage;
    use fastrs::well_known::Struct;
    // Found by the decode_json fuzz target: the dynamic parser refused it.
    let json = r#"{"a": 1, "b": {"c": 2, "c": 3}, "a": 4}"#;
    let generated: Struct = fastrs::json::from_str(json).unwrap();
    let dynamic = DynamicMessage::from_json(Struct::descriptor(), json).unwrap();
    assert_eq!(Struct::decode(&dynamic.encode_to_vec()).unwrap(), generated);
    // As values: generated code prints a `Struct`'s keys in hash order.
    let value = |text: String| serde_json::from_str::<serde_json::Value>(&text).unwrap();
    assert_eq!(
        value(dynamic.to_json().unwrap()),
        value(fastrs::json::to_string(&generated).unwrap())
    );
}
