//! Differential tests against prost on random valid encodings of every test
//! message: each side decodes the same input, each decodes what the other
//! encodes, and where both encode canonically (no maps, whose order is
//! unspecified) the bytes are identical.

use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::{differential, fast, pb, DESCRIPTORS};
use proptest::prelude::*;

fn check<F, P>(name: &str, seed: u64)
where
    F: fastrs::Message + PartialEq,
    P: prost::Message + Default + PartialEq + std::fmt::Debug,
{
    thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));
    SCHEMA.with(|s| differential::<F, P>(s, name, seed));
}

/// One property test per message, for its speed-mode (`fast`) and its
/// size-mode (`fast_size`) code, each against prost's.
macro_rules! differential {
    ($($test:ident: $name:literal => $($seg:ident)::+;)*) => {
        differential!(@mode speed, fast; $($test: $name => $($seg)::+;)*);
        differential!(@mode size, fast_size; $($test: $name => $($seg)::+;)*);
    };
    (@mode $module:ident, $root:ident; $($test:ident: $name:literal => $($seg:ident)::+;)*) => {
        mod $module {
            use super::*;
            use fastrs_tests::$root;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(400))]
                $(
                    #[test]
                    fn $test(seed in any::<u64>()) {
                        check::<$root::$($seg)::+, pb::$($seg)::+>($name, seed);
                    }
                )*
            }
        }
    };
}

differential! {
    scalars: ".fastrs.test.Scalars" => fastrs::test::Scalars;
    lists: ".fastrs.test.Lists" => fastrs::test::Lists;
    unpacked: ".fastrs.test.Unpacked" => fastrs::test::Unpacked;
    optionals: ".fastrs.test.Optionals" => fastrs::test::Optionals;
    maps: ".fastrs.test.Maps" => fastrs::test::Maps;
    choice: ".fastrs.test.Choice" => fastrs::test::Choice;
    tree: ".fastrs.test.Tree" => fastrs::test::Tree;
    ping: ".fastrs.test.Ping" => fastrs::test::Ping;
    outer: ".fastrs.test.Outer" => fastrs::test::Outer;
    keywords: ".fastrs.test.Keywords" => fastrs::test::Keywords;
    edges: ".fastrs.test.Edges" => fastrs::test::Edges;
    flat: ".fastrs.test.Flat" => fastrs::test::Flat;
    everything: ".fastrs.test.Everything" => fastrs::test::Everything;
    remote: ".fastrs.test.other.Remote" => fastrs::test::other::Remote;
    rootless: ".Rootless" => Rootless;
    p2_defaults: ".fastrs.test2.Defaults" => fastrs::test2::Defaults;
    // Required, not HasRequired: prost drops a map value equal to its default,
    // which for a message with required fields makes the entry invalid.
    p2_required: ".fastrs.test2.Required" => fastrs::test2::Required;
    p2_closed: ".fastrs.test2.Closed" => fastrs::test2::Closed;
    p2_groups: ".fastrs.test2.Groups" => fastrs::test2::Groups;
    p2_packed: ".fastrs.test2.Packed" => fastrs::test2::Packed;
    p2_extendable: ".fastrs.test2.Extendable" => fastrs::test2::Extendable;
}

/// A random tree `depth` levels deep, built as a fastrs and as a prost message:
/// each level holds the next in `left` (the chain link fastrs sizes and writes
/// in a loop), `right` or the oneof member `only` (plain recursion), with
/// random fields beside it, so chains of every length start and stop at every
/// depth.
fn deep_tree(depth: usize, rng: &mut Rng) -> (fast::fastrs::test::Tree, pb::fastrs::test::Tree) {
    use fast::fastrs::test::{tree as ft, Tree as F};
    use pb::fastrs::test::{tree as pt, Tree as P};
    let mut pair = (F::default(), P::default());
    for _ in 0..depth {
        let value = if rng.chance(2) {
            0
        } else {
            rng.next_u64() as i64 >> rng.below(64)
        };
        let leaf = "x".repeat(rng.below(200) as usize);
        let children = if rng.chance(8) { 1 + rng.below(2) as i64 } else { 0 };
        let (f_below, p_below) = pair;
        let mut f = F {
            value,
            children: (0..children)
                .map(|v| F {
                    value: v,
                    ..F::default()
                })
                .collect(),
            ..F::default()
        };
        let mut p = P {
            value,
            children: (0..children)
                .map(|v| P {
                    value: v,
                    ..P::default()
                })
                .collect(),
            ..P::default()
        };
        match rng.below(10) {
            0 => {
                f.right = Some(Box::new(f_below));
                p.right = Some(Box::new(p_below));
            }
            1 => {
                f.branch = Some(ft::Branch::Only(Box::new(f_below)));
                p.branch = Some(pt::Branch::Only(Box::new(p_below)));
            }
            _ => {
                f.left = Some(Box::new(f_below));
                p.left = Some(Box::new(p_below));
                if !leaf.is_empty() {
                    f.branch = Some(ft::Branch::Leaf(leaf.clone()));
                    p.branch = Some(pt::Branch::Leaf(leaf));
                }
            }
        }
        pair = (f, p);
    }
    pair
}

#[test]
fn deep_trees_encode_as_prost_does_at_every_depth_around_a_chunk() {
    use fastrs::__private::chain::LEVELS;
    use fastrs::Message as _;
    use prost::Message as _;
    let depths = [1, 2, LEVELS - 1, LEVELS, LEVELS + 1, 2 * LEVELS, 2 * LEVELS + 1, 300];
    for seed in 0..24 {
        let mut rng = Rng::new(seed);
        for depth in depths {
            let (f, p) = deep_tree(depth, &mut rng);
            let bytes = f.encode_to_vec();
            assert_eq!(f.size(), bytes.len(), "size at depth {depth}, seed {seed}");
            assert!(bytes == p.encode_to_vec(), "bytes at depth {depth}, seed {seed}");
            let mut back = fast::fastrs::test::Tree::default();
            back.fast_read_with(
                &bytes,
                &fastrs::DecodeOptions {
                    recursion_limit: depth as u32 + 1,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(back == f, "round trip at depth {depth}, seed {seed}");
        }
    }
}
