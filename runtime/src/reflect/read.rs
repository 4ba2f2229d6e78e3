//! Reading encoded `FileDescriptorProto`s into the pool's unlinked form:
//! names stay names here, and features are resolved down the tree as
//! protoc resolves them. Reading the bytes directly keeps the `reflect`
//! feature free of the `descriptor` feature's generated types.

use std::string::{String, ToString};
use std::vec::Vec;

use crate::schema::{Features, LegacyField};
use crate::wire::records::{self, Record, Value};

use super::error::{PoolError, PoolErrorKind};
use super::numbers::{self as n, options::*};

/// One file, read but not linked.
#[derive(Default)]
pub(super) struct FileProto {
    pub name: String,
    pub package: String,
    pub dependencies: Vec<String>,
    pub public_dependencies: Vec<u32>,
    pub syntax: String,
    pub options: Vec<u8>,
    /// Top-level messages first, then nested ones, each after its parent.
    pub messages: Vec<MessageProto>,
    pub enums: Vec<EnumProto>,
    pub extensions: Vec<FieldProto>,
    pub services: Vec<ServiceProto>,
    /// The file's own encoding.
    pub encoded: Vec<u8>,
}

pub(super) struct MessageProto {
    pub name: String,
    pub full_name: String,
    /// Index in [`FileProto::messages`] of the enclosing message.
    pub parent: Option<usize>,
    pub fields: Vec<FieldProto>,
    /// Name and encoded options of each oneof.
    pub oneofs: Vec<(String, Vec<u8>)>,
    pub map_entry: bool,
    pub options: Vec<u8>,
    pub extension_ranges: Vec<(u32, u32)>,
    pub reserved_ranges: Vec<(u32, u32)>,
    pub reserved_names: Vec<String>,
}

pub(super) struct FieldProto {
    pub name: String,
    /// The full name of the scope it is declared in (message or package).
    pub scope: String,
    pub number: u32,
    pub label: u64,
    pub ty: u64,
    pub type_name: String,
    pub extendee: String,
    pub default_value: Option<String>,
    pub oneof_index: Option<u32>,
    pub json_name: Option<String>,
    pub proto3_optional: bool,
    pub options: Vec<u8>,
    /// Resolved features, the field's spellings of them included.
    pub features: Features,
    /// The message it is declared in, for extensions declared in one.
    pub parent: Option<usize>,
}

pub(super) struct EnumProto {
    pub name: String,
    pub full_name: String,
    pub parent: Option<usize>,
    pub values: Vec<(String, i32, Vec<u8>)>,
    pub closed: bool,
    pub options: Vec<u8>,
}

pub(super) struct ServiceProto {
    pub name: String,
    pub full_name: String,
    pub methods: Vec<MethodProto>,
    pub options: Vec<u8>,
}

pub(super) struct MethodProto {
    pub name: String,
    pub input: String,
    pub output: String,
    pub client_streaming: bool,
    pub server_streaming: bool,
    pub options: Vec<u8>,
}

/// What reading a file fails with: its bytes are not a descriptor.
fn malformed(file: &str) -> PoolError {
    PoolError::new(PoolErrorKind::Malformed, file, "")
}

struct Ctx<'f> {
    file: &'f str,
}

impl Ctx<'_> {
    fn scan<'b>(&self, buf: &'b [u8]) -> Result<Vec<Record<'b>>, PoolError> {
        records::scan(buf).ok_or_else(|| malformed(self.file))
    }

    fn bytes<'b>(&self, r: &Record<'b>) -> Result<&'b [u8], PoolError> {
        match r.value {
            Value::Bytes(b) => Ok(b),
            _ => Err(malformed(self.file)),
        }
    }

    fn text(&self, r: &Record<'_>) -> Result<String, PoolError> {
        core::str::from_utf8(self.bytes(r)?)
            .map(ToString::to_string)
            .map_err(|_| malformed(self.file))
    }

    fn number(&self, r: &Record<'_>) -> Result<u64, PoolError> {
        match r.value {
            Value::Varint(v) => Ok(v),
            _ => Err(malformed(self.file)),
        }
    }

    /// An `int32` field: its varint's low 32 bits, as protobuf reads it.
    #[allow(clippy::cast_possible_truncation)]
    fn int32(&self, r: &Record<'_>) -> Result<i32, PoolError> {
        Ok(self.number(r)? as i32)
    }

    fn u32(&self, r: &Record<'_>) -> Result<u32, PoolError> {
        u32::try_from(self.int32(r)?).map_err(|_| malformed(self.file))
    }

    /// A `(start, end)` range message (extension and reserved ranges).
    fn range(&self, r: &Record<'_>) -> Result<(u32, u32), PoolError> {
        let mut range = (0, 0);
        for f in self.scan(self.bytes(r)?)? {
            match f.number {
                n::range::START => range.0 = self.u32(&f)?,
                n::range::END => range.1 = self.u32(&f)?,
                _ => {}
            }
        }
        Ok(range)
    }

    /// `outer` with the `features` (field `field`) of encoded options laid
    /// over it.
    fn overlay(&self, outer: Features, options: &[u8], field: u32) -> Result<Features, PoolError> {
        let mut features = outer;
        for r in self.scan(options)? {
            if r.number == field {
                features = features.with(self.bytes(&r)?);
            }
        }
        Ok(features)
    }
}

