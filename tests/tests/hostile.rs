//! Hostile input: every case ends in a specific error, without a panic, a
//! stack overflow, or an allocation out of proportion to the input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use fastrs::reflect::{DynamicMessage, ReflectMessage};
use fastrs::{DecodeErrorKind, DecodeOptions, HasView, Message, View};
use fastrs_tests::fast::fastrs::test::{Everything, EverythingView, Lists, Tree, TreeView};
use fastrs_tests::fast::fastrs::test2::Nest;
use proptest::prelude::*;

/// The same schema with `BTreeMap` maps, whose encoding is byte-stable.
type SortedEverything = fastrs_no_std::protos::fastrs::test::Everything;

/// Records the largest single allocation made by a thread that asked for it
/// (tests run in parallel), to check lengths are never trusted.
struct Largest;

thread_local! {
    static TRACKED: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    if TRACKED.with(Cell::get) {
        LARGEST.with(|l| l.set(l.get().max(size)));
    }
}

/// The largest allocation `f` makes on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    TRACKED.with(|t| t.set(true));
    let out = f();
    TRACKED.with(|t| t.set(false));
    (out, LARGEST.with(Cell::get))
}

// SAFETY: forwards every call to `System` unchanged; the counter is an atomic.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

/// The error decoding `bytes` as `M` gives, which decoding them as `M`'s
/// zero-copy view and as a `DynamicMessage` of its type must give too.
fn kind<M: HasView + ReflectMessage>(bytes: &[u8]) -> DecodeErrorKind {
    kind_with::<M>(bytes, &DecodeOptions::default())
}

/// As [`kind`], under `options`.
fn kind_with<M: HasView + ReflectMessage>(bytes: &[u8], options: &DecodeOptions) -> DecodeErrorKind {
    let owned = M::default()
        .fast_read_with(bytes, options)
        .expect_err("hostile input must fail");
    let view = M::View::decode_with(bytes, options).expect_err("hostile input must fail as a view");
    assert_eq!(view.kind(), owned.kind(), "the view fails otherwise");
    let dynamic = DynamicMessage::decode_with(M::descriptor(), bytes, options)
        .expect_err("hostile input must fail as a DynamicMessage");
    assert_eq!(dynamic.kind(), owned.kind(), "the DynamicMessage fails otherwise");
    owned.kind()
}

