//! The fuzz targets' committed seeds (`fuzz/seeds/<target>/`), replayed as
//! tests with the same checks: size mode against speed mode (the table
//! interpreters, where the runtime's offset access is), and
//! `DynamicMessage` against generated code. `make miri` runs this file
//! under Miri, which checks those paths for undefined behaviour on inputs
//! that the fuzzer found to reach them; there, each target replays a slice
//! of its seeds sized for CI.

use std::path::PathBuf;

use fastrs_tests::{check_dynamics, check_size_modes};

/// How many seeds each target replays under Miri (the smallest first);
/// natively, all of them.
const MIRI_SLICE: usize = 24;

/// The seeds of fuzz target `target`, smallest first.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/seeds")
        .join(target);
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| std::fs::read(entry.expect("a seed").path()).expect("a readable seed"))
        .collect();
    seeds.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    assert!(!seeds.is_empty(), "{} has seeds", dir.display());
    if cfg!(miri) {
        // Spread over the sizes rather than only the smallest.
        let step = seeds.len().div_ceil(MIRI_SLICE).max(1);
        seeds = seeds.into_iter().step_by(step).collect();
    }
    seeds
}

#[test]
fn size_mode_seeds() {
    for input in seeds("size_mode") {
        check_size_modes(&input);
    }
}

#[test]
fn dynamic_seeds() {
    for input in seeds("decode_dynamic") {
        check_dynamics(&input);
    }
}
