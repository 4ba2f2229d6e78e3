//! One option value, checked against its field's type and encoded as the
//! record protoc's interpreter writes (`SetOptionValue`).

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::Type;
use fastrs::reflect::DynamicMessage;

use crate::schema::Schema;

pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The record setting `field` to the value written in `option`.
/// `name` is the field's full name, as protoc's messages give it.
pub fn encode(
    schema: &Schema<'_>,
    field: &d::FieldDescriptorProto,
    name: &str,
    option: &d::UninterpretedOption,
) -> Result<Vec<u8>, String> {
    let number = field.number.unwrap_or(0) as u64;
    let ty = field.r#type.unwrap_or(Type::Message);
    let mut out = Vec::new();
    match ty {
        Type::Message | Type::Group => {
            let bytes = aggregate(schema, field, option, name)?;
            if ty == Type::Group {
                put_varint(&mut out, number << 3 | 3);
                out.extend_from_slice(&bytes);
                put_varint(&mut out, number << 3 | 4);
            } else {
                put_varint(&mut out, number << 3 | 2);
                put_varint(&mut out, bytes.len() as u64);
                out.extend_from_slice(&bytes);
            }
        }
        Type::String | Type::Bytes => {
            let Some(value) = &option.string_value else {
                return Err(format!("Value must be quoted string for string option \"{name}\"."));
            };
            put_varint(&mut out, number << 3 | 2);
            put_varint(&mut out, value.len() as u64);
            out.extend_from_slice(value);
        }
        Type::Float | Type::Double => {
            let value = float_value(option, name)?;
            if ty == Type::Float {
                put_varint(&mut out, number << 3 | 5);
                out.extend_from_slice(&(value as f32).to_le_bytes());
            } else {
                put_varint(&mut out, number << 3 | 1);
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        Type::Bool => {
            let value = match option.identifier_value.as_deref() {
                Some("true") => 1,
                Some("false") => 0,
                Some(_) => {
                    return Err(format!(
                        "Value must be \"true\" or \"false\" for boolean option \"{name}\"."
                    ))
                }
                None => return Err(format!("Value must be identifier for boolean option \"{name}\".")),
            };
            put_varint(&mut out, number << 3);
            put_varint(&mut out, value);
        }
        Type::Enum => {
            let value = enum_value(schema, field, option, name)?;
            put_varint(&mut out, number << 3);
            put_varint(&mut out, value as i64 as u64);
        }
        _ => integer(&mut out, ty, number, option, name)?,
    }
    Ok(out)
}

fn float_value(option: &d::UninterpretedOption, name: &str) -> Result<f64, String> {
    if let Some(value) = option.double_value {
        return Ok(value);
    }
    if let Some(value) = option.positive_int_value {
        return Ok(value as f64);
    }
    if let Some(value) = option.negative_int_value {
        return Ok(value as f64);
    }
    match option.identifier_value.as_deref() {
        Some("inf") => Ok(f64::INFINITY),
        Some("nan") => Ok(f64::NAN),
        _ => Err(format!("Value must be number for float option \"{name}\".")),
    }
}

fn enum_value(
    schema: &Schema<'_>,
    field: &d::FieldDescriptorProto,
    option: &d::UninterpretedOption,
    name: &str,
) -> Result<i32, String> {
    let type_name = field.type_name.as_deref().unwrap_or("").trim_start_matches('.');
    let Some(identifier) = option.identifier_value.as_deref() else {
        return Err(format!("Value must be identifier for enum-valued option \"{name}\"."));
    };
    let values = schema.enum_values(type_name).unwrap_or_default();
    match values.iter().find(|(value, _)| value == identifier) {
        Some((_, number)) => Ok(*number),
        None => Err(format!(
            "Enum type \"{type_name}\" has no value named \"{identifier}\" for option \"{name}\"."
        )),
    }
}

/// An integer option: range-checked, then written in its wire form.
fn integer(
    out: &mut Vec<u8>,
    ty: Type,
    number: u64,
    option: &d::UninterpretedOption,
    name: &str,
) -> Result<(), String> {
    let (min, max, type_name): (i128, i128, &str) = match ty {
        Type::Int32 | Type::Sint32 | Type::Sfixed32 => (i32::MIN.into(), i32::MAX.into(), "int32"),
        Type::Int64 | Type::Sint64 | Type::Sfixed64 => (i64::MIN.into(), i64::MAX.into(), "int64"),
        Type::Uint32 | Type::Fixed32 => (0, u32::MAX.into(), "uint32"),
        _ => (0, u64::MAX.into(), "uint64"),
    };
    let value: i128 = match (option.positive_int_value, option.negative_int_value) {
        (Some(v), _) => v.into(),
        (_, Some(v)) => v.into(),
        _ => {
            return Err(format!(
                "Value must be integer, from {min} to {max}, for {type_name} option \"{name}\"."
            ))
        }
    };
    if value < min || value > max {
        return Err(format!(
            "Value out of range, {min} to {max}, for {type_name} option \"{name}\"."
        ));
    }
    match ty {
        Type::Sint32 | Type::Sint64 => {
            put_varint(out, number << 3);
            let v = value as i64;
            put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
        }
        Type::Fixed32 | Type::Sfixed32 => {
            put_varint(out, number << 3 | 5);
            out.extend_from_slice(&(value as u32).to_le_bytes());
        }
        Type::Fixed64 | Type::Sfixed64 => {
            put_varint(out, number << 3 | 1);
            out.extend_from_slice(&(value as u64).to_le_bytes());
        }
        _ => {
            put_varint(out, number << 3);
            put_varint(out, value as i64 as u64);
        }
    }
    Ok(())
}

/// A message-typed option's `{ ... }` value, read as text format and encoded.
fn aggregate(
    schema: &Schema<'_>,
    field: &d::FieldDescriptorProto,
    option: &d::UninterpretedOption,
    name: &str,
) -> Result<Vec<u8>, String> {
    let short = field.name.as_deref().unwrap_or("");
    let Some(text) = option.aggregate_value.as_deref() else {
        return Err(format!(
            "Option \"{name}\" is a message. To set the entire message, use syntax like \"{short} = {{ <proto text \
             format> }}\". To set fields within it, use syntax like \"{short}.foo = value\"."
        ));
    };
    let pool = schema.pool()?;
    let type_name = field.type_name.as_deref().unwrap_or("");
    let descriptor = pool
        .get_message_by_name(type_name)
        .ok_or_else(|| format!("Option \"{name}\": type {type_name} is not known"))?;
    let message = DynamicMessage::parse_text(descriptor, text)
        .map_err(|e| format!("Error while parsing option value for \"{short}\": {}", e.message()))?;
    Ok(message.encode_to_vec())
}
