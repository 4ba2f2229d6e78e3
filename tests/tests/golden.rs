//! Golden files: the generated code for the schemas in `proto/golden/` is
//! checked in under `tests/golden/`. A change to the generator shows up as a
//! diff there. `FASTRS_BLESS=1 cargo test -p fastrs-tests --test golden`
//! rewrites them.

use std::path::{Path, PathBuf};

use protoc_gen_fastrs::{Builder, GeneratedFile, Mode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Generates `schema` (in `proto/`) with `builder`.
fn generate(builder: Builder, schema: &str) -> Vec<GeneratedFile> {
    let root = root();
    builder
        .generate(&[root.join("proto").join(schema)], &[root.join("proto")])
        .unwrap_or_else(|e| panic!("{schema} generates: {e}"))
}

/// Compares each generated file with its golden copy (or rewrites it).
fn check(files: Vec<GeneratedFile>) {
    check_in("tests/golden", files);
}

/// [`check`] against the golden copies in `dir`.
fn check_in(dir: &str, files: Vec<GeneratedFile>) {
    let files: Vec<(String, String)> = files.into_iter().map(|f| (f.name, f.content)).collect();
    fastrs_tests::golden::check_files(&root().join(dir), &files);
}

#[test]
fn generated_code_matches_golden_files() {
    check(generate(Builder::new().json(), "golden/golden.proto"));
    check(generate(Builder::new().json(), "golden/proto2.proto"));
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    check(generate(Builder::new().protoc_path(protoc), "golden/editions.proto"));
    // Custom options on every kind of element (fastrs::descriptor).
    check(generate(Builder::new().json(), "test/options.proto"));
    // Size mode: out-of-line codecs (large schemas get it by default).
    let size = || Builder::new().mode(Mode::Size);
    check_in("tests/golden/size", generate(size(), "golden/golden.proto"));
    check_in("tests/golden/size", generate(size(), "golden/proto2.proto"));
    // The optional outputs (views, services, descriptors, shared bytes) in
    // both modes; fastrs-tonic's tests compile these two files.
    let service = |b: Builder| b.views().grpc().file_descriptors().bytes(["."]).unwrap();
    check(generate(service(Builder::new()), "golden/service.proto"));
    check_in("tests/golden/size", generate(service(size()), "golden/service.proto"));
    // The Connect client beside tonic's client and server (fastrs-tonic's
    // tests compile it).
    check_in(
        "tests/golden/connect",
        generate(Builder::new().grpc().connect_client(), "golden/service.proto"),
    );
    // Validation (protovalidate's rules, CEL compiled to Rust) with its
    // service, in both modes.
    let validated = |b: Builder| b.validate().grpc().views();
    check_in(
        "tests/golden/validate",
        generate(validated(Builder::new()), "demo/signup.proto"),
    );
    check_in(
        "tests/golden/validate/size",
        generate(validated(size()), "demo/signup.proto"),
    );
}

#[test]
fn a_mismatch_shows_the_changed_lines_only() {
    let expected = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let actual = "a\nb\nc\nd\nE\nf\ng\nh\n";
    assert_eq!(
        fastrs_tests::golden::diff(expected, actual),
        "@@ line 5 @@\n  b\n  c\n  d\n- e\n+ E\n  f\n  g\n  h\n"
    );
}

/// The golden files also compile (proto2 and editions: with every warning
/// an error but unused items, as in a test crate) and work.
#[deny(warnings)]
#[allow(dead_code)]
mod golden2 {
    include!("../golden/golden2.rs");
}

#[deny(warnings)]
#[allow(dead_code)]
mod golden_editions {
    include!("../golden/golden.editions.rs");
}

/// Size-mode code has no `unsafe` of its own (its tables' offsets come from
/// the runtime's `table_field!`), so crates that forbid it can hold it.
#[deny(warnings)]
#[forbid(unsafe_code)]
#[allow(dead_code)]
mod golden_size {
    include!("../golden/size/golden.rs");
}

#[deny(warnings)]
#[forbid(unsafe_code)]
#[allow(dead_code)]
mod golden2_size {
    include!("../golden/size/golden2.rs");
}

#[test]
fn proto2_golden_code_round_trips() {
    use fastrs::Message;
    use golden2::{order, Level, Order};
    let order = Order {
        id: Some(1),
        levels: vec![Level::Low, Level::High],
        shipping: Some(order::Shipping {
            city: Some("Oslo".into()),
            ..Default::default()
        }),
        line: vec![order::Line {
            sku: Some("x".into()),
            ..Default::default()
        }],
        payment: Some(order::Payment::Tier(Level::High)),
        ..Default::default()
    };
    let mut with_ext = order.clone();
    golden2::GIFT_NOTE.set(&mut with_ext, &"for you".into());
    let back = Order::decode(&with_ext.encode_to_vec()).unwrap();
    assert_eq!(back, with_ext);
    assert_eq!(golden2::GIFT_NOTE.get(&back).unwrap().unwrap(), "for you");
    assert_eq!(golden2::Defaults::default().level(), Level::High);
    assert_eq!(golden2::Defaults::default().raw(), b"a\0\xff");
}

#[test]
fn editions_golden_code_round_trips() {
    use fastrs::Message;
    use golden_editions::{Item, Shade};
    let item = Item {
        id: Some(3),
        count: 4,
        shade: Some(Shade::Light),
        child: Some(Box::new(Item {
            id: Some(5),
            ..Default::default()
        })),
        ..Default::default()
    };
    assert_eq!(Item::decode(&item.encode_to_vec()).unwrap(), item);
}

/// The golden file also compiles and works.
mod golden {
    include!("../golden/golden.rs");
}

#[test]
fn golden_code_round_trips() {
    use fastrs::Message;
    let user = golden::User {
        name: "ada".into(),
        id: 7,
        scores: vec![1, 2, 300],
        active: Some(false),
        role: golden::Role::Admin.into(),
        counters: [("logins".to_string(), 3)].into(),
        contact: Some(golden::user::Contact::Address(golden::Address {
            city: "London".into(),
            ..Default::default()
        })),
        home: None,
        ..Default::default()
    };
    assert_eq!(golden::User::decode(&user.encode_to_vec()).unwrap(), user);
    golden::register_json_types();
    let json = fastrs::json::to_string(&fastrs::well_known::Any::pack(&user)).unwrap();
    assert!(json.contains("\"@type\":\"type.googleapis.com/golden.User\""), "{json}");
    let json = fastrs::json::to_string(&user).unwrap();
    assert_eq!(fastrs::json::from_str::<golden::User>(&json).unwrap(), user);
    assert!(!user.active(), "the getter returns the set value");
    assert!(!golden::User::default().active(), "and the default when unset");
    // A self-referring message.
    let boss = golden::Manager {
        name: "grace".into(),
        reports_to: Some(Box::new(golden::Manager::default())),
        level: 2,
        ..Default::default()
    };
    assert_eq!(golden::Manager::decode(&boss.encode_to_vec()).unwrap(), boss);
}

#[test]
fn debug_redact_hides_values_in_debug_output() {
    use golden::login::SecondFactor;
    let mut login = golden::Login {
        user: "ada".into(),
        password: "hunter2".into(),
        second_factor: Some(SecondFactor::Otp("123456".into())),
        ..Default::default()
    };
    let shown = format!("{login:?}");
    assert_eq!(
        shown,
        r#"Login { user: "ada", password: [REDACTED], second_factor: Some(Otp([REDACTED])), unknown_fields: UnknownFields(0 bytes), .. }"#
    );
    assert_eq!(format!("{login:#?}").matches("[REDACTED]").count(), 2);
    login.second_factor = Some(SecondFactor::Device(7));
    assert!(format!("{login:?}").contains("Some(Device(7))"), "other members print");
    // Only `Debug` hides them: the values encode as any other.
    use fastrs::Message;
    assert_eq!(
        golden::Login::decode(&login.encode_to_vec()).unwrap().password,
        "hunter2"
    );
}
