//! Golden files: the generated code for `proto/golden/golden.proto` is checked
//! in under `tests/golden/`. A change to the generator shows up as a diff there.
//! `FASTRS_BLESS=1 cargo test -p fastrs-tests --test golden` rewrites them.

use std::path::Path;

#[test]
fn generated_code_matches_golden_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = protoc_gen_fastrs::Builder::new()
        .json()
        .generate(&[root.join("proto/golden/golden.proto")], &[root.join("proto")])
        .expect("golden schema generates");
    let bless = std::env::var_os("FASTRS_BLESS").is_some();
    for file in files {
        let path = root.join("tests/golden").join(&file.name);
        if bless {
            std::fs::write(&path, &file.content).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run with FASTRS_BLESS=1 to create it", path.display()));
        assert!(
            expected == file.content,
            "{} is out of date; review the change and rerun with FASTRS_BLESS=1\n--- generated ---\n{}",
            path.display(),
            file.content
        );
    }
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
}