/// Generated code and `DynamicMessage` on arbitrary bytes: both decode them
/// or both fail with the same error; what decodes re-encodes to bytes of
/// its `encoded_len`, which decode again.
fn check_dynamic<M: ReflectMessage>(bytes: &[u8]) {
    let generated = M::decode(bytes).map_err(|e| e.kind());
    let dynamic = DynamicMessage::decode(M::descriptor(), bytes).map_err(|e| e.kind());
    match (generated, dynamic) {
        (Ok(_), Ok(d)) => {
            let encoded = d.encode_to_vec();
            assert_eq!(encoded.len(), d.encoded_len());
            let again = DynamicMessage::decode(M::descriptor(), &encoded).expect("reads its own encoding");
            assert_eq!(again.encode_to_vec().len(), encoded.len());
        }
        (g, d) => assert_eq!(g.err(), d.err(), "the same error, on {bytes:02x?}"),
    }
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

#[test]
fn huge_length_prefixes_fail_without_allocating() {
    for claimed in [1u64 << 31, u64::MAX >> 1, u64::MAX] {
        // Lists.f_string (14), Lists.f_message (17) and a packed field (3).
        for tag in [&[0x72u8][..], &[0x8a, 0x01], &[0x1a]] {
            let input = [tag, &varint(claimed), b"abc"].concat();
            let (result, largest) = largest_allocation(|| kind::<Lists>(&input));
            assert_eq!(result, DecodeErrorKind::LengthOutOfBounds, "{claimed} {tag:02x?}");
            assert!(largest < 1024, "an allocation of {largest} bytes");
        }
    }
}

/// `depth` levels of Tree.left, innermost empty: sizes inside out, then the
/// bytes outside in, in linear time.
fn deep_tree(depth: usize) -> Vec<u8> {
    let mut sizes = vec![0u64];
    for _ in 0..depth {
        let inner = *sizes.last().unwrap();
        sizes.push(1 + varint(inner).len() as u64 + inner);
    }
    let mut out = Vec::with_capacity(*sizes.last().unwrap() as usize);
    for &inner in sizes[..depth].iter().rev() {
        out.push(0x12);
        out.extend(varint(inner));
    }
    out
}

#[test]
fn a_million_nested_messages_stop_at_the_limit() {
    let input = deep_tree(1_000_000);
    assert_eq!(kind::<Tree>(&input), DecodeErrorKind::RecursionLimit);
}

#[test]
fn a_million_nested_groups_stop_at_the_limit() {
    // Nest.Inner (group 1) holds Nest.Inner.nest (2), which holds a group ...
    // Sizes inside out, then the bytes: START_GROUP, nest tag and length on the
    // way in, END_GROUP on the way out.
    // G(0) is an empty group; G(k) = START, nest tag, |G(k-1)|, G(k-1), END.
    let depth = 1_000_000;
    let mut sizes = vec![2u64];
    for _ in 0..depth {
        let inner = *sizes.last().unwrap();
        sizes.push(3 + varint(inner).len() as u64 + inner);
    }
    let mut input = Vec::new();
    for &inner in sizes[..depth].iter().rev() {
        input.extend([0x0b, 0x12]);
        input.extend(varint(inner));
    }
    input.extend([0x0b, 0x0c]);
    input.extend(std::iter::repeat_n(0x0c, depth));
    assert_eq!(kind::<Nest>(&input), DecodeErrorKind::RecursionLimit);
    // Unknown groups nested a million deep.
    let unknown = [0xa3u8, 0x06].repeat(1_000_000);
    assert_eq!(kind::<Tree>(&unknown), DecodeErrorKind::RecursionLimit);
}

#[test]
fn deep_input_on_a_small_stack() {
    let owned_kind = |bytes: &[u8]| Tree::decode(bytes).unwrap_err().kind();
    let worker = std::thread::Builder::new()
        // Debug builds use far larger frames than release ones; 512 KiB holds
        // the default 100 levels in both.
        .stack_size(512 * 1024)
        .spawn(move || {
            assert_eq!(owned_kind(&deep_tree(100_000)), DecodeErrorKind::RecursionLimit);
            let unknown = [0xa3u8, 0x06].repeat(100_000);
            assert_eq!(
                Everything::decode(&unknown).unwrap_err().kind(),
                DecodeErrorKind::RecursionLimit
            );
            // The deepest input the default limit accepts also fits.
            assert!(Tree::decode(&deep_tree(100)).is_ok());
            // And through DynamicMessage.
            let dynamic = |bytes: &[u8]| DynamicMessage::decode(Tree::descriptor(), bytes).map(drop);
            assert_eq!(
                dynamic(&deep_tree(100_000)).unwrap_err().kind(),
                DecodeErrorKind::RecursionLimit
            );
            assert!(dynamic(&deep_tree(100)).is_ok());
        })
        .unwrap();
    worker.join().expect("no stack overflow");
}

/// Views hold the views of their singular message fields inline, and their
/// decoders' frames are larger: 100 levels of the largest test message (a
/// 4 KiB view) take under 1.5 MiB of stack in debug builds (a thread's
/// default is 2 MiB), under 512 KiB in release ones (a `Tree` under 128 KiB).
#[test]
fn deep_views_on_a_small_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            assert_eq!(kind::<Tree>(&deep_tree(100_000)), DecodeErrorKind::RecursionLimit);
            assert!(TreeView::decode(&deep_tree(100)).is_ok());
            // Everything.more (13), nested 100 and 101 deep.
            let mut deep = Vec::new();
            for _ in 0..100 {
                deep = [&[0x6a][..], &varint(deep.len() as u64), &deep].concat();
            }
            assert!(EverythingView::decode(&deep).is_ok());
            let deeper = [&[0x6a][..], &varint(deep.len() as u64), &deep].concat();
            assert_eq!(kind::<Everything>(&deeper), DecodeErrorKind::RecursionLimit);
            let unknown = [0xa3u8, 0x06].repeat(100_000);
            assert_eq!(kind::<Everything>(&unknown), DecodeErrorKind::RecursionLimit);
        })
        .unwrap();
    worker.join().expect("no stack overflow");
}

