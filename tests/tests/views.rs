//! Zero-copy views (`views=true`) against owned decoding: on random messages
//! of every test schema, and on those messages concatenated (merges) and
//! mutated, a view decodes exactly when the owned message does, fails with
//! the same error, holds the same values field by field, lists the same
//! unknown fields, converts to the same owned message and encodes back to
//! bytes that decode to it.

use std::collections::HashMap;
use std::fmt::Debug;

use fastrs::view::{Lazy, ViewCodec};
use fastrs::{HasView, Message, View};
use fastrs_tests::fast::fastrs::test as t;
use fastrs_tests::fast::fastrs::test2 as t2;
use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::DESCRIPTORS;
use proptest::prelude::*;

/// Field-by-field equality of a view with the owned message (panics naming
/// the field that differs).
trait Same<M> {
    fn same(&self, m: &M);
}

impl<'a, V: Same<M> + View<'a>, M> Same<Box<M>> for Lazy<'a, V> {
    fn same(&self, m: &Box<M>) {
        self.get().same(m);
    }
}

impl<M, V: Same<M>> Same<Option<M>> for Option<V> {
    fn same(&self, m: &Option<M>) {
        match (self, m) {
            (Some(v), Some(m)) => v.same(m),
            (None, None) => {}
            _ => panic!("presence differs: view {}, owned {}", self.is_some(), m.is_some()),
        }
    }
}

/// Each repeated message of the view is the same as the owned one at its place.
fn same_list<'a, C, M>(view: &fastrs::view::Repeated<'a, C>, owned: &[M])
where
    C: ViewCodec<'a, Item: Same<M>>,
{
    assert_eq!(view.len(), owned.len(), "length");
    assert_eq!(view.iter().len(), owned.len(), "iterator length");
    for (v, m) in view.iter().zip(owned) {
        v.same(m);
    }
}

/// A view's map entries, last value per key, against the owned map.
fn same_map<'a, K, V, OK, OV>(view: &fastrs::view::Map<'a, K, V>, owned: &HashMap<OK, OV>, eq: impl Fn(&V::Item, &OV))
where
    K: ViewCodec<'a, Item: Default + PartialEq + Into<OK> + Clone>,
    V: ViewCodec<'a, Item: Default>,
    OK: std::hash::Hash + Eq + Debug,
{
    let mut last: HashMap<OK, V::Item> = HashMap::new();
    for (k, v) in view {
        last.insert(k.into(), v);
    }
    assert_eq!(last.len(), owned.len(), "map size");
    for (k, v) in &last {
        let o = owned
            .get(k)
            .unwrap_or_else(|| panic!("key {k:?} missing from the owned map"));
        eq(v, o);
    }
}

macro_rules! same_values {
    ($v:expr, $m:expr; $($f:ident),* $(,)?) => {
        $(assert_eq!($v.$f, $m.$f, stringify!($f));)*
    };
}

macro_rules! same_lists {
    ($v:expr, $m:expr; $($f:ident),* $(,)?) => {
        $(
            assert_eq!($v.$f.to_vec(), $m.$f, stringify!($f));
            // One value at a time, folded whole, and folded after a first
            // value was taken (in the middle of a packed run).
            assert_eq!($v.$f.iter().collect::<Vec<_>>(), $m.$f, stringify!($f));
            assert_eq!($v.$f.iter().fold(Vec::new(), |mut all, x| { all.push(x); all }), $m.$f);
            let mut rest = $v.$f.iter();
            let first: Vec<_> = rest.next().into_iter().collect();
            assert_eq!([first, rest.fold(Vec::new(), |mut all, x| { all.push(x); all })].concat(), $m.$f);
            // A `for`-style loop: `next` to the end, the exact length as it
            // goes, and nothing after the end.
            let mut seen = Vec::new();
            let mut values = $v.$f.iter();
            while let Some(x) = values.next() {
                seen.push(x);
                assert_eq!(values.len(), $m.$f.len() - seen.len(), stringify!($f));
            }
            assert!(values.next().is_none());
            assert_eq!(seen, $m.$f, stringify!($f));
            let mut kept = vec![Default::default()];
            $v.$f.extend_into(&mut kept);
            assert_eq!(kept[1..], $m.$f[..], stringify!($f));
            assert_eq!($v.$f.len(), $m.$f.len(), stringify!($f));
            for (i, x) in $m.$f.iter().enumerate() {
                assert!($v.$f.get(i).as_ref() == Some(x), "{}[{i}]", stringify!($f));
            }
            assert!($v.$f.get($m.$f.len()).is_none());
        )*
    };
}

