//! Random messages for differential validation: of any type of a pool,
//! deterministic for a seed, with values drawn from a corpus of edge
//! cases (empty, extremes, `NaN`, well- and ill-formed emails, hostnames,
//! addresses, URIs, UUIDs, ...) and from each field's own rules: every
//! constant its `buf.validate` rules name, its neighbours, and strings,
//! bytes and lists of the lengths they name, so that values fall on each
//! side of each rule's boundary.

use std::collections::BTreeMap;

use fastrs::reflect::{Cardinality, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, Value};

/// A small, seeded generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.bits() % 100 < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

/// Strings that sit on either side of the string formats' rules.
const STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    "foobar",
    "FOO",
    "é",
    "你好世界",
    "foo@example.com",
    "a.b+c@x-y.example",
    "foo@bar",
    "@example.com",
    "foo@-bar.com",
    "foo@",
    "<foo@example.com>",
    "example.com",
    "example.com.",
    "-bad.example",
    "example.123",
    "localhost",
    "ex_ample.com",
    "192.168.0.1",
    "256.0.0.1",
    "192.168.0.01",
    "::1",
    "2001:db8::1",
    "fe80::1%eth0",
    "::ffff:192.0.2.1",
    "1::2::3",
    "192.168.0.0/24",
    "192.168.0.1/24",
    "2001:db8::/32",
    "2001:db8::1/32",
    "::/129",
    "https://example.com/foo/bar?baz=quux#frag",
    "http://[::1]:8080/",
    "http://[fe80::1%25eth0]/",
    "urn:isbn:0451450523",
    "/relative/path",
    "./rel?x=1",
    "//host/path",
    "http://exa mple.com",
    "http://%ff.com",
    ":bad",
    "8b2081c1-ec1a-4d1c-a15c-9a05c3fbe9ab",
    "8B2081C1-EC1A-4D1C-A15C-9A05C3FBE9AB",
    "8b2081c1ec1a4d1ca15c9a05c3fbe9ab",
    "8b2081c1-ec1a-4d1c-a15c-9a05c3fbe9a",
    "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    "81ARZ3NDEKTSV4RRFFQ69G5FAV",
    "01ARZ3NDEKTSV4RRFFQ69G5FAI",
    "example.com:8080",
    "[::1]:80",
    "example.com:080",
    "example.com:65536",
    "1.2.3.4:0",
    "content-type",
    ":path",
    "bad header",
    "x\r\ny",
    "a\u{0}b",
    "tab\tvalue",
    "foo.bar.Baz",
    ".foo.bar",
    "foo..bar",
    "1foo",
];

const BYTES: &[&[u8]] = &[
    b"",
    b"\x00",
    b"a",
    b"foo",
    b"\x01\x02\x03\x04",
    b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
    b"\xff\xfe",
    b"\x99",
];

