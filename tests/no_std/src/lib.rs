//! Generated code in a `#![no_std]` crate: built by `make test` with the
//! runtime's `std` feature off. Its tests check that `BTreeMap` maps encode in
//! key order, so equal messages give equal bytes.
#![no_std]

#[cfg(test)]
extern crate std;

/// The test schemas, generated with `Builder::btree_maps()`.
#[allow(clippy::all, missing_docs, dead_code)]
pub mod protos {
    include!(concat!(env!("OUT_DIR"), "/mod.rs"));
}

#[cfg(test)]
mod tests {
    use fastrs::Message;

    use super::protos::fastrs::test::{Maps, Scalars};
    use std::string::ToString;
    use std::vec::Vec;

    #[test]
    fn sorted_maps_encode_in_key_order_whatever_the_insertion_order() {
        let keys = [5, -3, 900, 0, 42];
        let mut forward = Maps::default();
        let mut backward = Maps::default();
        for k in keys {
            forward.int32_int32.insert(k, k * 2);
            forward.string_message.insert(
                k.to_string(),
                Scalars {
                    f_int32: k,
                    ..Default::default()
                },
            );
        }
        for k in keys.iter().rev() {
            backward.int32_int32.insert(*k, k * 2);
            backward.string_message.insert(
                k.to_string(),
                Scalars {
                    f_int32: *k,
                    ..Default::default()
                },
            );
        }
        let bytes = forward.encode_to_vec();
        assert_eq!(bytes, backward.encode_to_vec());
        // Entries of field 1 come out in ascending key order.
        let decoded = Maps::decode(&bytes).unwrap();
        let order: Vec<i32> = decoded.int32_int32.keys().copied().collect();
        assert_eq!(order, [-3, 0, 5, 42, 900]);
        let mut at = 0;
        let mut seen = Vec::new();
        while bytes[at] == 0x0a {
            let len = bytes[at + 1] as usize;
            let entry = &bytes[at + 2..at + 2 + len];
            seen.push(entry[1]);
            at += 2 + len;
        }
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[1], 0, "0 follows -3, whose 10-byte key starts 0xfd");
    }
}
