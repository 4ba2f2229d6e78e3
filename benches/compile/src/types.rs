//! The message types of a set of `.proto` files and their Rust paths, which
//! fastrs and prost spell alike: snake-case modules for packages and
//! enclosing messages, upper-camel-case type names, keywords raw.
//! Shared by the compile-time harness and `tests/corpus`'s build script.

use fastrs::descriptor::{DescriptorProto, FileDescriptorProto};
use heck::{ToSnakeCase, ToUpperCamelCase};

/// `(".full.Name", "rust::path::Name")` for every message of `files` but
/// map entries.
pub fn message_types(files: &[&FileDescriptorProto]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in files {
        let modules: Vec<String> = file
            .package()
            .split('.')
            .filter(|s| !s.is_empty())
            .map(|s| ident(&s.to_snake_case()))
            .collect();
        for m in &file.message_type {
            add(m, file.package(), &modules, &mut out);
        }
    }
    out
}

fn add(m: &DescriptorProto, parent: &str, modules: &[String], out: &mut Vec<(String, String)>) {
    if m.options.as_ref().is_some_and(|o| o.map_entry()) {
        return;
    }
    let full = if parent.is_empty() {
        m.name().to_string()
    } else {
        format!("{parent}.{}", m.name())
    };
    let path: Vec<String> = modules
        .iter()
        .cloned()
        .chain([ident(&m.name().to_upper_camel_case())])
        .collect();
    out.push((format!(".{full}"), path.join("::")));
    let inner: Vec<String> = modules
        .iter()
        .cloned()
        .chain([ident(&m.name().to_snake_case())])
        .collect();
    for nested in &m.nested_type {
        add(nested, &full, &inner, out);
    }
}

/// `name`, as a raw identifier if it is a keyword.
fn ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
        "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type",
        "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
        "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}
