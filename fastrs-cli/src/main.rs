//! `fastrs`: decode, encode and describe Protocol Buffers messages by a
//! schema loaded at run time (a descriptor set, or `.proto` files compiled
//! on the spot), or with none (`--raw`); and compile `.proto` files to a
//! descriptor set as `protoc -o` does.
//!
//! ```text
//! fastrs decode --descriptor-set FILE --type FULL.NAME [--json | --text]  < binary
//! fastrs encode --proto FILE -I DIR --type FULL.NAME [--json | --text]    < text
//! fastrs decode --raw                                                      < binary
//! fastrs validate --proto FILE -I DIR --type FULL.NAME [--json | --text]   < message
//! fastrs describe --descriptor-set FILE [FULL.NAME]
//! fastrs compile -I DIR -o OUT [--include-imports] [--include-source-info] FILE...
//! ```
//!
//! Exit status: 0 on success, 1 for input that is not what the schema says
//! (with the error and its position on stderr), a message that breaks its
//! rules (`validate`: the violations on stdout) or a schema that does not
//! compile (protoc's `file:line:column: message` lines), 2 for a bad
//! command line or an unreadable schema.

mod args;
mod describe;
mod validate;

use std::io::{Read, Write};
use std::process::ExitCode;

use args::{Args, Command, Compile, Format, Source};
use fastrs::reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use fastrs::text::PrintOptions;

/// How a run failed: the message for stderr, and the exit status.
struct Failure {
    message: String,
    status: u8,
    /// Print the usage after it.
    usage: bool,
}

impl Failure {
    /// The command line or the schema is wrong (status 2).
    fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: format!("fastrs: {}", message.into()),
            status: 2,
            usage: true,
        }
    }

    /// The schema cannot be read (status 2, no usage).
    fn schema(message: impl Into<String>) -> Self {
        Failure {
            message: format!("fastrs: {}", message.into()),
            status: 2,
            usage: false,
        }
    }

    /// `.proto` files do not compile: protoc's lines (status 1).
    fn compile(error: &fastrs_compiler::Error) -> Self {
        Failure {
            message: error.to_string(),
            status: 1,
            usage: false,
        }
    }

    /// Nothing more to say (what is wrong is on stdout).
    fn quiet(status: u8) -> Self {
        Failure {
            message: String::new(),
            status,
            usage: false,
        }
    }

    /// The input is wrong (status 1).
    fn input(message: impl Into<String>) -> Self {
        Failure {
            message: format!("fastrs: {}", message.into()),
            status: 1,
            usage: false,
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match Args::parse(&args).map_err(Failure::usage).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !failure.message.is_empty() {
                eprintln!("{}", failure.message);
            }
            if failure.usage {
                eprintln!("\n{}", args::USAGE);
            }
            ExitCode::from(failure.status)
        }
    }
}

fn run(args: Args) -> Result<(), Failure> {
    match args.command {
        Command::Help => write_stdout(args::USAGE.as_bytes()),
        Command::Version => write_stdout(format!("fastrs {}\n", env!("CARGO_PKG_VERSION")).as_bytes()),
        Command::DecodeRaw => {
            let input = read_stdin()?;
            let text = fastrs::text::to_string_raw(&input).map_err(|e| Failure::input(e.to_string()))?;
            write_stdout(with_newline(text).as_bytes())
        }
        Command::Decode { schema, format } => {
            let ty = message_type(&schema)?;
            let input = read_stdin()?;
            let message = DynamicMessage::decode(ty, &input)
                .map_err(|e| Failure::input(format!("the input does not decode: {e}")))?;
            let out = match format {
                Format::Text => {
                    let options = PrintOptions::new().multi_line(true).print_unknown_fields(true);
                    with_newline(message.to_text_with(options))
                }
                Format::Json => with_newline(message.to_json_pretty().map_err(|e| Failure::input(e.to_string()))?),
            };
            write_stdout(out.as_bytes())
        }
        Command::Encode { schema, format } => {
            let ty = message_type(&schema)?;
            let input = read_stdin()?;
            let text = String::from_utf8(input).map_err(|_| Failure::input("the input is not UTF-8 text"))?;
            let message = match format {
                Format::Text => DynamicMessage::parse_text(ty, &text).map_err(|e| Failure::input(e.to_string()))?,
                Format::Json => DynamicMessage::from_json(ty, &text).map_err(|e| Failure::input(e.to_string()))?,
            };
            write_stdout(&message.encode_to_vec())
        }
        Command::Validate {
            schema,
            format,
            fail_fast,
        } => {
            let ty = message_type(&schema)?;
            let input = read_stdin()?;
            let message = match format {
                None => DynamicMessage::decode(ty, &input)
                    .map_err(|e| Failure::input(format!("the input does not decode: {e}")))?,
                Some(format) => {
                    let text = String::from_utf8(input).map_err(|_| Failure::input("the input is not UTF-8 text"))?;
                    match format {
                        Format::Text => DynamicMessage::parse_text(ty, &text).map_err(|e| e.to_string()),
                        Format::Json => DynamicMessage::from_json(ty, &text).map_err(|e| e.to_string()),
                    }
                    .map_err(Failure::input)?
                }
            };
            let (out, valid) = validate::report(&message, fail_fast).map_err(Failure::input)?;
            write_stdout(out.as_bytes())?;
            if valid {
                Ok(())
            } else {
                Err(Failure::quiet(1))
            }
        }
        Command::Compile(compile) => run_compile(&compile),
        Command::Describe { source, name } => {
            let pool = load(&source)?;
            let out = describe::describe(&pool, name.as_deref()).map_err(Failure::usage)?;
            write_stdout(out.as_bytes())
        }
    }
}

/// A compiler searching `includes`, in order.
fn compiler(includes: &[String]) -> fastrs_compiler::Compiler {
    let mut compiler = fastrs_compiler::Compiler::new();
    for include in includes {
        compiler.include(include);
    }
    compiler
}

/// `fastrs compile`: the descriptor set of `.proto` files, written to a file.
fn run_compile(compile: &Compile) -> Result<(), Failure> {
    let mut compiler = compiler(&compile.includes);
    compiler
        .include_imports(compile.include_imports)
        .include_source_info(compile.include_source_info);
    let set = compiler.compile(&compile.files).map_err(|e| Failure::compile(&e))?;
    std::fs::write(&compile.output, fastrs::Message::encode_to_vec(&set))
        .map_err(|e| Failure::schema(format!("cannot write {}: {e}", compile.output)))
}

/// The pool a command's schema gives.
fn load(source: &Source) -> Result<DescriptorPool, Failure> {
    match source {
        Source::DescriptorSet(path) => {
            let bytes = std::fs::read(path).map_err(|e| Failure::schema(format!("cannot read {path}: {e}")))?;
            DescriptorPool::decode(&bytes).map_err(|e| Failure::schema(format!("{path}: {e}")))
        }
        Source::Proto { files, includes } => compiler(includes).pool(files).map_err(|e| Failure::compile(&e)),
    }
}

/// The message type a command names, from its schema.
fn message_type(schema: &args::Schema) -> Result<MessageDescriptor, Failure> {
    let pool = load(&schema.source)?;
    pool.get_message_by_name(&schema.type_name)
        .ok_or_else(|| Failure::schema(format!("the schema declares no message {}", schema.type_name)))
}

fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| Failure::input(format!("cannot read standard input: {e}")))?;
    Ok(input)
}

fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::input(format!("cannot write standard output: {e}")))
}

/// `text` ending in a newline, unless empty.
fn with_newline(mut text: String) -> String {
    if !text.is_empty() {
        text.push('\n');
    }
    text
}
