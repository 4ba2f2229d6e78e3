//! The command line, read by hand: a command, then flags.

pub const USAGE: &str = "\
usage:
  fastrs decode SCHEMA --type FULL.NAME [--json | --text]   binary on stdin, text (default) or JSON on stdout
  fastrs encode SCHEMA --type FULL.NAME [--json | --text]   text (default) or JSON on stdin, binary on stdout
  fastrs decode --raw                                        binary on stdin, fields by number on stdout
  fastrs validate SCHEMA --type FULL.NAME [--json | --text] [--fail-fast]
                                                             a message (binary, or JSON or text) on stdin checked by
                                                             its protovalidate rules: its violations on stdout
  fastrs describe SCHEMA [FULL.NAME]                         a message's, enum's or service's schema
  fastrs compile -I DIR [-I DIR...] -o OUT [--include-imports] [--include-source-info] FILE...
                                                             .proto files to a FileDescriptorSet, as protoc -o
  fastrs --help | --version

SCHEMA is either
  --descriptor-set FILE        an encoded FileDescriptorSet with its imports
                               (protoc --include_imports -o FILE ..., buf build -o FILE)
  --proto FILE [-I DIR...]     .proto files, compiled on the spot (FILE relative to a DIR;
                               --proto may repeat; the well-known types need no -I)
";

/// Where a command's schema comes from.
pub enum Source {
    DescriptorSet(String),
    Proto { files: Vec<String>, includes: Vec<String> },
}

/// The message type a command reads or writes.
pub struct Schema {
    pub source: Source,
    pub type_name: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// What `fastrs compile` writes.
pub struct Compile {
    pub files: Vec<String>,
    pub includes: Vec<String>,
    pub output: String,
    pub include_imports: bool,
    pub include_source_info: bool,
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
    /// `format` is the input's; `None`: binary.
    Validate {
        schema: Schema,
        format: Option<Format>,
        fail_fast: bool,
    },
    Describe {
        source: Source,
        name: Option<String>,
    },
    Compile(Compile),
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
    protos: Vec<String>,
    includes: Vec<String>,
    output: Option<String>,
    type_name: Option<String>,
    json: bool,
    text: bool,
    raw: bool,
    include_imports: bool,
    include_source_info: bool,
    fail_fast: bool,
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
            "decode" | "encode" | "validate" | "describe" | "compile" => {
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
            let (name, inline) = split_flag(arg);
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| args.next().cloned())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match name {
                "--descriptor-set" => flags.descriptor_set = Some(value()?),
                "--proto" => flags.protos.push(value()?),
                "-I" | "--proto_path" | "--proto-path" => flags.includes.push(value()?),
                "-o" | "--output" | "--descriptor_set_out" => flags.output = Some(value()?),
                "--type" => flags.type_name = Some(value()?),
                "--json" => flags.json = true,
                "--text" => flags.text = true,
                "--raw" => flags.raw = true,
                "--fail-fast" => flags.fail_fast = true,
                "--include-imports" | "--include_imports" => flags.include_imports = true,
                "--include-source-info" | "--include_source_info" => flags.include_source_info = true,
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
        match command {
            "compile" => self.compile(),
            "decode" if self.raw => {
                if self.descriptor_set.is_some() || !self.protos.is_empty() || self.type_name.is_some() || self.json {
                    return Err("decode --raw takes no schema and prints text".into());
                }
                Ok(Command::DecodeRaw)
            }
            "decode" | "encode" | "validate" => self.transcode(command),
            _ => {
                if self.positional.len() > 1
                    || self.type_name.is_some()
                    || self.raw
                    || self.json
                    || self.text
                    || self.fail_fast
                {
                    return Err("describe takes a schema and at most one name".into());
                }
                let name = self.positional.first().cloned();
                Ok(Command::Describe {
                    source: self.source()?,
                    name,
                })
            }
        }
    }

    fn transcode(self, command: &str) -> Result<Command, String> {
        if !self.positional.is_empty() || self.raw {
            return Err(format!(
                "{command} takes no `{}`",
                self.positional.first().map_or("--raw", |p| p)
            ));
        }
        if self.fail_fast && command != "validate" {
            return Err(format!("{command} takes no --fail-fast"));
        }
        let given = match (self.json, self.text) {
            (true, _) => Some(Format::Json),
            (_, true) => Some(Format::Text),
            _ => None,
        };
        let format = given.unwrap_or(Format::Text);
        let fail_fast = self.fail_fast;
        let type_name = self.type_name.clone().ok_or("--type FULL.NAME is required")?;
        let schema = Schema {
            source: self.source()?,
            type_name,
        };
        Ok(match command {
            "decode" => Command::Decode { schema, format },
            "encode" => Command::Encode { schema, format },
            _ => Command::Validate {
                schema,
                format: given,
                fail_fast,
            },
        })
    }

    /// `--descriptor-set FILE`, or `--proto FILE... -I DIR...`.
    fn source(self) -> Result<Source, String> {
        match (self.descriptor_set, self.protos.is_empty()) {
            (Some(_), false) => Err("--descriptor-set and --proto exclude each other".into()),
            (Some(set), true) if self.includes.is_empty() => Ok(Source::DescriptorSet(set)),
            (Some(_), true) => Err("-I goes with --proto, not --descriptor-set".into()),
            (None, false) => Ok(Source::Proto {
                files: self.protos,
                includes: self.includes,
            }),
            (None, true) => Err("a schema is required: --descriptor-set FILE or --proto FILE".into()),
        }
    }

    fn compile(self) -> Result<Command, String> {
        if self.descriptor_set.is_some() || !self.protos.is_empty() || self.type_name.is_some() || self.raw {
            return Err("compile takes -I DIR, -o OUT and .proto files".into());
        }
        if self.positional.is_empty() {
            return Err("compile needs at least one .proto file".into());
        }
        Ok(Command::Compile(Compile {
            files: self.positional,
            includes: self.includes,
            output: self.output.ok_or("compile needs -o OUT")?,
            include_imports: self.include_imports,
            include_source_info: self.include_source_info,
        }))
    }
}

/// A flag and the value written in the same argument: `--type=T`, `-IDIR`.
fn split_flag(arg: &str) -> (&str, Option<String>) {
    if let Some((name, value)) = arg.split_once('=').filter(|(name, _)| name.starts_with("--")) {
        return (name, Some(value.to_owned()));
    }
    for short in ["-I", "-o"] {
        if let Some(value) = arg.strip_prefix(short).filter(|v| !v.is_empty()) {
            return (short, Some(value.to_owned()));
        }
    }
    (arg, None)
}
