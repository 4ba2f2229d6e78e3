//! The environment an expression compiles in: the variables it may read
//! (with their types), the functions beyond the standard ones, the
//! container its names resolve in, and the pool of message types.

use std::string::String;
use std::vec::Vec;

use super::types::Type;
use super::value::Value;
use crate::reflect::{DescriptorPool, EnumDescriptor, MessageDescriptor};

/// Where an expression's names are declared: variables, functions, the
/// container (a package, for names written without one), and the message
/// types (from a [`DescriptorPool`]).
///
/// ```
/// use fastrs::cel::{Env, Type, Value};
/// let env = Env::new().variable("x", Type::Int);
/// let program = env.compile("x * 2 + 1")?;
/// assert_eq!(program.eval(&[("x", Value::Int(20))])?, Value::Int(41));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct Env {
    pool: Option<DescriptorPool>,
    container: String,
    variables: Vec<(String, Type)>,
    functions: Vec<FunctionDecl>,
    strong_enums: bool,
}

/// A function's declaration: its name and overloads.
#[derive(Clone, Debug)]
pub struct FunctionDecl {
    /// The name (`fn`, or `ns.fn`).
    pub name: String,
    /// Its overloads.
    pub overloads: Vec<Overload>,
}

/// One overload of a function.
#[derive(Clone, Debug)]
pub struct Overload {
    /// True for a method: the first parameter is the receiver.
    pub receiver: bool,
    /// The parameters' types (type parameters as [`Type::Param`]).
    pub params: Vec<Type>,
    /// The result's type.
    pub result: Type,
}

/// What a name resolves to.
pub(crate) enum Resolved {
    /// A declared variable (by its full name).
    Variable(String),
    /// An enum value or a type.
    Value(Value<'static>),
}

impl Env {
    /// An environment with the standard functions and CEL's extensions
    /// (strings, math, encoders, optionals, bindings, protos) and
    /// protovalidate's functions, and no variables.
    #[must_use]
    pub fn new() -> Self {
        Env::default()
    }

    /// Message and enum types from `pool` (the well-known types are
    /// always known: add them to the pool to build them in literals).
    #[must_use]
    pub fn pool(mut self, pool: DescriptorPool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// The package names are resolved in (`acme.v1`: `Order` may mean
    /// `acme.v1.Order`, `acme.Order` or `Order`).
    #[must_use]
    pub fn container(mut self, container: &str) -> Self {
        self.container = container.into();
        self
    }

    /// Declares a variable.
    #[must_use]
    pub fn variable(mut self, name: &str, ty: Type) -> Self {
        self.variables.retain(|(n, _)| n != name);
        self.variables.push((name.into(), ty));
        self
    }

    /// Declares a function for the checker (its implementation, if the
    /// expression is evaluated, must be a standard one).
    #[must_use]
    pub fn function(mut self, decl: FunctionDecl) -> Self {
        self.functions.push(decl);
        self
    }

    /// Enum values as values of their enum types (`type(E.A)` is `E`),
    /// rather than ints (CEL's legacy semantics, and the default).
    #[must_use]
    pub fn strong_enums(mut self, on: bool) -> Self {
        self.strong_enums = on;
        self
    }

    pub(crate) fn strong_enums_on(&self) -> bool {
        self.strong_enums
    }

    pub(crate) fn declared_functions(&self) -> &[FunctionDecl] {
        &self.functions
    }

    pub(crate) fn variable_type(&self, name: &str) -> Option<&Type> {
        self.variables.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    pub(crate) fn descriptor_pool(&self) -> Option<&DescriptorPool> {
        self.pool.as_ref()
    }

    /// The names `name` may mean in the container, innermost first; a name
    /// starting with `.` means only itself.
    pub(crate) fn candidates(&self, name: &str) -> Vec<String> {
        if let Some(absolute) = name.strip_prefix('.') {
            return std::vec![absolute.into()];
        }
        let mut out = Vec::new();
        let mut scope = self.container.as_str();
        loop {
            if scope.is_empty() {
                out.push(name.into());
                return out;
            }
            out.push(format!("{scope}.{name}"));
            scope = scope.rfind('.').map_or("", |i| &scope[..i]);
        }
    }

    /// Resolves the longest prefix of the qualified name `full` that is a
    /// declared variable, an enum value or a type; returns it and how
    /// many of `full`'s segments it took.
    pub(crate) fn resolve_name(&self, full: &str) -> Option<(Resolved, usize)> {
        let absolute = full.starts_with('.');
        let parts: Vec<&str> = full.trim_start_matches('.').split('.').collect();
        for used in (1..=parts.len()).rev() {
            let mut prefix = parts[..used].join(".");
            if absolute {
                prefix.insert(0, '.');
            }
            for candidate in self.candidates(&prefix) {
                if self.variable_type(&candidate).is_some() {
                    return Some((Resolved::Variable(candidate), used));
                }
            }
            for candidate in self.candidates(&prefix) {
                if let Some(v) = self.constant(&candidate) {
                    return Some((Resolved::Value(v), used));
                }
            }
        }
        None
    }

    /// An enum value or a type named `name`.
    fn constant(&self, name: &str) -> Option<Value<'static>> {
        if let Some(t) = builtin_type(name) {
            return Some(Value::Type(t));
        }
        let pool = self.pool.as_ref()?;
        if let Some(m) = pool.get_message_by_name(name) {
            return Some(Value::Type(Type::of_descriptor(&m)));
        }
        if let Some(e) = pool.get_enum_by_name(name) {
            if self.strong_enums {
                return Some(Value::Type(Type::Enum(e.full_name().into())));
            }
            return Some(Value::Type(Type::Int));
        }
        let (enum_name, value) = name.rsplit_once('.')?;
        let e = pool.get_enum_by_name(enum_name)?;
        let v = e.get_value_by_name(value)?;
        Some(if self.strong_enums {
            Value::Enum(e.full_name().into(), v.number())
        } else {
            Value::Int(i64::from(v.number()))
        })
    }

    /// The message type `name` means here.
    pub(crate) fn find_message(&self, name: &str) -> Option<MessageDescriptor> {
        let pool = self.pool.as_ref()?;
        self.candidates(name).iter().find_map(|c| pool.get_message_by_name(c))
    }

    /// The enum type `name` means here.
    pub(crate) fn find_enum(&self, name: &str) -> Option<EnumDescriptor> {
        let pool = self.pool.as_ref()?;
        self.candidates(name).iter().find_map(|c| pool.get_enum_by_name(c))
    }
}

/// CEL's own type names.
fn builtin_type(name: &str) -> Option<Type> {
    Some(match name {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "null_type" => Type::Null,
        "type" => Type::Type(None),
        "optional_type" => Type::Optional(std::boxed::Box::new(Type::Dyn)),
        "google.protobuf.Timestamp" => Type::Timestamp,
        "google.protobuf.Duration" => Type::Duration,
        _ => return None,
    })
}

impl core::fmt::Debug for Env {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Env")
            .field("container", &self.container)
            .field("variables", &self.variables)
            .finish_non_exhaustive()
    }
}
