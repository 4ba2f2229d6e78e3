//! The command line, read by hand: a command, then flags.

pub const USAGE: &str = "\
usage:
  fastrs decode --descriptor-set FILE --type FULL.NAME [--json | --text]   binary on stdin, text (default) or JSON on stdout
  fastrs encode --descriptor-set FILE --type FULL.NAME [--json | --text]   text (default) or JSON on stdin, binary on stdout
  fastrs decode --raw                                                       binary on stdin, fields by number on stdout
  fastrs describe --descriptor-set FILE [FULL.NAME]                         a message's, enum's or service's schema
  fastrs --help | --version

FILE is an encoded FileDescriptorSet with its imports
(protoc --include_imports -o FILE ..., or buf build -o FILE).
";

/// The message type a command reads or writes.
pub struct Schema {
    pub descriptor_set: String,
    pub type_name: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

pub enum Command {
    Decode {
        schema: Schema,
        format: Format,
    },
    DecodeRaw,
    Encode {
        schema: Schema,
        format: Format,
    },
    Describe {
        descriptor_set: String,
        name: Option<String>,
    },
    Help,
    Version,
}

pub struct Args {
    pub command: Command,
}

/// The flags given, before they are checked against the command.
#[derive(Default)]
struct Flags {
    descriptor_set: Option<String>,
    type_name: Option<String>,
    json: bool,
    text: bool,
    raw: bool,
    positional: Vec<String>,
}

impl Args {
    /// Reads `args` (without the program name).
    pub fn parse(args: &[String]) -> Result<Args, String> {
        let Some((command, rest)) = args.split_first() else {
            return Err("no command given".into());
        };
        let command = match command.as_str() {
            "-h" | "--help" | "help" => Command::Help,
            "-V" | "--version" => Command::Version,
            "decode" | "encode" | "describe" => {
                let flags = Flags::parse(rest)?;
                flags.command(command)?
            }
            other => return Err(format!("unknown command `{other}`")),
        };
        Ok(Args { command })
    }
}

impl Flags {
    fn parse(args: &[String]) -> Result<Flags, String> {
        let mut flags = Flags::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value.to_string())),
                _ => (arg.as_str(), None),
            };
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| args.next().cloned())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match name {
                "--descriptor-set" => flags.descriptor_set = Some(value()?),
                "--type" => flags.type_name = Some(value()?),
                "--json" => flags.json = true,
                "--text" => flags.text = true,
                "--raw" => flags.raw = true,
                flag if flag.starts_with('-') => return Err(format!("unknown flag `{flag}`")),
                _ => flags.positional.push(arg.clone()),
            }
        }
        Ok(flags)
    }

    fn command(self, command: &str) -> Result<Command, String> {
        if self.json && self.text {
            return Err("--json and --text exclude each other".into());
        }
        let format = if self.json { Format::Json } else { Format::Text };
        match command {
            "decode" if self.raw => {
                if self.descriptor_set.is_some() || self.type_name.is_some() || self.json {
                    return Err("decode --raw takes no schema and prints text".into());
                }
                Ok(Command::DecodeRaw)
            }
            "decode" | "encode" => {
                if !self.positional.is_empty() || self.raw {
                    return Err(format!(
                        "{command} takes no `{}`",
                        self.positional.first().map_or("--raw", |p| p)
                    ));
                }
                let schema = Schema {
                    descriptor_set: self.descriptor_set.ok_or("--descriptor-set FILE is required")?,
                    type_name: self.type_name.ok_or("--type FULL.NAME is required")?,
                };
                Ok(if command == "decode" {
                    Command::Decode { schema, format }
                } else {
                    Command::Encode { schema, format }
                })
            }
            _ => {
                if self.positional.len() > 1 || self.type_name.is_some() || self.raw || self.json || self.text {
                    return Err("describe takes --descriptor-set FILE and at most one name".into());
                }
                Ok(Command::Describe {
                    descriptor_set: self.descriptor_set.ok_or("--descriptor-set FILE is required")?,
                    name: self.positional.into_iter().next(),
                })
            }
        }
    }
}