/// Floats compared by bits: NaN payloads survive both decoders.
macro_rules! same_bits {
    ($v:expr, $m:expr; $($f:ident),* $(,)?) => {
        $(assert_eq!($v.$f.to_bits(), $m.$f.to_bits(), stringify!($f));)*
    };
}

impl Same<t::Scalars> for t::ScalarsView<'_> {
    fn same(&self, m: &t::Scalars) {
        same_bits!(self, m; f_double, f_float);
        same_values!(self, m; f_int32, f_int64, f_uint32, f_uint64, f_sint32, f_sint64, f_fixed32,
            f_fixed64, f_sfixed32, f_sfixed64, f_bool, f_string, f_bytes);
    }
}

impl Same<t::Lists> for t::ListsView<'_> {
    fn same(&self, m: &t::Lists) {
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(self.f_double.to_vec()), bits(m.f_double.clone()));
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(self.f_float.to_vec()), bits(m.f_float.clone()));
        same_lists!(self, m; f_int32, f_int64, f_uint32, f_uint64, f_sint32, f_sint64, f_fixed32,
            f_fixed64, f_sfixed32, f_sfixed64, f_bool, f_enum);
        assert_eq!(self.f_string.to_vec(), m.f_string);
        assert_eq!(self.f_bytes.to_vec(), m.f_bytes);
        same_list(&self.f_message, &m.f_message);
    }
}

impl Same<t::Unpacked> for t::UnpackedView<'_> {
    fn same(&self, m: &t::Unpacked) {
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(self.f_double.to_vec()), bits(m.f_double.clone()));
        same_lists!(self, m; f_int32, f_int64, f_uint32, f_uint64, f_sint32, f_sint64, f_fixed32,
            f_fixed64, f_sfixed32, f_sfixed64, f_bool, f_enum);
    }
}

impl Same<t::Optionals> for t::OptionalsView<'_> {
    fn same(&self, m: &t::Optionals) {
        assert_eq!(self.f_double.map(f64::to_bits), m.f_double.map(f64::to_bits));
        assert_eq!(self.f_float.map(f32::to_bits), m.f_float.map(f32::to_bits));
        same_values!(self, m; f_int32, f_int64, f_uint32, f_uint64, f_sint32, f_sint64, f_fixed32,
            f_fixed64, f_sfixed32, f_sfixed64, f_bool, f_enum);
        assert_eq!(self.f_string, m.f_string.as_deref());
        assert_eq!(self.f_bytes, m.f_bytes.as_deref());
        self.f_message.same(&m.f_message);
    }
}

impl Same<t::Maps> for t::MapsView<'_> {
    fn same(&self, m: &t::Maps) {
        fn eq<T: PartialEq<U> + Debug, U: Debug>(v: &T, o: &U) {
            assert_eq!(v, o);
        }
        same_map(&self.int32_int32, &m.int32_int32, eq);
        same_map(&self.int64_int64, &m.int64_int64, eq);
        same_map(&self.uint32_uint32, &m.uint32_uint32, eq);
        same_map(&self.uint64_uint64, &m.uint64_uint64, eq);
        same_map(&self.sint32_sint32, &m.sint32_sint32, eq);
        same_map(&self.sint64_sint64, &m.sint64_sint64, eq);
        same_map(&self.fixed32_fixed32, &m.fixed32_fixed32, eq);
        same_map(&self.fixed64_fixed64, &m.fixed64_fixed64, eq);
        same_map(&self.sfixed32_sfixed32, &m.sfixed32_sfixed32, eq);
        same_map(&self.sfixed64_sfixed64, &m.sfixed64_sfixed64, eq);
        same_map(&self.bool_bool, &m.bool_bool, eq);
        same_map(&self.string_string, &m.string_string, |v, o| assert_eq!(v, o));
        same_map(&self.string_bytes, &m.string_bytes, |v, o| assert_eq!(v, o));
        same_map(&self.int32_double, &m.int32_double, |v, o| {
            assert_eq!(v.to_bits(), o.to_bits())
        });
        same_map(&self.int32_float, &m.int32_float, |v, o| {
            assert_eq!(v.to_bits(), o.to_bits())
        });
        same_map(&self.string_enum, &m.string_enum, eq);
        same_map(&self.string_message, &m.string_message, |v, o| v.same(o));
        same_map(&self.int32_bytes, &m.int32_bytes, |v, o| assert_eq!(v, o));
        for (k, v) in &m.string_string {
            assert_eq!(self.string_string.get(&k.as_str()), Some(v.as_str()));
        }
    }
}

