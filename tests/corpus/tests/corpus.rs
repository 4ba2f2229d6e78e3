//! The real-world schemas of `shared/corpus` against prost: random valid
//! encodings of every message type (the differential harness of
//! `fastrs-tests`), through generated code and through `DynamicMessage`,
//! and golden copies of fastrs's generated code.

#[cfg(not(corpus))]
#[test]
fn corpus_is_missing() {
    eprintln!("skipped: the real-world schemas are in shared/corpus beside the repository, which this clone lacks");
}

#[cfg(corpus)]
mod with_corpus {
    use std::path::Path;

    use fastrs_tests::random::Schema;

    use fastrs::reflect::DescriptorPool;

    /// Generated code against prost, and `DynamicMessage` against prost.
    type Check = (fn(&Schema, &str, u64), fn(&Schema, &DescriptorPool, &str, u64));

    /// `".full.Name" => path;` lines → `(name, (differential::<fast::path,
    /// pb::path>, differential_dynamic::<pb::path>))`.
    macro_rules! corpus_types {
        ($($name:literal => $($seg:ident)::+;)*) => {
            &[$((
                $name,
                (
                    fastrs_tests::differential::<fast::$($seg)::+, pb::$($seg)::+>
                        as fn(&fastrs_tests::random::Schema, &str, u64),
                    fastrs_tests::differential_dynamic::<pb::$($seg)::+>
                        as fn(&fastrs_tests::random::Schema, &fastrs::reflect::DescriptorPool, &str, u64),
                ),
            ),)*]
        };
    }

    /// Random encodings per message type.
    const SEEDS: u64 = 100;

    fn run(descriptors: &[u8], types: &[(&str, Check)]) {
        let schema = Schema::load(descriptors);
        let pool = DescriptorPool::decode(descriptors).expect("the corpus's descriptors link");
        assert!(types.len() > 10, "found the corpus's types");
        for (name, (generated, dynamic)) in types {
            let dotless = name.trim_start_matches('.');
            for seed in 0..SEEDS {
                generated(&schema, name, seed);
                dynamic(&schema, &pool, dotless, seed);
            }
        }
    }

    mod temporal {
        use super::Check;
        use fastrs_corpus::temporal_api::{fast, pb};
        pub const TYPES: &[(&str, Check)] = include!(concat!(env!("OUT_DIR"), "/temporal_api/types.rs"));
    }

    mod grpc {
        use super::Check;
        use fastrs_corpus::grpc_proto::{fast, pb};
        pub const TYPES: &[(&str, Check)] = include!(concat!(env!("OUT_DIR"), "/grpc_proto/types.rs"));
    }

    mod onnx {
        use super::Check;
        use fastrs_corpus::onnx::{fast, pb};
        pub const TYPES: &[(&str, Check)] = include!(concat!(env!("OUT_DIR"), "/onnx/types.rs"));
    }

    #[test]
    fn temporal_messages_agree_with_prost() {
        run(fastrs_corpus::temporal_api::DESCRIPTORS, temporal::TYPES);
    }

    #[test]
    fn grpc_messages_agree_with_prost() {
        run(fastrs_corpus::grpc_proto::DESCRIPTORS, grpc::TYPES);
    }

    #[test]
    fn onnx_messages_agree_with_prost() {
        run(fastrs_corpus::onnx::DESCRIPTORS, onnx::TYPES);
    }

    /// Compares the generated files of one corpus schema with
    /// `tests/golden/corpus/<name>/` (`FASTRS_BLESS=1` rewrites them).
    fn golden(generated: &str, name: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../golden/corpus")
            .join(name);
        let mut files: Vec<(String, String)> = std::fs::read_dir(generated)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&path).unwrap())
            })
            .collect();
        files.sort();
        fastrs_tests::golden::check_dir(&dir, &files);
    }

    #[test]
    fn generated_code_matches_golden_files() {
        golden(fastrs_corpus::temporal_api::GENERATED, "temporal-api");
        golden(fastrs_corpus::grpc_proto::GENERATED, "grpc-proto");
        golden(fastrs_corpus::onnx::GENERATED, "onnx");
    }
}
