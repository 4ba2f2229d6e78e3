//! `fastrs describe`: a message's, enum's or service's schema in `.proto`
//! syntax, or with no name the files of the set and what they declare.

use std::fmt::Write as _;

use fastrs::reflect::{
    Cardinality, DescriptorPool, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor, ServiceDescriptor,
};

/// The description of `name` in `pool`, or of the whole pool.
pub fn describe(pool: &DescriptorPool, name: Option<&str>) -> Result<String, String> {
    let mut out = String::new();
    let Some(name) = name else {
        for file in pool.files() {
            let _ = writeln!(out, "{} (package {})", file.name(), package(file.package_name()));
            for m in file.messages() {
                let _ = writeln!(out, "  message {}", m.full_name());
            }
            for e in file.enums() {
                let _ = writeln!(out, "  enum {}", e.full_name());
            }
            for s in file.services() {
                let _ = writeln!(out, "  service {}", s.full_name());
            }
        }
        return Ok(out);
    };
    if let Some(m) = pool.get_message_by_name(name) {
        message(&mut out, &m, 0);
    } else if let Some(e) = pool.get_enum_by_name(name) {
        enumeration(&mut out, &e, 0);
    } else if let Some(s) = pool.get_service_by_name(name) {
        service(&mut out, &s);
    } else {
        return Err(format!(
            "the descriptor set declares no message, enum or service {name}"
        ));
    }
    Ok(out)
}

fn package(name: &str) -> &str {
    if name.is_empty() {
        "none"
    } else {
        name
    }
}

fn indent(out: &mut String, depth: usize) {
    out.extend(std::iter::repeat_n("  ", depth));
}

fn message(out: &mut String, m: &MessageDescriptor, depth: usize) {
    indent(out, depth);
    let _ = writeln!(out, "message {} {{", m.name());
    let mut oneofs_done = Vec::new();
    for f in m.fields() {
        match f.containing_oneof().filter(|o| !o.is_synthetic()) {
            Some(oneof) if oneofs_done.contains(&oneof) => {}
            Some(oneof) => {
                indent(out, depth + 1);
                let _ = writeln!(out, "oneof {} {{", oneof.name());
                for member in oneof.fields() {
                    field(out, &member, depth + 2, true);
                }
                indent(out, depth + 1);
                out.push_str("}\n");
                oneofs_done.push(oneof);
            }
            None => field(out, &f, depth + 1, false),
        }
    }
    for nested in m.nested_messages().filter(|n| !n.is_map_entry()) {
        message(out, &nested, depth + 1);
    }
    for e in m.nested_enums() {
        enumeration(out, &e, depth + 1);
    }
    for (start, end) in m.extension_ranges() {
        indent(out, depth + 1);
        let _ = writeln!(out, "extensions {start} to {};", end - 1);
    }
    indent(out, depth);
    out.push_str("}\n");
}

/// One field; `in_oneof` leaves out the `optional` its presence implies.
fn field(out: &mut String, f: &FieldDescriptor, depth: usize, in_oneof: bool) {
    indent(out, depth);
    if f.is_map() {
        if let Kind::Message(entry) = f.kind() {
            let (Some(k), Some(v)) = (entry.map_entry_key_field(), entry.map_entry_value_field()) else {
                return;
            };
            let _ = writeln!(
                out,
                "map<{}, {}> {} = {};",
                type_name(&k),
                type_name(&v),
                f.name(),
                f.number()
            );
            return;
        }
    }
    let label = match f.cardinality() {
        Cardinality::Repeated => "repeated ",
        Cardinality::Required => "required ",
        Cardinality::Optional if f.has_presence() && !in_oneof && !matches!(f.kind(), Kind::Message(_)) => "optional ",
        Cardinality::Optional => "",
    };
    let _ = writeln!(out, "{label}{} {} = {};", type_name(f), f.name(), f.number());
}

fn type_name(f: &FieldDescriptor) -> String {
    match f.kind() {
        Kind::Message(m) => format!(".{}", m.full_name()),
        Kind::Enum(e) => format!(".{}", e.full_name()),
        Kind::Double => "double".into(),
        Kind::Float => "float".into(),
        Kind::Int32 => "int32".into(),
        Kind::Int64 => "int64".into(),
        Kind::Uint32 => "uint32".into(),
        Kind::Uint64 => "uint64".into(),
        Kind::Sint32 => "sint32".into(),
        Kind::Sint64 => "sint64".into(),
        Kind::Fixed32 => "fixed32".into(),
        Kind::Fixed64 => "fixed64".into(),
        Kind::Sfixed32 => "sfixed32".into(),
        Kind::Sfixed64 => "sfixed64".into(),
        Kind::Bool => "bool".into(),
        Kind::String => "string".into(),
        Kind::Bytes => "bytes".into(),
    }
}

fn enumeration(out: &mut String, e: &EnumDescriptor, depth: usize) {
    indent(out, depth);
    let _ = writeln!(out, "enum {} {{", e.name());
    for v in e.values() {
        indent(out, depth + 1);
        let _ = writeln!(out, "{} = {};", v.name(), v.number());
    }
    indent(out, depth);
    out.push_str("}\n");
}

fn service(out: &mut String, s: &ServiceDescriptor) {
    let _ = writeln!(out, "service {} {{", s.name());
    for m in s.methods() {
        let stream = |yes: bool| if yes { "stream " } else { "" };
        let _ = writeln!(
            out,
            "  rpc {}({}.{}) returns ({}.{});",
            m.name(),
            stream(m.is_client_streaming()),
            m.input().full_name(),
            stream(m.is_server_streaming()),
            m.output().full_name()
        );
    }
    out.push_str("}\n");
}
