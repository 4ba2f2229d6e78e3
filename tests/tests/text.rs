//! The protobuf text format, rule by rule, with hand-written expectations;
//! then round trips binary → text → binary on random messages of every test
//! schema, and hostile text.

use fastrs::text::{self, ParseOptions, PrintOptions};
use fastrs::well_known as wk;
use fastrs::{Described, EnumValue, Message};
use fastrs_tests::fast::fastrs::test::{
    choice, other, Choice, Color, Edges, Everything, Lists, Maps, Optionals, Scalars, Tree,
};
use fastrs_tests::fast::fastrs::test2::{self as t2, groups, Closed, Extendable, Groups, Level, Required};

fn parse<M: Described>(input: &str) -> M {
    text::from_str(input).unwrap_or_else(|e| panic!("{input}: {e}"))
}

fn parse_err<M: Described + std::fmt::Debug>(input: &str) -> text::Error {
    match text::from_str::<M>(input) {
        Ok(m) => panic!("{input} parsed as {m:?}"),
        Err(e) => e,
    }
}

fn scalars(f: impl FnOnce(&mut Scalars)) -> Scalars {
    let mut m = Scalars::default();
    f(&mut m);
    m
}

// ---- Printing ------------------------------------------------------------------

#[test]
fn empty_messages_print_nothing() {
    assert_eq!(text::to_string(&Scalars::default()), "");
    assert_eq!(text::to_string_pretty(&Everything::default()), "");
}

#[test]
fn scalars_print_in_field_number_order() {
    let m = scalars(|m| {
        m.f_enum = EnumValue::from(Color::Red);
        m.f_string = "hi".into();
        m.f_double = 1.5;
        m.f_float = 0.1;
        m.f_int32 = -7;
        m.f_int64 = i64::MIN;
        m.f_uint32 = u32::MAX;
        m.f_uint64 = u64::MAX;
        m.f_sint32 = -1;
        m.f_sint64 = i64::MAX;
        m.f_fixed32 = 9;
        m.f_fixed64 = 10;
        m.f_sfixed32 = -11;
        m.f_sfixed64 = -12;
        m.f_bool = true;
        m.f_bytes = vec![0, b'a', 0xff];
    });
    assert_eq!(
        text::to_string(&m),
        "f_double: 1.5 f_float: 0.1 f_int32: -7 f_int64: -9223372036854775808 f_uint32: 4294967295 \
         f_uint64: 18446744073709551615 f_sint32: -1 f_sint64: 9223372036854775807 f_fixed32: 9 \
         f_fixed64: 10 f_sfixed32: -11 f_sfixed64: -12 f_bool: true f_string: \"hi\" \
         f_bytes: \"\\000a\\377\" f_enum: COLOR_RED"
    );
}