/// Makes `count` messages of type `ty`, each from its own seed.
#[must_use]
pub fn messages(ty: &MessageDescriptor, count: usize, seed: u64) -> Vec<DynamicMessage> {
    let mut rng = Rng::new(seed ^ hash(ty.full_name()));
    (0..count).map(|_| message(ty, &mut rng, 0)).collect()
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A random message of `ty`, `depth` levels down.
#[must_use]
pub fn message(ty: &MessageDescriptor, rng: &mut Rng, depth: usize) -> DynamicMessage {
    let mut m = DynamicMessage::new(ty.clone());
    let mut oneofs_done: Vec<String> = Vec::new();
    for field in ty.fields() {
        if let Some(oneof) = field.containing_oneof() {
            if !oneof.is_synthetic() {
                if oneofs_done.contains(&oneof.name().to_string()) {
                    continue;
                }
                oneofs_done.push(oneof.name().into());
                // One member, or none.
                let members: Vec<FieldDescriptor> = oneof.fields().collect();
                if rng.chance(80) {
                    let chosen = rng.pick(&members);
                    if let Some(v) = value(&chosen, rng, depth) {
                        let _ = m.set(&chosen, v);
                    }
                }
                continue;
            }
        }
        let required = field.cardinality() == Cardinality::Required;
        if !required && rng.chance(25) {
            continue;
        }
        if depth > 3 && !required && matches!(field.kind(), Kind::Message(_)) {
            continue;
        }
        if let Some(v) = value(&field, rng, depth) {
            let _ = m.set(&field, v);
        }
    }
    m
}

/// A value for `field`: a list for a repeated field, a map for a map.
fn value(field: &FieldDescriptor, rng: &mut Rng, depth: usize) -> Option<Value> {
    let hints = Hints::of(field);
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            return None;
        };
        let (k, v) = (entry.map_entry_key_field()?, entry.map_entry_value_field()?);
        let n = hints.count(rng);
        let mut out = BTreeMap::new();
        for _ in 0..n {
            if let (Some(key), Some(val)) = (
                single(&k, &hints.keys(), rng, depth),
                single(&v, &hints.values(), rng, depth),
            ) {
                if let Some(key) = MapKey::from_value(key) {
                    out.insert(key, val);
                }
            }
        }
        return Some(Value::Map(out));
    }
    if field.is_list() {
        let n = hints.count(rng);
        let items = hints.items();
        let list: Vec<Value> = (0..n).filter_map(|_| single(field, &items, rng, depth)).collect();
        // Sometimes the same item twice, for `unique`.
        let mut list = list;
        if list.len() > 1 && rng.chance(20) {
            list[1] = list[0].clone();
        }
        return Some(Value::List(list));
    }
    single(field, &hints, rng, depth)
}

/// Constants a field's rules name, to draw values near.
#[derive(Clone, Default)]
struct Hints {
    numbers: Vec<f64>,
    ints: Vec<i128>,
    strings: Vec<String>,
    bytes: Vec<Vec<u8>>,
    lengths: Vec<u64>,
    nested: BTreeMap<&'static str, Box<Hints>>,
}

impl Hints {
    fn of(field: &FieldDescriptor) -> Hints {
        let mut hints = Hints::default();
        let Some(rules) = field_rules(field) else { return hints };
        hints.collect(&rules);
        hints
    }

    /// Gathers the constants of a rules message (and the rules of items,
    /// keys and values apart).
    fn collect(&mut self, rules: &DynamicMessage) {
        for (f, v) in rules.fields() {
            match (f.name(), v) {
                ("items", Value::Message(m)) => self.nest("items", m),
                ("keys", Value::Message(m)) => self.nest("keys", m),
                ("values", Value::Message(m)) => self.nest("values", m),
                (_, Value::Message(m)) => self.collect(m),
                (name, v) => self.constant(name, v),
            }
        }
    }

    fn nest(&mut self, site: &'static str, rules: &DynamicMessage) {
        let mut inner = Hints::default();
        inner.collect(rules);
        self.nested.insert(site, Box::new(inner));
    }

    fn constant(&mut self, name: &str, v: &Value) {
        let lengthy =
            name.contains("len") || name.contains("bytes") || name.contains("items") || name.contains("pairs");
        match v {
            Value::List(items) => items.iter().for_each(|i| self.constant(name, i)),
            Value::U64(n) if lengthy => self.lengths.push(*n),
            Value::I32(n) => self.ints.push(i128::from(*n)),
            Value::I64(n) => self.ints.push(i128::from(*n)),
            Value::U32(n) => self.ints.push(i128::from(*n)),
            Value::U64(n) => self.ints.push(i128::from(*n)),
            Value::EnumNumber(n) => self.ints.push(i128::from(*n)),
            Value::F32(x) => self.numbers.push(f64::from(*x)),
            Value::F64(x) => self.numbers.push(*x),
            Value::String(s) => self.strings.push(s.clone()),
            Value::Bytes(b) => self.bytes.push(b.clone()),
            _ => {}
        }
    }

