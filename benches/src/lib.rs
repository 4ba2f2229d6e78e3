//! Generated code for the benchmark schemas, from fastrs and its peers.

/// fastrs.
#[allow(clippy::all, dead_code, missing_docs)]
pub mod fast {
    include!(concat!(env!("OUT_DIR"), "/fastrs/mod.rs"));
}

/// fastrs in size mode (`protoc_gen_fastrs::Mode::Size`), from a crate of
/// its own (see there why).
pub use fastrs_bench_size as fast_size;

/// fastrs with `map_hasher=::foldhash::fast::RandomState`, buffa's default
/// hasher (the map workloads only).
#[allow(clippy::all, dead_code, missing_docs)]
pub mod fast_foldhash {
    include!(concat!(env!("OUT_DIR"), "/fastrs_foldhash/mod.rs"));
}

/// fastrs with `bytes` fields held as `bytes::Bytes` (`Builder::bytes`),
/// decoded from a shared buffer (the workloads with `bytes` fields only).
#[allow(clippy::all, dead_code, missing_docs)]
pub mod fast_shared {
    include!(concat!(env!("OUT_DIR"), "/fastrs_shared/mod.rs"));
}

/// prost.
#[allow(clippy::all, dead_code, missing_docs)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/prost/mod.rs"));
}

/// quick-protobuf (pb-rs, borrowed messages).
#[allow(
    clippy::all,
    dead_code,
    missing_docs,
    unused,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals
)]
pub mod qp {
    include!(concat!(env!("OUT_DIR"), "/quick.rs"));
}

/// buffa.
#[allow(clippy::all, dead_code, missing_docs, unused)]
pub mod bf {
    include!(concat!(env!("OUT_DIR"), "/buffa/mod.rs"));
}

pub mod data;
pub mod dynamic;
pub mod harness;
pub mod peers;
pub mod read;
pub mod suite;
