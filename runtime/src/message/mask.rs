//! Partial decoding: read only the fields a [`Mask`] selects, and skip the
//! rest at skip speed.

use alloc::vec::Vec;

use crate::message::options::DecodeOptions;
use crate::message::Message;
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::varint;

/// The fields a masked decode reads, by number: each selected field whole,
/// or (for a message field) only the fields of its own mask. The compiled
/// form of a `google.protobuf.FieldMask`: build one by numbers with
/// [`Mask::field`] and [`Mask::nested`], or, for messages generated with
/// their descriptors, from field paths (`Mask::from_paths`, feature
/// `reflect`).
///
/// A masked decode ([`Mask::decode`], [`Mask::merge`]) leaves every other
/// field at its default. What it does not read it checks only as far as
/// skipping needs (tags, wire types, lengths, group nesting): a skipped
/// string is not checked for UTF-8, a skipped message not decoded. Fields
/// the schema does not know are unknown fields as usual when the mask
/// selects their number, and dropped otherwise. `required` fields are not
/// checked (a mask may leave them out).
///
/// ```
/// # use fastrs::{Mask, Message};
/// # use fastrs::well_known::{Api, Method};
/// let api = Api { name: "shop".into(), version: "v2".into(), methods: vec![Method { name: "Get".into(), ..Default::default() }], ..Default::default() };
/// let bytes = api.encode_to_vec();
/// // `name` (1) and the `name` (1) of each method (2).
/// let mask = Mask::new().field(1).nested(2, Mask::new().field(1));
/// let read: Api = mask.decode(&bytes)?;
/// assert_eq!((read.name.as_str(), read.version.as_str()), ("shop", ""));
/// assert_eq!(read.methods[0].name, "Get");
/// # Ok::<(), fastrs::DecodeError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mask {
    /// Selected field numbers, sorted, each with its own mask (`None`:
    /// the whole field).
    fields: Vec<(u32, Option<Mask>)>,
}

impl Mask {
    /// A mask that selects nothing yet.
    #[must_use]
    pub const fn new() -> Self {
        Self { fields: Vec::new() }
    }

    /// Also selects field `number`, whole.
    #[must_use]
    pub fn field(mut self, number: u32) -> Self {
        *self.slot(number) = None;
        self
    }

    /// Also selects message field `number`, but only the fields `mask`
    /// selects in it (merged with what was selected in it before; a field
    /// already selected whole stays whole).
    #[must_use]
    pub fn nested(mut self, number: u32, mask: Mask) -> Self {
        let existing = self.position(number).map(|at| self.fields[at].1.clone());
        let merged = match existing {
            Some(None) => None,
            Some(Some(before)) => Some(before.union(mask)),
            None => Some(mask),
        };
        *self.slot(number) = merged;
        self
    }

    /// Also selects the field at the end of `numbers`: a field number, then
    /// the number of a field inside it, and so on (`[3, 1]`: field 1 of
    /// message field 3). An empty path selects nothing.
    #[must_use]
    pub fn with_path(self, numbers: &[u32]) -> Self {
        match numbers {
            [] => self,
            [number] => self.field(*number),
            [number, rest @ ..] => self.nested(*number, Mask::new().with_path(rest)),
        }
    }

    /// True if the mask selects nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Decodes the fields of `buf` that the mask selects into a new message.
    ///
    /// # Errors
    /// As `Message::decode`, for what is read; malformed framing anywhere.
    pub fn decode<M: Message>(&self, buf: &[u8]) -> Result<M, DecodeError> {
        let mut m = M::default();
        self.merge(&mut m, buf)?;
        Ok(m)
    }

    /// Merges the fields of `buf` that the mask selects into `m`.
    ///
    /// # Errors
    /// As [`Mask::decode`].
    pub fn merge<M: Message>(&self, m: &mut M, buf: &[u8]) -> Result<(), DecodeError> {
        let selected = self.filter::<M>(buf)?;
        m.fast_read_partial(&selected, &DecodeOptions::default())
    }

    /// The records of `buf` that the mask selects, re-encoded: what a
    /// masked decode reads. Decoding them in full gives what
    /// [`Mask::decode`] gives; keep them to read a view of only the
    /// selected fields (`Mask::view`), or to forward a trimmed message.
    ///
    /// # Errors
    /// Malformed framing anywhere in `buf`.
    pub fn filter<M: Message>(&self, buf: &[u8]) -> Result<Vec<u8>, DecodeError> {
        let mut selected = Vec::new();
        self.filter_into::<M>(buf, &mut selected)?;
        Ok(selected)
    }

    pub(crate) fn filter_into<M: Message>(&self, buf: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let depth = DecodeOptions::default().recursion_limit;
        self.select(&mut Reader::new(buf), depth, out)
            .map_err(|e| e.within(M::FULL_NAME, 0))
    }

    /// Appends the records of `r` the mask selects to `out`, those with a
    /// mask of their own filtered in turn.
    fn select(&self, r: &mut Reader<'_>, depth: u32, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        while !r.is_empty() {
            let start = r.rest();
            let tag = r.read_tag()?;
            let Some(at) = self.position(wire::field_number(tag)) else {
                r.skip_value(tag, depth)?;
                continue;
            };
            match &self.fields[at].1 {
                Some(inner) if wire::wire_type(tag) == wire::LEN => {
                    let depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| r.error(DecodeErrorKind::RecursionLimit))?;
                    let mut nested = r.read_nested()?;
                    varint::push(u64::from(tag), out);
                    // Filter in place, then put the length in front: the
                    // bytes move once, and nothing is allocated per level.
                    let at = out.len();
                    inner.select(&mut nested, depth, out)?;
                    let len = (out.len() - at) as u64;
                    let mut prefix = [0; 10];
                    let n = varint::len(len);
                    varint::encode_exact(len, &mut prefix[..n]);
                    out.splice(at..at, prefix[..n].iter().copied());
                }
                _ => {
                    r.skip_value(tag, depth)?;
                    out.extend_from_slice(&start[..start.len() - r.rest().len()]);
                }
            }
        }
        Ok(())
    }

    fn position(&self, number: u32) -> Option<usize> {
        self.fields.binary_search_by_key(&number, |(n, _)| *n).ok()
    }

    /// The place of field `number`, added (selecting nothing in it) if new.
    fn slot(&mut self, number: u32) -> &mut Option<Mask> {
        let at = match self.fields.binary_search_by_key(&number, |(n, _)| *n) {
            Ok(at) => at,
            Err(at) => {
                self.fields.insert(at, (number, Some(Mask::new())));
                at
            }
        };
        &mut self.fields[at].1
    }

    /// Everything either mask selects.
    fn union(mut self, other: Mask) -> Mask {
        for (number, mask) in other.fields {
            self = match mask {
                None => self.field(number),
                Some(mask) => self.nested(number, mask),
            };
        }
        self
    }
}

/// A field mask path that names no field of the message (see
/// `Mask::from_paths`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskPathError {
    path: alloc::string::String,
}

impl MaskPathError {
    #[cfg_attr(not(feature = "reflect"), allow(dead_code))]
    pub(crate) fn new(path: &str) -> Self {
        Self { path: path.into() }
    }

    /// The path.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl core::fmt::Display for MaskPathError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "field mask path `{}` names no field of the message", self.path)
    }
}

impl core::error::Error for MaskPathError {}
