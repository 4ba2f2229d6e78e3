//! `[default = ...]` values as protoc spells them in descriptors (decimal
//! numbers, `inf`/`nan`, C-escaped bytes, enum value names), turned into Rust
//! expressions of the field's type.

use fastrs::descriptor::EnumDescriptorProto;
use quote::{quote, ToTokens};

use super::names;
use super::{Kind, Scalar};

/// The default `text` of a scalar, string or bytes field of `kind` as a
/// literal; `None` if it does not read as one (enums and messages have none).
#[must_use]
pub fn literal(kind: &Kind, text: &str) -> Option<proc_macro2::TokenStream> {
    match kind {
        Kind::Scalar(s) => scalar_default(*s, text),
        Kind::String { .. } => Some(proc_macro2::Literal::string(text).into_token_stream()),
        Kind::Bytes { .. } => c_unescape(text).map(|b| proc_macro2::Literal::byte_string(&b).into_token_stream()),
        Kind::Enum { .. } | Kind::Message { .. } => None,
    }
}

/// The variant of enum `e` that default `text` names; an alias names the
/// variant of its number. `None` if `e` has no value of that name.
#[must_use]
pub fn enum_variant(e: &EnumDescriptorProto, text: &str) -> Option<proc_macro2::Ident> {
    let values: Vec<&str> = e.value.iter().map(|v| v.name()).collect();
    let rust = names::variant_names(e.name(), &values);
    let i = values.iter().position(|v| *v == text)?;
    let number = e.value[i].number();
    let first = e.value.iter().position(|v| v.number() == number).unwrap_or(i);
    Some(names::ident(&rust[first]))
}

/// A numeric or bool default as a typed literal.
fn scalar_default(s: Scalar, text: &str) -> Option<proc_macro2::TokenStream> {
    use proc_macro2::Literal;
    let float = |ty: &str| -> Option<proc_macro2::TokenStream> {
        let ty = proc_macro2::Ident::new(ty, proc_macro2::Span::call_site());
        Some(match text {
            "inf" => quote!(#ty::INFINITY),
            "-inf" => quote!(#ty::NEG_INFINITY),
            "nan" | "-nan" => quote!(#ty::NAN),
            _ => {
                let v: f64 = text.parse().ok()?;
                let lit = if ty == "f32" {
                    Literal::f32_suffixed(v as f32)
                } else {
                    Literal::f64_suffixed(v)
                };
                if v.is_sign_negative() {
                    let lit = if ty == "f32" {
                        Literal::f32_suffixed(-v as f32)
                    } else {
                        Literal::f64_suffixed(-v)
                    };
                    quote!(-#lit)
                } else {
                    quote!(#lit)
                }
            }
        })
    };
    let int = |text: &str| -> Option<proc_macro2::TokenStream> {
        text.parse::<i128>().ok()?;
        text.parse().ok()
    };
    match s {
        Scalar::Bool => match text {
            "true" => Some(quote!(true)),
            "false" => Some(quote!(false)),
            _ => None,
        },
        Scalar::Float => float("f32"),
        Scalar::Double => float("f64"),
        _ => int(text),
    }
}

/// Undoes the C escaping protoc applies to `bytes` defaults.
fn c_unescape(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = *bytes.get(i + 1)?;
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => out.push(c),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match bytes.get(i) {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(u8::try_from(v).ok()?);
            }
            b'x' => {
                let mut v = 0u32;
                let start = i;
                while let Some(d) = bytes.get(i).and_then(|b| (*b as char).to_digit(16)) {
                    v = v * 16 + d;
                    i += 1;
                    if i - start == 2 {
                        break;
                    }
                }
                if i == start {
                    return None;
                }
                out.push(u8::try_from(v).ok()?);
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_defaults_are_unescaped() {
        assert_eq!(c_unescape("joshua").unwrap(), b"joshua");
        assert_eq!(c_unescape(r#"a\\b\n\001\377\x41\""#).unwrap(), b"a\\b\n\x01\xffA\"");
        assert!(c_unescape("bad\\").is_none());
    }

    #[test]
    fn scalar_defaults() {
        let s = |t: Scalar, v: &str| scalar_default(t, v).unwrap().to_string();
        assert_eq!(s(Scalar::Int64, "-9123456789123456789"), "- 9123456789123456789");
        assert_eq!(s(Scalar::Float, "inf"), "f32 :: INFINITY");
        assert_eq!(s(Scalar::Double, "-inf"), "f64 :: NEG_INFINITY");
        assert_eq!(s(Scalar::Double, "7e22"), "70000000000000000000000f64");
        assert_eq!(s(Scalar::Float, "-1.5"), "- 1.5f32");
        assert_eq!(s(Scalar::Bool, "true"), "true");
        assert!(scalar_default(Scalar::Int32, "x").is_none());
    }
}
