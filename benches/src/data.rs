//! The workloads' data, seeded so every run measures the same bytes. Built as
//! fastrs messages and encoded; the peers decode the same payload.

use fastrs::Message;

use crate::fast::bench::{go, ints, nested, page, telemetry, unpacked, wide};
use crate::fast::benchmark;

/// SplitMix64: small, fast, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }

    fn text(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from(b'a' + self.below(26) as u8)).collect()
    }

    /// A length within a quarter of `len` either side.
    fn around(&mut self, len: usize) -> usize {
        let spread = len / 4;
        len - spread + self.below(2 * spread as u64 + 1) as usize
    }
}

/// How the messages of a workload differ from call to call.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// One payload, repeated: the workload as the issue fixes it.
    Fixed,
    /// Payloads from the given seed: strings a quarter shorter or longer than
    /// the fixed ones, and (for the Go message) any case of the oneof.
    Varied(u64),
}

impl Shape {
    fn rng(self, fixed_seed: u64) -> Rng {
        match self {
            Shape::Fixed => Rng::new(fixed_seed),
            Shape::Varied(seed) => Rng::new(seed),
        }
    }

    /// Random text of `len` letters for fixed payloads, of a length around
    /// it for varied ones.
    fn text(self, rng: &mut Rng, len: usize) -> String {
        let len = match self {
            Shape::Fixed => len,
            Shape::Varied(_) => rng.around(len),
        };
        rng.text(len)
    }
}

/// About 1 KiB of text in several scripts (two-, three- and four-byte UTF-8
/// sequences among ASCII), cut at a character boundary: user content such as
/// names, messages and reviews, where validation is not the ASCII fast path.
pub fn utf8_text() -> String {
    const SAMPLES: [&str; 5] = [
        "Größe, Straße, café, naïve: déjà vu. ",
        "Съешь же ещё этих мягких французских булок. ",
        "我能吞下玻璃而不伤身体。",
        "私はガラスを食べられます。",
        "🎉 ok 👍🏽 done 🔥 ",
    ];
    let mut text = String::new();
    for sample in SAMPLES.iter().cycle() {
        if text.len() + sample.len() > MOCK_LEN as usize {
            break;
        }
        text.push_str(sample);
    }
    text
}

/// Workload 1's value distributions.
#[derive(Clone, Copy, Debug)]
pub enum Dist {
    /// 0..99: one-byte varints.
    Small,
    /// 2^50 .. 2^50+999: eight-byte varints.
    Large,
    /// -100..-1: ten-byte varints (signed types only).
    Negative,
}

impl Dist {
    pub fn name(self) -> &'static str {
        match self {
            Dist::Small => "small",
            Dist::Large => "large",
            Dist::Negative => "negative",
        }
    }

    fn values(self, rng: &mut Rng) -> Vec<i64> {
        (0..1000)
            .map(|_| match self {
                Dist::Small => rng.below(100) as i64,
                Dist::Large => (1i64 << 50) + rng.below(1000) as i64,
                Dist::Negative => -1 - rng.below(100) as i64,
            })
            .collect()
    }
}

/// Workload 1's values, as serde_json's reference encodes them.
pub fn int_values(dist: Dist) -> Vec<i64> {
    dist.values(&mut Rng::new(1))
}

/// The payload of a `repeated <kind> values = 1` list of 1000 values.
pub fn int_list(kind: &str, dist: Dist) -> Vec<u8> {
    int_list_seeded(kind, dist, 1)
}

/// [`int_list`] with values drawn from the generator seeded with `seed`.
pub fn int_list_seeded(kind: &str, dist: Dist, seed: u64) -> Vec<u8> {
    let v = dist.values(&mut Rng::new(seed));
    match kind {
        "int64" => ints::Int64List {
            values: v,
            ..Default::default()
        }
        .encode_to_vec(),
        "uint64" => ints::Uint64List {
            values: v.iter().map(|&x| x as u64).collect(),
            ..Default::default()
        }
        .encode_to_vec(),
        "sint64" => ints::Sint64List {
            values: v,
            ..Default::default()
        }
        .encode_to_vec(),
        "fixed64" => ints::Fixed64List {
            values: v.iter().map(|&x| x as u64).collect(),
            ..Default::default()
        }
        .encode_to_vec(),
        "sfixed64" => ints::Sfixed64List {
            values: v,
            ..Default::default()
        }
        .encode_to_vec(),
        _ => unreachable!("known list kinds"),
    }
}