impl Same<t::Choice> for t::ChoiceView<'_> {
    fn same(&self, m: &t::Choice) {
        use t::choice::{Pick, PickView};
        assert_eq!(self.after, m.after);
        match (&self.pick, &m.pick) {
            (None, None) => {}
            (Some(PickView::AInt(v)), Some(Pick::AInt(o))) => assert_eq!(v, o),
            (Some(PickView::AString(v)), Some(Pick::AString(o))) => assert_eq!(v, o),
            (Some(PickView::ABytes(v)), Some(Pick::ABytes(o))) => assert_eq!(v, o),
            (Some(PickView::AEnum(v)), Some(Pick::AEnum(o))) => assert_eq!(v, o),
            (Some(PickView::AMessage(v)), Some(Pick::AMessage(o))) => v.same(o),
            (Some(PickView::ADouble(v)), Some(Pick::ADouble(o))) => assert_eq!(v.to_bits(), o.to_bits()),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t::Tree> for t::TreeView<'_> {
    fn same(&self, m: &t::Tree) {
        use t::tree::{Branch, BranchView};
        assert_eq!(self.value, m.value);
        self.left.same(&m.left);
        self.right.same(&m.right);
        same_list(&self.children, &m.children);
        match (&self.branch, &m.branch) {
            (None, None) => {}
            (Some(BranchView::Only(v)), Some(Branch::Only(o))) => v.same(o),
            (Some(BranchView::Leaf(v)), Some(Branch::Leaf(o))) => assert_eq!(v, o),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t::outer::Inner> for t::outer::InnerView<'_> {
    fn same(&self, m: &t::outer::Inner) {
        same_values!(self, m; kind, name);
    }
}

impl Same<t::Outer> for t::OuterView<'_> {
    fn same(&self, m: &t::Outer) {
        self.inner.same(&m.inner);
        same_list(&self.inners, &m.inners);
        assert_eq!(self.kind, m.kind);
        assert_eq!(self.remote.is_some(), m.remote.is_some());
        assert_eq!(self.rootless.is_some(), m.rootless.is_some());
    }
}

impl Same<t::Flat> for t::FlatView<'_> {
    fn same(&self, m: &t::Flat) {
        use t::flat::{Pick, PickView};
        same_values!(self, m; name, color, id);
        same_lists!(self, m; deltas);
        assert_eq!(self.tags.to_vec(), m.tags);
        assert_eq!(self.blobs.to_vec(), m.blobs);
        same_map(&self.counts, &m.counts, |v, o| assert_eq!(v, o));
        match (&self.pick, &m.pick) {
            (None, None) => {}
            (Some(PickView::AInt(v)), Some(Pick::AInt(o))) => assert_eq!(v, o),
            (Some(PickView::AString(v)), Some(Pick::AString(o))) => assert_eq!(v, o),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t::ReportView> for t::ReportViewView<'_> {
    fn same(&self, m: &t::ReportView) {
        same_values!(self, m; title);
    }
}

impl Same<t::report::DetailView> for t::report::DetailViewView<'_> {
    fn same(&self, m: &t::report::DetailView) {
        self.parent.same(&m.parent);
        assert_eq!(self.lines.to_vec(), m.lines);
    }
}

/// Views named around the types that have their plain names.
impl Same<t::Report> for t::ReportView_<'_> {
    fn same(&self, m: &t::Report) {
        use t::report::{Detail, DetailView_};
        self.summary.same(&m.summary);
        same_list(&self.children, &m.children);
        match (&self.detail, &m.detail) {
            (None, None) => {}
            (Some(DetailView_::View(v)), Some(Detail::View(o))) => v.same(o),
            (Some(DetailView_::Note(v)), Some(Detail::Note(o))) => assert_eq!(v, o),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t::Everything> for t::EverythingView<'_> {
    fn same(&self, m: &t::Everything) {
        self.scalars.same(&m.scalars);
        self.lists.same(&m.lists);
        self.unpacked.same(&m.unpacked);
        self.optionals.same(&m.optionals);
        self.maps.same(&m.maps);
        self.choice.same(&m.choice);
        self.tree.same(&m.tree);
        self.outer.same(&m.outer);
        same_list(&self.more, &m.more);
    }
}

impl Same<t2::Closed> for t2::ClosedView<'_> {
    fn same(&self, m: &t2::Closed) {
        use t2::closed::{Pick, PickView};
        assert_eq!(self.level, m.level);
        same_lists!(self, m; levels, packed_levels);
        same_map(&self.level_map, &m.level_map, |v, o| assert_eq!(v, o));
        match (&self.pick, &m.pick) {
            (None, None) => {}
            (Some(PickView::LevelChoice(v)), Some(Pick::LevelChoice(o))) => assert_eq!(v, o),
            (Some(PickView::Text(v)), Some(Pick::Text(o))) => assert_eq!(*v, o.as_bytes()),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t2::Groups> for t2::GroupsView<'_> {
    fn same(&self, m: &t2::Groups) {
        use t2::groups::{Choice, ChoiceView};
        assert_eq!(self.after, m.after);
        match (&self.data, &m.data) {
            (Some(v), Some(o)) => {
                assert_eq!(v.a, o.a);
                match (&v.deep, &o.deep) {
                    (Some(v), Some(o)) => assert_eq!(v.s, o.s.as_ref().map(|s| s.as_bytes())),
                    (v, o) => assert_eq!(v.is_some(), o.is_some()),
                }
            }
            (v, o) => assert_eq!(v.is_some(), o.is_some()),
        }
        let items: Vec<Option<i32>> = self.item.iter().map(|i| i.x).collect();
        assert_eq!(items, m.item.iter().map(|i| i.x).collect::<Vec<_>>());
        match (&self.choice, &m.choice) {
            (None, None) => {}
            (Some(ChoiceView::Chosen(v)), Some(Choice::Chosen(o))) => {
                assert_eq!(v.c, o.c.as_ref().map(|s| s.as_bytes()));
            }
            (Some(ChoiceView::Other(v)), Some(Choice::Other(o))) => assert_eq!(v, o),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t2::Packed> for t2::PackedView<'_> {
    fn same(&self, m: &t2::Packed) {
        same_lists!(self, m; values, plain);
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(self.doubles.to_vec()), bits(m.doubles.clone()));
    }
}

impl Same<t2::envelope::Leaf> for t2::envelope::LeafView<'_> {
    fn same(&self, m: &t2::envelope::Leaf) {
        assert_eq!(self.x, m.x);
        assert_eq!(self.s, m.s.as_ref().map(|s| s.as_bytes()));
    }
}

impl Same<t2::Envelope> for t2::EnvelopeView<'_> {
    fn same(&self, m: &t2::Envelope) {
        use t2::envelope::{Body, BodyView};
        assert_eq!(self.id, m.id);
        self.leaf.same(&m.leaf);
        let tags: Vec<&[u8]> = m.tags.iter().map(|t| t.as_bytes()).collect();
        assert_eq!(self.tags.to_vec(), tags);
        match (&self.body, &m.body) {
            (None, None) => {}
            (Some(BodyView::First(v)), Some(Body::First(o))) => v.same(o),
            (Some(BodyView::Note(v)), Some(Body::Note(o))) => assert_eq!(*v, o.as_bytes()),
            (v, o) => panic!("oneof differs: {v:?} / {o:?}"),
        }
    }
}

impl Same<t2::Required> for t2::RequiredView<'_> {
    fn same(&self, m: &t2::Required) {
        assert_eq!(self.id, m.id);
        assert_eq!(self.name, m.name.as_ref().map(|s| s.as_bytes()));
        self.child.same(&m.child);
        same_list(&self.children, &m.children);
    }
}

impl Same<t2::Defaults> for t2::DefaultsView<'_> {
    fn same(&self, m: &t2::Defaults) {
        same_values!(self, m; f_int32, f_int64, f_uint32, f_uint64, f_sint32, f_fixed64, f_bool,
            f_level, f_mood, f_plain);
        assert_eq!(self.f_float.map(f32::to_bits), m.f_float.map(f32::to_bits));
        assert_eq!(self.f_double.map(f64::to_bits), m.f_double.map(f64::to_bits));
        assert_eq!(self.f_bytes, m.f_bytes.as_deref());
    }
}

/// The owned message's unknown fields, as a view lists them.
fn unknown_of<M: Message>(m: &M) -> Vec<(u32, Vec<u8>)> {
    m.unknown_fields().fields().map(|(t, v)| (t, v.to_vec())).collect()
}

/// Every check on one input: the view decodes exactly when the owned
/// message does, with the same error; and when both do, they agree.
fn check<M>(input: &[u8], lists_unknown: bool)
where
    M: HasView + PartialEq,
    for<'a> M::View<'a>: Same<M>,
{
    let owned = M::decode(input);
    let view = M::View::decode(input);
    match (&view, &owned) {
        (Ok(view), Ok(owned)) => {
            view.same(owned);
            let back = view.to_message();
            #[allow(clippy::eq_op)] // false exactly when a NaN is inside
            let comparable = *owned == *owned;
            if comparable {
                assert!(back == *owned, "to_message differs from decode");
            } else {
                view.same(&back);
            }
            assert_eq!(view.size(), input.len());
            assert_eq!(view.encode_to_vec(), input);
            let mut buf = vec![0; input.len() + 3];
            assert_eq!(view.fast_write(&mut buf), input.len());
            assert_eq!(&buf[..input.len()], input);
            if lists_unknown {
                let listed: Vec<(u32, Vec<u8>)> = view.unknown_fields().map(|(t, v)| (t, v.to_vec())).collect();
                assert_eq!(listed, unknown_of(owned));
            }
        }
        (Err(v), Err(o)) => assert_eq!(v.kind(), o.kind(), "view: {v}, owned: {o}"),
        (v, o) => panic!("view {:?}, owned {:?}", v.as_ref().err(), o.as_ref().err()),
    }
}

thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));

