//! Decoding into a cleared message reuses its allocations: once a message has
//! been decoded and cleared a few times, decoding the same shape again
//! allocates nothing: strings and bytes in repeated, optional, oneof and map
//! fields, nested messages at every depth (boxed or not, repeated, in oneofs,
//! as map values), and as before packed vectors and singular strings. In size
//! mode, repeated messages, strings and bytes too. Views
//! allocate nothing either, `required` checks included where the view holds
//! what they check.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use fastrs::Message;
use fastrs_tests::fast::fastrs::test::{
    choice, tree, Choice, Color, Everything, Lists, Maps, Optionals, Scalars, Tree,
};

/// Counts allocations made by the current thread (tests run in parallel).
struct Counting;

thread_local!(static ALLOCATIONS: Cell<u64> = const { Cell::new(0) });

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Decodes `bytes` into a message, then clears and decodes again, repeatedly.
/// The first clear sets up the spares; kept buffers and messages then go back
/// to values in the order they were kept, which need not match, so one may
/// still grow in early cycles (a small buffer handed a long value). Capacities
/// only grow and are bounded by the input, so this settles: after that no
/// cycle allocates.
fn steady_state<M: Message + PartialEq + std::fmt::Debug>(bytes: &[u8]) {
    let expected = M::decode(bytes).unwrap();
    let mut m = M::default();
    for _ in 0..30 {
        m.clear();
        m.fast_read(bytes).unwrap();
    }
    for _ in 0..3 {
        let n = allocations(|| {
            m.clear();
            m.fast_read(bytes).unwrap();
        });
        assert_eq!(
            n,
            0,
            "{} allocated {n} times decoding into a cleared message",
            M::FULL_NAME
        );
        assert_eq!(m, expected);
    }
}

#[test]
fn repeated_strings_and_bytes_are_reused() {
    let m = Lists {
        f_string: vec!["one".into(), "two".into(), "a longer third string".into()],
        f_bytes: vec![vec![1, 2, 3], vec![], vec![9; 100]],
        f_int64: vec![1, 2, 3],
        ..Default::default()
    };
    steady_state::<Lists>(&m.encode_to_vec());
}

