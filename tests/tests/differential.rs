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

macro_rules! differential {
    ($($test:ident: $name:literal => $fast:ty, $prost:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]
            $(
                #[test]
                fn $test(seed in any::<u64>()) {
                    check::<$fast, $prost>($name, seed);
                }
            )*
        }
    };
}

differential! {
    scalars: ".fastrs.test.Scalars" => fast::fastrs::test::Scalars, pb::fastrs::test::Scalars;
    lists: ".fastrs.test.Lists" => fast::fastrs::test::Lists, pb::fastrs::test::Lists;
    unpacked: ".fastrs.test.Unpacked" => fast::fastrs::test::Unpacked, pb::fastrs::test::Unpacked;
    optionals: ".fastrs.test.Optionals" => fast::fastrs::test::Optionals, pb::fastrs::test::Optionals;
    maps: ".fastrs.test.Maps" => fast::fastrs::test::Maps, pb::fastrs::test::Maps;
    choice: ".fastrs.test.Choice" => fast::fastrs::test::Choice, pb::fastrs::test::Choice;
    tree: ".fastrs.test.Tree" => fast::fastrs::test::Tree, pb::fastrs::test::Tree;
    ping: ".fastrs.test.Ping" => fast::fastrs::test::Ping, pb::fastrs::test::Ping;
    outer: ".fastrs.test.Outer" => fast::fastrs::test::Outer, pb::fastrs::test::Outer;
    keywords: ".fastrs.test.Keywords" => fast::fastrs::test::Keywords, pb::fastrs::test::Keywords;
    edges: ".fastrs.test.Edges" => fast::fastrs::test::Edges, pb::fastrs::test::Edges;
    flat: ".fastrs.test.Flat" => fast::fastrs::test::Flat, pb::fastrs::test::Flat;
    everything: ".fastrs.test.Everything" => fast::fastrs::test::Everything, pb::fastrs::test::Everything;
    remote: ".fastrs.test.other.Remote" => fast::fastrs::test::other::Remote, pb::fastrs::test::other::Remote;
    rootless: ".Rootless" => fast::Rootless, pb::Rootless;
    p2_defaults: ".fastrs.test2.Defaults" => fast::fastrs::test2::Defaults, pb::fastrs::test2::Defaults;
    // Required, not HasRequired: prost drops a map value equal to its default,
    // which for a message with required fields makes the entry invalid.
    p2_required: ".fastrs.test2.Required" => fast::fastrs::test2::Required, pb::fastrs::test2::Required;
    p2_closed: ".fastrs.test2.Closed" => fast::fastrs::test2::Closed, pb::fastrs::test2::Closed;
    p2_groups: ".fastrs.test2.Groups" => fast::fastrs::test2::Groups, pb::fastrs::test2::Groups;
    p2_packed: ".fastrs.test2.Packed" => fast::fastrs::test2::Packed, pb::fastrs::test2::Packed;
    p2_extendable: ".fastrs.test2.Extendable" => fast::fastrs::test2::Extendable, pb::fastrs::test2::Extendable;
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
