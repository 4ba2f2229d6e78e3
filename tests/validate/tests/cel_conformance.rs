//! CEL's own conformance tests (the `simple` suite of cel-spec, as npm's
//! `@bufbuild/cel-spec` ships it: 2,344 tests in 29 sections) run against
//! `fastrs::cel`. Prints the pass rate per section, and fails on any
//! failure (the issue asked for 95%; fastrs passes them all).
//!
//! `FASTRS_CEL_FAILURES=1` prints every failing test.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use std::sync::Arc;

use fastrs::cel::{Env, FunctionDecl, Msg, Overload, Program, Type, Value};
use fastrs::reflect::{DescriptorPool, DynamicMessage};
use serde_json::Value as Json;

/// The suite passes in full; the one allowance is the tests of named time
/// zones on a machine with no zoneinfo files (`/usr/share/zoneinfo`, or
/// `ZONEINFO`), which fastrs reads them from.
fn exempt(failure: &str) -> bool {
    let zoneinfo = std::env::var_os("ZONEINFO").map_or_else(|| "/usr/share/zoneinfo".into(), std::path::PathBuf::from);
    failure.starts_with("timestamps/timestamp_selectors_tz/") && !zoneinfo.join("UTC").exists()
}

#[test]
fn cel_conformance_suite() {
    let test = "CEL conformance";
    let Some(npm) = fastrs_test_tools::npm_packages(test, "tools", &root().join("tests/npm")) else {
        return;
    };
    let script = npm.join("cel-spec.mjs");
    std::fs::copy(root().join("tests/validate/js/cel-spec.mjs"), &script).expect("the script copies");
    let out = Command::new("node")
        .arg(&script)
        .arg(&npm)
        .current_dir(&npm)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tests: Vec<Json> = serde_json::from_slice(&std::fs::read(npm.join("cel-spec.json")).unwrap()).unwrap();
    let pool = DescriptorPool::decode(&std::fs::read(npm.join("cel-spec.pb")).unwrap()).expect("the test types link");

    let mut by_section: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for t in &tests {
        let section = t["section"].as_str().unwrap_or("");
        let outcome = std::panic::catch_unwind(|| run(&pool, t)).unwrap_or_else(|_| Err("panicked".into()));
        let entry = by_section.entry(section.to_string()).or_default();
        entry.1 += 1;
        match outcome {
            Ok(()) => entry.0 += 1,
            Err(why) => failures.push(format!(
                "{section}/{}: {} -> {why}",
                t["name"].as_str().unwrap_or(""),
                t["expr"]
            )),
        }
    }
    report(&by_section, &failures)
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn report(by_section: &BTreeMap<String, (usize, usize)>, failures: &[String]) {
    let mut groups: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (section, (pass, total)) in by_section {
        let group = section.split('/').next().unwrap_or("");
        let g = groups.entry(group).or_default();
        g.0 += pass;
        g.1 += total;
    }
    let (pass, total) = groups.values().fold((0, 0), |(p, t), (a, b)| (p + a, t + b));
    // Straight to stderr, past the harness's capture: the figures show in
    // a passing run.
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "CEL conformance: {pass} of {total} ({:.1}%)",
        100.0 * pass as f64 / total as f64
    );
    for (group, (p, t)) in &groups {
        let _ = writeln!(err, "  {group:<18} {p:>4} / {t:<4}");
    }
    if std::env::var_os("FASTRS_CEL_FAILURES").is_some() {
        for f in failures {
            let _ = writeln!(err, "FAIL {f}");
        }
    }
    let counted: Vec<&String> = failures.iter().filter(|f| !exempt(f)).collect();
    assert!(counted.is_empty(), "CEL conformance failures:\n{counted:#?}");
}