#[test]
fn raising_the_limit_decodes_deep_messages() {
    let input = deep_tree(300);
    let mut tree = Tree::default();
    let options = DecodeOptions {
        recursion_limit: 300,
        ..Default::default()
    };
    tree.fast_read_with(&input, &options).unwrap();
    assert_eq!(tree.encode_to_vec(), input);
    let view = TreeView::decode_with(&input, &options).unwrap();
    assert_eq!(view.to_owned(), tree);
    assert_eq!(
        kind_with::<Tree>(&deep_tree(301), &options),
        DecodeErrorKind::RecursionLimit
    );
}

#[test]
fn packed_runs_that_do_not_divide_or_end_mid_varint() {
    // Lists.f_fixed32 (9) with 5 bytes; Lists.f_int64 (4) ending inside a varint.
    assert_eq!(
        kind::<Lists>(&[0x4a, 0x05, 1, 2, 3, 4, 5]),
        DecodeErrorKind::PackedLengthMismatch
    );
    assert_eq!(
        kind::<Lists>(&[0x52, 0x07, 1, 2, 3, 4, 5, 6, 7]),
        DecodeErrorKind::PackedLengthMismatch
    );
    assert_eq!(
        kind::<Lists>(&[0x22, 0x03, 0x01, 0x80, 0x80]),
        DecodeErrorKind::Truncated
    );
    assert_eq!(
        kind::<Lists>(&[0x22, 0x0c, 1, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::VarintOverflow
    );
}

#[test]
fn packed_run_errors_point_at_the_bad_varint() {
    // Lists.f_int64 (4): twelve good one-byte values, then an eleven-byte
    // varint (found ten bytes ahead of the end), or a run ending mid-varint
    // (found in the last ten bytes). Both point at the varint's first byte.
    let mut overlong = vec![0x22, 23];
    overlong.extend([5; 12]);
    overlong.extend([0xff; 11]);
    let err = Lists::decode(&overlong).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::VarintOverflow, 14));
    assert_eq!(kind::<Lists>(&overlong), DecodeErrorKind::VarintOverflow);
    let mut cut = vec![0x22, 14];
    cut.extend([5; 12]);
    cut.extend([0x80, 0x80]);
    let err = Lists::decode(&cut).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::Truncated, 14));
    assert_eq!(kind::<Lists>(&cut), DecodeErrorKind::Truncated);
}

#[test]
fn bad_tags_in_generated_messages() {
    assert_eq!(kind::<Tree>(&[0x00, 0x01]), DecodeErrorKind::InvalidFieldNumber);
    assert_eq!(
        kind::<Tree>(&[0x80, 0x80, 0x80, 0x80, 0x10, 0x00]),
        DecodeErrorKind::InvalidFieldNumber
    );
    assert_eq!(kind::<Tree>(&[0x0e, 0x00]), DecodeErrorKind::InvalidWireType(6));
    assert_eq!(kind::<Tree>(&[0x0f, 0x00]), DecodeErrorKind::InvalidWireType(7));
    assert_eq!(kind::<Tree>(&[0x0c]), DecodeErrorKind::UnexpectedEndGroup);
    assert_eq!(kind::<Tree>(&[0x0b, 0x14]), DecodeErrorKind::EndGroupMismatch);
    assert_eq!(kind::<Tree>(&[0x0b]), DecodeErrorKind::UnterminatedGroup);
}

