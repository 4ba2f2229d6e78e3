//! Differential tests against prost on random valid encodings of every test
//! message: each side decodes the same input, each decodes what the other
//! encodes, and where both encode canonically (no maps, whose order is
//! unspecified) the bytes are identical.

use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::{fast, pb, DESCRIPTORS};
use proptest::prelude::*;

fn check<F, P>(name: &str, seed: u64)
where
    F: fastrs::Message + PartialEq,
    P: prost::Message + Default + PartialEq + std::fmt::Debug,
{
    thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));
    let mut has_map = false;
    let input = SCHEMA.with(|s| s.encode(name, &mut Rng::new(seed), 4, &mut has_map));

    let f = F::decode(&input).unwrap_or_else(|e| panic!("fastrs rejects valid {name}: {e}\ninput {input:02x?}"));
    let p = P::decode(input.as_slice()).expect("prost decodes");
    let f_bytes = f.encode_to_vec();
    let p_bytes = p.encode_to_vec();

    assert_eq!(f.size(), f_bytes.len(), "size() of {name}");
    assert_eq!(
        P::decode(f_bytes.as_slice()).unwrap(),
        p,
        "prost reads fastrs' encoding of {name}"
    );
    assert_eq!(
        F::decode(&p_bytes).unwrap(),
        f,
        "fastrs reads prost's encoding of {name}"
    );
    assert_eq!(F::decode(&f_bytes).unwrap(), f, "fastrs round trip of {name}");
    if !has_map {
        assert_eq!(f_bytes, p_bytes, "canonical bytes of {name}\ninput {input:02x?}");
    }
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