/// Reads one encoded `FileDescriptorProto`.
pub(super) fn file(encoded: &[u8]) -> Result<FileProto, PoolError> {
    let first = Ctx { file: "" };
    let records = first.scan(encoded)?;
    let mut file = FileProto {
        encoded: encoded.to_vec(),
        ..FileProto::default()
    };
    for r in &records {
        match r.number {
            n::file::NAME => file.name = first.text(r)?,
            n::file::PACKAGE => file.package = first.text(r)?,
            n::file::DEPENDENCY => file.dependencies.push(first.text(r)?),
            n::file::OPTIONS => file.options = first.bytes(r)?.to_vec(),
            n::file::PUBLIC_DEPENDENCY => file.public_dependencies.push(first.u32(r)?),
            n::file::SYNTAX => file.syntax = first.text(r)?,
            _ => {}
        }
    }
    let name = file.name.clone();
    let cx = Ctx { file: &name };
    let features = cx.overlay(Features::of_file(&file.syntax), &file.options, FILE_FEATURES)?;
    let package = file.package.clone();
    for r in &records {
        match r.number {
            n::file::MESSAGE_TYPE => message(&cx, &mut file, cx.bytes(r)?, &package, None, features)?,
            n::file::ENUM_TYPE => {
                let e = enumeration(&cx, cx.bytes(r)?, &package, None, features)?;
                file.enums.push(e);
            }
            n::file::SERVICE => file.services.push(service(&cx, cx.bytes(r)?, &package)?),
            n::file::EXTENSION => {
                let f = field(&cx, cx.bytes(r)?, &package, None, features)?;
                file.extensions.push(f);
            }
            _ => {}
        }
    }
    Ok(file)
}

fn message(
    cx: &Ctx<'_>,
    file: &mut FileProto,
    buf: &[u8],
    scope: &str,
    parent: Option<usize>,
    outer: Features,
) -> Result<(), PoolError> {
    let records = cx.scan(buf)?;
    let mut m = MessageProto {
        name: String::new(),
        full_name: String::new(),
        parent,
        fields: Vec::new(),
        oneofs: Vec::new(),
        map_entry: false,
        options: Vec::new(),
        extension_ranges: Vec::new(),
        reserved_ranges: Vec::new(),
        reserved_names: Vec::new(),
    };
    for r in &records {
        match r.number {
            n::message::NAME => m.name = cx.text(r)?,
            n::message::OPTIONS => m.options = cx.bytes(r)?.to_vec(),
            _ => {}
        }
    }
    m.full_name = join(scope, &m.name);
    m.map_entry = cx
        .scan(&m.options)?
        .iter()
        .any(|r| r.number == MAP_ENTRY && r.value == Value::Varint(1));
    let features = cx.overlay(outer, &m.options, MESSAGE_FEATURES)?;
    let at = file.messages.len();
    let full_name = m.full_name.clone();
    for r in &records {
        match r.number {
            n::message::FIELD => m.fields.push(field(cx, cx.bytes(r)?, &full_name, Some(at), features)?),
            n::message::EXTENSION_RANGE => m.extension_ranges.push(cx.range(r)?),
            n::message::ONEOF_DECL => {
                let mut oneof = (String::new(), Vec::new());
                for f in cx.scan(cx.bytes(r)?)? {
                    match f.number {
                        n::oneof::NAME => oneof.0 = cx.text(&f)?,
                        n::oneof::OPTIONS => oneof.1 = cx.bytes(&f)?.to_vec(),
                        _ => {}
                    }
                }
                m.oneofs.push(oneof);
            }
            n::message::RESERVED_RANGE => m.reserved_ranges.push(cx.range(r)?),
            n::message::RESERVED_NAME => m.reserved_names.push(cx.text(r)?),
            _ => {}
        }
    }
    file.messages.push(m);
    for r in &records {
        match r.number {
            n::message::NESTED_TYPE => message(cx, file, cx.bytes(r)?, &full_name, Some(at), features)?,
            n::message::ENUM_TYPE => {
                let e = enumeration(cx, cx.bytes(r)?, &full_name, Some(at), features)?;
                file.enums.push(e);
            }
            n::message::EXTENSION => {
                let f = field(cx, cx.bytes(r)?, &full_name, Some(at), features)?;
                file.extensions.push(f);
            }
            _ => {}
        }
    }
    Ok(())
}

