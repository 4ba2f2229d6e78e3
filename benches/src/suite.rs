//! The benchmark suite: every workload, every operation, every peer, and the
//! table it prints.

use std::fmt::Write as _;
use std::slice::from_ref;

use crate::data::{self, Dist, Shape};
use crate::harness::{measure, Measured, Op, Settings};
use crate::{bf, fast, fast_foldhash, fast_shared, fast_size, pb, peers, qp};

/// One row of the table: a workload and operation, and each library's result.
#[derive(Debug, Clone)]
pub struct Row {
    pub workload: String,
    pub op: &'static str,
    pub wire_bytes: usize,
    pub results: Vec<Measured>,
    /// For nesting rows: the depth, to report ns per level.
    pub depth: Option<usize>,
}

pub const OPS: [&str; 3] = ["encode", "decode", "decode (reused)"];

/// Measures one payload: per operation, all libraries interleaved. With
/// `PROFILE` set (`op index:library:iterations`), runs just that operation that
/// many times instead, for `valgrind --tool=callgrind`.
fn run_payload(
    rows: &mut Vec<Row>,
    workload: &str,
    payload: &[u8],
    libs: Vec<[Op; 3]>,
    settings: Settings,
    depth: Option<usize>,
) {
    if let Ok(spec) = std::env::var("PROFILE") {
        let mut parts = spec.split(':');
        let (op, lib, n) = (parts.next(), parts.next(), parts.next());
        let op: usize = op.and_then(|o| o.parse().ok()).expect("PROFILE=op:lib:iterations");
        let n: u64 = n.and_then(|n| n.parse().ok()).expect("PROFILE=op:lib:iterations");
        for lib_ops in libs {
            let [a, b, c] = lib_ops;
            let mut chosen = [a, b, c].into_iter().nth(op).expect("op is 0, 1 or 2");
            if Some(chosen.lib) == lib {
                for _ in 0..n {
                    (chosen.run)();
                }
            }
        }
        return;
    }
    let mut by_op: [Vec<Op>; 3] = Default::default();
    for lib in libs {
        for (i, op) in lib.into_iter().enumerate() {
            by_op[i].push(op);
        }
    }
    for (i, mut ops) in by_op.into_iter().enumerate() {
        ops.retain(|op| !op.lib.is_empty());
        if ops.is_empty() {
            continue;
        }
        let results = measure(&mut ops, settings);
        rows.push(Row {
            workload: workload.to_string(),
            op: OPS[i],
            wire_bytes: payload.len(),
            results,
            depth,
        });
    }
}

/// Every library on one message type; `$quick` is quick-protobuf's type, which
/// borrows (and so takes `'static` here) when the message holds bytes.
macro_rules! peers {
    ($payload:expr, $($path:ident)::+) => {
        vec![
            peers::fastrs::<fast::$($path)::+>($payload),
            peers::fastrs_size::<fast_size::$($path)::+>($payload),
            peers::prost::<pb::$($path)::+>($payload),
            peers::buffa::<bf::$($path)::+>($payload),
            views!(fastrs $payload, $($path)::+),
            views!(buffa $payload, $($path)::+),
            peers::memcpy($payload),
        ]
    };
    ($payload:expr, $($path:ident)::+, $quick:ty) => {
        vec![
            peers::fastrs::<fast::$($path)::+>($payload),
            peers::fastrs_size::<fast_size::$($path)::+>($payload),
            peers::prost::<pb::$($path)::+>($payload),
            peers::buffa::<bf::$($path)::+>($payload),
            views!(fastrs $payload, $($path)::+),
            views!(buffa $payload, $($path)::+),
            peers::quick::<$quick>($payload),
            peers::memcpy($payload),
        ]
    };
}

/// The zero-copy views of fastrs or buffa for one message type.
macro_rules! views {
    (fastrs $payload:expr, $($path:ident)::+) => {
        peers::fastrs_view::<<fast::$($path)::+ as fastrs::HasView>::View<'static>>($payload)
    };
    (buffa $payload:expr, $($path:ident)::+) => {
        peers::buffa_view::<<bf::$($path)::+ as buffa::HasMessageView>::View<'static>>($payload)
    };
}

/// How many distinct payloads a "varied" row cycles through.
const VARIED: u64 = 64;