#[test]
fn empty_elements_cannot_expand_without_bound() {
    // Everything.more (13): each 2-byte empty element is a whole Everything.
    let footprint = std::mem::size_of::<Everything>();
    let input = [0x6a, 0x00].repeat(100_000);
    let strict = DecodeOptions {
        allocation_ratio: 4,
        allocation_slack: 0,
        ..Default::default()
    };
    let err = Everything::default().fast_read_with(&input, &strict).unwrap_err();
    assert!(footprint > 8, "an Everything is {footprint} bytes");
    assert_eq!(err.kind(), DecodeErrorKind::AllocationLimit);
    // The same holds for map entries and nested message values.
    let maps = [0x2a, 0x04, 0x0a, 0x02, 0x0a, 0x00].repeat(100_000); // maps { int32_int32 {} }
    assert_eq!(
        Everything::default().fast_read_with(&maps, &strict).unwrap_err().kind(),
        DecodeErrorKind::AllocationLimit
    );
    // Defaults allow ordinary data of the same shape.
    assert!(Everything::decode(&[0x6a, 0x00].repeat(100)).is_ok());
    // Views allocate nothing per element, so no budget applies: the same
    // input reads as a view of 100,000 elements, allocating nothing.
    let (view, largest) = largest_allocation(|| EverythingView::decode_with(&input, &strict).map(|v| v.more.len()));
    assert_eq!(view, Ok(100_000));
    assert_eq!(largest, 0, "a view allocated");
}

#[test]
fn oversized_input_is_refused_up_front() {
    let options = DecodeOptions {
        max_input_bytes: 10,
        ..Default::default()
    };
    assert_eq!(
        kind_with::<Tree>(&[0x08, 0x01].repeat(6), &options),
        DecodeErrorKind::InputTooLarge
    );
}

#[test]
#[should_panic(expected = "encode buffer too short")]
fn writing_into_a_buffer_one_byte_short_panics_clearly() {
    let m = Everything {
        lists: Some(Lists {
            f_int32: vec![1, 2, 3],
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut buf = vec![0u8; m.size() - 1];
    m.fast_write(&mut buf);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random bytes: an error, or a message whose encoding decodes to itself
    /// and re-encodes to the same bytes.
    #[test]
    fn random_bytes_decode_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        fastrs_tests::check_round_trip::<SortedEverything>(&bytes);
        fastrs_tests::check_round_trip::<fastrs_tests::fast::fastrs::test2::Groups>(&bytes);
        fastrs_tests::check_round_trip::<fastrs_tests::fast::fastrs::test2::Closed>(&bytes);
        fastrs_tests::check_view::<Everything>(&bytes);
        fastrs_tests::check_view::<fastrs_tests::fast::fastrs::test2::Groups>(&bytes);
        fastrs_tests::check_view::<fastrs_tests::fast::fastrs::test2::Closed>(&bytes);
        check_dynamic::<Everything>(&bytes);
        check_dynamic::<fastrs_tests::fast::fastrs::test2::Groups>(&bytes);
        check_dynamic::<fastrs_tests::fast::fastrs::test2::Closed>(&bytes);
    }

    /// Truncating a valid encoding anywhere never panics.
    #[test]
    fn truncations_never_panic(seed in any::<u64>(), cut in any::<prop::sample::Index>()) {
        thread_local!(static SCHEMA: fastrs_tests::random::Schema = fastrs_tests::random::Schema::load(fastrs_tests::DESCRIPTORS));
        let mut has_map = false;
        let mut rng = fastrs_tests::random::Rng::new(seed);
        let full = SCHEMA.with(|s| s.encode(".fastrs.test.Everything", &mut rng, 4, &mut has_map));
        let cut = cut.index(full.len() + 1);
        fastrs_tests::check_round_trip::<SortedEverything>(&full[..cut]);
        fastrs_tests::check_view::<Everything>(&full[..cut]);
        check_dynamic::<Everything>(&full[..cut]);
    }
}
