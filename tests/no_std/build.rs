//! Generates the test schemas with `BTreeMap` maps, for a `no_std` crate.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = [
        "../../proto/test/types.proto",
        "../../proto/test/other.proto",
        "../../proto/test/rootless.proto",
        "../../proto/test/proto2.proto",
    ];
    protoc_gen_fastrs::Builder::new()
        .btree_maps()
        .include_file("mod.rs")
        .compile(&protos, &["../../proto"])?;
    Ok(())
}