/// A row that goes through [`VARIED`] payloads (`payload(seed)`), one per
/// call, where every other row repeats one payload: a branch predictor learns
/// a repeated 1000-value pattern, so mixed one- and two-byte varints decode
/// there as if their lengths were known, and the same string lengths and oneof
/// case every call. Closer to a service's traffic.
fn varied_row(
    rows: &mut Vec<Row>,
    name: &str,
    payload: impl Fn(u64) -> Vec<u8>,
    libs: impl Fn(&[Vec<u8>]) -> Vec<[Op; 3]>,
    settings: Settings,
) {
    let payloads: Vec<Vec<u8>> = (1..=VARIED).map(payload).collect();
    run_payload(rows, name, &payloads[0], libs(&payloads), settings, None);
}

/// Runs the suite: every workload for which `select(name)` is true.
pub fn run(settings: Settings, mut select: impl FnMut(&str) -> bool) -> Vec<Row> {
    let mut rows = Vec::new();
    let lists: [(&str, &[Dist]); 5] = [
        ("int64", &[Dist::Small, Dist::Large, Dist::Negative]),
        ("uint64", &[Dist::Small, Dist::Large]),
        ("sint64", &[Dist::Small, Dist::Large, Dist::Negative]),
        ("fixed64", &[Dist::Small, Dist::Large]),
        ("sfixed64", &[Dist::Small, Dist::Negative]),
    ];
    for (kind, dists) in lists {
        for &dist in dists {
            let name = format!("{kind} {}", dist.name());
            if !select(&name) {
                continue;
            }
            let p = data::int_list(kind, dist);
            let mut libs = match kind {
                "int64" => peers!(from_ref(&p), bench::ints::Int64List, qp::bench::ints::Int64List),
                "uint64" => peers!(from_ref(&p), bench::ints::Uint64List, qp::bench::ints::Uint64List),
                "sint64" => peers!(from_ref(&p), bench::ints::Sint64List, qp::bench::ints::Sint64List),
                // quick-protobuf reads packed fixed64 by casting the bytes to
                // `&[u64]`, which is undefined behaviour on unaligned input (its
                // own debug assertions abort): left out of these rows.
                "fixed64" => peers!(from_ref(&p), bench::ints::Fixed64List),
                _ => peers!(from_ref(&p), bench::ints::Sfixed64List),
            };
            if matches!(kind, "int64" | "uint64") {
                libs.push(peers::hand_varints(&p));
            }
            if kind == "int64" {
                libs.push(peers::serde_json_list(data::int_values(dist)));
            }
            run_payload(&mut rows, &name, &p, libs, settings, None);
        }
    }
    for dist in [Dist::Small, Dist::Large] {
        let name = format!("int64 {}, unpacked (proto2)", dist.name());
        if select(&name) {
            let p = data::int_list_unpacked(dist);
            let libs = peers!(
                from_ref(&p),
                bench::unpacked::Int64Unpacked,
                qp::bench::unpacked::Int64Unpacked
            );
            run_payload(&mut rows, &name, &p, libs, settings, None);
        }
    }
    for dist in [Dist::Small, Dist::Negative] {
        let name = format!("sint64 {}, {VARIED} payloads", dist.name());
        if select(&name) {
            let payload = |seed| data::int_list_seeded("sint64", dist, seed);
            let libs = |p: &[Vec<u8>]| peers!(p, bench::ints::Sint64List, qp::bench::ints::Sint64List);
            varied_row(&mut rows, &name, payload, libs, settings);
        }
    }
    if select("Go message") {
        let p = data::go_message(Shape::Fixed);
        run_payload(
            &mut rows,
            "Go message",
            &p,
            peers!(from_ref(&p), bench::go::Go, qp::bench::go::Go<'static>),
            settings,
            None,
        );
    }
    let name = format!("Go message, {VARIED} payloads");
    if select(&name) {
        let payload = |seed| data::go_message(Shape::Varied(seed));
        let libs = |p: &[Vec<u8>]| peers!(p, bench::go::Go, qp::bench::go::Go<'static>);
        varied_row(&mut rows, &name, payload, libs, settings);
    }
    for which in ["Number", "String", "String, UTF-8 text", "List", "Map"] {
        if !select(&format!("fastpb {which}")) {
            continue;
        }
        let p = data::fastpb(which);
        let libs = match which {
            "Number" => peers!(from_ref(&p), benchmark::Number, qp::benchmark::Number),
            "String" | "String, UTF-8 text" => {
                let mut libs = peers!(from_ref(&p), benchmark::String, qp::benchmark::String_pb<'static>);
                libs.push(peers::fastrs_shared::<fast_shared::benchmark::String>(from_ref(&p)));
                libs
            }
            // quick-protobuf's packed fixed-width reads are unaligned casts (see above).
            "List" => {
                let mut libs = peers!(from_ref(&p), benchmark::List);
                libs.push(peers::fastrs_shared::<fast_shared::benchmark::List>(from_ref(&p)));
                libs
            }
            _ => peers!(from_ref(&p), benchmark::Map, qp::benchmark::Map<'static>),
        };
        run_payload(&mut rows, &format!("fastpb {which}"), &p, libs, settings, None);
    }
    if select("page of 50 items") {
        let p = data::page_message(Shape::Fixed);
        let mut libs = peers!(from_ref(&p), bench::page::Page, qp::bench::page::Page<'static>);
        libs.push(peers::fastrs_view_collected(from_ref(&p)));
        run_payload(&mut rows, "page of 50 items", &p, libs, settings, None);
    }
    let name = format!("page of 50 items, {VARIED} payloads");
    if select(&name) {
        let payload = |seed| data::page_message(Shape::Varied(seed));
        let libs = |p: &[Vec<u8>]| peers!(p, bench::page::Page, qp::bench::page::Page<'static>);
        varied_row(&mut rows, &name, payload, libs, settings);
    }
    if select("fastpb Map, foldhash") {
        let p = data::fastpb("Map");
        let libs = vec![
            peers::fastrs::<fast_foldhash::benchmark::Map>(from_ref(&p)),
            peers::prost::<pb::benchmark::Map>(from_ref(&p)),
            peers::buffa::<bf::benchmark::Map>(from_ref(&p)),
            peers::memcpy(from_ref(&p)),
        ];
        run_payload(&mut rows, "fastpb Map, foldhash", &p, libs, settings, None);
    }
    if select("wide payload") {
        let p = data::wide_message(Shape::Fixed);
        let mut libs = peers!(from_ref(&p), bench::wide::Wide, qp::bench::wide::Wide<'static>);
        libs.push(peers::fastrs_shared::<fast_shared::bench::wide::Wide>(from_ref(&p)));
        run_payload(&mut rows, "wide payload", &p, libs, settings, None);
    }
    if select("wide payload, 3 of 33 fields") {
        let p = data::wide_message(Shape::Fixed);
        let libs = vec![
            peers::fastrs_masked(&p),
            peers::fastrs_masked_view(&p),
            peers::prost_decode_only::<pb::bench::wide::Wide>(&p),
        ];
        run_payload(&mut rows, "wide payload, 3 of 33 fields", &p, libs, settings, None);
    }
    let name = format!("wide payload, {VARIED} payloads");
    if select(&name) {
        let payload = |seed| data::wide_message(Shape::Varied(seed));
        let libs = |p: &[Vec<u8>]| peers!(p, bench::wide::Wide, qp::bench::wide::Wide<'static>);
        varied_row(&mut rows, &name, payload, libs, settings);
    }
    if select("wide payload, foldhash") {
        let p = data::wide_message(Shape::Fixed);
        let libs = vec![
            peers::fastrs::<fast_foldhash::bench::wide::Wide>(from_ref(&p)),
            peers::prost::<pb::bench::wide::Wide>(from_ref(&p)),
            peers::buffa::<bf::bench::wide::Wide>(from_ref(&p)),
            peers::memcpy(from_ref(&p)),
        ];
        run_payload(&mut rows, "wide payload, foldhash", &p, libs, settings, None);
    }
    if select("telemetry export") {
        let p = data::telemetry_export(Shape::Fixed);
        let mut libs = peers!(
            from_ref(&p),
            bench::telemetry::ExportRequest,
            qp::bench::telemetry::ExportRequest<'static>
        );
        libs.push(peers::fastrs_shared::<fast_shared::bench::telemetry::ExportRequest>(
            from_ref(&p),
        ));
        run_payload(&mut rows, "telemetry export", &p, libs, settings, None);
    }
    let name = format!("telemetry export, {VARIED} payloads");
    if select(&name) {
        let payload = |seed| data::telemetry_export(Shape::Varied(seed));
        let libs = |p: &[Vec<u8>]| {
            peers!(
                p,
                bench::telemetry::ExportRequest,
                qp::bench::telemetry::ExportRequest<'static>
            )
        };
        varied_row(&mut rows, &name, payload, libs, settings);
    }
    json_rows(&mut rows, settings, &mut select);
    dynamic_rows(&mut rows, settings, &mut select);
    read_rows(&mut rows, settings, &mut select);
    for depth in [16, 64, 256] {
        if !select(&format!("nested depth {depth}")) {
            continue;
        }
        let p = fastrs::Message::encode_to_vec(&data::nested_message(depth));
        let mut libs = vec![
            peers::fastrs_deep::<fast::bench::nested::Node>(&p, depth),
            peers::prost_deep(data::prost_nested(depth), &p, depth),
            peers::buffa_deep(data::buffa_nested(depth), &p, depth),
            if depth <= 100 {
                peers::quick::<qp::bench::nested::Node<'static>>(from_ref(&p))
            } else {
                quick_encode_only()
            },
        ];
        // Views decode under the default limit of 100 levels, as buffa and prost do.
        if depth <= 100 {
            libs.push(views!(fastrs from_ref(&p), bench::nested::Node));
            libs.push(views!(buffa from_ref(&p), bench::nested::Node));
        }
        run_payload(
            &mut rows,
            &format!("nested depth {depth}"),
            &p,
            libs,
            settings,
            Some(depth),
        );
    }
    rows
}

/// The JSON rows: fastrs's proto3 JSON against prost + pbjson, with serde_json
/// on a plain struct as the reference. The payload column is fastrs's JSON.
fn json_rows(rows: &mut Vec<Row>, settings: Settings, select: &mut impl FnMut(&str) -> bool) {
    for dist in [Dist::Small, Dist::Large, Dist::Negative] {
        let name = format!("JSON int64 {}", dist.name());
        if !select(&name) {
            continue;
        }
        let p = data::int_list("int64", dist);
        let json = json_text::<fast::bench::ints::Int64List>(&p);
        let libs = vec![
            peers::fastrs_json::<fast::bench::ints::Int64List>(&p),
            peers::pbjson::<pb::bench::ints::Int64List>(&json),
            peers::serde_plain(peers::PlainList::new(data::int_values(dist))),
        ];
        run_payload(rows, &name, &json, libs, settings, None);
    }
    if select("JSON Go message") {
        let p = data::go_message(Shape::Fixed);
        let json = json_text::<fast::bench::go::Go>(&p);
        let m: fast::bench::go::Go = fastrs::Message::decode(&p).expect("decodes");
        let libs = vec![
            peers::fastrs_json::<fast::bench::go::Go>(&p),
            peers::pbjson::<pb::bench::go::Go>(&json),
            peers::serde_plain(peers::PlainGo::from(&m)),
        ];
        run_payload(rows, "JSON Go message", &json, libs, settings, None);
    }
}

/// The dynamic rows: fastrs's `DynamicMessage` and prost-reflect's on the
/// seed workloads, beside fastrs's generated code, in binary and (Go
/// message) JSON.
fn dynamic_rows(rows: &mut Vec<Row>, settings: Settings, select: &mut impl FnMut(&str) -> bool) {
    use crate::dynamic::{fastrs_dynamic, fastrs_dynamic_json, prost_reflect, prost_reflect_json};
    // Workload, message type, payload, and fastrs's generated code on it.
    type Generated = fn(&[Vec<u8>]) -> [Op; 3];
    let workloads: [(&str, &str, Vec<u8>, Generated); 6] = [
        (
            "Go message",
            "bench.go.Go",
            data::go_message(Shape::Fixed),
            peers::fastrs::<fast::bench::go::Go>,
        ),
        (
            "fastpb Number",
            "benchmark.Number",
            data::fastpb("Number"),
            peers::fastrs::<fast::benchmark::Number>,
        ),
        (
            "fastpb String",
            "benchmark.String",
            data::fastpb("String"),
            peers::fastrs::<fast::benchmark::String>,
        ),
        (
            "fastpb List",
            "benchmark.List",
            data::fastpb("List"),
            peers::fastrs::<fast::benchmark::List>,
        ),
        (
            "fastpb Map",
            "benchmark.Map",
            data::fastpb("Map"),
            peers::fastrs::<fast::benchmark::Map>,
        ),
        (
            "wide payload",
            "bench.wide.Wide",
            data::wide_message(Shape::Fixed),
            peers::fastrs::<fast::bench::wide::Wide>,
        ),
    ];
    for (workload, name, p, generated) in workloads {
        let row = format!("Dynamic {workload}");
        if select(&row) {
            let libs = vec![
                generated(from_ref(&p)),
                fastrs_dynamic(&p, name),
                prost_reflect(&p, name),
            ];
            run_payload(rows, &row, &p, libs, settings, None);
        }
    }
    if select("Dynamic JSON Go message") {
        let p = data::go_message(Shape::Fixed);
        let json = json_text::<fast::bench::go::Go>(&p);
        let libs = vec![
            peers::fastrs_json::<fast::bench::go::Go>(&p),
            fastrs_dynamic_json(&json, "bench.go.Go"),
            prost_reflect_json(&json, "bench.go.Go"),
        ];
        run_payload(rows, "Dynamic JSON Go message", &json, libs, settings, None);
    }
}

fn json_text<M: fastrs::json::JsonMessage>(payload: &[u8]) -> Vec<u8> {
    let m = M::decode(payload).expect("decodes");
    fastrs::json::to_vec(&m).expect("prints")
}

/// quick-protobuf's decoder has no depth limit to raise but recurses per
/// level; past 100 levels only the other libraries are measured.
fn quick_encode_only() -> [Op; 3] {
    [Op::skipped(), Op::skipped(), Op::skipped()]
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0}")
    } else {
        format!("{ns:.1}")
    }
}

/// The tables: binary rows, the borrowed decoders on them, then JSON rows
/// (if measured).
pub fn table(rows: &[Row]) -> String {
    let (dynamic, rows): (Vec<Row>, Vec<Row>) = rows.iter().cloned().partition(|r| r.workload.starts_with("Dynamic "));
    let (json, binary): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| r.workload.starts_with("JSON "));
    let mut out = binary_table(&binary);
    out.push('\n');
    out.push_str(&views_table(&binary));
    if !json.is_empty() {
        out.push('\n');
        out.push_str(&json_table(&json));
    }
    if !dynamic.is_empty() {
        out.push('\n');
        out.push_str(&dynamic_table(&dynamic));
    }
    out
}

/// The dynamic table: fastrs's `DynamicMessage`, prost-reflect's and
/// fastrs's generated code, medians in ns/op, the dynamic message's ratios
/// to each, allocations per operation. JSON rows print (encode) and parse
/// (decode) the text fastrs prints.
fn dynamic_table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str("| dynamic workload | op | bytes | fastrs dynamic ns | prost-reflect ns | fastrs generated ns | dynamic ÷ prost-reflect | dynamic ÷ generated | allocs/op dynamic · prost-reflect · generated |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for row in rows.iter().filter(|r| r.op != "decode (reused)") {
        let get = |lib: &str| row.results.iter().find(|m| m.lib == lib);
        let ns = |lib: &str| get(lib).map_or("—".to_string(), |m| fmt_ns(m.ns));
        let ratio = |lib: &str| match (get("fastrs dynamic"), get(lib)) {
            (Some(d), Some(o)) => format!("{:.2}", d.ns / o.ns),
            _ => "—".into(),
        };
        let allocs = ["fastrs dynamic", "prost-reflect", "fastrs"]
            .map(|l| get(l).map_or("—".into(), |m| m.allocs.to_string()))
            .join(" · ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.workload.trim_start_matches("Dynamic "),
            row.op,
            row.wire_bytes,
            ns("fastrs dynamic"),
            ns("prost-reflect"),
            ns("fastrs"),
            ratio("prost-reflect"),
            ratio("fastrs"),
            allocs,
        );
    }
    out
}

/// The JSON table: medians in ns/op, fastrs ÷ pbjson and fastrs ÷ serde_json
/// (plain struct), allocations per operation. Bytes are fastrs's JSON text.
fn json_table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str("| JSON workload | op | bytes | fastrs ns | pbjson ns | serde_json ns | fastrs ÷ pbjson | fastrs ÷ serde_json | allocs/op fastrs · pbjson · serde_json |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for row in rows {
        let get = |lib: &str| row.results.iter().find(|m| m.lib == lib);
        let ns = |lib: &str| get(lib).map_or("—".to_string(), |m| fmt_ns(m.ns));
        let ratio = |lib: &str| match (get("fastrs"), get(lib)) {
            (Some(f), Some(o)) => format!("{:.2}", f.ns / o.ns),
            _ => "—".into(),
        };
        let allocs = ["fastrs", "pbjson", "serde_json"]
            .map(|l| get(l).map_or("—".into(), |m| m.allocs.to_string()))
            .join(" · ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.workload.trim_start_matches("JSON "),
            row.op,
            row.wire_bytes,
            ns("fastrs"),
            ns("pbjson"),
            ns("serde_json"),
            ratio("pbjson"),
            ratio("serde_json"),
            allocs,
        );
    }
    out
}

/// The borrowed decoders (fastrs's and buffa's views, quick-protobuf) on the
/// binary workloads: fresh decode and encode, ratios to prost and to the
/// fastest other borrowed decoder, allocations per operation.
fn views_table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str("| workload | op | bytes | fastrs view ns | buffa view ns | quick ns | fastrs (owned) ns | fastrs (Bytes) ns | prost ns | view ÷ prost | buffa view ÷ prost | quick ÷ prost | (Bytes) ÷ prost | view ÷ best borrowed peer | allocs/op view · buffa view · quick · (Bytes) |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for row in rows.iter().filter(|r| r.op != "decode (reused)") {
        let get = |lib: &str| row.results.iter().find(|m| m.lib == lib);
        let Some(view) = get("fastrs view") else { continue };
        let ns = |lib: &str| get(lib).map_or("—".to_string(), |m| fmt_ns(m.ns));
        let ratio = |lib: &str| match (get(lib), get("prost")) {
            (Some(a), Some(p)) => format!("{:.2}", a.ns / p.ns),
            _ => "—".into(),
        };
        let best_peer = ["buffa view", "quick"]
            .iter()
            .filter_map(|l| get(l))
            .map(|m| m.ns)
            .reduce(f64::min);
        let vs_peer = best_peer.map_or("—".into(), |b| format!("{:.2}", view.ns / b));
        let allocs = ["fastrs view", "buffa view", "quick", "fastrs (Bytes)"]
            .map(|l| get(l).map_or("—".into(), |m| m.allocs.to_string()))
            .join(" · ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.workload,
            row.op,
            row.wire_bytes,
            ns("fastrs view"),
            ns("buffa view"),
            ns("quick"),
            ns("fastrs"),
            ns("fastrs (Bytes)"),
            ns("prost"),
            ratio("fastrs view"),
            ratio("buffa view"),
            ratio("quick"),
            ratio("fastrs (Bytes)"),
            vs_peer,
            allocs,
        );
    }
    for row in rows {
        if let (Some(v), Some(c)) = (
            row.results.iter().find(|m| m.lib == "fastrs view"),
            row.results.iter().find(|m| m.lib == "fastrs view (Vec)"),
        ) {
            let _ = writeln!(
                out,
                "\n{}: the view's repeated messages collected into one `Vec` of views after decoding: {} ns ({} allocs/op), against {} ns lazily.",
                row.workload,
                fmt_ns(c.ns),
                c.allocs,
                fmt_ns(v.ns)
            );
        }
    }
    out
}

/// The binary table: one row per workload and operation; times are medians in
/// ns/op, ratios are fastrs ÷ prost (below 1 is faster; `size` is fastrs's
/// size-mode code), allocations per operation.
fn binary_table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str("| workload | op | bytes | fastrs ns | fastrs size ns | prost ns | buffa ns | quick ns | floor ns | fastrs ÷ prost | size ÷ prost | buffa ÷ prost | quick ÷ prost | allocs/op fastrs · size · prost · buffa · quick | alloc bytes/op fastrs · size · prost · buffa · quick |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for row in rows {
        let get = |lib: &str| row.results.iter().find(|m| m.lib == lib);
        let ns = |lib: &str| get(lib).map_or("—".to_string(), |m| fmt_ns(m.ns));
        let floor = row
            .results
            .iter()
            .filter(|m| matches!(m.lib, "memcpy" | "hand" | "serde_json"))
            .map(|m| format!("{} {}", fmt_ns(m.ns), m.lib))
            .collect::<Vec<_>>()
            .join(", ");
        let ratio = |lib: &str| match (get(lib), get("prost")) {
            (Some(a), Some(p)) => format!("{:.2}", a.ns / p.ns),
            _ => "—".into(),
        };
        let allocs = |f: fn(&Measured) -> u64| {
            ["fastrs", "fastrs size", "prost", "buffa", "quick"]
                .map(|l| get(l).map_or("—".into(), |m| f(m).to_string()))
                .join(" · ")
        };
        let mut fastrs_ns = ns("fastrs");
        if let (Some(depth), Some(m)) = (row.depth, get("fastrs")) {
            let _ = write!(fastrs_ns, " ({:.1}/level)", m.ns / depth as f64);
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.workload,
            row.op,
            row.wire_bytes,
            fastrs_ns,
            ns("fastrs size"),
            ns("prost"),
            ns("buffa"),
            ns("quick"),
            if floor.is_empty() { "—".into() } else { floor },
            ratio("fastrs"),
            ratio("fastrs size"),
            ratio("buffa"),
            ratio("quick"),
            allocs(|m| m.allocs),
            allocs(|m| m.alloc_bytes),
        );
    }
    out
}

/// Decode, then read every field once (see [`crate::read`]): the fair
/// comparison for views, which read lazily.
fn read_rows(rows: &mut Vec<Row>, settings: Settings, select: &mut impl FnMut(&str) -> bool) {
    use crate::read::read_rows as libs;
    let lists: [(&str, Dist); 5] = [
        ("int64", Dist::Small),
        ("int64", Dist::Large),
        ("sint64", Dist::Small),
        ("fixed64", Dist::Large),
        ("sfixed64", Dist::Small),
    ];
    for (kind, dist) in lists {
        let name = format!("{kind} {}, read in full", dist.name());
        if !select(&name) {
            continue;
        }
        let p = data::int_list(kind, dist);
        let ops = match kind {
            "int64" => libs!(from_ref(&p), bench::ints::Int64List, qp::bench::ints::Int64List),
            "sint64" => libs!(from_ref(&p), bench::ints::Sint64List, qp::bench::ints::Sint64List),
            // quick-protobuf's packed fixed-width reads are unaligned casts (see above).
            "fixed64" => libs!(from_ref(&p), bench::ints::Fixed64List),
            _ => libs!(from_ref(&p), bench::ints::Sfixed64List),
        };
        run_payload(rows, &name, &p, ops, settings, None);
    }
    // The same lists read with `for` loops (`next`), as users write them.
    for (kind, dist) in lists {
        let name = format!("{kind} {}, read in a for loop", dist.name());
        if !select(&name) {
            continue;
        }
        let p = data::int_list(kind, dist);
        let ops = match kind {
            "int64" => libs!(for from_ref(&p), bench::ints::Int64List, qp::bench::ints::Int64List),
            "sint64" => libs!(for from_ref(&p), bench::ints::Sint64List, qp::bench::ints::Sint64List),
            "fixed64" => libs!(for from_ref(&p), bench::ints::Fixed64List),
            _ => libs!(for from_ref(&p), bench::ints::Sfixed64List),
        };
        run_payload(rows, &name, &p, ops, settings, None);
    }
    if select("fastpb Map, read in full") {
        let p = data::fastpb("Map");
        let ops = libs!(from_ref(&p), benchmark::Map, qp::benchmark::Map<'static>);
        run_payload(rows, "fastpb Map, read in full", &p, ops, settings, None);
    }
    if select("telemetry export, read in full") {
        let p = data::telemetry_export(Shape::Fixed);
        let ops = libs!(
            from_ref(&p),
            bench::telemetry::ExportRequest,
            qp::bench::telemetry::ExportRequest<'static>
        );
        run_payload(rows, "telemetry export, read in full", &p, ops, settings, None);
    }
    for depth in [16, 64] {
        let name = format!("nested depth {depth}, read in full");
        if select(&name) {
            let p = fastrs::Message::encode_to_vec(&data::nested_message(depth));
            let ops = libs!(from_ref(&p), bench::nested::Node, qp::bench::nested::Node<'static>);
            run_payload(rows, &name, &p, ops, settings, Some(depth));
        }
    }
}