/// Workload 1's int64 list as a proto2 schema writes it by default, unpacked:
/// a tag before every value.
pub fn int_list_unpacked(dist: Dist) -> Vec<u8> {
    unpacked::Int64Unpacked {
        values: dist.values(&mut Rng::new(1)),
        ..Default::default()
    }
    .encode_to_vec()
}

/// Workload 2: the Go-suite message with random values.
pub fn go_message(shape: Shape) -> Vec<u8> {
    let mut rng = shape.rng(2);
    let r = &mut rng;
    let text = |r: &mut Rng, len| shape.text(r, len);
    let name = text(r, 16);
    let birth_day = r.u64() as i64 >> 20;
    let phone = text(r, 10);
    let siblings = r.below(10) as i32;
    let money = r.u64() as f64 / 1e12;
    let values = match shape {
        Shape::Varied(_) if r.below(3) == 1 => go::go::Values::ValueI(r.u64() as i32),
        Shape::Varied(_) if r.below(2) == 1 => go::go::Values::ValueD(r.u64() as f64 / 1e9),
        _ => go::go::Values::ValueS(text(r, 12)),
    };
    go::Go {
        name,
        birth_day,
        phone,
        siblings,
        spouse: true,
        money,
        r#type: go::Type::R.into(),
        values: Some(values),
        ..Default::default()
    }
    .encode_to_vec()
}

const MOCK_LEN: u64 = 1024;
const MOCK_CAP: usize = 16;

fn zeros(rng: &mut Rng) -> Vec<u8> {
    vec![0; rng.below(MOCK_LEN) as usize]
}

fn zero_string(rng: &mut Rng) -> String {
    String::from_utf8(zeros(rng)).expect("zero bytes are UTF-8")
}

/// Workload 3: fastpb's four messages, filled as fastpb's benchmark does; and
/// "String, UTF-8 text", its String with [`utf8_text`] in the string field.
pub fn fastpb(which: &str) -> Vec<u8> {
    let mut rng = Rng::new(3);
    let r = &mut rng;
    match which {
        "Number" => benchmark::Number {
            field1: r.u64() as i32,
            field2: r.u64() as i64,
            field3: r.u64() as u32,
            field4: r.u64(),
            field5: r.u64() as i32,
            field6: r.u64() as i64,
            field7: true,
            field8: r.u64() as f32,
            field9: r.u64() as f64,
            field10: r.u64() as u32,
            field11: r.u64(),
            field12: r.u64() as i32,
            field13: r.u64() as i64,
            ..Default::default()
        }
        .encode_to_vec(),
        "String, UTF-8 text" => benchmark::String {
            field1: utf8_text(),
            field2: vec![0; MOCK_LEN as usize],
            ..Default::default()
        }
        .encode_to_vec(),
        "String" => benchmark::String {
            field1: "\0".repeat(MOCK_LEN as usize),
            field2: vec![0; MOCK_LEN as usize],
            ..Default::default()
        }
        .encode_to_vec(),
        "List" => {
            let n = MOCK_CAP;
            benchmark::List {
                field1: (0..n).map(|_| r.u64() as i32).collect(),
                field2: (0..n).map(|_| r.u64() as i64).collect(),
                field3: (0..n).map(|_| r.u64() as u32).collect(),
                field4: (0..n).map(|_| r.u64()).collect(),
                field5: (0..n).map(|_| r.u64() as i32).collect(),
                field6: (0..n).map(|_| r.u64() as i64).collect(),
                field7: vec![true; n],
                field8: (0..n).map(|_| r.u64() as f32).collect(),
                field9: (0..n).map(|_| r.u64() as f64).collect(),
                field10: (0..n).map(|_| r.u64() as u32).collect(),
                field11: (0..n).map(|_| r.u64()).collect(),
                field12: (0..n).map(|_| r.u64() as i32).collect(),
                field13: (0..n).map(|_| r.u64() as i64).collect(),
                field14: (0..n).map(|_| zero_string(r)).collect(),
                field15: (0..n).map(|_| zeros(r)).collect(),
                ..Default::default()
            }
            .encode_to_vec()
        }
        "Map" => {
            let n = MOCK_CAP;
            benchmark::Map {
                field1: (0..n).map(|_| (r.u64() as i32, r.u64() as i64)).collect(),
                field2: (0..n).map(|_| (r.u64() as u32, r.u64())).collect(),
                field3: (0..n).map(|_| (r.u64() as i32, r.u64() as i64)).collect(),
                field4: (0..n).map(|_| (r.u64() as u32, r.u64())).collect(),
                field5: (0..n).map(|_| (r.u64() as i32, r.u64() as i64)).collect(),
                field6: (0..n).map(|_| (zero_string(r), zeros(r))).collect(),
                ..Default::default()
            }
            .encode_to_vec()
        }
        _ => unreachable!("fastpb has four messages; String also filled with UTF-8 text"),
    }
}