fn random(name: &str, rng: &mut Rng) -> Vec<u8> {
    let mut unordered = false;
    SCHEMA.with(|s| s.encode(name, rng, 4, &mut unordered))
}

/// A random message, two concatenated (a merge), and mutations of each.
fn check_all<M>(name: &str, seed: u64, lists_unknown: bool)
where
    M: HasView + PartialEq,
    for<'a> M::View<'a>: Same<M>,
{
    let mut rng = Rng::new(seed);
    let one = random(name, &mut rng);
    check::<M>(&one, lists_unknown);
    let two = [random(name, &mut rng), random(name, &mut rng)].concat();
    check::<M>(&two, lists_unknown);
    for input in [one, two] {
        for _ in 0..8 {
            let mut bad = input.clone();
            match rng.below(3) {
                0 if !bad.is_empty() => {
                    let at = rng.below(bad.len() as u64) as usize;
                    bad[at] ^= 1 << rng.below(8);
                }
                1 if !bad.is_empty() => bad.truncate(rng.below(bad.len() as u64) as usize),
                _ => {
                    let at = rng.below(bad.len() as u64 + 1) as usize;
                    bad.insert(at, rng.next_u64() as u8);
                }
            }
            check::<M>(&bad, lists_unknown);
        }
    }
}

macro_rules! views_agree {
    ($($test:ident: $name:literal => $ty:ty, $unknown:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]
            $(
                #[test]
                fn $test(seed in any::<u64>()) {
                    check_all::<$ty>($name, seed, $unknown);
                }
            )*
        }
    };
}

