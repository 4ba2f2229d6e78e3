//! The names every loaded file declares, and protoc's rules for finding
//! them: innermost scope first, only in files the looking file imports.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use fastrs::descriptor as d;
use fastrs::descriptor::feature_set::visibility_feature::DefaultSymbolVisibility;

use crate::error::At;
use crate::error::Problem;

/// What a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Package,
    Message,
    Enum,
    EnumValue,
    Field,
    Oneof,
    Extension,
    Service,
    Method,
}

impl Kind {
    /// A name that may hold others (`a` in `a.b`).
    fn is_aggregate(self) -> bool {
        matches!(self, Kind::Package | Kind::Message | Kind::Enum | Kind::Service)
    }

    fn is_type(self) -> bool {
        matches!(self, Kind::Message | Kind::Enum)
    }
}

/// A declared name.
#[derive(Clone, Debug)]
pub struct Symbol {
    pub kind: Kind,
    /// The index of the declaring file among the loaded files.
    pub file: usize,
    /// An enum's value names and numbers, in order.
    pub values: Option<Arc<[(String, i32)]>>,
    /// Where a message, enum or extension sits in its file: the indices of
    /// the enclosing messages, then its own index.
    pub path: Arc<[usize]>,
    /// Why a message or enum is local to its file (symbol visibility,
    /// editions 2024 on); `None`: other files may use it.
    pub local: Option<Local>,
}

/// Why a type is local to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Local {
    /// It says `local`.
    Explicit,
    /// By the file's `default_symbol_visibility` (set or by edition).
    ByDefault(DefaultSymbolVisibility),
}

impl Local {
    /// A type's visibility: its keyword, else the file's `default` (a
    /// nested type is local under `EXPORT_TOP_LEVEL`).
    fn of(keyword: Option<d::SymbolVisibility>, nested: bool, default: DefaultSymbolVisibility) -> Option<Local> {
        use DefaultSymbolVisibility as V;
        match keyword {
            Some(d::SymbolVisibility::VisibilityLocal) => Some(Local::Explicit),
            Some(d::SymbolVisibility::VisibilityExport) => None,
            _ => match default {
                V::ExportTopLevel if nested => Some(Local::ByDefault(default)),
                V::LocalAll | V::Strict => Some(Local::ByDefault(default)),
                V::ExportAll | V::ExportTopLevel | V::DefaultSymbolVisibilityUnknown => None,
            },
        }
    }
}

/// The `default_symbol_visibility` of `file`: its option (interpreted, or
/// still as written when names are declared), else its edition's default
/// (`EXPORT_ALL` before 2024, `EXPORT_TOP_LEVEL` in 2024, `STRICT` from
/// 2026).
pub fn default_visibility(file: &d::FileDescriptorProto) -> DefaultSymbolVisibility {
    let options = file.options.as_ref();
    let interpreted = options
        .and_then(|o| o.features.as_ref())
        .and_then(|f| f.default_symbol_visibility);
    let written = || options.and_then(|o| o.uninterpreted_option.iter().rev().find_map(written_visibility));
    if let Some(visibility) = interpreted.or_else(written) {
        return visibility;
    }
    match file.edition {
        Some(edition) if edition as i32 >= d::Edition::Edition2026 as i32 => DefaultSymbolVisibility::Strict,
        Some(edition) if edition as i32 >= d::Edition::Edition2024 as i32 => DefaultSymbolVisibility::ExportTopLevel,
        _ => DefaultSymbolVisibility::ExportAll,
    }
}

/// Why a name did not resolve.
pub enum Unresolved {
    /// Nothing has the name.
    Missing,
    /// The first part resolved to `scope`, and the rest is not in it.
    InnerScope(String),
    /// It is declared in a file the looking file does not import.
    NotImported(usize),
}

#[derive(Default)]
pub struct Symbols {
    names: HashMap<String, Symbol>,
    /// The loaded files' names, by index.
    pub file_names: Vec<String>,
}

impl Symbols {
    pub fn get(&self, full_name: &str) -> Option<&Symbol> {
        self.names.get(full_name)
    }