#[test]
fn pretty_printing_indents_nested_messages() {
    let m = Everything {
        scalars: Some(scalars(|m| m.f_int32 = 1)),
        lists: Some(Lists {
            f_int32: vec![1, 2],
            f_message: vec![Scalars::default()],
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        text::to_string_pretty(&m),
        "scalars {\n  f_int32: 1\n}\nlists {\n  f_int32: 1\n  f_int32: 2\n  f_message {\n  }\n}"
    );
    assert_eq!(
        text::to_string(&m),
        "scalars { f_int32: 1 } lists { f_int32: 1 f_int32: 2 f_message { } }"
    );
}

#[test]
fn floats_print_shortest_and_special_values_by_name() {
    let print = |v: f64| text::to_string(&scalars(|m| m.f_double = v));
    assert_eq!(print(0.1), "f_double: 0.1");
    assert_eq!(print(-0.0), "f_double: -0");
    assert_eq!(print(1e300), "f_double: 1e300");
    assert_eq!(print(f64::INFINITY), "f_double: inf");
    assert_eq!(print(f64::NEG_INFINITY), "f_double: -inf");
    assert_eq!(print(f64::NAN), "f_double: nan");
    let print = |v: f32| text::to_string(&scalars(|m| m.f_float = v));
    assert_eq!(print(3.192_837), "f_float: 3.192837");
    assert_eq!(print(f32::MAX), "f_float: 3.4028235e38");
}

#[test]
fn strings_keep_utf8_and_escape_the_rest() {
    let m = scalars(|m| {
        m.f_string = "é \"q\" 'a' \\ \n\t\u{1}".into();
        m.f_bytes = "é".into();
    });
    assert_eq!(
        text::to_string(&m),
        r#"f_string: "é \"q\" \'a\' \\ \n\t\001" f_bytes: "\303\251""#
    );
}

#[test]
fn unknown_enum_numbers_print_as_numbers() {
    let m = scalars(|m| m.f_enum = EnumValue::from_i32(42));
    assert_eq!(text::to_string(&m), "f_enum: 42");
}

#[test]
fn map_entries_print_sorted_by_key_with_key_and_value() {
    let mut m = Maps::default();
    for k in [3, -1, 2] {
        m.int32_int32.insert(k, 0);
    }
    m.string_string.insert("b".into(), "x".into());
    m.string_string.insert("a".into(), String::new());
    m.bool_bool.insert(true, true);
    m.bool_bool.insert(false, false);
    assert_eq!(
        text::to_string(&m),
        "int32_int32 { key: -1 value: 0 } int32_int32 { key: 2 value: 0 } int32_int32 { key: 3 value: 0 } \
         bool_bool { key: false value: false } bool_bool { key: true value: true } \
         string_string { key: \"a\" value: \"\" } string_string { key: \"b\" value: \"x\" }"
    );
}

#[test]
fn oneof_members_print_when_set_even_to_defaults() {
    let m = Choice {
        pick: Some(choice::Pick::AInt(0)),
        ..Default::default()
    };
    assert_eq!(text::to_string(&m), "a_int: 0");
}

#[test]
fn groups_print_by_their_type_name() {
    let m = Groups {
        data: Some(groups::Data {
            a: Some(1),
            ..Default::default()
        }),
        item: vec![groups::Item {
            x: Some(2),
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(text::to_string(&m), "Data { a: 1 } Item { x: 2 }");
}

#[test]
fn extensions_print_by_full_name_in_brackets() {
    let mut m = Extendable {
        base: Some(1),
        ..Default::default()
    };
    t2::EXT_INT.set(&mut m, &5);
    t2::scope::NESTED_EXT.set(&mut m, &true);
    t2::EXT_LIST.push(&mut m, &7);
    assert_eq!(
        text::to_string(&m),
        "base: 1 [fastrs.test2.ext_int]: 5 [fastrs.test2.ext_list]: 7 [fastrs.test2.Scope.nested_ext]: true"
    );
}

#[test]
fn unknown_fields_print_only_when_asked() {
    // 1001: 5, 1002: "hi", 1003 { 1: 1 }, fixed32 and fixed64, group 1004 { 1: 2 }.
    let mut bytes = vec![0xc8, 0x3e, 5, 0xd2, 0x3e, 2, b'h', b'i', 0xda, 0x3e, 2, 0x08, 1];
    bytes.extend([0xe5, 0x3e, 1, 0, 0, 0, 0xe9, 0x3e, 2, 0, 0, 0, 0, 0, 0, 0]);
    bytes.extend([0xe3, 0x3e, 0x08, 2, 0xe4, 0x3e]);
    let m = Scalars::decode(&bytes).unwrap();
    assert_eq!(text::to_string(&m), "");
    let options = PrintOptions::new().print_unknown_fields(true);
    assert_eq!(
        text::to_string_with(&m, options),
        "1001: 5 1002: \"hi\" 1003 { 1: 1 } 1004: 0x00000001 1005: 0x0000000000000002 1004 { 1: 2 }"
    );
    // They read back when ignored.
    let options = ParseOptions::new().ignore_unknown_fields(true);
    let back: Scalars = text::from_str_with(&text::to_string_with(&m, PrintOptions::new()), options).unwrap();
    assert_eq!(back, Scalars::default());
}

#[test]
fn any_prints_expanded_when_its_type_is_known() {
    text::register::<Scalars>();
    let any = wk::Any::pack(&scalars(|m| m.f_int32 = 5));
    assert_eq!(
        text::to_string(&any),
        "[type.googleapis.com/fastrs.test.Scalars] { f_int32: 5 }"
    );
    let back: wk::Any = parse(&text::to_string(&any));
    assert_eq!(back, any);
    // An unknown type: its fields as they are.
    let odd = wk::Any {
        type_url: "type.googleapis.com/no.Such".into(),
        value: vec![8, 1],
        ..Default::default()
    };
    assert_eq!(
        text::to_string(&odd),
        "type_url: \"type.googleapis.com/no.Such\" value: \"\\010\\001\""
    );
}

// ---- Parsing -------------------------------------------------------------------

#[test]
fn every_scalar_type_parses() {
    let m: Scalars = parse(
        "f_double: 1.5 f_float: 0.1 f_int32: -7 f_int64: -9223372036854775808 f_uint32: 4294967295 \
         f_uint64: 18446744073709551615 f_sint32: -1 f_sint64: 9223372036854775807 f_fixed32: 9 \
         f_fixed64: 10 f_sfixed32: -11 f_sfixed64: -12 f_bool: true f_string: \"hi\" \
         f_bytes: \"\\000a\\377\" f_enum: COLOR_RED",
    );
    assert_eq!(m.f_double, 1.5);
    assert_eq!(m.f_float, 0.1);
    assert_eq!((m.f_int32, m.f_int64), (-7, i64::MIN));
    assert_eq!((m.f_uint32, m.f_uint64), (u32::MAX, u64::MAX));
    assert_eq!((m.f_sint32, m.f_sint64), (-1, i64::MAX));
    assert_eq!(
        (m.f_fixed32, m.f_fixed64, m.f_sfixed32, m.f_sfixed64),
        (9, 10, -11, -12)
    );
    assert!(m.f_bool);
    assert_eq!(m.f_string, "hi");
    assert_eq!(m.f_bytes, [0, b'a', 0xff]);
    assert_eq!(m.f_enum, EnumValue::from(Color::Red));
}

#[test]
fn integers_take_hex_octal_and_negative_forms_within_range() {
    assert_eq!(parse::<Scalars>("f_int32: 0x7FFFFFFF").f_int32, i32::MAX);
    assert_eq!(parse::<Scalars>("f_int32: -0x80000000").f_int32, i32::MIN);
    assert_eq!(parse::<Scalars>("f_int32: 017").f_int32, 15);
    assert_eq!(parse::<Scalars>("f_int64: -01000000000000000000000").f_int64, i64::MIN);
    assert_eq!(parse::<Scalars>("f_uint64: 0xFFFFFFFFFFFFFFFF").f_uint64, u64::MAX);
    assert_eq!(parse::<Scalars>("f_int32: -0").f_int32, 0);
    assert_eq!(parse::<Scalars>("f_sint32: -0x1").f_sint32, -1);
    for bad in [
        "f_int32: 2147483648",
        "f_int32: -2147483649",
        "f_int32: 0x80000000",
        "f_uint32: 4294967296",
        "f_uint32: -1",
        "f_uint32: -0",
        "f_int64: 9223372036854775808",
        "f_uint64: 18446744073709551616",
        "f_uint64: 02000000000000000000000",
        "f_int32: 1.0",
        "f_int32: 08",
        "f_int32: 1x",
        "f_int32: inf",
    ] {
        parse_err::<Scalars>(bad);
    }
    let e = parse_err::<Scalars>("f_int32: 2147483648");
    assert_eq!(
        e.to_string(),
        "line 1, column 10: integer 2147483648 out of range for \"f_int32\""
    );
}

#[test]
fn floats_take_every_literal_form() {
    let d = |s: &str| parse::<Scalars>(&format!("f_double: {s}")).f_double;
    assert_eq!(d("1"), 1.0);
    assert_eq!(d("1.5"), 1.5);
    assert_eq!(d(".5"), 0.5);
    assert_eq!(d("-.5e1"), -5.0);
    assert_eq!(d("2f"), 2.0);
    assert_eq!(d("2.5F"), 2.5);
    assert_eq!(d("1e9999"), f64::INFINITY);
    assert_eq!(d("-1e-9999").to_bits(), (-0.0f64).to_bits());
    assert_eq!(d("-0").to_bits(), (-0.0f64).to_bits());
    assert_eq!(d("18446744073709551616"), 18446744073709551616.0);
    assert_eq!(d("-Infinity"), f64::NEG_INFINITY);
    assert_eq!(d("iNf"), f64::INFINITY);
    assert!(d("NaN").is_nan());
    assert_eq!(parse::<Scalars>("f_float: 1e50").f_float, f32::INFINITY);
    assert_eq!(parse::<Scalars>("f_float: 3.4028235e+38").f_float, f32::MAX);
    for bad in [
        "f_double: 0x1",
        "f_double: 012",
        "f_double: -0x1",
        "f_double: infinite",
        "f_double: 1e",
        "f_double: 1.5.2",
    ] {
        parse_err::<Scalars>(bad);
    }
}

#[test]
fn booleans_take_names_and_digits() {
    for (input, want) in [("true", true), ("True", true), ("t", true), ("1", true)] {
        assert_eq!(parse::<Scalars>(&format!("f_bool: {input}")).f_bool, want, "{input}");
    }
    for input in ["false", "False", "f", "0"] {
        assert!(
            !parse::<Scalars>(&format!("f_bool: {input} f_int32: 1")).f_bool,
            "{input}"
        );
    }
    parse_err::<Scalars>("f_bool: 2");
    parse_err::<Scalars>("f_bool: yes");
}

#[test]
fn strings_read_every_escape() {
    let s = |input: &str| parse::<Scalars>(&format!("f_bytes: {input}")).f_bytes;
    assert_eq!(s(r#"'\a\b\f\n\r\t\v\?\\\'\"'"#), b"\x07\x08\x0c\n\r\t\x0b?\\'\"");
    assert_eq!(s(r"'\341\210\264'"), "\u{1234}".as_bytes());
    assert_eq!(s(r"'\1\12\1234'"), b"\x01\x0a\x534");
    assert_eq!(s(r"'\xe1\x88\xb4'"), "\u{1234}".as_bytes());
    assert_eq!(s(r"'\xA\x4142'"), b"\x0aA42");
    assert_eq!(s(r"'\u1234\U00010437'"), "\u{1234}\u{10437}".as_bytes());
    assert_eq!(
        s(r#"'first' "second"
        'third'"#),
        b"firstsecondthird"
    );
    assert_eq!(s("'é'"), "é".as_bytes());
    for bad in [
        r"'\U00110000'",
        r"'\ud801\udc37'",
        r"'\ud800'",
        r"'\U0000dc00'",
        r"'\u12'",
        r"'\x'",
        r"'\400'",
        r"'\q'",
        "'two\nlines'",
        "'open",
    ] {
        parse_err::<Scalars>(&format!("f_bytes: {bad}"));
    }
}

#[test]
fn string_fields_reject_invalid_utf8_and_bytes_fields_do_not() {
    let e = parse_err::<Scalars>(r"f_string: '\300'");
    assert!(e.message().contains("invalid UTF-8"), "{e}");
    assert_eq!(parse::<Scalars>(r"f_bytes: '\300'").f_bytes, [0xc0]);
    // proto2 `string` fields hold any bytes, as in binary.
    let m: t2::Defaults = parse(r"f_string: '\300'");
    assert_eq!(m.f_string.as_ref().map(|s| s.as_bytes().to_vec()), Some(vec![0xc0]));
}

#[test]
fn enums_take_names_and_numbers() {
    assert_eq!(
        parse::<Scalars>("f_enum: COLOR_GREEN").f_enum,
        EnumValue::from(Color::Green)
    );
    assert_eq!(parse::<Scalars>("f_enum: 2").f_enum, EnumValue::from(Color::Green));
    assert_eq!(parse::<Scalars>("f_enum: -1").f_enum, EnumValue::from(Color::Negative));
    // Open enums keep numbers they do not declare; closed enums refuse them.
    assert_eq!(parse::<Scalars>("f_enum: 42").f_enum, EnumValue::from_i32(42));
    assert_eq!(parse::<Closed>("level: 2").level, Some(Level::High));
    let e = parse_err::<Closed>("level: 42");
    assert!(e.message().contains("closed enum"), "{e}");
    parse_err::<Scalars>("f_enum: COLOR_PURPLE");
    parse_err::<Scalars>("f_enum: 2147483648");
}

#[test]
fn separators_delimiters_and_comments() {
    let want = Everything {
        scalars: Some(scalars(|m| {
            m.f_int32 = 1;
            m.f_string = "x".into();
        })),
        lists: Some(Lists {
            f_int32: vec![1, 2, 3],
            ..Default::default()
        }),
        ..Default::default()
    };
    for input in [
        "scalars { f_int32: 1 f_string: 'x' } lists { f_int32: [1, 2, 3] }",
        "scalars: { f_int32: 1, f_string: \"x\"; }, lists < f_int32: 1; f_int32: [2, 3] >;",
        "# a comment\nscalars {\n  f_int32: 1  # trailing\n  f_string: 'x'\n}\nlists { f_int32: [] f_int32: [1,2] f_int32: 3 }\n",
    ] {
        assert_eq!(parse::<Everything>(input), want, "{input}");
    }
    for bad in [
        "scalars { f_int32: 1 ,, }",
        "scalars { f_int32: 1 ;; }",
        "lists { f_int32: [1,] }",
        "lists { f_int32: [1 2] }",
        "lists { f_int32: [1; 2] }",
        "scalars { f_int32 1 }",
        "scalars { f_int32: 1 >",
        "scalars { f_int32: 1",
        "scalars: f_int32",
        "f_int32: [1]",
    ] {
        parse_err::<Everything>(bad);
    }
}

#[test]
fn messages_in_lists_and_adjacent_strings_in_lists() {
    let m: Lists = parse("f_message: [{ f_int32: 1 }, < f_int32: 2 >] f_string: ['a' 'b', 'c']");
    assert_eq!(m.f_message.iter().map(|s| s.f_int32).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(m.f_string, ["ab", "c"]);
}

#[test]
fn singular_fields_keep_the_last_value_and_messages_merge() {
    let m: Everything =
        parse("scalars { f_int32: 1 f_string: 'a' } scalars { f_int32: 2 } lists { f_int32: 1 } lists { f_int32: 2 }");
    let s = m.scalars.unwrap();
    assert_eq!((s.f_int32, s.f_string.as_str()), (2, "a"));
    assert_eq!(m.lists.unwrap().f_int32, [1, 2]);
    // A oneof keeps its last member.
    let c: Choice = parse("a_int: 1 a_string: 'x'");
    assert_eq!(c.pick, Some(choice::Pick::AString("x".into())));
    // A map keeps the last value of a key.
    let m: Maps = parse("int32_int32 { key: 1 value: 2 } int32_int32 { key: 1 value: 3 } int32_int32 { value: 4 }");
    assert_eq!(m.int32_int32.get(&1), Some(&3));
    assert_eq!(m.int32_int32.get(&0), Some(&4));
}

#[test]
fn merging_into_a_message_keeps_what_the_text_does_not_give() {
    let mut m = scalars(|m| {
        m.f_int32 = 1;
        m.f_string = "kept".into();
    });
    text::merge_from_str(&mut m, "f_int32: 2").unwrap();
    assert_eq!((m.f_int32, m.f_string.as_str()), (2, "kept"));
    let before = m.clone();
    assert!(text::merge_from_str(&mut m, "f_int32: 3 nope: 1").is_err());
    assert_eq!(m, before);
}

#[test]
fn groups_parse_by_type_name_or_field_name() {
    let want = Groups {
        data: Some(groups::Data {
            a: Some(1),
            ..Default::default()
        }),
        ..Default::default()
    };
    for input in ["Data { a: 1 }", "Data: { a: 1 }", "data { a: 1 }", "Data < a: 1 >"] {
        assert_eq!(parse::<Groups>(input), want, "{input}");
    }
    parse_err::<Groups>("DATA { a: 1 }");
    let m: Groups = parse("Item { x: 1 } Item { x: 2 } Chosen { c: 'y' }");
    assert_eq!(m.item.len(), 2);
    assert_eq!(
        m.choice,
        Some(groups::Choice::Chosen(groups::Chosen {
            c: Some("y".into()),
            ..Default::default()
        }))
    );
}

#[test]
fn extensions_parse_by_full_name() {
    let m: Extendable =
        parse("[fastrs.test2.ext_int]: 5 [fastrs.test2 . Scope.\n nested_ext]: true [fastrs.test2.ext_list]: [1, 2]");
    assert_eq!(t2::EXT_INT.get(&m).unwrap(), Some(5));
    assert_eq!(t2::scope::NESTED_EXT.get(&m).unwrap(), Some(true));
    assert_eq!(t2::EXT_LIST.get(&m).unwrap(), [1, 2]);
    let e = parse_err::<Extendable>("[fastrs.test2.no_such]: 1");
    assert!(e.message().contains("not a known extension"), "{e}");
    parse_err::<Extendable>("[a/fastrs.test2.ext_int]: 1");
    parse_err::<Scalars>("[fastrs.test2.ext_int]: 1");
}

#[test]
fn any_parses_expanded_or_by_fields() {
    text::register::<Scalars>();
    let want = wk::Any::pack(&scalars(|m| m.f_int32 = 5));
    for input in [
        "[type.googleapis.com/fastrs.test.Scalars] { f_int32: 5 }",
        "[type.googleapis.com/fastrs.test.Scalars]: < f_int32: 5 >",
        "[ type.googleapis.com/ # comment\n fastrs.test.Scalars ] { f_int32: 5 }",
        "type_url: 'type.googleapis.com/fastrs.test.Scalars' value: '\\030\\005'",
    ] {
        assert_eq!(parse::<wk::Any>(input), want, "{input}");
    }
    let custom: wk::Any = parse("[example.com/a-b/%2F/fastrs.test.Scalars] { f_int32: 5 }");
    assert_eq!(custom.type_url, "example.com/a-b/%2F/fastrs.test.Scalars");
    for bad in [
        "[fastrs.test.Scalars] { f_int32: 5 }",
        "[type.googleapis.com/no.Such] { }",
        "[/fastrs.test.Scalars] { }",
        "[example.com/%ZZ/fastrs.test.Scalars] { }",
        "[type.googleapis.com/fastrs.test.Scalars] { nope: 1 }",
    ] {
        parse_err::<wk::Any>(bad);
    }
}

#[test]
fn unknown_and_reserved_fields() {
    let e = parse_err::<Scalars>("f_int32: 1\n  nope: 2");
    assert_eq!(
        e.to_string(),
        "line 2, column 3: fastrs.test.Scalars has no field named \"nope\""
    );
    assert_eq!((e.line(), e.column()), (Some(2), Some(3)));
    // Reserved names are skipped, whatever their value looks like.
    for value in [
        "true",
        "-123",
        "0.5",
        "X",
        "'s' 't'",
        "{ a: 1 }",
        "< a: [1] >",
        "[-1, 2]",
        "['a', 'b']",
        "-inf",
    ] {
        let m: Edges = parse(&format!("gone: {value} small: 1"));
        assert_eq!(m.small, 1, "{value}");
    }
    let m: Edges = parse("gone { deep { [x.y]: 1 } } small: 1");
    assert_eq!(m.small, 1);
    // Ignoring unknown fields skips them the same way (and numbered ones).
    let lenient = ParseOptions::new().ignore_unknown_fields(true);
    let m: Scalars = text::from_str_with(
        "nope: 1 f_int32: 2 nested { x: [1, 2] } 1001: 5 [x.y]: 3 f_enum: COLOR_NONE",
        lenient,
    )
    .unwrap();
    assert_eq!((m.f_int32, m.f_enum), (2, EnumValue::from(Color::Unspecified)));
}

#[test]
fn missing_required_fields_fail_as_in_binary() {
    let e = parse_err::<Required>("id: 1");
    assert!(e.line().is_none() && e.message().contains("name"), "{e}");
    let m: Required = parse("id: 1 name: 'n' child { id: 2 name: 'c' }");
    assert_eq!(m.child.unwrap().id, Some(2));
    parse_err::<Required>("id: 1 name: 'n' child { id: 2 }");
}

#[test]
fn errors_say_where_and_what() {
    let cases = [
        (
            "f_int32: 'x'",
            "line 1, column 10: expected an integer for \"f_int32\", found `'x'`",
        ),
        ("f_int32 1", "line 1, column 9: expected ':', found `1`"),
        (
            "\n\n  f_string: é",
            "line 3, column 13: unexpected non-ASCII character outside a string",
        ),
        ("f_bytes: 'a\\qb'", "line 1, column 12: unknown escape"),
    ];
    for (input, want) in cases {
        assert_eq!(parse_err::<Scalars>(input).to_string(), want, "{input}");
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = "left { ".repeat(101) + &"} ".repeat(101);
    let e = parse_err::<Tree>(&deep);
    assert!(e.message().contains("nested too deeply"), "{e}");
    let ok = "left { ".repeat(99) + &"} ".repeat(99);
    parse::<Tree>(&ok);
    let deeper = ParseOptions::new().recursion_limit(200);
    text::from_str_with::<Tree>(&deep, deeper).unwrap();
    // Skipped values are bounded too.
    let lenient = ParseOptions::new().ignore_unknown_fields(true);
    let skipped = "x { ".repeat(200) + &"} ".repeat(200);
    assert!(text::from_str_with::<Tree>(&skipped, lenient).is_err());
}

#[test]
fn messages_of_other_packages_and_well_known_types() {
    let m: Everything = parse("remote { id: 'r' status: STATUS_OK codes: [1, 2] } outer { remote { id: 'x' } }");
    let remote = m.remote.unwrap();
    assert_eq!(
        (remote.id.as_str(), remote.status),
        ("r", EnumValue::from(other::Status::Ok))
    );
    let t: wk::Timestamp = parse("seconds: 5 nanos: 6");
    assert_eq!((t.seconds, t.nanos), (5, 6));
    assert_eq!(text::to_string(&t), "seconds: 5 nanos: 6");
}

#[test]
fn optional_fields_print_when_present() {
    let m = Optionals {
        f_int32: Some(0),
        f_string: Some(String::new()),
        ..Default::default()
    };
    assert_eq!(text::to_string(&m), "f_int32: 0 f_string: \"\"");
    assert_eq!(parse::<Optionals>("f_int32: 0 f_string: ''"), m);
}

// ---- Round trips on random messages ----------------------------------------------

mod round_trip {
    use fastrs::text::{self, ParseOptions, PrintOptions};
    use fastrs::Described;
    use fastrs_tests::fast;
    use fastrs_tests::random::{Rng, Schema};
    use fastrs_tests::DESCRIPTORS;
    use proptest::prelude::*;

    /// Binary → message → text → message, on one line and pretty: the same
    /// message (unknown fields aside; where no NaN makes a message unequal to
    /// itself), and the same text again.
    fn check<M: Described + PartialEq + Clone>(name: &str, seed: u64) {
        thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));
        let mut has_map = false;
        let input = SCHEMA.with(|s| s.encode(name, &mut Rng::new(seed), 4, &mut has_map));
        let m = M::decode(&input).expect("valid input");
        for options in [PrintOptions::new(), PrintOptions::new().multi_line(true)] {
            let printed = text::to_string_with(&m, options);
            let back: M = text::from_str(&printed).unwrap_or_else(|e| panic!("{name}: {e}\n{printed}"));
            assert_eq!(text::to_string_with(&back, options), printed);
            #[allow(clippy::eq_op)] // false exactly when a NaN is inside
            let comparable = m == m;
            if comparable {
                let mut known = m.clone();
                known.unknown_fields_mut().clear();
                let mut back = back;
                back.unknown_fields_mut().clear();
                if known.encode_to_vec() == m.encode_to_vec() {
                    assert_eq!(back, known, "{printed}");
                }
            }
        }
        // Unknown fields printed by number read back when ignored.
        let all = text::to_string_with(&m, PrintOptions::new().print_unknown_fields(true));
        let lenient = ParseOptions::new().ignore_unknown_fields(true);
        text::from_str_with::<M>(&all, lenient).unwrap_or_else(|e| panic!("{name}: {e}\n{all}"));
    }

    macro_rules! round_trips {
        ($($test:ident: $name:literal => $ty:ty;)*) => {
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(200))]
                $(
                    #[test]
                    fn $test(seed in any::<u64>()) {
                        check::<$ty>($name, seed);
                    }
                )*
            }
        };
    }

    round_trips! {
        scalars: ".fastrs.test.Scalars" => fast::fastrs::test::Scalars;
        lists: ".fastrs.test.Lists" => fast::fastrs::test::Lists;
        unpacked: ".fastrs.test.Unpacked" => fast::fastrs::test::Unpacked;
        optionals: ".fastrs.test.Optionals" => fast::fastrs::test::Optionals;
        maps: ".fastrs.test.Maps" => fast::fastrs::test::Maps;
        choice: ".fastrs.test.Choice" => fast::fastrs::test::Choice;
        tree: ".fastrs.test.Tree" => fast::fastrs::test::Tree;
        outer: ".fastrs.test.Outer" => fast::fastrs::test::Outer;
        keywords: ".fastrs.test.Keywords" => fast::fastrs::test::Keywords;
        edges: ".fastrs.test.Edges" => fast::fastrs::test::Edges;
        flat: ".fastrs.test.Flat" => fast::fastrs::test::Flat;
        everything: ".fastrs.test.Everything" => fast::fastrs::test::Everything;
        p2_defaults: ".fastrs.test2.Defaults" => fast::fastrs::test2::Defaults;
        p2_required: ".fastrs.test2.Required" => fast::fastrs::test2::Required;
        p2_closed: ".fastrs.test2.Closed" => fast::fastrs::test2::Closed;
        p2_groups: ".fastrs.test2.Groups" => fast::fastrs::test2::Groups;
        p2_packed: ".fastrs.test2.Packed" => fast::fastrs::test2::Packed;
        p2_extendable: ".fastrs.test2.Extendable" => fast::fastrs::test2::Extendable;
    }
}

// ---- Hostile input ---------------------------------------------------------------

mod hostile {
    use fastrs::text::{self, ParseOptions, PrintOptions};
    use fastrs::well_known as wk;
    use fastrs::Message;
    use fastrs_tests::fast::fastrs::test::{Everything, Scalars};
    use proptest::prelude::*;

    fn length_prefixed(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        let mut len = body.len();
        while len >= 0x80 {
            out.push((len as u8) | 0x80);
            len >>= 7;
        }
        out.push(len as u8);
        out.extend_from_slice(body);
        out
    }

    /// Bytes nested without the limit binary decoding applies (an unknown
    /// field, `Any` values) print as strings past 100 levels: no stack
    /// overflow.
    #[test]
    fn deep_bytes_print_without_recursing_forever() {
        let mut inner = vec![0x08, 0x01];
        for _ in 0..5000 {
            inner = length_prefixed(0x0a, &inner);
        }
        let mut unknown = vec![0xc2, 0x3e]; // field 1000, length-delimited
        unknown.extend_from_slice(&length_prefixed(0, &inner)[1..]);
        let m = Scalars::decode(&unknown).unwrap();
        let printed = text::to_string_with(&m, PrintOptions::new().print_unknown_fields(true));
        assert!(printed.starts_with("1000 { 1 { 1 {"), "{}", &printed[..40]);

        text::register::<Scalars>();
        let mut any = wk::Any::default();
        for _ in 0..5000 {
            any = wk::Any::pack(&any);
        }
        let printed = text::to_string(&any);
        assert!(printed.starts_with("[type.googleapis.com/google.protobuf.Any] {"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any text parses or fails cleanly.
        #[test]
        fn arbitrary_text_never_panics(input in "\\PC{0,200}") {
            let _ = text::from_str::<Everything>(&input);
            let lenient = ParseOptions::new().ignore_unknown_fields(true);
            let _ = text::from_str_with::<Everything>(&input, lenient);
        }

        /// Text built from the format's own tokens, which gets further in.
        #[test]
        fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
            "scalars", "lists", "f_int32", "f_string", "f_double", "f_enum", "f_message", "maps",
            "int32_int32", "key", "value", "tree", "left", "more", "{", "}", "<", ">", "[", "]",
            ":", ",", ";", "-", "1", "0x7f", "017", "1.5e3", "inf", "'s'", "\"\\u1234\"", "COLOR_RED",
            "[type.googleapis.com/x.Y]", "#c\n", "\n",
        ]), 0..60)) {
            let input = tokens.join(" ");
            if let Ok(m) = text::from_str::<Everything>(&input) {
                let printed = text::to_string(&m);
                prop_assert_eq!(text::from_str::<Everything>(&printed).unwrap(), m);
            }
        }
    }
}

/// A closed enum's unnamed number is an unknown field once decoded, so it
/// prints as one (and only when asked), never as the field's value, which
/// would not parse back.
#[test]
fn closed_enum_numbers_the_enum_does_not_name_print_as_unknown() {
    // level_choice (5) = 34, then packed_levels (3) = [1, 34].
    let closed = Closed::decode(&[0x28, 0x22, 0x1a, 0x02, 0x01, 0x22]).unwrap();
    assert_eq!(text::to_string(&closed), "packed_levels: LEVEL_LOW");
    let with_unknown = text::to_string_with(&closed, PrintOptions::new().print_unknown_fields(true));
    assert!(with_unknown.contains("5: 34"), "{with_unknown}");
    let back: Closed = text::from_str(&text::to_string(&closed)).unwrap();
    assert_eq!(back.packed_levels.len(), 1);
}
