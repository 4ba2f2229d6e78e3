//! Custom options: a schema that extends every `*Options` message of
//! descriptor.proto compiles against `fastrs::descriptor`, and the options'
//! values read back through the typed extension API from the descriptors
//! both parsers give.

use std::path::Path;

use fastrs::descriptor::FileDescriptorSet;
use fastrs::Message;
use fastrs_tests::fast::fastrs::options::{self as o, Route};
use protoc_gen_fastrs::Builder;

fn proto_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto")
}

fn check(builder: Builder) {
    let root = proto_root();
    let set = builder.parse(&[root.join("test/options.proto")], &[&root]).unwrap().set;
    let file = set
        .file
        .iter()
        .find(|f| f.name.as_deref() == Some("test/options.proto"))
        .expect("the file");
    assert_eq!(
        o::FILE_NOTE.get(file.options.as_ref().unwrap()).unwrap().as_deref(),
        Some("file")
    );
    let annotated = &file.message_type[1];
    assert_eq!(annotated.name.as_deref(), Some("Annotated"));
    assert_eq!(
        o::MESSAGE_NOTE
            .get(annotated.options.as_ref().unwrap())
            .unwrap()
            .as_deref(),
        Some("message")
    );
    let field = annotated.field[0].options.as_ref().unwrap();
    assert_eq!(o::NOTE.get(field).unwrap().as_deref(), Some("field"));
    assert_eq!(o::TAGS.get(field).unwrap(), [1, 2]);
    assert_eq!(
        o::ONEOF_FLAG.get(annotated.oneof_decl[0].options.as_ref().unwrap()),
        Ok(Some(true))
    );
    let mood = &file.enum_type[0];
    assert_eq!(
        o::ENUM_NOTE.get(mood.options.as_ref().unwrap()).unwrap().as_deref(),
        Some("enum")
    );
    assert_eq!(o::WEIGHT.get(mood.value[0].options.as_ref().unwrap()), Ok(Some(3)));
    let service = &file.service[0];
    assert_eq!(
        o::SERVICE_NOTE
            .get(service.options.as_ref().unwrap())
            .unwrap()
            .as_deref(),
        Some("service")
    );
    let route = o::ROUTE
        .get(service.method[0].options.as_ref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!((route.path.as_str(), route.verb.as_str()), ("/get", "GET"));
}

#[test]
fn custom_options_read_back_through_the_pure_parser() {
    check(Builder::new());
}

#[test]
fn custom_options_read_back_through_protoc() {
    check(Builder::new().protoc_path(protoc_bin_vendored::protoc_bin_path().unwrap()));
}

#[test]
fn protocs_descriptors_round_trip_byte_for_byte() {
    let root = proto_root();
    let out = std::env::temp_dir().join(format!("fastrs-options-{}.pb", std::process::id()));
    let status = std::process::Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg(format!("-I{}", root.display()))
        .args(["--include_imports", "--include_source_info"])
        .arg(format!("--descriptor_set_out={}", out.display()))
        .arg(root.join("test/options.proto"))
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let set = FileDescriptorSet::decode(&bytes).unwrap();
    assert_eq!(set.encode_to_vec(), bytes, "unknown options and all");
}

#[test]
fn options_can_be_set_and_encoded() {
    let mut field = fastrs::descriptor::FieldOptions::default();
    o::NOTE.set(&mut field, &"set".into());
    o::TAGS.push(&mut field, &7);
    let back = fastrs::descriptor::FieldOptions::decode(&field.encode_to_vec()).unwrap();
    assert_eq!(o::NOTE.get(&back).unwrap().as_deref(), Some("set"));
    assert_eq!(o::TAGS.get(&back).unwrap(), [7]);
    let route = Route {
        path: "/x".into(),
        ..Default::default()
    };
    let mut method = fastrs::descriptor::MethodOptions::default();
    o::ROUTE.set(&mut method, &route);
    assert_eq!(o::ROUTE.get(&method).unwrap(), Some(route));
}

#[test]
fn custom_options_show_in_json_once_their_package_is_registered() {
    // The extensions extend descriptor.proto's messages, which live in the
    // runtime: their JSON finds them in the process's registry.
    o::register_json_types();
    let mut method = fastrs::descriptor::MethodOptions {
        deprecated: Some(true),
        ..Default::default()
    };
    let route = Route {
        path: "/x".into(),
        verb: "GET".into(),
        ..Default::default()
    };
    o::ROUTE.set(&mut method, &route);
    let json = fastrs::json::to_string(&method).unwrap();
    assert_eq!(
        json,
        r#"{"deprecated":true,"[fastrs.options.route]":{"path":"/x","verb":"GET"}}"#
    );
    let back: fastrs::descriptor::MethodOptions = fastrs::json::from_str(&json).unwrap();
    assert_eq!(o::ROUTE.get(&back).unwrap(), Some(route));
    assert_eq!(back.deprecated, Some(true));

    let mut field = fastrs::descriptor::FieldOptions::default();
    o::TAGS.push(&mut field, &7);
    o::TAGS.push(&mut field, &8);
    let json = fastrs::json::to_string(&field).unwrap();
    assert_eq!(json, r#"{"[fastrs.options.tags]":[7,8]}"#);
    let back: fastrs::descriptor::FieldOptions = fastrs::json::from_str(&json).unwrap();
    assert_eq!(o::TAGS.get(&back).unwrap(), [7, 8]);
}

#[test]
fn custom_options_read_back_through_the_reflection_pool() {
    let pool = fastrs::reflect::DescriptorPool::decode(fastrs_tests::DESCRIPTORS).unwrap();
    let annotated = pool.get_message_by_name("fastrs.options.Annotated").unwrap();
    assert_eq!(
        o::FILE_NOTE.get(&annotated.file().options()).unwrap().as_deref(),
        Some("file")
    );
    assert_eq!(
        o::MESSAGE_NOTE.get(&annotated.options()).unwrap().as_deref(),
        Some("message")
    );
    let field = annotated.fields().next().unwrap();
    assert_eq!(o::NOTE.get(&field.options()).unwrap().as_deref(), Some("field"));
    assert_eq!(o::TAGS.get(&field.options()).unwrap(), [1, 2]);
    let oneof = annotated.oneofs().next().unwrap();
    assert_eq!(o::ONEOF_FLAG.get(&oneof.options()), Ok(Some(true)));
    let mood = pool.get_enum_by_name("fastrs.options.Mood").unwrap();
    assert_eq!(o::ENUM_NOTE.get(&mood.options()).unwrap().as_deref(), Some("enum"));
    assert_eq!(o::WEIGHT.get(&mood.values().next().unwrap().options()), Ok(Some(3)));
    let service = pool.get_service_by_name("fastrs.options.Routes").unwrap();
    assert_eq!(
        o::SERVICE_NOTE.get(&service.options()).unwrap().as_deref(),
        Some("service")
    );
    let route = o::ROUTE
        .get(&service.methods().next().unwrap().options())
        .unwrap()
        .unwrap();
    assert_eq!((route.path.as_str(), route.verb.as_str()), ("/get", "GET"));
}