#[test]
fn size_mode_reuses_repeated_messages_strings_and_bytes() {
    use fastrs_tests::fast_size::fastrs::test::{Lists, Scalars};
    let inner = |s: &str| Scalars {
        f_string: s.into(),
        f_bytes: vec![7; 20],
        f_int32: 4,
        ..Default::default()
    };
    let m = Lists {
        f_string: vec!["one".into(), "two".into(), "a longer third string".into()],
        f_bytes: vec![vec![1, 2, 3], vec![], vec![9; 100]],
        f_int64: vec![1, 2, 3],
        f_message: vec![inner("first"), Scalars::default(), inner("a longer third message")],
        ..Default::default()
    };
    steady_state::<Lists>(&m.encode_to_vec());
    // Fewer messages than were kept, then more: each comes back cleared.
    let fewer = Lists {
        f_message: vec![Scalars {
            f_int32: 9,
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut reused = Lists::decode(&m.encode_to_vec()).unwrap();
    for bytes in [fewer.encode_to_vec(), m.encode_to_vec(), fewer.encode_to_vec()] {
        reused.clear();
        reused.fast_read(&bytes).unwrap();
        assert_eq!(reused, Lists::decode(&bytes).unwrap());
    }
}

#[test]
fn optional_strings_and_bytes_are_reused() {
    let m = Optionals {
        f_string: Some("text".into()),
        f_bytes: Some(vec![7; 40]),
        ..Default::default()
    };
    steady_state::<Optionals>(&m.encode_to_vec());
}

#[test]
fn oneof_strings_and_bytes_are_reused() {
    for pick in [
        choice::Pick::AString("chosen".into()),
        choice::Pick::ABytes(vec![1; 30]),
    ] {
        let m = Choice {
            pick: Some(pick),
            ..Default::default()
        };
        steady_state::<Choice>(&m.encode_to_vec());
    }
    // Switching between members: the spare of one serves the other kind only.
    let s = Choice {
        pick: Some(choice::Pick::AString("s".into())),
        ..Default::default()
    }
    .encode_to_vec();
    let mut m = Choice::default();
    m.fast_read(&s).unwrap();
    m.clear();
    m.fast_read(&s).unwrap();
    assert_eq!(m.pick, Some(choice::Pick::AString("s".into())));
}

#[test]
fn size_mode_oneof_strings_and_bytes_are_reused() {
    use fastrs_tests::fast_size::fastrs::test::{choice, Choice};
    for pick in [
        choice::Pick::AString("chosen".into()),
        choice::Pick::ABytes(vec![1; 30]),
    ] {
        let m = Choice {
            pick: Some(pick),
            after: 3,
            ..Default::default()
        };
        steady_state::<Choice>(&m.encode_to_vec());
    }
    // Each kind of member after each: a kept buffer serves only its own
    // kind, and the value decoded is the payload's.
    let picks = [
        choice::Pick::AString("a string member".into()),
        choice::Pick::ABytes(vec![2; 9]),
        choice::Pick::AInt(5),
        choice::Pick::AString(String::new()),
    ];
    let mut m = Choice::default();
    for first in &picks {
        for second in &picks {
            let bytes = |pick: &choice::Pick| {
                Choice {
                    pick: Some(pick.clone()),
                    ..Default::default()
                }
                .encode_to_vec()
            };
            m.clear();
            m.fast_read(&bytes(first)).unwrap();
            m.clear();
            m.fast_read(&bytes(second)).unwrap();
            assert_eq!(m.pick.as_ref(), Some(second));
        }
    }
    // Two members in one payload: the last wins, with its own bytes.
    let mut both = Choice {
        pick: Some(choice::Pick::AString("first".into())),
        ..Default::default()
    }
    .encode_to_vec();
    both.extend(
        Choice {
            pick: Some(choice::Pick::ABytes(vec![7; 4])),
            ..Default::default()
        }
        .encode_to_vec(),
    );
    m.clear();
    m.fast_read(&both).unwrap();
    assert_eq!(m.pick, Some(choice::Pick::ABytes(vec![7; 4])));
}

#[test]
fn map_keys_and_values_are_reused() {
    let mut m = Maps::default();
    m.string_string.insert("key one".into(), "value one".into());
    m.string_string.insert("key two".into(), String::new());
    m.string_bytes.insert("k".into(), vec![1, 2, 3]);
    m.int32_int32.insert(1, 2);
    m.string_enum.insert("e".into(), Color::Red.into());
    m.int32_bytes.insert(7, vec![4, 5]);
    steady_state::<Maps>(&m.encode_to_vec());
}

#[test]
fn reused_map_buffers_start_empty() {
    // An entry without its key (or value) must get the default, not a
    // kept buffer's old contents.
    let full = {
        let mut m = Maps::default();
        m.string_string.insert("old key".into(), "old value".into());
        m.encode_to_vec()
    };
    let no_key = [0x62, 0x05, 0x12, 0x03, b'n', b'e', b'w'];
    let no_value = [0x62, 0x05, 0x0a, 0x03, b'n', b'e', b'w'];
    let mut m = Maps::default();
    m.fast_read(&full).unwrap();
    m.clear();
    m.fast_read(&no_key).unwrap();
    assert_eq!(m.string_string.get(""), Some(&"new".to_string()));
    m.clear();
    m.fast_read(&full).unwrap();
    m.clear();
    m.fast_read(&no_value).unwrap();
    assert_eq!(m.string_string.get("new"), Some(&String::new()));
}

#[test]
fn nested_messages_are_reused_at_every_depth() {
    let leaf = |v: i64| Tree {
        value: v,
        branch: Some(tree::Branch::Leaf(format!("leaf {v}"))),
        ..Default::default()
    };
    let m = Tree {
        value: 1,
        left: Some(Box::new(Tree {
            left: Some(Box::new(leaf(2))),
            children: vec![leaf(3), leaf(4)],
            ..Default::default()
        })),
        right: Some(Box::new(leaf(5))),
        children: vec![leaf(6), leaf(7), leaf(8)],
        branch: Some(tree::Branch::Only(Box::new(leaf(9)))),
        ..Default::default()
    };
    steady_state::<Tree>(&m.encode_to_vec());
    let mut maps = Maps::default();
    maps.string_message.insert(
        "k".into(),
        Scalars {
            f_string: "inside a map value".into(),
            ..Default::default()
        },
    );
    steady_state::<Maps>(&maps.encode_to_vec());
}

#[test]
fn everything_at_once() {
    use fastrs_tests::random::{Rng, Schema};
    let schema = Schema::load(fastrs_tests::DESCRIPTORS);
    for seed in 0..40 {
        // A map key given twice drops one key buffer per decode (HashMap
        // keeps the first key): maps are covered above with distinct keys.
        let mut has_map = false;
        let bytes = schema.encode(".fastrs.test.Everything", &mut Rng::new(seed), 4, &mut has_map);
        if !has_map {
            steady_state::<Everything>(&bytes);
        }
    }
}

/// A tree with `n` children, each a leaf holding a string.
fn with_children(n: i64) -> Tree {
    Tree {
        children: (0..n)
            .map(|i| Tree {
                value: i,
                branch: Some(tree::Branch::Leaf(format!("child {i}"))),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn runs_longer_and_shorter_than_what_was_kept() {
    // Read into the kept children in place, more pushed, the rest kept again.
    let mut m = Tree::default();
    for n in [3, 5, 1, 0, 4, 4, 2] {
        let expected = with_children(n);
        m.clear();
        m.fast_read(&expected.encode_to_vec()).unwrap();
        assert_eq!(m, expected, "{n} children");
    }
    steady_state::<Tree>(&with_children(6).encode_to_vec());
}

#[test]
fn an_error_in_a_run_keeps_what_was_read_before_it() {
    let mut m = Tree::decode(&with_children(4).encode_to_vec()).unwrap();
    m.clear();
    // Three children, the second cut short: its length says more than is there.
    let mut bad = with_children(1).encode_to_vec();
    bad.extend_from_slice(&[0x22, 0x05, 0x08]);
    assert!(m.fast_read(&bad).is_err());
    assert_eq!(m.children, with_children(1).children, "the child read before the error");
    let expected = with_children(3);
    m.clear();
    m.fast_read(&expected.encode_to_vec()).unwrap();
    assert_eq!(m, expected);
}

#[test]
fn records_of_a_field_apart_from_each_other_keep_their_order() {
    let mut m = Tree::decode(&with_children(5).encode_to_vec()).unwrap();
    m.clear();
    // children 0 and 1, then `value`, then child 2: two runs of one field.
    let all = with_children(3);
    let part = |children: &[Tree]| {
        Tree {
            children: children.to_vec(),
            ..Default::default()
        }
        .encode_to_vec()
    };
    let mut input = part(&all.children[..2]);
    input.extend(
        Tree {
            value: 9,
            ..Default::default()
        }
        .encode_to_vec(),
    );
    input.extend(part(&all.children[2..]));
    m.fast_read(&input).unwrap();
    assert_eq!(m, Tree { value: 9, ..all });
}

#[test]
fn merging_without_clear_appends() {
    // Two children read into kept ones, three more kept; a merge then adds.
    let mut m = Tree::decode(&with_children(5).encode_to_vec()).unwrap();
    m.clear();
    m.fast_read(&with_children(2).encode_to_vec()).unwrap();
    m.fast_read(&with_children(1).encode_to_vec()).unwrap();
    let mut expected = with_children(2).children;
    expected.extend(with_children(1).children);
    assert_eq!(m.children, expected);
}

#[test]
fn kept_messages_come_back_cleared() {
    // A kept child must not carry its old fields into a decode that sets others.
    let first = Tree {
        left: Some(Box::new(Tree {
            value: 7,
            children: vec![Tree::default()],
            ..Default::default()
        })),
        ..Default::default()
    }
    .encode_to_vec();
    let second = Tree {
        left: Some(Box::new(Tree {
            branch: Some(tree::Branch::Leaf("x".into())),
            ..Default::default()
        })),
        ..Default::default()
    };
    let mut m = Tree::decode(&first).unwrap();
    m.clear();
    m.fast_read(&second.encode_to_vec()).unwrap();
    assert_eq!(m, second);
}

#[test]
fn singular_strings_were_already_reused() {
    let m = Scalars {
        f_string: "in place".into(),
        f_bytes: vec![1; 10],
        ..Default::default()
    };
    steady_state::<Scalars>(&m.encode_to_vec());
}

#[test]
fn spares_are_not_part_of_the_value() {
    let bytes = Lists {
        f_string: vec!["x".into(); 5],
        ..Default::default()
    }
    .encode_to_vec();
    let mut used = Lists::decode(&bytes).unwrap();
    used.clear();
    assert_eq!(used, Lists::default(), "a cleared message equals the default");
    assert_eq!(used.clone(), Lists::default());
    assert_eq!(format!("{used:?}"), format!("{:?}", Lists::default()));
    assert_eq!(used.encode_to_vec(), Vec::<u8>::new());
}

#[test]
fn a_fresh_decode_sizes_vectors_and_maps_once() {
    // Each repeated field's values come in one run, as encoders write them:
    // the vector or map is allocated once, exactly sized, never regrown.
    let lists = Lists {
        f_string: (0..50).map(|i| format!("s{i}")).collect(),
        f_message: (0..50)
            .map(|i| Scalars {
                f_int32: i,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
    .encode_to_vec();
    // 50 strings + 2 vectors.
    assert_eq!(allocations(|| drop(Lists::decode(&lists).unwrap())), 52);
    let maps = Maps {
        int32_int32: (0..50).map(|i| (i, i)).collect(),
        string_string: (0..50).map(|i| (format!("k{i}"), String::new())).collect(),
        ..Default::default()
    }
    .encode_to_vec();
    // 50 keys + 2 tables.
    assert_eq!(allocations(|| drop(Maps::decode(&maps).unwrap())), 52);
    // A run broken by another field still decodes whole (the vector grows).
    let mut split = Lists {
        f_string: vec!["a".into()],
        ..Default::default()
    }
    .encode_to_vec();
    split.extend(
        Lists {
            f_int32: vec![1],
            ..Default::default()
        }
        .encode_to_vec(),
    );
    split.extend(
        Lists {
            f_string: vec!["b".into(), "c".into()],
            ..Default::default()
        }
        .encode_to_vec(),
    );
    let decoded = Lists::decode(&split).unwrap();
    assert_eq!(
        (decoded.f_string, decoded.f_int32),
        (vec!["a".into(), "b".into(), "c".into()], vec![1])
    );
}

/// Decoding into a cleared message gives exactly what a fresh decode gives
/// (the recycled buffers and messages carry nothing over), on random
/// messages of every test schema: decode one random message, clear, decode
/// another, and compare with a fresh decode of the second, value and bytes.
mod cleared_is_fresh {
    use fastrs::Message;
    use fastrs_tests::fast::fastrs::{test, test2};
    use fastrs_tests::random::{Rng, Schema};
    use fastrs_tests::DESCRIPTORS;
    use proptest::prelude::*;

    fn check<M: Message + PartialEq>(name: &str, first: u64, second: u64) {
        thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));
        let encode = |seed| SCHEMA.with(|s| s.encode(name, &mut Rng::new(seed), 4, &mut false));
        let (a, b) = (encode(first), encode(second));
        let mut reused = M::decode(&a).expect("valid input");
        reused.clear();
        reused.fast_read(&b).expect("valid input");
        let fresh = M::decode(&b).expect("valid input");
        // Maps encode in their iteration order, which two maps of equal
        // content need not share; their values compare equal all the same.
        #[allow(clippy::eq_op)] // false exactly when a NaN is inside
        let comparable = fresh == fresh;
        if comparable {
            assert!(reused == fresh, "{name}: a cleared message decodes as a fresh one");
        }
        assert_eq!(reused.size(), fresh.size(), "{name}");
        assert_eq!(
            M::decode(&reused.encode_to_vec()).unwrap().encode_to_vec().len(),
            fresh.encode_to_vec().len()
        );
    }

    macro_rules! cleared_is_fresh {
        ($($test:ident: $name:literal => $ty:ty;)*) => {
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(100))]
                $(
                    #[test]
                    fn $test(first in any::<u64>(), second in any::<u64>()) {
                        check::<$ty>($name, first, second);
                    }
                )*
            }
        };
    }

    cleared_is_fresh! {
        scalars: ".fastrs.test.Scalars" => test::Scalars;
        lists: ".fastrs.test.Lists" => test::Lists;
        unpacked: ".fastrs.test.Unpacked" => test::Unpacked;
        optionals: ".fastrs.test.Optionals" => test::Optionals;
        maps: ".fastrs.test.Maps" => test::Maps;
        choice: ".fastrs.test.Choice" => test::Choice;
        tree: ".fastrs.test.Tree" => test::Tree;
        outer: ".fastrs.test.Outer" => test::Outer;
        keywords: ".fastrs.test.Keywords" => test::Keywords;
        edges: ".fastrs.test.Edges" => test::Edges;
        everything: ".fastrs.test.Everything" => test::Everything;
        p2_defaults: ".fastrs.test2.Defaults" => test2::Defaults;
        p2_closed: ".fastrs.test2.Closed" => test2::Closed;
        p2_groups: ".fastrs.test2.Groups" => test2::Groups;
        p2_packed: ".fastrs.test2.Packed" => test2::Packed;
        p2_extendable: ".fastrs.test2.Extendable" => test2::Extendable;
    }
}

#[test]
fn shrink_to_fit_frees_what_a_cleared_message_kept() {
    // A message that once held a large input keeps its buffers after clear;
    // shrink_to_fit gives them back and keeps the value.
    let big = Lists {
        f_string: vec!["x".repeat(1 << 16); 16],
        ..Default::default()
    };
    let mut m = Lists::decode(&big.encode_to_vec()).unwrap();
    m.clear();
    let small = Lists {
        f_string: vec!["y".into()],
        ..Default::default()
    };
    m.fast_read(&small.encode_to_vec()).unwrap();
    let allocated = |m: &Lists| m.f_string.capacity() + m.f_string.iter().map(String::capacity).sum::<usize>();
    assert!(allocated(&m) >= 1 << 16, "the reused string kept its 64 KiB");
    m.shrink_to_fit();
    assert_eq!(m, small);
    assert!(allocated(&m) < 64, "{} bytes left", allocated(&m));
    // And a decode after it allocates afresh, as for a new message.
    m.clear();
    m.fast_read(&big.encode_to_vec()).unwrap();
    assert_eq!(m, big);
}

#[test]
fn views_check_required_fields_in_place() {
    use fastrs_tests::fast::fastrs::test2::{envelope, Envelope, EnvelopeView};
    let leaf = |x| envelope::Leaf {
        x: Some(x),
        s: Some("leaf".into()),
        ..Default::default()
    };
    let full = Envelope {
        id: Some(7),
        leaf: Some(leaf(1)),
        body: Some(envelope::Body::First(leaf(2))),
        tags: vec!["a".into(), "b".into()],
        ..Default::default()
    };
    let bytes = full.encode_to_vec();
    let mut checked = None;
    assert_eq!(
        allocations(|| checked = Some(EnvelopeView::decode(&bytes).map(|v| v.id))),
        0
    );
    assert_eq!(checked, Some(Ok(Some(7))));

    // A missing field at each place the view checks, named as owned decoding names it.
    let mut inner = full.clone();
    inner.leaf.as_mut().unwrap().x = None;
    let mut member = full.clone();
    member.body = Some(envelope::Body::First(envelope::Leaf::default()));
    let outer = Envelope { id: None, ..full };
    for m in [inner, member, outer] {
        let bytes = m.encode_to_vec(); // unchecked: the field stays missing
        let view = EnvelopeView::decode(&bytes).map(|v| v.id).unwrap_err();
        let owned = Envelope::decode(&bytes).unwrap_err();
        assert_eq!(view.kind(), fastrs::DecodeErrorKind::MissingRequired);
        assert_eq!(view.to_string(), owned.to_string());
    }
}