/// Runs one test: `Ok` if fastrs gives the expected value, error or type.
fn run(pool: &DescriptorPool, t: &Json) -> Result<(), String> {
    let section = t["section"].as_str().unwrap_or("");
    let mut env = Env::new()
        .pool(pool.clone())
        .container(t["container"].as_str().unwrap_or(""))
        .strong_enums(section.starts_with("enums/strong"));
    for decl in t["typeEnv"].as_array().into_iter().flatten() {
        let name = decl["name"].as_str().unwrap_or("");
        if let Some(ident) = decl.get("ident") {
            env = env.variable(name, parse_type(&ident["type"])?);
        } else if let Some(function) = decl.get("function") {
            env = env.function(function_decl(name, function)?);
        }
    }
    let bindings: Vec<(String, Value<'static>)> = match t["bindings"].as_object() {
        Some(map) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), parse_value(pool, &v["value"])?)))
            .collect::<Result<_, String>>()?,
        None => Vec::new(),
    };
    // Variables bound but not declared are known to the planner as `dyn`.
    for (name, _) in &bindings {
        if !t["typeEnv"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["name"] == **name)
        {
            env = env.variable(name, Type::Dyn);
        }
    }
    let expr = t["expr"].as_str().unwrap_or("");
    let disable_check = t["disableCheck"].as_bool().unwrap_or(false);
    let program: Program = if disable_check {
        env.parse_only(expr).map_err(|e| e.to_string())?
    } else {
        match env.compile(expr) {
            Ok(p) => p,
            Err(_) if t.get("evalError").is_some() => return Ok(()),
            Err(e) => return Err(format!("does not compile: {e}")),
        }
    };
    if let Some(typed) = t.get("typedResult") {
        if let Some(deduced) = typed.get("deducedType") {
            let want = parse_type(deduced)?;
            if type_name(program.result_type()) != type_name(&want) {
                return Err(format!("type {} where {} was expected", program.result_type(), want));
            }
        }
    }
    if t["checkOnly"].as_bool().unwrap_or(false) {
        return Ok(());
    }
    let activation: Vec<(&str, Value<'static>)> = bindings.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let result = program.eval(activation.as_slice());
    if t.get("evalError").is_some() {
        return match result {
            Err(_) => Ok(()),
            Ok(v) => Err(format!("{v:?} where an error was expected")),
        };
    }
    let expected = match (t.get("value"), t.get("typedResult").and_then(|r| r.get("result"))) {
        (Some(v), _) | (None, Some(v)) => parse_value(pool, v)?,
        (None, None) => Value::Bool(true),
    };
    match result {
        Ok(v) if same(&v, &expected) => Ok(()),
        Ok(v) => Err(format!("{v:?} where {expected:?} was expected")),
        Err(e) => Err(format!("error {e} where {expected:?} was expected")),
    }
}

/// Equality for the harness: CEL's, with `NaN` equal to itself, and
/// types by name.
fn same(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) if x.is_nan() && y.is_nan() => true,
        (Value::Type(x), Value::Type(y)) => x.to_string() == y.to_string() || x.runtime_name() == y.runtime_name(),
        (Value::Int(_) | Value::Uint(_) | Value::Double(_), Value::Int(_) | Value::Uint(_) | Value::Double(_)) => {
            std::mem::discriminant(a) == std::mem::discriminant(b) && a.equals(b)
        }
        (Value::List(x), Value::List(y)) => {
            let (Ok(x), Ok(y)) = (x.to_vec(), y.to_vec()) else {
                return false;
            };
            x.len() == y.len() && x.iter().zip(&y).all(|(a, b)| same(a, b))
        }
        _ => a.equals(b),
    }
}

fn type_name(t: &Type) -> String {
    t.to_string()
}

