//! Inputs built to hurt: deep nesting of every kind and large files are
//! refused or compiled cleanly, in bounded time, never with a crash.

fn compile(source: &str) -> Result<(), fastrs_compiler::Error> {
    let mut compiler = fastrs_compiler::Compiler::new();
    compiler.source("hostile.proto", source).include_source_info(true);
    compiler.compile(&["hostile.proto"]).map(|_| ())
}

#[test]
fn deeply_nested_messages_are_refused() {
    let depth = 100_000;
    let source = format!(
        "syntax = \"proto3\";\n{}{}",
        "message M {".repeat(depth),
        "}".repeat(depth)
    );
    let error = compile(&source).unwrap_err();
    assert!(error.to_string().contains("maximum recursion limit"), "{error}");
}

#[test]
fn deeply_nested_groups_are_refused() {
    let depth = 100_000;
    let source = format!(
        "syntax = \"proto2\";\nmessage M {{\n{}{}}}\n",
        "optional group G = 1 {".repeat(depth),
        "}".repeat(depth)
    );
    let error = compile(&source).unwrap_err();
    assert!(error.to_string().contains("maximum recursion limit"), "{error}");
}

#[test]
fn deeply_nested_aggregate_options_are_refused() {
    let depth = 100_000;
    let source = format!(
        "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\n\
         message R {{ optional R r = 1; }}\n\
         extend google.protobuf.FileOptions {{ optional R deep = 50000; }}\n\
         option (deep) = {{ {}{} }};\n",
        "r { ".repeat(depth),
        "} ".repeat(depth)
    );
    assert!(compile(&source).is_err());
}

#[test]
fn unbalanced_and_truncated_input_is_an_error() {
    for source in [
        "message",
        "syntax = \"proto3\"; message A { int32 a = ",
        "{{{{",
        "\"",
        "/*",
        "option (",
        "enum E {",
    ] {
        assert!(compile(source).is_err(), "{source:?}");
    }
}

#[test]
fn a_large_file_compiles() {
    let mut source = String::from("syntax = \"proto3\";\npackage big;\n");
    for m in 0..2_000 {
        source += &format!("// Message {m}.\nmessage M{m} {{\n");
        for f in 1..20 {
            source += &format!("  int64 f{f} = {f}; // field {f}\n");
        }
        source += "}\n";
    }
    compile(&source).unwrap();
}