    fn items(&self) -> Hints {
        self.nested
            .get("items")
            .map(|h| (**h).clone())
            .unwrap_or_else(|| self.clone())
    }

    fn keys(&self) -> Hints {
        self.nested.get("keys").map(|h| (**h).clone()).unwrap_or_default()
    }

    fn values(&self) -> Hints {
        self.nested.get("values").map(|h| (**h).clone()).unwrap_or_default()
    }

    /// How many items: near a length the rules name, or a few.
    fn count(&self, rng: &mut Rng) -> usize {
        if !self.lengths.is_empty() && rng.chance(60) {
            let n = rng.pick(&self.lengths);
            let n = usize::try_from(n).unwrap_or(4).min(8);
            return (n + rng.below(3)).saturating_sub(1);
        }
        rng.below(4)
    }
}

/// The `buf.validate.field` rules of `field`, decoded.
fn field_rules(field: &FieldDescriptor) -> Option<DynamicMessage> {
    let pool = field.pool();
    let ty = pool.get_message_by_name("google.protobuf.FieldOptions")?;
    let options = DynamicMessage::decode(ty.clone(), field.options_bytes()).ok()?;
    let ext = ty.get_extension(1159)?;
    options.get(&ext)?.as_message().cloned()
}

/// One value of `field`'s type.
fn single(field: &FieldDescriptor, hints: &Hints, rng: &mut Rng, depth: usize) -> Option<Value> {
    let near = |rng: &mut Rng, ints: &[i128]| -> Option<i128> {
        (!ints.is_empty() && rng.chance(70)).then(|| rng.pick(ints) + i128::from(rng.below(3) as i8 - 1))
    };
    Some(match field.kind() {
        Kind::Bool => Value::Bool(rng.chance(50)),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            let n =
                near(rng, &hints.ints).unwrap_or_else(|| i128::from(rng.pick(&[0, 1, -1, 5, 100, i32::MIN, i32::MAX])));
            Value::I32(i32::try_from(n).unwrap_or(0))
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            let n =
                near(rng, &hints.ints).unwrap_or_else(|| i128::from(rng.pick(&[0, 1, -1, 5, 100, i64::MIN, i64::MAX])));
            Value::I64(i64::try_from(n).unwrap_or(0))
        }
        Kind::Uint32 | Kind::Fixed32 => {
            let n = near(rng, &hints.ints).unwrap_or_else(|| i128::from(rng.pick(&[0, 1, 5, 100, u32::MAX])));
            Value::U32(u32::try_from(n).unwrap_or(0))
        }
        Kind::Uint64 | Kind::Fixed64 => {
            let n = near(rng, &hints.ints).unwrap_or_else(|| i128::from(rng.pick(&[0, 1, 5, 100, u64::MAX])));
            Value::U64(u64::try_from(n).unwrap_or(0))
        }
        Kind::Float | Kind::Double => {
            let x = if !hints.numbers.is_empty() && rng.chance(70) {
                let c = rng.pick(&hints.numbers);
                rng.pick(&[c, c - 1.0, c + 1.0, c - 0.001, c + 0.001, c])
            } else {
                rng.pick(&[
                    0.0,
                    1.0,
                    -1.0,
                    0.5,
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    1e30,
                    -0.0,
                ])
            };
            #[allow(clippy::cast_possible_truncation)]
            if matches!(field.kind(), Kind::Float) {
                Value::F32(x as f32)
            } else {
                Value::F64(x)
            }
        }
        Kind::String => Value::String(string(hints, rng)),
        Kind::Bytes => Value::Bytes(bytes(hints, rng)),
        Kind::Enum(e) => {
            if !hints.ints.is_empty() && rng.chance(50) {
                Value::EnumNumber(i32::try_from(rng.pick(&hints.ints)).unwrap_or(0))
            } else {
                let defined: Vec<i32> = e.values().map(|v| v.number()).collect();
                Value::EnumNumber(if rng.chance(85) { rng.pick(&defined) } else { 12345 })
            }
        }
        Kind::Message(m) => Value::Message(Box::new(
            well_known(&m, hints, rng).unwrap_or_else(|| message(&m, rng, depth + 1)),
        )),
    })
}