/// Workload 4: a chain of `depth` nodes.
pub fn nested_message(depth: usize) -> nested::Node {
    let mut node = nested::Node {
        v: 1,
        s: "leaf".into(),
        ..Default::default()
    };
    for i in 1..depth {
        node = nested::Node {
            child: Some(Box::new(node)),
            v: i as i64,
            s: "n".into(),
            ..Default::default()
        };
    }
    node
}

/// Workload 4 as a prost message.
pub fn prost_nested(depth: usize) -> crate::pb::bench::nested::Node {
    use crate::pb::bench::nested::Node;
    let mut node = Node {
        v: 1,
        s: "leaf".into(),
        ..Default::default()
    };
    for i in 1..depth {
        node = Node {
            child: Some(Box::new(node)),
            v: i as i64,
            s: "n".into(),
        };
    }
    node
}

/// Workload 4 as a buffa message.
pub fn buffa_nested(depth: usize) -> crate::bf::bench::nested::Node {
    use crate::bf::bench::nested::Node;
    let mut node = Node {
        v: 1,
        s: "leaf".into(),
        ..Default::default()
    };
    for i in 1..depth {
        node = Node {
            child: buffa::MessageField::some(node),
            v: i as i64,
            s: "n".into(),
            ..Default::default()
        };
    }
    node
}

