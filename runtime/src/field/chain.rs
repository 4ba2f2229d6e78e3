//! Sizing and writing a chain of messages, each holding the next in a field of
//! its own type (a linked list, the spine of a parse tree), in loops instead of
//! one call per level.
//!
//! A recursive size pass and write pass make one call and one return per level
//! each. Past a few dozen levels the CPU's return predictor no longer holds the
//! return addresses and every return mispredicts: on the benchmark chain, time
//! per level more than doubled from depth 16 to depth 256. A generated message
//! with a singular field of its own type implements [`Chain`], and its
//! `size` and `write_backward` call [`size`] and [`write_backward`] here. They
//! walk up to [`LEVELS`] links in a loop, keep what the way back needs in an
//! array on the stack, and recurse once per [`LEVELS`] links: the return
//! predictor never overflows, and the stack grows by one frame per [`LEVELS`]
//! levels instead of one per level.

use crate::Writer;

/// Links followed per call (see the module docs): deep enough that the call
/// per chunk costs nothing per level, shallow enough for the return predictor
/// (16 to 32 entries on current CPUs) to hold the calls between chunks.
pub const LEVELS: usize = 32;

/// A message that can hold another of its own type in a singular field, the
/// chain's link, split into the parts [`size`] and [`write_backward`] need.
/// Generated code implements it; the link is the message's lowest-numbered
/// such field.
pub trait Chain: Sized {
    /// The link field's key (its tag bytes).
    const LINK_KEY: &'static [u8];

    /// The message in the link field, if set.
    fn link(&self) -> Option<&Self>;

    /// The encoded size of everything but the link field.
    fn rest_size(&self) -> usize;