fn string(hints: &Hints, rng: &mut Rng) -> String {
    if !hints.lengths.is_empty() && rng.chance(40) {
        let n = usize::try_from(rng.pick(&hints.lengths)).unwrap_or(3).min(300);
        let n = (n + rng.below(3)).saturating_sub(1);
        let unit = if rng.chance(30) { "é" } else { "x" };
        return unit.repeat(n);
    }
    if !hints.strings.is_empty() && rng.chance(50) {
        let c = rng.pick(&hints.strings);
        return match rng.below(4) {
            0 => c,
            1 => format!("{c}x"),
            2 => format!("x{c}"),
            _ => c.chars().skip(1).collect(),
        };
    }
    rng.pick(STRINGS).to_string()
}

fn bytes(hints: &Hints, rng: &mut Rng) -> Vec<u8> {
    if !hints.lengths.is_empty() && rng.chance(40) {
        let n = usize::try_from(rng.pick(&hints.lengths)).unwrap_or(3).min(300);
        return vec![b'x'; (n + rng.below(3)).saturating_sub(1)];
    }
    if !hints.bytes.is_empty() && rng.chance(50) {
        let mut c = rng.pick(&hints.bytes);
        if rng.chance(30) {
            c.push(b'x');
        }
        return c;
    }
    if !hints.strings.is_empty() && rng.chance(30) {
        return rng.pick(&hints.strings).into_bytes();
    }
    rng.pick(BYTES).to_vec()
}

/// Values of the well-known types that rules constrain: timestamps and
/// durations near their rules' bounds, `Any`s of listed and other type
/// URLs, field masks of listed paths.
fn well_known(m: &MessageDescriptor, hints: &Hints, rng: &mut Rng) -> Option<DynamicMessage> {
    let mut out = DynamicMessage::new(m.clone());
    let set = |out: &mut DynamicMessage, n: u32, v: Value| {
        if let Some(f) = m.get_field(n) {
            let _ = out.set(&f, v);
        }
    };
    match m.full_name() {
        "google.protobuf.Timestamp" | "google.protobuf.Duration" => {
            let timestamp = m.full_name().ends_with("Timestamp");
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            let seconds = if !hints.ints.is_empty() && rng.chance(60) {
                i64::try_from(rng.pick(&hints.ints)).unwrap_or(0) + rng.pick(&[-1, 0, 1])
            } else if timestamp {
                rng.pick(&[0, 1, -1, now - 86_400, now + 86_400, 253_402_300_799, -62_135_596_800])
            } else {
                rng.pick(&[0, 1, -1, 60, 3600, -3600, 315_576_000_000])
            };
            set(&mut out, 1, Value::I64(seconds));
            set(&mut out, 2, Value::I32(rng.pick(&[0, 0, 1, 500_000_000, 999_999_999])));
        }
        "google.protobuf.Any" => {
            let mut urls: Vec<String> = hints.strings.clone();
            urls.extend([
                "type.googleapis.com/google.protobuf.Duration".to_string(),
                "type.googleapis.com/google.protobuf.Empty".into(),
            ]);
            set(&mut out, 1, Value::String(rng.pick(&urls)));
        }
        "google.protobuf.FieldMask" => {
            let mut paths: Vec<String> = hints.strings.clone();
            paths.extend(["a".to_string(), "a.b".into(), "b".into(), "c.d.e".into()]);
            let n = rng.below(3);
            let chosen = (0..n).map(|_| Value::String(rng.pick(&paths))).collect();
            set(&mut out, 1, Value::List(chosen));
        }
        _ => return None,
    }
    Some(out)
}