fn field(
    cx: &Ctx<'_>,
    buf: &[u8],
    scope: &str,
    parent: Option<usize>,
    outer: Features,
) -> Result<FieldProto, PoolError> {
    let mut f = FieldProto {
        name: String::new(),
        scope: scope.to_string(),
        number: 0,
        label: n::field::LABEL_OPTIONAL,
        ty: 0,
        type_name: String::new(),
        extendee: String::new(),
        default_value: None,
        oneof_index: None,
        json_name: None,
        proto3_optional: false,
        options: Vec::new(),
        features: outer,
        parent,
    };
    for r in cx.scan(buf)? {
        match r.number {
            n::field::NAME => f.name = cx.text(&r)?,
            n::field::EXTENDEE => f.extendee = cx.text(&r)?,
            n::field::NUMBER => f.number = cx.u32(&r)?,
            n::field::LABEL => f.label = cx.number(&r)?,
            n::field::TYPE => f.ty = cx.number(&r)?,
            n::field::TYPE_NAME => f.type_name = cx.text(&r)?,
            n::field::DEFAULT_VALUE => f.default_value = Some(cx.text(&r)?),
            n::field::OPTIONS => f.options = cx.bytes(&r)?.to_vec(),
            n::field::ONEOF_INDEX => f.oneof_index = Some(cx.u32(&r)?),
            n::field::JSON_NAME => f.json_name = Some(cx.text(&r)?),
            n::field::PROTO3_OPTIONAL => f.proto3_optional = cx.number(&r)? != 0,
            _ => {}
        }
    }
    let packed = cx
        .scan(&f.options)?
        .iter()
        .rev()
        .find(|r| r.number == PACKED)
        .map(|r| r.value != Value::Varint(0));
    let legacy = LegacyField {
        required: f.label == n::field::LABEL_REQUIRED,
        group: f.ty == n::field::TYPE_GROUP,
        packed,
        proto3_optional: f.proto3_optional,
    };
    f.features = cx.overlay(outer, &f.options, FIELD_FEATURES)?.with_field(legacy);
    Ok(f)
}

fn enumeration(
    cx: &Ctx<'_>,
    buf: &[u8],
    scope: &str,
    parent: Option<usize>,
    outer: Features,
) -> Result<EnumProto, PoolError> {
    let mut e = EnumProto {
        name: String::new(),
        full_name: String::new(),
        parent,
        values: Vec::new(),
        closed: false,
        options: Vec::new(),
    };
    for r in cx.scan(buf)? {
        match r.number {
            n::enumeration::NAME => e.name = cx.text(&r)?,
            n::enumeration::VALUE => {
                let mut value = (String::new(), 0, Vec::new());
                for v in cx.scan(cx.bytes(&r)?)? {
                    match v.number {
                        n::enum_value::NAME => value.0 = cx.text(&v)?,
                        n::enum_value::NUMBER => value.1 = cx.int32(&v)?,
                        n::enum_value::OPTIONS => value.2 = cx.bytes(&v)?.to_vec(),
                        _ => {}
                    }
                }
                e.values.push(value);
            }
            n::enumeration::OPTIONS => e.options = cx.bytes(&r)?.to_vec(),
            _ => {}
        }
    }
    e.full_name = join(scope, &e.name);
    e.closed = cx.overlay(outer, &e.options, ENUM_FEATURES)?.closed_enum();
    Ok(e)
}

fn service(cx: &Ctx<'_>, buf: &[u8], scope: &str) -> Result<ServiceProto, PoolError> {
    let mut s = ServiceProto {
        name: String::new(),
        full_name: String::new(),
        methods: Vec::new(),
        options: Vec::new(),
    };
    for r in cx.scan(buf)? {
        match r.number {
            n::service::NAME => s.name = cx.text(&r)?,
            n::service::METHOD => s.methods.push(method(cx, cx.bytes(&r)?)?),
            n::service::OPTIONS => s.options = cx.bytes(&r)?.to_vec(),
            _ => {}
        }
    }
    s.full_name = join(scope, &s.name);
    Ok(s)
}

fn method(cx: &Ctx<'_>, buf: &[u8]) -> Result<MethodProto, PoolError> {
    let mut m = MethodProto {
        name: String::new(),
        input: String::new(),
        output: String::new(),
        client_streaming: false,
        server_streaming: false,
        options: Vec::new(),
    };
    for r in cx.scan(buf)? {
        match r.number {
            n::method::NAME => m.name = cx.text(&r)?,
            n::method::INPUT_TYPE => m.input = cx.text(&r)?,
            n::method::OUTPUT_TYPE => m.output = cx.text(&r)?,
            n::method::OPTIONS => m.options = cx.bytes(&r)?.to_vec(),
            n::method::CLIENT_STREAMING => m.client_streaming = cx.number(&r)? != 0,
            n::method::SERVER_STREAMING => m.server_streaming = cx.number(&r)? != 0,
            _ => {}
        }
    }
    Ok(m)
}

/// The files of an encoded `FileDescriptorSet`.
pub(super) fn set(encoded: &[u8]) -> Result<Vec<FileProto>, PoolError> {
    let cx = Ctx { file: "" };
    let mut files = Vec::new();
    for r in cx.scan(encoded)? {
        if r.number == n::FILE_DESCRIPTOR_SET_FILE {
            files.push(file(cx.bytes(&r)?)?);
        }
    }
    Ok(files)
}

/// `scope.name`, or `name` in the root scope.
pub(super) fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        std::format!("{scope}.{name}")
    }
}
