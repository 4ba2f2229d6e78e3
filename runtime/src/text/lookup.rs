//! What the text format asks of the reflection pool beyond what it holds:
//! lookups by the names text uses, and the names fields are written by.

use crate::reflect::pool::{Cardinality, FieldData, MessageData, Symbol, Tables};

impl Tables {
    /// The message named `full_name` (no leading dot).
    pub fn message(&self, full_name: &str) -> Option<&MessageData> {
        match self.names.get(full_name)? {
            Symbol::Message(m) => Some(&self.messages[*m as usize]),
            _ => None,
        }
    }

    /// The extension named `full_name` of the message named `extendee`.
    pub fn extension(&self, extendee: &str, full_name: &str) -> Option<&FieldData> {
        let Symbol::Extension(e) = *self.names.get(full_name)? else {
            return None;
        };
        let field = &self.extensions[e as usize];
        let of = field.extendee?;
        (self.messages[of as usize].full_name == extendee).then_some(field)
    }

    /// The extension numbered `number` of the message named `extendee`.
    pub fn extension_numbered(&self, extendee: &str, number: u32) -> Option<&FieldData> {
        let Symbol::Message(m) = *self.names.get(extendee)? else {
            return None;
        };
        let e = *self.extension_numbers.get(&(m, number))?;
        Some(&self.extensions[e as usize])
    }

    /// The name the text format writes a field by: its own, or for a
    /// group-like field its type's.
    pub fn printed_name<'s>(&'s self, field: &'s FieldData) -> &'s str {
        match self.message_of(field) {
            Some(ty) if field.group_like => &ty.name,
            _ => &field.name,
        }
    }

    /// The field of `ty` a name in text refers to: its own name, or for a
    /// group-like field its type's name.
    pub fn field_named<'s>(&'s self, ty: &'s MessageData, name: &str) -> Option<&'s FieldData> {
        let own = ty.fields.iter().find(|f| f.name == name);
        own.or_else(|| ty.fields.iter().find(|f| f.group_like && self.printed_name(f) == name))
    }
}

impl FieldData {
    /// True for a repeated field (maps included).
    pub fn repeated(&self) -> bool {
        self.cardinality == Cardinality::Repeated
    }
}
