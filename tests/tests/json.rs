//! The proto3 JSON mapping, rule by rule, with hand-written expectations; then
//! round trips binary → JSON → binary on random messages of every test schema.

use fastrs::json::{self, JsonMessage, JsonOptions};
use fastrs::well_known as wk;
use fastrs::EnumValue;
use fastrs_tests::fast::fastrs::test::{
    self as t, choice, Choice, Color, Edges, Lists, Maps, Optionals, Scalars, Tree,
};
use fastrs_tests::fast::fastrs::test2::{self as t2, Closed, Level};
use serde_json::json;

/// The JSON of `m` as a value (key order does not matter).
fn value<M: serde::Serialize>(m: &M) -> serde_json::Value {
    serde_json::from_str(&json::to_string(m).expect("prints")).unwrap()
}

fn parse<M: JsonMessage>(text: &str) -> M {
    json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn parse_err<M: JsonMessage + std::fmt::Debug>(text: &str) -> String {
    match json::from_str::<M>(text) {
        Ok(m) => panic!("{text} parsed as {m:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn defaults_are_left_out() {
    assert_eq!(json::to_string(&Scalars::default()).unwrap(), "{}");
    assert_eq!(json::to_string(&Lists::default()).unwrap(), "{}");
    assert_eq!(json::to_string(&Maps::default()).unwrap(), "{}");
}

#[test]
fn scalars_follow_the_mapping() {
    let m = Scalars {
        f_double: 1.5,
        f_float: 0.1,
        f_int32: -7,
        f_int64: -9_007_199_254_740_993,
        f_uint32: 4_000_000_000,
        f_uint64: u64::MAX,
        f_sint32: -1,
        f_sint64: i64::MIN,
        f_fixed32: 9,
        f_fixed64: 10,
        f_sfixed32: -11,
        f_sfixed64: -12,
        f_bool: true,
        f_string: "héllo \"q\"".into(),
        f_bytes: vec![0xfb, 0xff, 0x00],
        f_enum: Color::Green.into(),
        ..Default::default()
    };
    assert_eq!(
        value(&m),
        json!({
            "fDouble": 1.5, "fFloat": 0.1, "fInt32": -7, "fInt64": "-9007199254740993",
            "fUint32": 4_000_000_000u32, "fUint64": "18446744073709551615", "fSint32": -1,
            "fSint64": "-9223372036854775808", "fFixed32": 9, "fFixed64": "10", "fSfixed32": -11,
            "fSfixed64": "-12", "fBool": true, "fString": "héllo \"q\"", "fBytes": "+/8A",
            "fEnum": "COLOR_GREEN"
        })
    );
    let text = json::to_string(&m).unwrap();
    assert!(
        text.contains("\"fFloat\":0.1,"),
        "floats print as the shortest float: {text}"
    );
    assert_eq!(parse::<Scalars>(&text), m);
}

#[test]
fn output_is_in_field_number_order() {
    let m = Edges {
        small: 1,
        biggest: 2,
        json: "x".into(),
        ..Default::default()
    };
    assert_eq!(json::to_string(&m).unwrap(), r#"{"small":1,"JSON":"x","biggest":2}"#);
}

#[test]
fn a_field_may_appear_once_under_either_name() {
    for text in [
        r#"{"fInt32": 1, "fInt32": 2}"#,
        r#"{"fInt32": 1, "f_int32": 2}"#,
        r#"{"fString": "a", "fInt32": 1, "fString": "b"}"#,
    ] {
        let err = parse_err::<Scalars>(text);
        assert!(err.contains("more than once"), "{err}");
    }
    parse_err::<Lists>(r#"{"fInt32": [1], "fInt32": [2]}"#);
    // Numbers past 128 are tracked too.
    parse_err::<Edges>(r#"{"biggest": 1, "biggest": 2}"#);
    parse_err::<Edges>(r#"{"threeByteTag": 1, "three_byte_tag": 2}"#);
    let m: Edges = parse(r#"{"biggest": 1, "threeByteTag": 2, "small": 3, "twoByteTag": 4}"#);
    assert_eq!((m.biggest, m.three_byte_tag, m.small, m.two_byte_tag), (1, 2, 3, 4));
}

#[test]
fn both_names_are_accepted_and_json_name_wins_on_output() {
    let m: Edges = parse(r#"{"JSON": "a", "two_byte_tag": "5", "threeByteTag": 6}"#);
    assert_eq!((m.json.as_str(), m.two_byte_tag, m.three_byte_tag), ("a", 5, 6));
    assert_eq!(parse::<Edges>(r#"{"json": "b"}"#).json, "b", "the proto name");
}

#[test]
fn numbers_are_accepted_as_numbers_or_strings() {
    let m: Scalars = parse(
        r#"{"fInt32": "-5", "fInt64": 12, "fUint64": "18446744073709551615", "fUint32": 1e3,
            "fSint64": "1e2", "fFixed32": 7.0, "fDouble": "2.5", "fFloat": -3}"#,
    );
    assert_eq!((m.f_int32, m.f_int64, m.f_uint64, m.f_uint32), (-5, 12, u64::MAX, 1000));
    assert_eq!((m.f_sint64, m.f_fixed32, m.f_double, m.f_float), (100, 7, 2.5, -3.0));
    for bad in [
        r#"{"fInt64": "-9223372036854775809"}"#,
        r#"{"fInt64": "9223372036854775807.5"}"#,
        r#"{"fUint64": "18446744073709551616"}"#,
        r#"{"fUint64": "1e20"}"#,
        r#"{"fInt64": "1.5"}"#,
        r#"{"fInt64": "0x10"}"#,
        r#"{"fInt64": "1e"}"#,
        r#"{"fInt64": "."}"#,
        r#"{"fInt64": ""}"#,
        r#"{"fInt64": "1e99999999999"}"#,
        r#"{"fInt64": 9007199254740993.0}"#,
        r#"{"fInt32": 1.5}"#,
        r#"{"fInt32": 2147483648}"#,
        r#"{"fUint32": -1}"#,
        r#"{"fInt64": "9223372036854775808"}"#,
        r#"{"fUint64": "-1"}"#,
        r#"{"fInt32": " 1"}"#,
        r#"{"fInt32": true}"#,
        r#"{"fFloat": 3.5e38}"#,
        r#"{"fDouble": "inf"}"#,
        r#"{"fBool": "true"}"#,
        r#"{"fBool": 1}"#,
    ] {
        parse_err::<Scalars>(bad);
    }
}

#[test]
fn integers_in_text_are_read_exactly_in_any_notation() {
    let int64 = |text: &str| parse::<Scalars>(&format!(r#"{{"fInt64": {text}}}"#)).f_int64;
    let uint64 = |text: &str| parse::<Scalars>(&format!(r#"{{"fUint64": {text}}}"#)).f_uint64;
    // No detour through a double: these are not exact in one.
    assert_eq!(int64(r#""9007199254740993.0""#), 9_007_199_254_740_993);
    assert_eq!(int64(r#""9007199254740993""#), 9_007_199_254_740_993);
    assert_eq!(int64(r#""-9223372036854775808""#), i64::MIN);
    assert_eq!(int64(r#""9.223372036854775807e18""#), i64::MAX);
    assert_eq!(uint64(r#""1.8446744073709551615E19""#), u64::MAX);
    // Fractions and exponents whose exact value is an integer.
    assert_eq!(int64(r#""120e-1""#), 12);
    assert_eq!(int64(r#""12.30e1""#), 123);
    assert_eq!(int64(r#""-0""#), 0);
    assert_eq!(int64(r#""0e999999""#), 0);
    assert_eq!(int64(r#""1e5""#), 100_000);
    // Unquoted numbers with a fraction or exponent arrive as doubles: exact
    // up to 2^53, an error above (the double may already be rounded).
    assert_eq!(int64("9007199254740991.0"), 9_007_199_254_740_991);
    assert_eq!(int64("-1e15"), -1_000_000_000_000_000);
    // Plain integers are exact however large.
    assert_eq!(int64("-9223372036854775808"), i64::MIN);
}

#[test]
fn extensions_are_keyed_by_their_bracketed_full_name_both_ways() {
    t2::register_json_types();
    let mut m = t2::Extendable {
        base: Some(1),
        ..Default::default()
    };
    t2::EXT_INT.set(&mut m, &5);
    t2::EXT_TEXT.set(&mut m, &"hi".into());
    t2::EXT_LIST.push(&mut m, &-7);
    t2::EXT_LIST.push(&mut m, &8);
    let expected = json!({
        "base": 1,
        "[fastrs.test2.ext_int]": 5,
        "[fastrs.test2.ext_text]": "hi",
        "[fastrs.test2.ext_list]": ["-7", "8"],
    });
    assert_eq!(value(&m), expected);
    let text = json::to_string(&m).unwrap();
    assert!(
        text.ends_with(r#""[fastrs.test2.ext_list]":["-7","8"]}"#),
        "in number order after the fields: {text}"
    );
    let back: t2::Extendable = parse(&text);
    assert_eq!(t2::EXT_INT.get(&back), Ok(Some(5)));
    assert_eq!(t2::EXT_TEXT.get(&back).unwrap().unwrap(), "hi");
    assert_eq!(t2::EXT_LIST.get(&back), Ok(vec![-7, 8]));
    assert_eq!(back.base, Some(1));

    let err = parse_err::<t2::Extendable>(r#"{"[fastrs.test2.ext_int]": 1, "[fastrs.test2.ext_int]": 2}"#);
    assert!(err.contains("more than once"), "{err}");
    let err = parse_err::<t2::Extendable>(r#"{"[fastrs.test2.no_such]": 1}"#);
    assert!(err.contains("unknown field `[fastrs.test2.no_such]`"), "{err}");
    let err = parse_err::<t2::Extendable>(r#"{"[fastrs.test2.ext_int]": "x"}"#);
    assert!(err.contains("ext_int"), "{err}");
    let lenient = JsonOptions::new().ignore_unknown_fields(true);
    let m: t2::Extendable = json::from_str_with(r#"{"[fastrs.test2.no_such]": 1, "base": 2}"#, lenient).unwrap();
    assert_eq!(m.base, Some(2));

    // A proto2 string holding bytes that are not UTF-8 has no JSON form.
    let mut m = t2::Extendable::default();
    t2::EXT_TEXT.set(&mut m, &vec![0xff].into());
    let err = json::to_string(&m).unwrap_err().to_string();
    assert!(err.contains("not UTF-8"), "{err}");
}

#[test]
fn non_finite_floats_are_strings() {
    let m = Lists {
        f_double: vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY],
        f_float: vec![f32::INFINITY],
        ..Default::default()
    };
    assert_eq!(
        value(&m),
        json!({"fDouble": ["NaN", "Infinity", "-Infinity"], "fFloat": ["Infinity"]})
    );
    let back: Lists = parse(&json::to_string(&m).unwrap());
    assert!(back.f_double[0].is_nan());
    assert_eq!(&back.f_double[1..], &[f64::INFINITY, f64::NEG_INFINITY]);
}

#[test]
fn bytes_accept_both_alphabets_with_or_without_padding() {
    for text in ["+/8A", "-_8A", "+/8=", "-_8"] {
        let m: Scalars = parse(&format!(r#"{{"fBytes": "{text}"}}"#));
        assert_eq!(&m.f_bytes[..2], &[0xfb, 0xff], "{text}");
    }
    parse_err::<Scalars>(r#"{"fBytes": "a*b="}"#);
}

#[test]
fn enums_by_name_or_number() {
    assert_eq!(parse::<Scalars>(r#"{"fEnum": "COLOR_RED"}"#).f_enum, Color::Red);
    assert_eq!(
        parse::<Scalars>(r#"{"fEnum": "COLOR_CRIMSON"}"#).f_enum,
        Color::Red,
        "an alias"
    );
    assert_eq!(parse::<Scalars>(r#"{"fEnum": 2}"#).f_enum, Color::Green);
    assert_eq!(parse::<Scalars>(r#"{"fEnum": -1}"#).f_enum, Color::Negative);
    // An open enum keeps numbers it does not name, and prints them as numbers.
    let m: Scalars = parse(r#"{"fEnum": 99}"#);
    assert_eq!(m.f_enum.to_i32(), 99);
    assert_eq!(json::to_string(&m).unwrap(), r#"{"fEnum":99}"#);
    let err = parse_err::<Scalars>(r#"{"fEnum": "PURPLE"}"#);
    assert!(
        err.contains("PURPLE") && err.contains("fastrs.test.Color") && err.contains("fEnum"),
        "{err}"
    );
    // A closed enum takes only the numbers it names.
    assert_eq!(parse::<Closed>(r#"{"level": 2}"#).level, Some(Level::High));
    parse_err::<Closed>(r#"{"level": 9}"#);
}

#[test]
fn null_means_default() {
    let m: Optionals = parse(r#"{"fInt32": null, "fMessage": null, "fString": null}"#);
    assert_eq!(m, Optionals::default());
    let m: Lists = parse(r#"{"fInt32": null, "fMessage": null}"#);
    assert_eq!(m, Lists::default());
    let m: Maps = parse(r#"{"int32Int32": null}"#);
    assert_eq!(m, Maps::default());
    parse_err::<Lists>(r#"{"fInt32": [1, null]}"#);
    parse_err::<Maps>(r#"{"int32Int32": {"1": null}}"#);
}

#[test]
fn presence_fields_print_their_defaults_when_set() {
    let m = Optionals {
        f_int32: Some(0),
        f_string: Some(String::new()),
        f_message: Some(Scalars::default()),
        ..Default::default()
    };
    assert_eq!(value(&m), json!({"fInt32": 0, "fString": "", "fMessage": {}}));
}

#[test]
fn oneofs_take_one_member() {
    let m = Choice {
        pick: Some(choice::Pick::AString("s".into())),
        after: 3,
        ..Default::default()
    };
    assert_eq!(value(&m), json!({"aString": "s", "after": 3}));
    assert_eq!(parse::<Choice>(r#"{"aInt": 0}"#).pick, Some(choice::Pick::AInt(0)));
    let err = parse_err::<Choice>(r#"{"aInt": 1, "aString": "x"}"#);
    assert!(err.contains("pick"), "{err}");
    parse_err::<Choice>(r#"{"aInt": 1, "aInt": 2}"#);
    // A null member does not set the oneof.
    assert_eq!(
        parse::<Choice>(r#"{"aInt": null, "aString": "x"}"#).pick,
        Some(choice::Pick::AString("x".into()))
    );
}

#[test]
fn map_keys_are_strings() {
    let mut m = Maps::default();
    m.int64_int64.insert(-5, 6);
    m.bool_bool.insert(true, false);
    m.uint32_uint32.insert(7, 8);
    m.string_enum.insert("k".into(), Color::Red.into());
    m.string_message.insert("m".into(), Scalars::default());
    assert_eq!(
        value(&m),
        json!({
            "int64Int64": {"-5": "6"}, "boolBool": {"true": false}, "uint32Uint32": {"7": 8},
            "stringEnum": {"k": "COLOR_RED"}, "stringMessage": {"m": {}}
        })
    );
    assert_eq!(parse::<Maps>(&json::to_string(&m).unwrap()), m);
    parse_err::<Maps>(r#"{"int32Int32": {"x": 1}}"#);
    parse_err::<Maps>(r#"{"boolBool": {"1": true}}"#);
}

#[test]
fn nested_and_recursive_messages() {
    let m = Tree {
        value: 1,
        left: Some(Box::new(Tree {
            value: 2,
            ..Default::default()
        })),
        branch: Some(t::tree::Branch::Leaf("l".into())),
        ..Default::default()
    };
    assert_eq!(value(&m), json!({"value": "1", "left": {"value": "2"}, "leaf": "l"}));
    assert_eq!(parse::<Tree>(&json::to_string(&m).unwrap()), m);
}

#[test]
fn deep_nesting_parses_to_the_limit_and_fails_cleanly_past_it() {
    let nested = |depth: usize| "{\"left\":".repeat(depth) + "{}" + &"}".repeat(depth);
    let mut m: Tree = parse(&nested(120));
    let mut depth = 0;
    while let Some(left) = m.left {
        m = *left;
        depth += 1;
    }
    assert_eq!(depth, 120);
    let err = parse_err::<Tree>(&nested(100_000));
    assert!(err.contains("recursion limit"), "{err}");
    // Inside `Any` the object is buffered first: the same limit applies.
    t::register_json_types();
    let any = format!(
        r#"{{"@type": "type.googleapis.com/fastrs.test.Tree", "left": {}}}"#,
        nested(100_000)
    );
    let err = parse_err::<wk::Any>(&any);
    assert!(err.contains("recursion limit"), "{err}");
    // And through DynamicMessage, whose parser recurses through serde's
    // visitors: serde_json's limit (128 levels) fits in 1 MiB of stack even
    // in debug builds, whose frames are the largest (half a thread's
    // default).
    let dynamic = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            use fastrs::reflect::{DynamicMessage, ReflectMessage};
            let parse = |text: &str| DynamicMessage::from_json(Tree::descriptor(), text).map(drop);
            assert!(parse(&nested(120)).is_ok());
            let err = parse(&nested(100_000)).unwrap_err().to_string();
            assert!(err.contains("recursion limit"), "{err}");
            let err = DynamicMessage::from_json(wk::Any::descriptor(), &any)
                .unwrap_err()
                .to_string();
            assert!(err.contains("recursion limit"), "{err}");
        })
        .unwrap();
    dynamic.join().expect("no stack overflow");
}

#[test]
fn messages_named_like_type_parameters() {
    let m = t::Keywords {
        s: Some(t::S {
            x: 1,
            ..Default::default()
        }),
        a: Some(t::A {
            d: vec![t::D::default()],
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(value(&m), json!({"s": {"x": 1}, "a": {"d": [{}]}}));
    assert_eq!(parse::<t::Keywords>(&json::to_string(&m).unwrap()), m);
}

#[test]
fn unknown_fields_fail_unless_ignored() {
    let err = parse_err::<Scalars>(r#"{"fInt32": 1, "nope": {"deep": [1]}}"#);
    assert!(err.contains("nope") && err.contains("fastrs.test.Scalars"), "{err}");
    let lenient = JsonOptions::new().ignore_unknown_fields(true);
    let m: Scalars = json::from_str_with(r#"{"fInt32": 1, "nope": {"deep": [1]}}"#, lenient).unwrap();
    assert_eq!(m.f_int32, 1);
    // Unknown enum names are dropped too: the field stays unset, a list skips them.
    let m: Lists = json::from_str_with(r#"{"fEnum": ["COLOR_RED", "PURPLE", 1]}"#, lenient).unwrap();
    assert_eq!(m.f_enum, vec![EnumValue::from(Color::Red), Color::Red.into()]);
    let m: Scalars = json::from_str_with(r#"{"fEnum": "PURPLE"}"#, lenient).unwrap();
    assert_eq!(m.f_enum, Color::Unspecified);
}

#[test]
fn errors_name_the_field_and_position() {
    let err = parse_err::<Scalars>("{\n  \"fInt32\": \"x\"\n}");
    assert!(err.contains("fInt32") && err.contains("line 2"), "{err}");
    let err = parse_err::<Scalars>(r#"{"fString": 5}"#);
    assert!(err.contains("fString") && err.contains("string"), "{err}");
    let err = json::from_slice::<Scalars>(b"{\"fString\": \"\xff\"}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("UTF-8") && err.contains("13"), "{err}");
    assert_eq!(
        json::from_slice::<Scalars>(br#"{"fString": "\u00e9"}"#)
            .unwrap()
            .f_string,
        "é"
    );
    parse_err::<Scalars>("[]");
    parse_err::<Scalars>("null");
    parse_err::<Scalars>(r#"{"fInt32": 1} trailing"#);
}

#[test]
fn proto2_required_fields_are_checked() {
    let ok: t2::Required = parse(r#"{"id": 1, "name": "n", "children": [{"id": 2, "name": "c"}]}"#);
    assert_eq!(ok.children.len(), 1);
    let err = parse_err::<t2::Required>(r#"{"id": 1}"#);
    assert!(err.contains("fastrs.test2.Required.name"), "{err}");
    let err = parse_err::<t2::Required>(r#"{"id": 1, "name": "n", "children": [{"id": 2}]}"#);
    assert!(err.contains("name"), "{err}");
}

#[test]
fn proto2_groups_and_closed_enums() {
    let m = t2::Groups {
        data: Some(t2::groups::Data {
            a: Some(1),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(value(&m), json!({"data": {"a": 1}}));
    assert_eq!(parse::<t2::Groups>(r#"{"data": {"a": 1}}"#), m);
    let c = Closed {
        levels: vec![Level::Low, Level::Max],
        ..Default::default()
    };
    assert_eq!(value(&c), json!({"levels": ["LEVEL_LOW", "LEVEL_MAX"]}));
}

// ---- Well-known types -----------------------------------------------------------

fn ts(seconds: i64, nanos: i32) -> wk::Timestamp {
    wk::Timestamp {
        seconds,
        nanos,
        ..Default::default()
    }
}

fn dur(seconds: i64, nanos: i32) -> wk::Duration {
    wk::Duration {
        seconds,
        nanos,
        ..Default::default()
    }
}

#[test]
fn timestamps_are_rfc3339() {
    for (t, text) in [
        (ts(0, 0), "1970-01-01T00:00:00Z"),
        (ts(1, 10_000_000), "1970-01-01T00:00:01.010Z"),
        (ts(-1, 999_999_000), "1969-12-31T23:59:59.999999Z"),
        (ts(951_782_400, 1), "2000-02-29T00:00:00.000000001Z"),
        (ts(-62_135_596_800, 0), "0001-01-01T00:00:00Z"),
        (ts(253_402_300_799, 999_999_999), "9999-12-31T23:59:59.999999999Z"),
    ] {
        assert_eq!(json::to_string(&t).unwrap(), format!("\"{text}\""));
        assert_eq!(parse::<wk::Timestamp>(&format!("\"{text}\"")), t);
    }
    assert_eq!(parse::<wk::Timestamp>(r#""1970-01-01T08:00:01+08:00""#), ts(1, 0));
    assert_eq!(
        parse::<wk::Timestamp>(r#""1970-01-01T00:00:00.5-01:30""#),
        ts(5400, 500_000_000)
    );
    for bad in [
        "1970-01-01T00:00:00z",
        "1970-01-01t00:00:00Z",
        "1970-01-01T00:00:00",
        "1970-13-01T00:00:00Z",
        "1970-02-30T00:00:00Z",
        "0000-12-31T23:59:59Z",
        "1970-01-01T00:00:00.Z",
        "1970-01-01T00:00:00.0000000001Z",
        "1970-01-01 00:00:00Z",
    ] {
        parse_err::<wk::Timestamp>(&format!("\"{bad}\""));
    }
    assert!(json::to_string(&ts(253_402_300_800, 0)).is_err());
    assert!(json::to_string(&ts(0, -1)).is_err());
}

#[test]
fn durations_are_seconds_with_s() {
    for (d, text) in [
        (dur(0, 0), "0s"),
        (dur(1, 340_012), "1.000340012s"),
        (dur(1, 500_000_000), "1.500s"),
        (dur(-1, -500_000), "-1.000500s"),
        (dur(0, -10_000_000), "-0.010s"),
        (dur(315_576_000_000, 999_999_999), "315576000000.999999999s"),
    ] {
        assert_eq!(json::to_string(&d).unwrap(), format!("\"{text}\""));
        assert_eq!(parse::<wk::Duration>(&format!("\"{text}\"")), d);
    }
    assert_eq!(parse::<wk::Duration>(r#""1.5s""#), dur(1, 500_000_000));
    for bad in ["1", "s", "-s", "1.s", "1.5 s", "315576000001s", "+1s", "1e3s"] {
        parse_err::<wk::Duration>(&format!("\"{bad}\""));
    }
    assert!(json::to_string(&dur(1, -1)).is_err(), "mixed signs");
}

#[test]
fn field_masks_are_camel_case_paths() {
    let m = wk::FieldMask {
        paths: vec!["foo_bar".into(), "baz.qux_quux".into()],
        ..Default::default()
    };
    assert_eq!(json::to_string(&m).unwrap(), r#""fooBar,baz.quxQuux""#);
    assert_eq!(parse::<wk::FieldMask>(r#""fooBar,baz.quxQuux""#), m);
    assert_eq!(parse::<wk::FieldMask>(r#""""#).paths, Vec::<String>::new());
    parse_err::<wk::FieldMask>(r#""foo_bar""#);
    for path in ["fooBar", "foo__bar", "foo_3", "foo_"] {
        let m = wk::FieldMask {
            paths: vec![path.into()],
            ..Default::default()
        };
        assert!(json::to_string(&m).is_err(), "{path} has no JSON form");
    }
}

#[test]
fn wrappers_are_bare_values() {
    let v = wk::Int64Value {
        value: 5,
        ..Default::default()
    };
    assert_eq!(json::to_string(&v).unwrap(), r#""5""#);
    assert_eq!(parse::<wk::Int64Value>("5"), v);
    assert_eq!(json::to_string(&wk::BoolValue::default()).unwrap(), "false");
    assert_eq!(parse::<wk::BytesValue>(r#""AQI=""#).value, vec![1, 2]);
    assert_eq!(parse::<wk::FloatValue>(r#""-Infinity""#).value, f32::NEG_INFINITY);
}

#[test]
fn struct_value_and_list_are_free_json() {
    let text = r#"{"a": [1.25, "two", true, null, {"b": {}}], "c": -0.5}"#;
    let s: wk::Struct = parse(text);
    assert_eq!(value(&s), serde_json::from_str::<serde_json::Value>(text).unwrap());
    let v: wk::Value = parse("null");
    assert_eq!(json::to_string(&v).unwrap(), "null");
    assert_eq!(json::to_string(&parse::<wk::ListValue>("[]")).unwrap(), "[]");
    assert!(
        json::to_string(&wk::Value::default()).is_err(),
        "a Value without a kind"
    );
    let nan = wk::Value {
        kind: Some(wk::value::Kind::NumberValue(f64::NAN)),
        ..Default::default()
    };
    assert!(json::to_string(&nan).is_err());
}

#[test]
fn empty_is_an_empty_object() {
    assert_eq!(json::to_string(&wk::Empty::default()).unwrap(), "{}");
    assert_eq!(parse::<wk::Empty>("{}"), wk::Empty::default());
}

#[test]
fn any_shows_its_type_and_the_message() {
    t::register_json_types();
    let inner = Scalars {
        f_int32: 5,
        f_int64: 6,
        ..Default::default()
    };
    let any = wk::Any::pack(&inner);
    let expected = json!({"@type": "type.googleapis.com/fastrs.test.Scalars", "fInt32": 5, "fInt64": "6"});
    assert_eq!(value(&any), expected);
    // `@type` may come anywhere in the object.
    let back: wk::Any = parse(r#"{"fInt64": "6", "@type": "type.googleapis.com/fastrs.test.Scalars", "fInt32": 5}"#);
    assert_eq!(back.unpack::<Scalars>().unwrap(), Some(inner.clone()));

    // Well-known types with their own form go under "value", Any inside Any too.
    let wrapped = wk::Any::pack(&dur(1, 0));
    assert_eq!(
        value(&wrapped),
        json!({"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s"})
    );
    let twice = wk::Any::pack(&wrapped);
    let text = json::to_string(&twice).unwrap();
    assert_eq!(parse::<wk::Any>(&text), twice);
    // Empty has no JSON form of its own: it is an ordinary message, embedded.
    let empty = wk::Any::pack(&wk::Empty::default());
    assert_eq!(
        value(&empty),
        json!({"@type": "type.googleapis.com/google.protobuf.Empty"})
    );
    assert_eq!(parse::<wk::Any>(&json::to_string(&empty).unwrap()), empty);
    let legacy = r#"{"@type": "type.googleapis.com/google.protobuf.Empty", "value": {}}"#;
    assert_eq!(
        parse::<wk::Any>(legacy),
        empty,
        "the form older fastrs printed still reads"
    );

    assert_eq!(json::to_string(&wk::Any::default()).unwrap(), "{}");
    assert_eq!(parse::<wk::Any>("{}"), wk::Any::default());
    let unknown = wk::Any {
        type_url: "type.googleapis.com/not.Registered".into(),
        ..Default::default()
    };
    let err = json::to_string(&unknown).unwrap_err().to_string();
    assert!(err.contains("not.Registered") && err.contains("register"), "{err}");
    parse_err::<wk::Any>(r#"{"fInt32": 1}"#);
    // A key given twice is refused inside an Any too, as in any message.
    let err = parse_err::<wk::Any>(r#"{"@type": "type.googleapis.com/fastrs.test.Scalars", "fInt32": 1, "fInt32": 2}"#);
    assert!(err.contains("f_int32 is given twice"), "{err}");
    let err = parse_err::<wk::Any>(r#"{"fInt32": 1, "fInt32": 2, "@type": "type.googleapis.com/fastrs.test.Scalars"}"#);
    assert!(err.contains("\"fInt32\" appears twice"), "{err}");
    // So is a second `@type`, even where unknown fields are ignored.
    let lenient = JsonOptions::new().ignore_unknown_fields(true);
    for text in [
        r#"{"@type": "type.googleapis.com/fastrs.test.Scalars", "fInt32": 1, "@type": "type.googleapis.com/fastrs.test.Scalars"}"#,
        r#"{"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s", "@type": "x/y"}"#,
        r#"{"fInt32": 1, "@type": "type.googleapis.com/fastrs.test.Scalars", "@type": "x/y"}"#,
    ] {
        let err = json::from_str_with::<wk::Any>(text, lenient).unwrap_err().to_string();
        assert!(err.contains("@type"), "{text}: {err}");
    }
    // `@type` first streams the held message, later reads the object whole:
    // the same message either way.
    let first: wk::Any = parse(r#"{"@type": "type.googleapis.com/fastrs.test.Scalars", "fInt32": 5, "fInt64": "6"}"#);
    let last: wk::Any = parse(r#"{"fInt32": 5, "fInt64": "6", "@type": "type.googleapis.com/fastrs.test.Scalars"}"#);
    assert_eq!(first, last);
    assert_eq!(first.unpack::<Scalars>().unwrap(), Some(inner));
    parse_err::<wk::Any>(r#"{"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s", "x": 1}"#);
}

#[test]
fn well_known_fields_inside_messages() {
    let m: t::other::Remote = json::from_str("{}").unwrap();
    assert_eq!(json::to_string(&m).unwrap(), "{}");
}

// ---- Round trips on random messages ----------------------------------------------

mod round_trip {
    use fastrs::json::{self, JsonMessage};

    use fastrs_tests::fast;
    use fastrs_tests::random::{Rng, Schema};
    use fastrs_tests::DESCRIPTORS;
    use proptest::prelude::*;

    /// Binary → message → JSON → message: the JSON of both is the same value,
    /// and (where no NaN makes a message unequal to itself) the messages are
    /// equal, unknown fields aside (JSON has no place for them).
    fn check<M: JsonMessage + PartialEq + std::fmt::Debug>(name: &str, seed: u64) {
        thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));
        let mut has_map = false;
        let input = SCHEMA.with(|s| s.encode(name, &mut Rng::new(seed), 4, &mut has_map));
        let m = M::decode(&input).expect("valid input");
        let text = json::to_string(&m).unwrap_or_else(|e| panic!("{name} prints: {e}"));
        let back: M = json::from_str(&text).unwrap_or_else(|e| panic!("{name} parses its JSON: {e}\n{text}"));
        let value = |m: &M| serde_json::to_value(m).unwrap();
        assert_eq!(value(&back), value(&m), "{text}");
        #[allow(clippy::eq_op)] // false exactly when a NaN is inside
        let comparable = m == m;
        if comparable && m.unknown_fields().fields().next().is_none() {
            assert_eq!(back, m, "{text}");
        }
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
        everything: ".fastrs.test.Everything" => fast::fastrs::test::Everything;
        p2_defaults: ".fastrs.test2.Defaults" => fast::fastrs::test2::Defaults;
        p2_closed: ".fastrs.test2.Closed" => fast::fastrs::test2::Closed;
        p2_groups: ".fastrs.test2.Groups" => fast::fastrs::test2::Groups;
        p2_packed: ".fastrs.test2.Packed" => fast::fastrs::test2::Packed;
    }
}

// ---- Hostile input ---------------------------------------------------------------

mod hostile {
    use fastrs::json;
    use fastrs::well_known as wk;
    use fastrs_tests::fast::fastrs::test::Everything;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Printing a well-known type with any field values gives text or an
        /// error, never a panic (extremes included: `i64::MIN` seconds).
        #[test]
        fn well_known_types_print_or_fail(seconds in any::<i64>(), nanos in any::<i32>(), edge in 0..4u8) {
            let (seconds, nanos) = match edge {
                0 => (seconds, nanos),
                1 => (i64::MIN, i32::MIN),
                2 => (seconds % 400_000_000_000, nanos % 1_000_000_000),
                _ => (i64::MAX, i32::MAX),
            };
            let t = wk::Timestamp { seconds, nanos, ..Default::default() };
            let d = wk::Duration { seconds, nanos, ..Default::default() };
            if let Ok(text) = json::to_string(&t) {
                prop_assert_eq!(json::from_str::<wk::Timestamp>(&text).unwrap(), t);
            }
            if let Ok(text) = json::to_string(&d) {
                prop_assert_eq!(json::from_str::<wk::Duration>(&text).unwrap(), d);
            }
        }

        /// Strings near the valid forms parse or fail cleanly.
        #[test]
        fn time_strings_parse_or_fail(text in "[0-9T:Z.+-]{0,40}") {
            let _ = json::from_str::<wk::Timestamp>(&format!("\"{text}\""));
            let _ = json::from_str::<wk::Duration>(&format!("\"{text}s\""));
            let _ = json::from_str::<wk::FieldMask>(&format!("\"{text}\""));
        }

        /// Random edits of valid JSON parse or fail cleanly, and what parses
        /// prints again.
        #[test]
        fn mutated_json_parses_or_fails(seed in any::<u64>(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
            let base = format!(
                r#"{{"scalars": {{"fInt64": "{seed}", "fBytes": "AQI=", "fEnum": "COLOR_RED", "fDouble": "NaN"}},
                   "maps": {{"int32Int32": {{"1": 2}}, "stringMessage": {{"k": {{"fBool": true}}}}}},
                   "choice": {{"aString": "x"}}, "tree": {{"left": {{"value": "1"}}, "children": [{{}}]}},
                   "more": [{{"edges": {{"JSON": "j"}}}}]}}"#
            );
            let mut bytes = base.into_bytes();
            for (at, byte) in edits {
                let i = at % bytes.len();
                bytes[i] = byte;
            }
            if let Ok(m) = json::from_slice::<Everything>(&bytes) {
                let _ = json::to_string(&m);
            }
        }
    }
}
