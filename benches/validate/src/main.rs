//! `make bench`'s validation rows: one realistic request
//! (`proto/demo/signup.proto`: string formats, numeric ranges, repeated
//! items with rules and `unique`, a map with key and value rules, a
//! required nested message, a timestamp rule and a CEL message rule),
//! validated by fastrs's generated code and `DynamicMessage`, by
//! protovalidate-buffa's generated validators (on buffa's types) and by
//! prost-protovalidate (over prost-reflect's `DynamicMessage`), in one run,
//! each as its users call it. Prints the table and ratios; with `--out
//! FILE` also writes it there.

use std::hint::black_box;

use fastrs_bench::harness::{measure, sink, Counting, Measured, Op, Settings};

#[global_allocator]
static ALLOC: Counting = Counting;

/// fastrs's generated types, with validation.
#[allow(clippy::all, dead_code)]
mod fast {
    include!(concat!(env!("OUT_DIR"), "/fastrs/acme.signup.v1.rs"));
}

/// buffa's types and protovalidate-buffa's validators of the same schema.
#[allow(clippy::all, dead_code, unused_imports)]
mod bf {
    pub mod acme {
        pub mod signup {
            pub mod v1 {
                include!(concat!(env!("OUT_DIR"), "/buffa/acme.signup.v1.mod.rs"));
                mod validators {
                    include!(concat!(env!("OUT_DIR"), "/buffa/acme.signup.v1.validate.rs"));
                }
            }
        }
    }
}

/// The schema's descriptor set (imports included), for the dynamic sides.
const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/signup.pb"));
const TYPE: &str = "acme.signup.v1.CreateAccountRequest";

