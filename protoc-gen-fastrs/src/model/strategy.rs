//! How each message's code is shaped: the only place that chooses between
//! inline and out-of-line field code, whether decoders predict tags, and
//! whether `clear` keeps buffers for reuse. Speed and size modes are
//! presets of these choices; the mode rules of `Options` (a default, the
//! run's size, prefixes of packages and messages) pick one per message.

use fastrs::descriptor::{DescriptorProto, FileDescriptorProto};

use crate::options::{Mode, Options};

/// The shape of one message's generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// Each field's codec is inlined into the message's methods; else each
    /// field is one call into code compiled once per type (`compact`).
    pub inline: bool,
    /// Decoders read fields in the number order encoders write them, each
    /// if its tag comes next, and check for the tag expected after each
    /// field; else one `match` on each tag.
    pub predict: bool,
    /// `clear` keeps the allocations of values (strings, bytes, nested
    /// messages) for the next decode to fill, in a `fastrs::Recycler`.
    pub reuse: bool,
}

impl Strategy {
    /// [`Mode::Speed`]: the fastest code, and the most to compile.
    pub const SPEED: Strategy = Strategy {
        inline: true,
        predict: true,
        reuse: true,
    };

    /// [`Mode::Size`]: one call per field, about prost's speed, and fast
    /// builds.
    pub const SIZE: Strategy = Strategy {
        inline: false,
        predict: false,
        reuse: false,
    };

    /// The preset of `mode`.
    #[must_use]
    pub const fn of(mode: Mode) -> Strategy {
        match mode {
            Mode::Speed => Strategy::SPEED,
            Mode::Size => Strategy::SIZE,
        }
    }
}

/// The strategy of each message: the longest matching prefix of
/// `Options::modes_for`, else `Options::mode`, else by the number of
/// messages the run generates ([`Mode::AUTO_SIZE_FROM`]).
pub struct Strategies<'o> {
    default: Mode,
    prefixes: &'o [(String, Mode)],
}

impl<'o> Strategies<'o> {
    #[must_use]
    pub fn new(files: &[FileDescriptorProto], to_generate: &[String], options: &'o Options) -> Self {
        let default = options.mode.unwrap_or_else(|| {
            fn count(messages: &[DescriptorProto]) -> usize {
                messages.iter().map(|m| 1 + count(&m.nested_type)).sum()
            }
            let generated = files
                .iter()
                .filter(|f| to_generate.iter().any(|n| n == f.name()))
                .map(|f| count(&f.message_type))
                .sum::<usize>();
            if generated >= Mode::AUTO_SIZE_FROM {
                Mode::Size
            } else {
                Mode::Speed
            }
        });
        Strategies {
            default,
            prefixes: &options.modes_for,
        }
    }

    /// The strategy of message `full_name` (without the leading dot).
    #[must_use]
    pub fn of(&self, full_name: &str) -> Strategy {
        let under = |p: &str| {
            let p = p.trim_start_matches('.');
            full_name == p || full_name.strip_prefix(p).is_some_and(|rest| rest.starts_with('.'))
        };
        let mode = self
            .prefixes
            .iter()
            .filter(|(p, _)| under(p))
            .max_by_key(|(p, _)| p.len())
            .map_or(self.default, |&(_, mode)| mode);
        Strategy::of(mode)
    }
}
