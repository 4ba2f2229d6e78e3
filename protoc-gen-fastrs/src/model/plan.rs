//! The decode plan of a message: which tags it reads, into what, how, and
//! which tag is expected next. Built once here; owned decoding (`emit::read`)
//! and views (`emit::view`) both render it.
//!
//! Encoders write fields in number order, and decoders are shaped for it: a
//! message that holds no messages (a leaf of the recursion) can read its
//! fields in that order first, each if its tag comes next; every arm knows
//! the tag of the field that follows it, to check for it first.

use super::{Kind, Oneof, Shape, Slot, Tag};

/// How a message's records are read.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// One arm per tag the message reads, in field-number order (a packable
    /// repeated field has two: packed and unpacked).
    pub arms: Vec<Arm>,
    /// The message holds no message fields, so its fields can be read in
    /// number order before any dispatch without its arms being emitted
    /// twice for every level of nesting.
    pub leaf: bool,
}

/// The reading of one tag.
#[derive(Debug, Clone)]
pub struct Arm {
    pub tag: Tag,
    /// The field or oneof member it reads into.
    pub target: Target,
    pub read: Read,
    /// The same tag most likely comes again (a repeated field's records, a
    /// map's entries).
    pub repeats: bool,
    /// The tag expected after this field: the next field's, when it is a
    /// plain field with a tag of one or two bytes (oneof members cannot be
    /// predicted). A field left out only costs the failed check.
    pub next: Option<Tag>,
}

/// What an arm reads into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Index into `Message::fields`.
    Field(usize),
    /// A member of `Message::oneofs[oneof]`.
    Member { oneof: usize, member: usize },
}

/// How an arm reads its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// One value of a singular field or oneof member.
    Value,
    /// A packed run of a repeated field.
    Packed,
    /// One (unpacked) element of a repeated field.
    Element,
    /// One map entry.
    Entry,
}

impl Arm {
    /// A tag of one or two bytes (field numbers below 2048): checked for
    /// before a dispatch.
    #[must_use]
    pub fn short(&self) -> bool {
        self.tag.bytes.len() <= 2
    }
}

impl Plan {
    /// The plan of a message with `fields` and `oneofs` in field order `order`.
    #[must_use]
    pub fn new(fields: &[super::Field], oneofs: &[Oneof], order: &[Slot]) -> Plan {
        let mut arms = Vec::new();
        for (s, slot) in order.iter().enumerate() {
            let next = match order.get(s + 1) {
                Some(Slot::Field(i)) => Some(&fields[*i].tag).filter(|t| t.bytes.len() <= 2).cloned(),
                _ => None,
            };
            match slot {
                Slot::Field(i) => field_arms(&fields[*i], *i, &next, &mut arms),
                Slot::Oneof(o, members) => arms.extend(members.iter().map(|&m| Arm {
                    tag: oneofs[*o].members[m].tag.clone(),
                    target: Target::Member { oneof: *o, member: m },
                    read: Read::Value,
                    repeats: false,
                    next: next.clone(),
                })),
            }
        }
        let members = oneofs.iter().flat_map(|o| &o.members);
        let leaf = !fields.iter().chain(members).any(|f| match &f.shape {
            Shape::Implicit(kind) | Shape::Optional(kind) | Shape::OneofMember(kind) | Shape::Repeated { kind, .. } => {
                matches!(kind, Kind::Message { .. })
            }
            Shape::Map { value, .. } => matches!(value, Kind::Message { .. }),
        });
        Plan { arms, leaf }
    }

    /// Whether any arm checks for a tag after its value: its own (a short,
    /// repeating one) or the next field's.
    #[must_use]
    pub fn predicts(&self) -> bool {
        self.arms.iter().any(|a| (a.repeats && a.short()) || a.next.is_some())
    }
}

/// The arms of field `f` (index `i`).
fn field_arms(f: &super::Field, i: usize, next: &Option<Tag>, arms: &mut Vec<Arm>) {
    let arm = |tag: &Tag, read: Read| Arm {
        tag: tag.clone(),
        target: Target::Field(i),
        read,
        repeats: matches!(read, Read::Element | Read::Entry),
        next: next.clone(),
    };
    match &f.shape {
        Shape::Implicit(_) | Shape::Optional(_) => arms.push(arm(&f.tag, Read::Value)),
        Shape::Repeated { packed, alt_tag, .. } => {
            let (main, alt) = if *packed {
                (Read::Packed, Read::Element)
            } else {
                (Read::Element, Read::Packed)
            };
            arms.push(arm(&f.tag, main));
            if let Some(alt_tag) = alt_tag {
                arms.push(arm(alt_tag, alt));
            }
        }
        Shape::Map { .. } => arms.push(arm(&f.tag, Read::Entry)),
        Shape::OneofMember(_) => unreachable!("oneof members are planned with their oneof"),
    }
}