views_agree! {
    scalars: ".fastrs.test.Scalars" => t::Scalars, true;
    lists: ".fastrs.test.Lists" => t::Lists, true;
    unpacked: ".fastrs.test.Unpacked" => t::Unpacked, true;
    optionals: ".fastrs.test.Optionals" => t::Optionals, true;
    maps: ".fastrs.test.Maps" => t::Maps, true;
    choice: ".fastrs.test.Choice" => t::Choice, true;
    tree: ".fastrs.test.Tree" => t::Tree, true;
    outer: ".fastrs.test.Outer" => t::Outer, true;
    flat: ".fastrs.test.Flat" => t::Flat, true;
    everything: ".fastrs.test.Everything" => t::Everything, true;
    taken_view_names: ".fastrs.test.Report" => t::Report, true;
    p2_defaults: ".fastrs.test2.Defaults" => t2::Defaults, false;
    p2_required: ".fastrs.test2.Required" => t2::Required, true;
    p2_required_in_place: ".fastrs.test2.Envelope" => t2::Envelope, true;
    p2_closed: ".fastrs.test2.Closed" => t2::Closed, false;
    p2_groups: ".fastrs.test2.Groups" => t2::Groups, true;
    p2_packed: ".fastrs.test2.Packed" => t2::Packed, true;
}

/// Views of size-mode code (out-of-line calls, no reads in field order)
/// agree with owned decoding as speed-mode views do.
mod size_mode {
    use fastrs_tests::check_view;
    use fastrs_tests::fast_size::fastrs::{test, test2};
    use fastrs_tests::random::Rng;
    use proptest::prelude::*;