/// Workload 5: the wide service payload.
pub fn wide_message(shape: Shape) -> Vec<u8> {
    let mut rng = shape.rng(5);
    let r = &mut rng;
    let text = |r: &mut Rng, len| shape.text(r, len);
    wide::Wide {
        id: r.u64() as i64 >> 1,
        created_at: 1_700_000_000_000 + r.below(1_000_000) as i64,
        updated_at: 1_700_000_000_000 + r.below(1_000_000) as i64,
        version: 7,
        shard: r.below(64) as i32,
        flags: r.u64() as u32,
        owner_id: r.u64() >> 20,
        tenant_id: r.below(10_000),
        delta: -(r.below(100_000) as i64),
        offset: -(r.below(1000) as i32),
        active: true,
        deleted: false,
        verified: true,
        score: 0.75,
        latitude: 52.52,
        longitude: 13.405,
        ratio: 0.5,
        weight: 72.5,
        checksum: r.u64(),
        crc: r.u64() as u32,
        name: text(r, 14),
        email: format!("{}@example.com", text(r, 8)),
        country: "DE".into(),
        city: text(r, 9),
        locale: "de-DE".into(),
        user_agent: text(r, 60),
        token: (0..32).map(|_| r.u64() as u8).collect(),
        quota: 1 << 30,
        retries: 3,
        priority: 2,
        tags: (0..20).map(|_| text(r, 8)).collect(),
        counters: (0..20)
            .map(|i| (format!("counter_{i}"), r.below(1 << 40) as i64))
            .collect(),
        address: Some(wide::Address {
            street: text(r, 18),
            zip: "10115".into(),
            number: 42,
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// A page of 50 items: repeated messages, each with strings and a repeated
/// string, the shape of most list replies.
pub fn page_message(shape: Shape) -> Vec<u8> {
    let mut rng = shape.rng(6);
    let r = &mut rng;
    let text = |r: &mut Rng, len| shape.text(r, len);
    let items = (0..50)
        .map(|_| page::Item {
            id: (r.u64() >> 12) as i64,
            name: text(r, 24),
            quantity: r.below(100) as i32,
            price: r.below(100_000) as f64 / 100.0,
            tags: (0..r.below(4)).map(|_| text(r, 6)).collect(),
            available: r.below(4) != 0,
            ..Default::default()
        })
        .collect();
    page::Page {
        items,
        next_page_token: text(r, 32),
        total: 1234,
        ..Default::default()
    }
    .encode_to_vec()
}

/// A trace export in OTLP's shape: one resource (service attributes), two
/// instrumentation scopes of 50 spans each. Every span has ids, times, a
/// kind, 8 attributes (strings, integers, a double, a boolean and an array
/// of strings), one or two events with attributes, a link every fifth span,
/// and a status.
pub fn telemetry_export(shape: Shape) -> Vec<u8> {
    use telemetry::any_value::Value;
    let mut rng = shape.rng(8);
    let r = &mut rng;
    let kv = |key: &str, value: Value| telemetry::KeyValue {
        key: key.into(),
        value: Some(telemetry::AnyValue {
            value: Some(value),
            ..Default::default()
        }),
        ..Default::default()
    };
    let id = |r: &mut Rng, len: usize| (0..len).map(|_| r.u64() as u8).collect::<Vec<u8>>();
    let resource = telemetry::Resource {
        attributes: vec![
            kv("service.name", Value::StringValue("checkout".into())),
            kv("service.version", Value::StringValue("1.42.0".into())),
            kv("host.name", Value::StringValue(shape.text(r, 18))),
            kv("process.pid", Value::IntValue(4242)),
            kv("telemetry.sdk.language", Value::StringValue("rust".into())),
        ],
        ..Default::default()
    };
    let trace = id(r, 16);
    let mut time = 1_733_000_000_000_000_000u64;
    let mut span = |r: &mut Rng, i: usize| {
        time += r.below(1_000_000);
        let start = time;
        let attributes = vec![
            kv("http.method", Value::StringValue(["GET", "POST", "PUT"][i % 3].into())),
            kv(
                "http.route",
                Value::StringValue(format!("/api/v1/{}", shape.text(r, 8))),
            ),
            kv("http.status_code", Value::IntValue(200 + (r.below(4) as i64) * 100)),
            kv("net.peer.port", Value::IntValue(r.below(65536) as i64)),
            kv("db.rows", Value::DoubleValue(r.below(10_000) as f64 / 7.0)),
            kv("cache.hit", Value::BoolValue(r.below(2) == 0)),
            kv("user.id", Value::StringValue(shape.text(r, 12))),
            kv(
                "feature.flags",
                Value::ArrayValue(telemetry::ArrayValue {
                    values: (0..3)
                        .map(|_| telemetry::AnyValue {
                            value: Some(Value::StringValue(shape.text(r, 6))),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }),
            ),
        ];
        let events = (0..1 + r.below(2))
            .map(|_| telemetry::Event {
                time_unix_nano: start + r.below(1000),
                name: shape.text(r, 10),
                attributes: vec![
                    kv("event.seq", Value::IntValue(r.below(100) as i64)),
                    kv("event.detail", Value::StringValue(shape.text(r, 16))),
                ],
                ..Default::default()
            })
            .collect();
        let links = i
            .is_multiple_of(5)
            .then(|| telemetry::Link {
                trace_id: id(r, 16),
                span_id: id(r, 8),
                attributes: vec![kv("link.kind", Value::StringValue("follows".into()))],
                ..Default::default()
            })
            .into_iter()
            .collect();
        telemetry::Span {
            trace_id: trace.clone(),
            span_id: id(r, 8),
            parent_span_id: id(r, 8),
            name: format!("{} {}", ["GET", "POST", "PUT"][i % 3], shape.text(r, 12)),
            kind: telemetry::SpanKind::Server.into(),
            start_time_unix_nano: start,
            end_time_unix_nano: start + r.below(50_000_000),
            attributes,
            events,
            links,
            status: Some(telemetry::Status {
                code: telemetry::StatusCode::Ok.into(),
                ..Default::default()
            }),
            flags: 1,
            ..Default::default()
        }
    };
    let scope_spans = (0..2)
        .map(|s| telemetry::ScopeSpans {
            scope: Some(telemetry::Scope {
                name: format!("io.opentelemetry.{}", ["http", "db"][s]),
                version: "0.27.0".into(),
                ..Default::default()
            }),
            spans: (0..50).map(|i| span(r, s * 50 + i)).collect(),
            ..Default::default()
        })
        .collect();
    telemetry::ExportRequest {
        resource_spans: vec![telemetry::ResourceSpans {
            resource: Some(resource),
            scope_spans,
            schema_url: "https://opentelemetry.io/schemas/1.26.0".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
    .encode_to_vec()
}
