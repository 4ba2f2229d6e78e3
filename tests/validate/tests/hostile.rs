//! Hostile schemas and inputs for validation: CEL nested thousands deep,
//! huge rule values, a regular expression built to backtrack, and ten
//! million repeated elements under `unique`. Each gets a clear error or
//! runs in bounded (linear) time; none panics.

use fastrs::reflect::{DescriptorPool, DynamicMessage, Value};
use fastrs::validate::{Error, Validate};

/// A pool of one file, `h.proto`, with `body` inside `message M`.
fn schema(body: &str) -> Result<DescriptorPool, String> {
    let schema = format!(
        "syntax = \"proto3\";\npackage h;\nimport \"buf/validate/validate.proto\";\nmessage M {{\n{body}\n}}\n"
    );
    let mut compiler = fastrs_compiler::Compiler::new();
    compiler.source("h.proto", schema).include_imports(true);
    compiler.pool(&["h.proto"]).map_err(|e| e.to_string())
}

fn message(pool: &DescriptorPool) -> DynamicMessage {
    DynamicMessage::new(pool.get_message_by_name("h.M").expect("h.M"))
}

#[test]
fn cel_nested_thousands_deep_is_a_compilation_error() {
    let depth = 5_000;
    let expression = format!("{}this{}", "(".repeat(depth), " + 1)".repeat(depth));
    let body =
        format!("int64 n = 1 [(buf.validate.field).cel = {{ id: \"deep\", expression: \"{expression} > 0\" }}];");
    let pool = schema(&body).unwrap();
    match message(&pool).validate() {
        Err(Error::Compilation(e)) => assert!(e.contains("deep") && e.contains("nest"), "{e}"),
        other => panic!("{other:?}"),
    }
    // As deep in `!`: also refused, not a stack overflow.
    let expression = format!("{}true", "!".repeat(depth));
    let body = format!("int64 n = 1 [(buf.validate.field).cel = {{ id: \"nots\", expression: \"{expression}\" }}];");
    let pool = schema(&body).unwrap();
    assert!(matches!(message(&pool).validate(), Err(Error::Compilation(_))));
}

#[test]
fn huge_rule_values_work_in_linear_time() {
    // A one-megabyte `const` and a hundred-thousand-entry `in`.
    let big = "x".repeat(1 << 20);
    let list: Vec<String> = (0..100_000).map(|i| format!("\"v{i}\"")).collect();
    let body = format!(
        "string a = 1 [(buf.validate.field).string.const = \"{big}\"];\n\
         string b = 2 [(buf.validate.field).string = {{ in: [{}] }}];",
        list.join(", ")
    );
    let pool = schema(&body).unwrap();
    let ty = pool.get_message_by_name("h.M").unwrap();
    let mut m = message(&pool);
    m.set(&ty.get_field(1).unwrap(), Value::String(big.clone())).unwrap();
    m.set(&ty.get_field(2).unwrap(), Value::String("v99999".into()))
        .unwrap();
    assert_eq!(m.validate(), Ok(()));
    m.set(&ty.get_field(2).unwrap(), Value::String("w".into())).unwrap();
    let err = m.validate().unwrap_err();
    assert_eq!(err.violations().unwrap().violations.len(), 1);
}

#[test]
fn a_regex_built_to_backtrack_runs_in_linear_time() {
    // `(a+)+$` on a's and a final b takes a backtracking engine 2^n
    // steps; RE2's semantics (the `regex` crate) take n.
    let body = "string s = 1 [(buf.validate.field).string.pattern = \"^(a+)+$\"];\n\
                string t = 2 [(buf.validate.field).cel = { id: \"t\", expression: \"this.matches('(x+x+)+y')\" }];";
    let pool = schema(body).unwrap();
    let ty = pool.get_message_by_name("h.M").unwrap();
    let mut m = message(&pool);
    m.set(
        &ty.get_field(1).unwrap(),
        Value::String(format!("{}b", "a".repeat(100_000))),
    )
    .unwrap();
    m.set(&ty.get_field(2).unwrap(), Value::String("x".repeat(100_000)))
        .unwrap();
    let err = m.validate().unwrap_err();
    let ids: Vec<_> = err
        .violations()
        .unwrap()
        .violations
        .iter()
        .map(|v| v.rule_id.as_deref().unwrap_or("").to_string())
        .collect();
    assert_eq!(ids, ["string.pattern", "t"]);
}

#[test]
fn a_pattern_too_large_to_compile_is_a_compilation_error() {
    // A counted repetition that would compile to an enormous program.
    let body = "string s = 1 [(buf.validate.field).string.pattern = \"(((a{100}){100}){100}){100}\"];";
    let pool = schema(body).unwrap();
    match message(&pool).validate() {
        Err(Error::Compilation(e)) => assert!(e.contains("pattern") || e.contains("regular expression"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ten_million_repeated_elements_under_unique() {
    let body = "repeated int64 ids = 1 [(buf.validate.field).repeated.unique = true];";
    let pool = schema(body).unwrap();
    let ty = pool.get_message_by_name("h.M").unwrap();
    let field = ty.get_field(1).unwrap();
    let mut ids: Vec<Value> = (0..10_000_000i64).map(Value::I64).collect();
    let mut m = message(&pool);
    m.set(&field, Value::List(ids.clone())).unwrap();
    assert_eq!(m.validate(), Ok(()));
    ids.push(Value::I64(5_000_000));
    m.set(&field, Value::List(ids)).unwrap();
    let err = m.validate().unwrap_err();
    assert_eq!(
        err.violations().unwrap().violations[0].rule_id.as_deref(),
        Some("repeated.unique")
    );
}