    /// Declares the names of `file` (loaded as file number `index`) in
    /// protoc's order (an element's children before it); a name declared
    /// before is reported as protoc reports it.
    pub fn declare_file(&mut self, index: usize, file: &d::FileDescriptorProto, problems: &mut Vec<Problem>) {
        self.file_names.push(file.name.as_deref().unwrap_or("").to_owned());
        let package = file.package.as_deref().unwrap_or("");
        self.declare_package(index, package, problems);
        let mut declare = Declarer {
            symbols: self,
            file: index,
            visibility: default_visibility(file),
            problems,
        };
        for (i, message) in file.message_type.iter().enumerate() {
            declare.message(package, message, &[i], &[4, i as i32]);
        }
        for (i, enum_type) in file.enum_type.iter().enumerate() {
            declare.enum_type(package, enum_type, &[i], &[5, i as i32]);
        }
        for (i, service) in file.service.iter().enumerate() {
            let name = join(package, service.name.as_deref().unwrap_or(""));
            for (m, method) in service.method.iter().enumerate() {
                let method_name = join(&name, method.name.as_deref().unwrap_or(""));
                declare.add(
                    method_name,
                    Symbol::plain(Kind::Method, index),
                    &[6, i as i32, 2, m as i32],
                );
            }
            declare.add(name, Symbol::plain(Kind::Service, index), &[6, i as i32]);
        }
        for (i, extension) in file.extension.iter().enumerate() {
            let name = join(package, extension.name.as_deref().unwrap_or(""));
            declare.add(name, Symbol::at(Kind::Extension, index, &[i]), &[7, i as i32]);
        }
    }

    /// The package and each package it is in.
    fn declare_package(&mut self, index: usize, package: &str, problems: &mut Vec<Problem>) {
        if package.is_empty() {
            return;
        }
        let mut prefix = String::new();
        for part in package.split('.') {
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix += part;
            match self.names.get(&prefix) {
                Some(existing) if existing.kind != Kind::Package => {
                    problems.push(Problem::new(
                        &[],
                        At::Name,
                        format!(
                            "\"{prefix}\" is already defined (as something other than a package) in file \"{}\".",
                            self.file_names[existing.file]
                        ),
                    ));
                    return;
                }
                Some(_) => {}
                None => {
                    self.names.insert(prefix.clone(), Symbol::plain(Kind::Package, index));
                }
            }
        }
    }

    /// Looks `name` up as protoc does from the scope `relative_to` (a full
    /// name whose last part is dropped first), in the files `visible`.
    /// With `types_only`, a name that is not a message or enum is passed
    /// over for an outer scope.
    pub fn resolve(
        &self,
        name: &str,
        relative_to: &str,
        visible: &HashSet<usize>,
        types_only: bool,
    ) -> Result<(String, &Symbol), Unresolved> {
        if let Some(absolute) = name.strip_prefix('.') {
            return self.find(absolute, visible).map(|s| (absolute.to_owned(), s));
        }
        let first = name.split('.').next().unwrap_or(name);
        let mut scope = relative_to.to_owned();
        loop {
            let Some(dot) = scope.rfind('.') else {
                return self.find(name, visible).map(|s| (name.to_owned(), s));
            };
            scope.truncate(dot);
            let candidate = join(&scope, first);
            if let Ok(symbol) = self.find(&candidate, visible) {
                if first.len() < name.len() {
                    if symbol.kind.is_aggregate() {
                        let full = join(&scope, name);
                        return match self.find(&full, visible) {
                            Ok(symbol) => Ok((full, symbol)),
                            Err(Unresolved::Missing) => Err(Unresolved::InnerScope(full)),
                            Err(other) => Err(other),
                        };
                    }
                } else if !types_only || symbol.kind.is_type() {
                    return Ok((candidate, symbol));
                }
            }
        }
    }

    /// The symbol `full_name` if a file in `visible` declares it (for a
    /// package: if any visible file is in it).
    fn find(&self, full_name: &str, visible: &HashSet<usize>) -> Result<&Symbol, Unresolved> {
        let symbol = self.names.get(full_name).ok_or(Unresolved::Missing)?;
        if visible.contains(&symbol.file) || symbol.kind == Kind::Package {
            return Ok(symbol);
        }
        Err(Unresolved::NotImported(symbol.file))
    }
}

impl Symbol {
    fn plain(kind: Kind, file: usize) -> Self {
        Symbol {
            kind,
            file,
            values: None,
            path: Arc::new([]),
            local: None,
        }
    }

    fn at(kind: Kind, file: usize, path: &[usize]) -> Self {
        Symbol {
            kind,
            file,
            values: None,
            path: path.into(),
            local: None,
        }
    }
}

/// `scope.name`, or `name` at the top.
pub fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        return name.to_owned();
    }
    let mut out = String::with_capacity(scope.len() + 1 + name.len());
    out.push_str(scope);
    out.push('.');
    out.push_str(name);
    out
}

