//! CEL's types, as the checker infers them and as `type()` returns them,
//! and the CEL type of each protobuf field.

use core::fmt;
use std::boxed::Box;
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

use crate::reflect::{FieldDescriptor, Kind, MessageDescriptor};

/// A CEL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// Any type, checked at run time.
    Dyn,
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `list(T)`.
    List(Box<Type>),
    /// `map(K, V)`.
    Map(Box<Type>, Box<Type>),
    /// A message type, by full name.
    Message(Arc<str>),
    /// An enum type, by full name (only with strong enums; otherwise enum
    /// values are ints).
    Enum(Arc<str>),
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `google.protobuf.Duration`.
    Duration,
    /// A wrapper type (`google.protobuf.Int64Value`): its primitive or null.
    Wrapper(Box<Type>),
    /// `google.protobuf.Any`: any message, unpacked when read.
    Any,
    /// The type of types: `type(T)`, or `type` when `T` is not known.
    Type(Option<Box<Type>>),
    /// `optional_type(T)`.
    Optional(Box<Type>),
    /// A type parameter of an overload, or a variable of inference.
    Param(Arc<str>),
    /// An abstract type a declaration names, with its parameters
    /// (`tuple(int, string)`).
    Opaque(Arc<str>, Vec<Type>),
    /// An expression that did not check.
    Error,
}

impl Type {
    /// `list(T)`.
    #[must_use]
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    /// `map(K, V)`.
    #[must_use]
    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new(key), Box::new(value))
    }

    /// `type(T)`.
    #[must_use]
    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Box::new(t)))
    }

    /// A type parameter.
    #[must_use]
    pub fn param(name: &str) -> Type {
        Type::Param(name.into())
    }

    /// The type a message of this full name has in CEL: the well-known
    /// types are CEL's own (timestamp, duration, wrappers, `Any`, JSON
    /// values).
    #[must_use]
    pub fn of_message(full_name: &str) -> Type {
        match full_name {
            "google.protobuf.Timestamp" => Type::Timestamp,
            "google.protobuf.Duration" => Type::Duration,
            "google.protobuf.Any" => Type::Any,
            "google.protobuf.Value" => Type::Dyn,
            "google.protobuf.ListValue" => Type::list(Type::Dyn),
            "google.protobuf.Struct" => Type::map(Type::String, Type::Dyn),
            "google.protobuf.BoolValue" => Type::Wrapper(Box::new(Type::Bool)),
            "google.protobuf.BytesValue" => Type::Wrapper(Box::new(Type::Bytes)),
            "google.protobuf.DoubleValue" | "google.protobuf.FloatValue" => Type::Wrapper(Box::new(Type::Double)),
            "google.protobuf.Int32Value" | "google.protobuf.Int64Value" => Type::Wrapper(Box::new(Type::Int)),
            "google.protobuf.StringValue" => Type::Wrapper(Box::new(Type::String)),
            "google.protobuf.UInt32Value" | "google.protobuf.UInt64Value" => Type::Wrapper(Box::new(Type::Uint)),
            name => Type::Message(name.into()),
        }
    }

    /// The type of one value of `field` (an element, for a repeated field).
    #[must_use]
    pub fn of_kind(kind: &Kind, strong_enums: bool) -> Type {
        match kind {
            Kind::Double | Kind::Float => Type::Double,
            Kind::Int32 | Kind::Int64 | Kind::Sint32 | Kind::Sint64 | Kind::Sfixed32 | Kind::Sfixed64 => Type::Int,
            Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => Type::Uint,
            Kind::Bool => Type::Bool,
            Kind::String => Type::String,
            Kind::Bytes => Type::Bytes,
            Kind::Enum(e) if e.full_name() == "google.protobuf.NullValue" => Type::Null,
            Kind::Enum(e) if strong_enums => Type::Enum(e.full_name().into()),
            Kind::Enum(_) => Type::Int,
            Kind::Message(m) => Type::of_message(m.full_name()),
        }
    }

    /// The type of `field`'s value: `list(T)` for a repeated field, `map(K,
    /// V)` for a map.
    #[must_use]
    pub fn of_field(field: &FieldDescriptor, strong_enums: bool) -> Type {
        if field.is_map() {
            if let Kind::Message(entry) = field.kind() {
                if let (Some(k), Some(v)) = (entry.map_entry_key_field(), entry.map_entry_value_field()) {
                    return Type::map(
                        Type::of_kind(&k.kind(), strong_enums),
                        Type::of_kind(&v.kind(), strong_enums),
                    );
                }
            }
        }
        let one = Type::of_kind(&field.kind(), strong_enums);
        if field.is_list() {
            Type::list(one)
        } else {
            one
        }
    }

    /// A message's type.
    #[must_use]
    pub fn of_descriptor(message: &MessageDescriptor) -> Type {
        Type::of_message(message.full_name())
    }

    /// True for a type that may hold `null` (messages, wrappers, `Any`,
    /// JSON values, timestamps and durations are message types too).
    #[must_use]
    pub fn is_nullable(&self) -> bool {
        matches!(
            self,
            Type::Message(_) | Type::Wrapper(_) | Type::Any | Type::Dyn | Type::Null | Type::Timestamp | Type::Duration
        )
    }

    /// True if the type names no type parameter.
    #[must_use]
    pub fn is_ground(&self) -> bool {
        match self {
            Type::Param(_) => false,
            Type::List(e) | Type::Wrapper(e) | Type::Optional(e) => e.is_ground(),
            Type::Map(k, v) => k.is_ground() && v.is_ground(),
            Type::Type(Some(t)) => t.is_ground(),
            Type::Opaque(_, params) => params.iter().all(Type::is_ground),
            _ => true,
        }
    }

    /// The name `type()` gives values of this type, and its parameters.
    #[must_use]
    pub fn runtime_name(&self) -> String {
        match self {
            Type::List(_) => "list".into(),
            Type::Map(..) => "map".into(),
            Type::Type(_) => "type".into(),
            Type::Optional(_) => "optional_type".into(),
            Type::Wrapper(inner) => inner.runtime_name(),
            other => other.to_string(),
        }
    }

    /// The parameters of a parameterized type, for `type()` printing.
    #[must_use]
    pub fn params(&self) -> Vec<Type> {
        match self {
            Type::List(e) => std::vec![(**e).clone()],
            Type::Map(k, v) => std::vec![(**k).clone(), (**v).clone()],
            Type::Optional(e) => std::vec![(**e).clone()],
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null_type"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Message(name) | Type::Enum(name) => f.write_str(name),
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::Wrapper(inner) => write!(f, "wrapper({inner})"),
            Type::Any => f.write_str("any"),
            Type::Type(None) => f.write_str("type"),
            Type::Type(Some(t)) => write!(f, "type({t})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Param(name) => f.write_str(name),
            Type::Opaque(name, params) => {
                f.write_str(name)?;
                if !params.is_empty() {
                    let shown: Vec<String> = params.iter().map(ToString::to_string).collect();
                    write!(f, "({})", shown.join(", "))?;
                }
                Ok(())
            }
            Type::Error => f.write_str("*error*"),
        }
    }
}