    /// Writes the unknown fields and the fields numbered above the link,
    /// backwards: the bytes that follow the link field's.
    fn write_after_link(&self, w: &mut Writer<'_>);

    /// Writes the fields numbered below the link, backwards: the bytes that
    /// precede the link field's.
    fn write_before_link(&self, w: &mut Writer<'_>);
}

/// The encoded size of `top` and every message below it in its chain.
#[inline]
pub fn size<M: Chain>(top: &M) -> usize {
    match top.link() {
        // Not a chain, or its last link: no array to set up.
        None => top.rest_size(),
        Some(_) => size_levels(top),
    }
}

/// [`size`] for the chain from `top`, [`LEVELS`] links at a time.
fn size_levels<M: Chain>(top: &M) -> usize {
    let key_len = M::LINK_KEY.len();
    // Each message's size without its link field, on the way down.
    let mut rests = [0; LEVELS];
    let mut walked = 0;
    let mut m = top;
    // The size of the last walked message's link field: none at the chain's
    // end, the rest of the chain when the array is full.
    let below = loop {
        rests[walked] = m.rest_size();
        walked += 1;
        match m.link() {
            None => break 0,
            Some(next) if walked == LEVELS => break key_len + nested_size(size_levels(next)),
            Some(next) => m = next,
        }
    };
    // On the way up, each message holds the one below it.
    let (last, above) = rests[..walked].split_last().unwrap_or((&0, &[]));
    above
        .iter()
        .rev()
        .fold(last + below, |inner, own| own + key_len + nested_size(inner))
}

/// [`crate::codec::len_delimited_size`] for the fold up a chain, where each
/// message's size waits for the one below it: predicted branches on the
/// length's size keep the length of its varint (a bit scan and arithmetic,
/// about eight cycles) off that chain of waits, about a fifth of the
/// encode time at depth 256. Going up, lengths only grow, so the branches
/// turn once or twice per chain.
#[inline(always)]
fn nested_size(len: usize) -> usize {
    len + match len {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        _ => crate::wire::varint::len(len as u64),
    }
}

/// Writes `top` and every message below it in its chain, backwards (see
/// [`crate::Message::write_backward`]).
#[inline]
pub fn write_backward<M: Chain>(top: &M, w: &mut Writer<'_>) {
    if top.link().is_none() {
        // Not a chain, or its last link: no array to set up.
        top.write_after_link(w);
        top.write_before_link(w);
        return;
    }
    write_levels(top, w);
}

/// [`write_backward`] for the chain from `top`, [`LEVELS`] links at a time.
/// The walks down and up each run on a copy of the writer kept in registers
/// (see `Writer::in_registers`); the call for the next chunk sits between.
fn write_levels<M: Chain>(top: &M, w: &mut Writer<'_>) {
    // Each walked message, with the writer's free space once its fields after
    // the link were written: where the bytes of the message below it end.
    let mut ends = [(top, 0); LEVELS];
    let (walked, beyond) = w.in_registers(|w| {
        let mut walked = 0;
        let mut m = top;
        loop {
            m.write_after_link(w);
            ends[walked] = (m, w.remaining());
            walked += 1;
            match m.link() {
                None => break (walked, None),
                Some(next) if walked == LEVELS => break (walked, Some(next)),
                Some(next) => m = next,
            }
        }
    });
    // The chain past this chunk, if any, is written before this chunk's
    // prefixes.
    if let Some(next) = beyond {
        write_levels(next, w);
    }
    w.in_registers(|w| {
        for (i, &(m, end)) in ends[..walked].iter().enumerate().rev() {
            if beyond.is_some() || i + 1 < walked {
                w.put_key_varint(M::LINK_KEY, (end - w.remaining()) as u64);
            }
            m.write_before_link(w);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::varint;
    use alloc::boxed::Box;
    use alloc::vec;
    use alloc::vec::Vec;

    /// A message `{ bytes head = 1; Node next = 2; bytes tail = 3; }` with a
    /// key of `KEY.len()` bytes for `next`, encoded by plain recursion.
    struct Node {
        head: Vec<u8>,
        next: Option<Box<Node>>,
        tail: Vec<u8>,
    }

    const KEY: &[u8] = &[0x92, 0x01]; // field 18, wire type 2

    fn bytes_field(key: u8, b: &[u8]) -> Vec<u8> {
        if b.is_empty() {
            return Vec::new();
        }
        let mut out = vec![key];
        out.extend(varint_bytes(b.len() as u64));
        out.extend_from_slice(b);
        out
    }

    fn varint_bytes(v: u64) -> Vec<u8> {
        let mut buf = [0; 10];
        let mut w = Writer::new(&mut buf[..varint::len(v)]);
        w.put_varint(v);
        buf[..varint::len(v)].to_vec()
    }

    fn recursive_encoding(n: &Node) -> Vec<u8> {
        let mut out = bytes_field(0x0a, &n.head);
        if let Some(next) = &n.next {
            let inner = recursive_encoding(next);
            out.extend_from_slice(KEY);
            out.extend(varint_bytes(inner.len() as u64));
            out.extend(inner);
        }
        out.extend(bytes_field(0x1a, &n.tail));
        out
    }

    impl Chain for Node {
        const LINK_KEY: &'static [u8] = KEY;

        fn link(&self) -> Option<&Self> {
            self.next.as_deref()
        }

        fn rest_size(&self) -> usize {
            bytes_field(0x0a, &self.head).len() + bytes_field(0x1a, &self.tail).len()
        }

        fn write_after_link(&self, w: &mut Writer<'_>) {
            w.put_slice(&bytes_field(0x1a, &self.tail));
        }

        fn write_before_link(&self, w: &mut Writer<'_>) {
            w.put_slice(&bytes_field(0x0a, &self.head));
        }
    }

    fn chained_encoding(n: &Node) -> Vec<u8> {
        let mut buf = vec![0; size(n)];
        let mut w = Writer::new(&mut buf);
        write_backward(n, &mut w);
        assert_eq!(w.remaining(), 0, "size and bytes written agree");
        buf
    }

    /// A chain of `depth` nodes whose field lengths vary with `seed`, so length
    /// prefixes take one, two and three bytes.
    fn chain(depth: usize, seed: usize) -> Node {
        let len = |i: usize| (i * 37 + seed * 11) % 150;
        let mut node: Option<Box<Node>> = None;
        for i in 0..depth {
            node = Some(Box::new(Node {
                head: vec![1; len(i) % 3 * len(i)],
                next: node,
                tail: vec![2; len(i + seed)],
            }));
        }
        *node.expect("depth is at least 1")
    }

    #[test]
    fn chains_encode_as_recursion_does_at_every_depth_around_a_chunk() {
        // Under Miri (slow, and this module has no unsafe code) only the
        // depths around the first chunk, one seed.
        let (last, deep, seeds): (_, &[usize], _) = if cfg!(miri) {
            (LEVELS + 1, &[], 1)
        } else {
            (3 * LEVELS + 2, &[10 * LEVELS, 10 * LEVELS + 1], 3)
        };
        let depths = (1..=last).chain(deep.iter().copied());
        for depth in depths {
            for seed in 0..seeds {
                let n = chain(depth, seed);
                let expected = recursive_encoding(&n);
                assert_eq!(size(&n), expected.len(), "size at depth {depth}");
                assert_eq!(chained_encoding(&n), expected, "bytes at depth {depth}");
            }
        }
    }

    #[test]
    fn a_chain_of_empty_messages_is_all_keys_and_lengths() {
        let mut n = Node {
            head: Vec::new(),
            next: None,
            tail: Vec::new(),
        };
        for _ in 1..if cfg!(miri) { 40 } else { 200 } {
            n = Node {
                head: Vec::new(),
                next: Some(Box::new(n)),
                tail: Vec::new(),
            };
        }
        let expected = recursive_encoding(&n);
        assert_eq!(size(&n), expected.len());
        assert_eq!(chained_encoding(&n), expected);
    }
}
