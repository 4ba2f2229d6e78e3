//! What option interpretation reads of the linked files: messages, enums and
//! extensions by full name, and a descriptor pool for aggregate values.

use std::collections::HashSet;
use std::sync::LazyLock;

use fastrs::descriptor as d;
use fastrs::reflect::DescriptorPool;
use fastrs::schema::Features;
use fastrs::{Described, Message};

use crate::symbols::{Kind, Symbols};

/// descriptor.proto as fastrs embeds it: the built-in options messages,
/// for files that set options without importing it.
pub static BUILT_IN: LazyLock<d::FileDescriptorProto> = LazyLock::new(|| {
    let set =
        d::FileDescriptorSet::decode(<d::FileDescriptorProto as Described>::FILE_DESCRIPTOR_SET).unwrap_or_default();
    set.file
        .into_iter()
        .find(|f| f.name.as_deref() == Some("google/protobuf/descriptor.proto"))
        .unwrap_or_default()
});

pub struct Schema<'a> {
    /// Every loaded file by index; linked up to the current one.
    pub files: &'a [d::FileDescriptorProto],
    /// The file whose options are interpreted: its index, and its linked
    /// form before interpretation.
    pub current: (usize, &'a d::FileDescriptorProto),
    pub symbols: &'a Symbols,
    pub visible: &'a HashSet<usize>,
    /// The files as a pool, for custom aggregate option values.
    pool: Option<&'a DescriptorPool>,
}

/// descriptor.proto as a pool: the aggregate values of built-in options.
static BUILT_IN_POOL: LazyLock<Option<DescriptorPool>> = LazyLock::new(|| {
    let set = d::FileDescriptorSet {
        file: vec![BUILT_IN.clone()],
        ..Default::default()
    };
    DescriptorPool::decode(&set.encode_to_vec()).ok()
});

impl<'a> Schema<'a> {
    pub fn new(
        files: &'a [d::FileDescriptorProto],
        current: (usize, &'a d::FileDescriptorProto),
        symbols: &'a Symbols,
        visible: &'a HashSet<usize>,
    ) -> Self {
        Schema {
            files,
            current,
            symbols,
            visible,
            pool: None,
        }
    }

    /// Lets custom aggregate option values be read through `pool`.
    pub fn with_pool(mut self, pool: Option<&'a DescriptorPool>) -> Self {
        self.pool = pool;
        self
    }

    fn file(&self, index: usize) -> &d::FileDescriptorProto {
        if index == self.current.0 {
            self.current.1
        } else {
            &self.files[index]
        }
    }

    /// Resolves `name` as protoc resolves option names from `scope`.
    pub fn resolve(&self, name: &str, scope: &str) -> Option<(String, Kind)> {
        let (full, symbol) = self.symbols.resolve(name, scope, self.visible, false).ok()?;
        Some((full, symbol.kind))
    }

    /// The message `full_name`, from the loaded files or else the built-in
    /// descriptor.proto.
    pub fn message(&self, full_name: &str) -> Option<&d::DescriptorProto> {
        if let Some(symbol) = self.symbols.get(full_name).filter(|s| s.kind == Kind::Message) {
            let file = self.file(symbol.file);
            let (first, rest) = symbol.path.split_first()?;
            let mut message = file.message_type.get(*first)?;
            for &i in rest {
                message = message.nested_type.get(i)?;
            }
            return Some(message);
        }
        let short = full_name.strip_prefix("google.protobuf.")?;
        BUILT_IN
            .message_type
            .iter()
            .find(|m| m.name.as_deref() == Some(short))
            .or_else(|| {
                let (outer, inner) = short.split_once('.')?;
                let outer = BUILT_IN
                    .message_type
                    .iter()
                    .find(|m| m.name.as_deref() == Some(outer))?;
                outer.nested_type.iter().find(|m| m.name.as_deref() == Some(inner))
            })
    }

    /// The name of the file that declares `full_name`, if it is loaded.
    pub fn file_of(&self, full_name: &str) -> Option<&str> {
        let symbol = self.symbols.get(full_name)?;
        self.symbols.file_names.get(symbol.file).map(String::as_str)
    }

    /// The values (name, number) of the enum `full_name`.
    pub fn enum_values(&self, full_name: &str) -> Option<Vec<(String, i32)>> {
        if let Some(symbol) = self.symbols.get(full_name).filter(|s| s.kind == Kind::Enum) {
            return symbol.values.as_ref().map(|v| v.to_vec());
        }
        let short = full_name.strip_prefix("google.protobuf.")?;
        let (outer, inner) = short.rsplit_once('.')?;
        let enum_type = self
            .message(&format!("google.protobuf.{outer}"))?
            .enum_type
            .iter()
            .find(|e| e.name.as_deref() == Some(inner))?;
        Some(
            enum_type
                .value
                .iter()
                .map(|v| (v.name.as_deref().unwrap_or("").to_owned(), v.number.unwrap_or(0)))
                .collect(),
        )
    }

    /// Whether the enum `full_name` is closed, by its resolved features
    /// (`None` for an enum this schema does not hold).
    pub fn enum_closed(&self, full_name: &str) -> Option<bool> {
        let symbol = self.symbols.get(full_name).filter(|s| s.kind == Kind::Enum)?;
        let file = self.file(symbol.file);
        let features_of = |set: Option<&d::FeatureSet>, features: Features| match set {
            Some(set) => features.with(&set.encode_to_vec()),
            None => features,
        };
        let syntax = file.syntax.as_deref().unwrap_or("proto2");
        let mut features = features_of(
            file.options.as_ref().and_then(|o| o.features.as_ref()),
            Features::of_file(syntax),
        );
        let (last, enclosing) = symbol.path.split_last()?;
        let mut enums = &file.enum_type;
        let mut messages = &file.message_type;
        for &i in enclosing {
            let message = messages.get(i)?;
            features = features_of(message.options.as_ref().and_then(|o| o.features.as_ref()), features);
            enums = &message.enum_type;
            messages = &message.nested_type;
        }
        let enum_type = enums.get(*last)?;
        features = features_of(enum_type.options.as_ref().and_then(|o| o.features.as_ref()), features);
        Some(features.closed_enum())
    }

    /// The extension `full_name`, linked.
    pub fn extension(&self, full_name: &str) -> Option<d::FieldDescriptorProto> {
        let symbol = self.symbols.get(full_name).filter(|s| s.kind == Kind::Extension)?;
        let file = self.file(symbol.file);
        let (last, enclosing) = symbol.path.split_last()?;
        let Some((first, rest)) = enclosing.split_first() else {
            return file.extension.get(*last).cloned();
        };
        let mut message = file.message_type.get(*first)?;
        for &i in rest {
            message = message.nested_type.get(i)?;
        }
        message.extension.get(*last).cloned()
    }

    /// The pool aggregate option values are read with: the loaded files',
    /// or descriptor.proto alone for built-in options.
    pub fn pool(&self) -> Result<&DescriptorPool, String> {
        match self.pool {
            Some(pool) => Ok(pool),
            None => BUILT_IN_POOL
                .as_ref()
                .ok_or_else(|| "descriptor.proto does not load".into()),
        }
    }
}