/// The visibility an uninterpreted file option sets, written
/// `features.default_symbol_visibility = V` or `features = { ...: V }`.
fn written_visibility(option: &d::UninterpretedOption) -> Option<DefaultSymbolVisibility> {
    const FEATURE: &str = "default_symbol_visibility";
    let names: Vec<&str> = option
        .name
        .iter()
        .map(|part| match part.is_extension {
            Some(true) => "(extension)",
            _ => part.name_part.as_deref().unwrap_or(""),
        })
        .collect();
    let value = match names.as_slice() {
        ["features", FEATURE] => option.identifier_value.as_deref()?,
        ["features"] => {
            let aggregate = option.aggregate_value.as_deref()?;
            let after = &aggregate[aggregate.find(FEATURE)? + FEATURE.len()..];
            let after = after.trim_start().strip_prefix(':')?.trim_start();
            let end = after
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(after.len());
            &after[..end]
        }
        _ => return None,
    };
    <DefaultSymbolVisibility as fastrs::Enum>::from_str_name(value)
}

struct Declarer<'a> {
    symbols: &'a mut Symbols,
    file: usize,
    /// The file's `default_symbol_visibility`.
    visibility: DefaultSymbolVisibility,
    problems: &'a mut Vec<Problem>,
}

impl Declarer<'_> {
    /// Adds `full_name`, declared at the location `at`.
    fn add(&mut self, full_name: String, symbol: Symbol, at: &[i32]) -> bool {
        let Some(existing) = self.symbols.names.get(&full_name) else {
            self.symbols.names.insert(full_name, symbol);
            return true;
        };
        let message = if existing.file == self.file {
            match full_name.rsplit_once('.') {
                Some((scope, short)) => format!("\"{short}\" is already defined in \"{scope}\"."),
                None => format!("\"{full_name}\" is already defined."),
            }
        } else {
            format!(
                "\"{full_name}\" is already defined in file \"{}\".",
                self.symbols.file_names[existing.file]
            )
        };
        self.problems.push(Problem::new(at, At::Name, message));
        false
    }

    /// A message: its oneofs, fields, enums, extensions and nested
    /// messages, then itself.
    fn message(&mut self, scope: &str, message: &d::DescriptorProto, index: &[usize], at: &[i32]) {
        let name = join(scope, message.name.as_deref().unwrap_or(""));
        let child = |field: i32, i: usize| [at, &[field, i as i32]].concat();
        for (i, oneof) in message.oneof_decl.iter().enumerate() {
            let oneof_name = join(&name, oneof.name.as_deref().unwrap_or(""));
            self.add(oneof_name, Symbol::plain(Kind::Oneof, self.file), &child(8, i));
        }
        for (i, field) in message.field.iter().enumerate() {
            let field_name = join(&name, field.name.as_deref().unwrap_or(""));
            self.add(field_name, Symbol::plain(Kind::Field, self.file), &child(2, i));
        }
        for (i, enum_type) in message.enum_type.iter().enumerate() {
            self.enum_type(&name, enum_type, &[index, &[i]].concat(), &child(4, i));
        }
        for (i, extension) in message.extension.iter().enumerate() {
            let extension_name = join(&name, extension.name.as_deref().unwrap_or(""));
            let symbol = Symbol::at(Kind::Extension, self.file, &[index, &[i]].concat());
            self.add(extension_name, symbol, &child(6, i));
        }
        for (i, nested) in message.nested_type.iter().enumerate() {
            self.message(&name, nested, &[index, &[i]].concat(), &child(3, i));
        }
        let local = Local::of(message.visibility, index.len() > 1, self.visibility);
        let symbol = Symbol {
            local,
            ..Symbol::at(Kind::Message, self.file, index)
        };
        self.add(name, symbol, at);
    }

    /// An enum's values, as siblings of the enum (C++ scoping), then the
    /// enum.
    fn enum_type(&mut self, scope: &str, enum_type: &d::EnumDescriptorProto, index: &[usize], at: &[i32]) {
        let name = join(scope, enum_type.name.as_deref().unwrap_or(""));
        let values: Arc<[(String, i32)]> = enum_type
            .value
            .iter()
            .map(|v| (v.name.as_deref().unwrap_or("").to_owned(), v.number.unwrap_or(0)))
            .collect();
        for (i, value) in enum_type.value.iter().enumerate() {
            let value_name = join(scope, value.name.as_deref().unwrap_or(""));
            self.add(
                value_name,
                Symbol::plain(Kind::EnumValue, self.file),
                &[at, &[2, i as i32]].concat(),
            );
        }
        let symbol = Symbol {
            kind: Kind::Enum,
            file: self.file,
            values: Some(values),
            path: index.into(),
            local: Local::of(enum_type.visibility, index.len() > 1, self.visibility),
        };
        self.add(name, symbol, at);
    }
}