/// A `cel.expr.Type` in JSON.
fn parse_type(j: &Json) -> Result<Type, String> {
    let primitive = |p: &str| -> Result<Type, String> {
        Ok(match p {
            "BOOL" => Type::Bool,
            "INT64" => Type::Int,
            "UINT64" => Type::Uint,
            "DOUBLE" => Type::Double,
            "STRING" => Type::String,
            "BYTES" => Type::Bytes,
            other => return Err(format!("unknown primitive {other}")),
        })
    };
    let Some((kind, v)) = j.as_object().and_then(|o| o.iter().next()) else {
        return Ok(Type::Dyn);
    };
    Ok(match kind.as_str() {
        "primitive" => primitive(v.as_str().unwrap_or(""))?,
        "wrapper" => Type::Wrapper(Box::new(primitive(v.as_str().unwrap_or(""))?)),
        "listType" => Type::list(parse_type(&v["elemType"])?),
        "mapType" => Type::map(parse_type(&v["keyType"])?, parse_type(&v["valueType"])?),
        "messageType" => Type::of_message(v.as_str().unwrap_or("")),
        "wellKnown" => match v.as_str().unwrap_or("") {
            "TIMESTAMP" => Type::Timestamp,
            "DURATION" => Type::Duration,
            _ => Type::Any,
        },
        "null" => Type::Null,
        "dyn" => Type::Dyn,
        "typeParam" => Type::param(v.as_str().unwrap_or("")),
        "type" => Type::type_of(parse_type(v)?),
        "abstractType" => {
            let name = v["name"].as_str().unwrap_or("");
            let params: Vec<Type> = v["parameterTypes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(parse_type)
                .collect::<Result<_, _>>()?;
            match (name, params.as_slice()) {
                ("optional_type", [inner]) => Type::Optional(Box::new(inner.clone())),
                _ => Type::Opaque(name.into(), params),
            }
        }
        other => return Err(format!("unknown type kind {other}")),
    })
}

fn function_decl(name: &str, f: &Json) -> Result<FunctionDecl, String> {
    let mut overloads = Vec::new();
    for o in f["overloads"].as_array().into_iter().flatten() {
        overloads.push(Overload {
            receiver: o["isInstanceFunction"].as_bool().unwrap_or(false),
            params: o["params"]
                .as_array()
                .into_iter()
                .flatten()
                .map(parse_type)
                .collect::<Result<_, _>>()?,
            result: parse_type(&o["resultType"])?,
        });
    }
    Ok(FunctionDecl {
        name: name.into(),
        overloads,
    })
}

/// A `cel.expr.Value` in JSON.
fn parse_value(pool: &DescriptorPool, j: &Json) -> Result<Value<'static>, String> {
    let Some((kind, v)) = j.as_object().and_then(|o| o.iter().next()) else {
        return Err(format!("not a value: {j}"));
    };
    let text = || v.as_str().unwrap_or("").to_string();
    Ok(match kind.as_str() {
        "nullValue" => Value::Null,
        "boolValue" => Value::Bool(v.as_bool().unwrap_or(false)),
        "int64Value" => Value::Int(text().parse().or_else(|_| v.as_i64().ok_or("bad int"))?),
        "uint64Value" => Value::Uint(text().parse().or_else(|_| v.as_u64().ok_or("bad uint"))?),
        "doubleValue" => Value::Double(match v {
            Json::String(s) => match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                s => s.parse().map_err(|_| "bad double")?,
            },
            n => n.as_f64().unwrap_or(0.0),
        }),
        "stringValue" => Value::string(text()),
        "bytesValue" => Value::bytes(base64(&text())?),
        "listValue" => Value::list(
            v["values"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|x| parse_value(pool, x))
                .collect::<Result<_, _>>()?,
        ),
        "mapValue" => Value::map(
            v["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| Ok((parse_value(pool, &e["key"])?, parse_value(pool, &e["value"])?)))
                .collect::<Result<_, String>>()?,
        ),
        "typeValue" => {
            let env = Env::new().pool(pool.clone()).strong_enums(true);
            let program = env.parse_only(&text()).map_err(|e| e.to_string())?;
            program.eval(&()).map_err(|e| e.to_string())?
        }
        "enumValue" => Value::Enum(
            v["type"].as_str().unwrap_or("").into(),
            v["value"].as_i64().unwrap_or(0) as i32,
        ),
        "objectValue" => object(pool, v)?,
        other => return Err(format!("unknown value kind {other}")),
    })
}

/// An `Any` in proto3 JSON (`{"@type": ..., fields}`), as CEL reads it.
fn object(pool: &DescriptorPool, v: &Json) -> Result<Value<'static>, String> {
    let url = v["@type"].as_str().ok_or("no @type")?;
    let name = url.rsplit('/').next().unwrap_or("");
    let ty = pool
        .get_message_by_name(name)
        .ok_or_else(|| format!("unknown type {name}"))?;
    let mut body = v.clone();
    let body = match body.as_object_mut() {
        Some(map) => {
            map.remove("@type");
            // The well-known types with a JSON form of their own.
            if name == "google.protobuf.Value" && map.get("value") == Some(&Json::Null) {
                return Ok(Value::Null);
            }
            match map.get("value") {
                Some(inner) if name.starts_with("google.protobuf.") && map.len() == 1 => inner.clone(),
                _ => Json::Object(map.clone()),
            }
        }
        None => body,
    };
    let message = DynamicMessage::from_json(ty, &body.to_string()).map_err(|e| format!("{e}"))?;
    fastrs::cel::unwrap_message(Msg::Owned(Arc::new(message)))
        .map(Value::detach)
        .map_err(|e| e.to_string())
}

fn base64(text: &str) -> Result<Vec<u8>, String> {
    let env = Env::new();
    let program = env
        .parse_only(&format!("base64.decode('{text}')"))
        .map_err(|e| e.to_string())?;
    match program.eval(&()).map_err(|e| e.to_string())? {
        Value::Bytes(b) => Ok(b.to_vec()),
        _ => Err("not bytes".into()),
    }
}
