//! Embedded descriptors (`Builder::file_descriptors()`): each package
//! carries the `FileDescriptorSet` of its files, and each message names it.

use std::path::Path;

use fastrs::descriptor::FileDescriptorSet;
use fastrs::reflect::DescriptorPool;
use fastrs::{Described, Message};
use fastrs_tests::fast::fastrs::test as t;

#[test]
fn a_package_embeds_its_files_without_source_info() {
    let embedded = FileDescriptorSet::decode(t::FILE_DESCRIPTOR_SET).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let parsed = protoc_gen_fastrs::Builder::new()
        .parse(&[root.join("test/types.proto")], &[&root])
        .unwrap();
    let mut expected = parsed
        .set
        .file
        .into_iter()
        .find(|f| f.name() == "test/types.proto")
        .unwrap();
    assert!(expected.source_code_info.is_some(), "the parser gave comments");
    expected.source_code_info = None;
    assert_eq!(embedded.file, [expected], "the package's one file, as parsed");
}

#[test]
fn messages_name_their_package_descriptors() {
    assert_eq!(
        <t::outer::Inner as Described>::FILE_DESCRIPTOR_SET,
        t::FILE_DESCRIPTOR_SET
    );
    // The sets link into a pool that finds nested messages by full name.
    let mut pool = DescriptorPool::new();
    pool.add_described::<t::Everything>().unwrap();
    let inner = pool
        .get_message_by_name(t::outer::Inner::FULL_NAME)
        .expect("nested message found");
    assert_eq!(inner.name(), "Inner");
    assert_eq!(inner.fields().next().unwrap().name(), "kind");
    assert!(pool.get_message_by_name("fastrs.test.Outer.Missing").is_none());
    assert!(pool.get_message_by_name("fastrs.testOuter").is_none());
    // Another package has its own set.
    let other = DescriptorPool::decode(fastrs_tests::fast::fastrs::test::other::FILE_DESCRIPTOR_SET).unwrap();
    assert!(other.get_message_by_name("fastrs.test.other.Remote").is_some());
    assert!(other.get_message_by_name(t::Everything::FULL_NAME).is_none());
}

/// Descriptors are embedded when asked for, or for JSON (whose `Any` and
/// extension keys read them from the registry): the editions golden file
/// has neither, the proto3 one has JSON.
#[test]
fn nothing_is_embedded_unless_asked_for_or_for_json() {
    let golden =
        |name: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("golden").join(name)).unwrap();
    let plain = golden("golden.editions.rs");
    assert!(!plain.contains("FILE_DESCRIPTOR_SET") && !plain.contains("Described"));
    let json = golden("golden.rs");
    assert!(json.contains("impl ::fastrs::serde::Serialize for User"));
    assert!(json.contains("pub const FILE_DESCRIPTOR_SET") && json.contains("impl ::fastrs::Described for User"));
}