    fn inputs(name: &str, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng::new(seed);
        let one = super::random(name, &mut rng);
        let two = [super::random(name, &mut rng), one.clone()].concat();
        let mut bad = two.clone();
        if !bad.is_empty() {
            let at = rng.below(bad.len() as u64) as usize;
            bad[at] ^= 1 << rng.below(8);
        }
        vec![one, two, bad]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn size_mode_views_agree(seed in any::<u64>()) {
            for input in inputs(".fastrs.test.Everything", seed) {
                check_view::<test::Everything>(&input);
            }
            for input in inputs(".fastrs.test.Flat", seed) {
                check_view::<test::Flat>(&input);
            }
            for input in inputs(".fastrs.test2.Groups", seed) {
                check_view::<test2::Groups>(&input);
            }
            for input in inputs(".fastrs.test2.Closed", seed) {
                check_view::<test2::Closed>(&input);
            }
        }
    }
}

/// A packed field in several records (packed runs and single values),
/// with other fields between them and in two occurrences of the message
/// holding it: a `for` loop, `fold` and the owned decoder agree.
#[test]
fn split_packed_runs_read_alike_every_way() {
    fn varints(out: &mut Vec<u8>, values: &[u64]) {
        for &(mut v) in values {
            while v >= 0x80 {
                out.push(v as u8 | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
    }
    let mut bytes = Vec::new();
    // f_int64 (4) packed: 1, 300, 70000; then f_int32 (3) = 5; then f_int64
    // unpacked: 2; then f_fixed64 (10) packed: 7, 8; then f_int64 packed: 3.
    let mut run = Vec::new();
    varints(&mut run, &[1, 300, 70000]);
    bytes.extend_from_slice(&[0x22, run.len() as u8]);
    bytes.extend_from_slice(&run);
    bytes.extend_from_slice(&[0x18, 5, 0x20, 2]);
    bytes.extend_from_slice(&[0x52, 16]);
    bytes.extend_from_slice(&7u64.to_le_bytes());
    bytes.extend_from_slice(&8u64.to_le_bytes());
    bytes.extend_from_slice(&[0x22, 1, 3]);
    // A fixed64 value unpacked, then an empty packed run.
    bytes.extend_from_slice(&[0x51]);
    bytes.extend_from_slice(&9u64.to_le_bytes());
    bytes.extend_from_slice(&[0x52, 0]);
    let owned = t::Lists::decode(&bytes).unwrap();
    assert_eq!(owned.f_int64, [1, 300, 70000, 2, 3]);
    assert_eq!(owned.f_fixed64, [7, 8, 9]);
    let view = t::ListsView::decode(&bytes).unwrap();
    let mut ints = Vec::new();
    for v in &view.f_int64 {
        ints.push(v);
    }
    assert_eq!(ints, owned.f_int64);
    let mut fixed = Vec::new();
    for v in &view.f_fixed64 {
        fixed.push(v);
    }
    assert_eq!(fixed, owned.f_fixed64);
    assert_eq!(view.f_fixed64.iter().sum::<u64>(), 24);
    assert_eq!(view.f_int64.iter().zip(&view.f_fixed64).count(), 3);
}

/// Packed varints of every length, in runs of one length and mixed, read
/// one by one, folded and extended: the word-at-a-time and block decoders
/// of `fold` against the owned decoder.
#[test]
fn packed_varints_of_every_length_fold_as_they_decode() {
    let mut values: Vec<i64> = Vec::new();
    for bits in [0, 7, 14, 21, 28, 35, 42, 49, 56, 63] {
        let v = if bits == 63 { -1 } else { (1i64 << bits) | 1 };
        values.extend(std::iter::repeat_n(v, 20));
    }
    for i in 0..200u32 {
        values.push(i64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64) >> (i % 64));
    }
    let m = t::Lists {
        f_int64: values.clone(),
        ..Default::default()
    };
    let bytes = m.encode_to_vec();
    let view = t::ListsView::decode(&bytes).unwrap();
    assert_eq!(view.f_int64.iter().collect::<Vec<_>>(), values);
    let folded = view.f_int64.iter().fold(Vec::new(), |mut all, v| {
        all.push(v);
        all
    });
    assert_eq!(folded, values);
    assert_eq!(view.f_int64.to_vec(), values);
    let sum = view.f_int64.iter().fold(0i64, i64::wrapping_add);
    assert_eq!(sum, values.iter().fold(0i64, |a, &v| a.wrapping_add(v)));
}