/// A request that passes every rule: every rule runs.
fn valid() -> fast::CreateAccountRequest {
    fast::CreateAccountRequest {
        email: "ada.lovelace@example.com".into(),
        name: "Ada Lovelace".into(),
        age: 36,
        tags: ["math", "engines", "poetry", "music", "looms"].map(String::from).to_vec(),
        labels: [("team", "analytical"), ("role", "author"), ("city", "london")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        address: Some(fast::Address {
            line1: "12 St James's Square".into(),
            city: "London".into(),
            country: "GB".into(),
            postal_code: "SW1Y 4JH".into(),
            ..Default::default()
        }),
        website: "https://example.com/ada".into(),
        born: Some(fastrs::well_known::Timestamp {
            seconds: -4_868_006_400,
            ..Default::default()
        }),
        password: "correct horse battery staple".into(),
        password_confirmation: "correct horse battery staple".into(),
        ..Default::default()
    }
}

/// One that breaks five rules (the error path: violations built).
fn invalid() -> fast::CreateAccountRequest {
    fast::CreateAccountRequest {
        email: "ada at example.com".into(),
        age: 7,
        tags: vec!["Math".into(), "math".into(), "math".into()],
        password_confirmation: "oops".into(),
        ..valid()
    }
}

/// The four validators of one payload, pre-decoded, each as its users
/// call it.
fn validate_ops(payload: &[u8]) -> Vec<Op> {
    use fastrs::validate::Validate as _;
    use protovalidate_buffa::Validate as _;
    let fastrs_msg = <fast::CreateAccountRequest as fastrs::Message>::decode(payload).unwrap();
    let buffa_msg = <bf::acme::signup::v1::CreateAccountRequest as buffa::Message>::decode_from_slice(payload).unwrap();
    let dynamic = fastrs::reflect::DynamicMessage::decode(fastrs_type(), payload).unwrap();
    let reflect = prost_reflect::DynamicMessage::decode(prost_type(), payload).unwrap();
    let validator = prost_protovalidate::Validator::new();
    vec![
        Op::new("fastrs generated", move || sink(black_box(&fastrs_msg).validate().is_ok())),
        Op::new("protovalidate-buffa", move || sink(black_box(&buffa_msg).validate().is_ok())),
        Op::new("fastrs dynamic", move || sink(black_box(&dynamic).validate().is_ok())),
        Op::new("prost-protovalidate", move || {
            sink(validator.validate(black_box(&reflect)).is_ok())
        }),
    ]
}

/// Decoding then validating, each library's way, and fastrs's
/// `decode_validated` and plain decode beside them.
fn decode_ops(payload: &[u8]) -> Vec<Op> {
    use fastrs::validate::{DecodeValidated as _, Validate as _};
    use protovalidate_buffa::Validate as _;
    let input: &'static [u8] = payload.to_vec().leak();
    let (ty, pty) = (fastrs_type(), prost_type());
    let validator = prost_protovalidate::Validator::new();
    vec![
        Op::new("fastrs decode", move || {
            sink(<fast::CreateAccountRequest as fastrs::Message>::decode(black_box(input)).unwrap())
        }),
        Op::new("fastrs decode_validated", move || {
            sink(fast::CreateAccountRequest::decode_validated(black_box(input)).unwrap())
        }),
        Op::new("fastrs generated", move || {
            let m = <fast::CreateAccountRequest as fastrs::Message>::decode(black_box(input)).unwrap();
            sink(m.validate().is_ok());
            sink(m);
        }),
        Op::new("protovalidate-buffa", move || {
            let m = <bf::acme::signup::v1::CreateAccountRequest as buffa::Message>::decode_from_slice(black_box(input))
                .unwrap();
            sink(m.validate().is_ok());
            sink(m);
        }),
        Op::new("fastrs dynamic", move || {
            let m = fastrs::reflect::DynamicMessage::decode(ty.clone(), black_box(input)).unwrap();
            sink(m.validate().is_ok());
            sink(m);
        }),
        Op::new("prost-protovalidate", move || {
            let m = prost_reflect::DynamicMessage::decode(pty.clone(), black_box(input)).unwrap();
            sink(validator.validate(&m).is_ok());
            sink(m);
        }),
    ]
}

fn fastrs_type() -> fastrs::reflect::MessageDescriptor {
    let pool = fastrs::reflect::DescriptorPool::decode(DESCRIPTORS).expect("the schema links");
    pool.get_message_by_name(TYPE).expect("the request type")
}

fn prost_type() -> prost_reflect::MessageDescriptor {
    let pool = prost_reflect::DescriptorPool::decode(DESCRIPTORS).expect("the schema links");
    pool.get_message_by_name(TYPE).expect("the request type")
}

fn ns(results: &[Measured], lib: &str) -> Option<f64> {
    results.iter().find(|m| m.lib == lib).map(|m| m.ns)
}

fn cell(v: Option<f64>) -> String {
    v.map_or("–".into(), |ns| if ns >= 100.0 { format!("{ns:.0}") } else { format!("{ns:.1}") })
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => format!("{:.2}×", b / a),
        _ => "–".into(),
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settings = if args.iter().any(|a| a == "--quick") {
        Settings::QUICK
    } else {
        Settings::FULL
    };
    let check = |m: &fast::CreateAccountRequest, ok: bool| {
        // Every side must agree on the payloads before being timed.
        let bytes = fastrs::Message::encode_to_vec(m);
        let ops_ok = {
            use protovalidate_buffa::Validate as _;
            let b = <bf::acme::signup::v1::CreateAccountRequest as buffa::Message>::decode_from_slice(&bytes).unwrap();
            let r = prost_reflect::DynamicMessage::decode(prost_type(), bytes.as_slice()).unwrap();
            (
                fastrs::validate::Validate::validate(m).is_ok(),
                b.validate().is_ok(),
                prost_protovalidate::Validator::new().validate(&r).is_ok(),
            )
        };
        assert_eq!(ops_ok, (ok, ok, ok), "the validators disagree on a payload");
        bytes
    };
    let good = check(&valid(), true);
    let bad = check(&invalid(), false);
    // `PROFILE=LIB:N`: only LIB's validation of the valid request, N times
    // (for callgrind: `make profile-validate LIB=...`).
    if let Ok(spec) = std::env::var("PROFILE") {
        let (lib, n) = spec.split_once(':').expect("PROFILE=LIB:N");
        let n: u64 = n.parse().expect("PROFILE=LIB:N");
        for mut op in validate_ops(&good).into_iter().filter(|op| op.lib == lib) {
            for _ in 0..n {
                (op.run)();
            }
        }
        return Ok(());
    }

    let mut out = String::new();
    out.push_str(&format!(
        "Validation of `{TYPE}` ({} bytes valid, {} invalid); medians in ns per call, {} interleaved samples.\n\n",
        good.len(),
        bad.len(),
        settings.rounds
    ));
    out.push_str("| row | fastrs generated | protovalidate-buffa | buffa ÷ fastrs | fastrs dynamic | prost-protovalidate | prost-protovalidate ÷ fastrs dynamic |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    let mut decode = None;
    for (row, payload, decoding) in [
        ("validate, valid", &good, false),
        ("validate, 5 violations", &bad, false),
        ("decode + validate, valid", &good, true),
    ] {
        eprintln!("measuring {row}");
        let mut ops = if decoding { decode_ops(payload) } else { validate_ops(payload) };
        let results = measure(&mut ops, settings);
        let (g, b, d, p) = (
            ns(&results, "fastrs generated"),
            ns(&results, "protovalidate-buffa"),
            ns(&results, "fastrs dynamic"),
            ns(&results, "prost-protovalidate"),
        );
        out.push_str(&format!(
            "| {row} | {} | {} | {} | {} | {} | {} |\n",
            cell(g),
            cell(b),
            ratio(g, b),
            cell(d),
            cell(p),
            ratio(d, p)
        ));
        if decoding {
            decode = Some(results);
        }
    }
    if let Some(results) = decode {
        let (plain, fused, then) = (
            ns(&results, "fastrs decode"),
            ns(&results, "fastrs decode_validated"),
            ns(&results, "fastrs generated"),
        );
        out.push_str(&format!(
            "\n| fastrs, valid request | decode | decode_validated | decode, then validate | decode_validated ÷ decode |\n|---|---:|---:|---:|---:|\n| ns | {} | {} | {} | {} |\n",
            cell(plain),
            cell(fused),
            cell(then),
            ratio(plain, fused)
        ));
    }
    println!("{out}");
    if let Some(i) = args.iter().position(|a| a == "--out") {
        std::fs::write(args.get(i + 1).expect("--out needs a file"), &out)?;
    }
    Ok(())
}
