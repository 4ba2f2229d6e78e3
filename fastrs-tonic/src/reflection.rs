//! gRPC server reflection, `grpc.reflection.v1` and `v1alpha` (feature
//! `reflection`): lets `grpcurl`-style tools list a server's services and
//! call them without the `.proto` files. It serves the descriptors fastrs
//! embeds (`Builder::file_descriptors()`, plugin `descriptors=true`).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use fastrs_tonic::reflection::Reflection;
//! let reflection = Reflection::new()
//!     .register_described::<fastrs::well_known::Timestamp>() // any message of each package
//!     .build()?;
//! tonic::transport::Server::builder()
//!     .add_service(reflection.v1())
//!     .add_service(reflection.v1alpha())
//!     .serve("127.0.0.1:50051".parse()?)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! Every service of the registered files is listed. A file is answered
//! with the files it imports, transitively, as far as they are registered.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use fastrs::descriptor::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
use fastrs::{Described, Message};
use tokio_stream::StreamExt as _;
use tonic::{Code, Request, Response, Status, Streaming};

/// The generated messages, client and server of `grpc.reflection.v1`.
#[allow(missing_docs, clippy::all)]
pub mod v1 {
    include!("generated/grpc.reflection.v1.rs");
}

/// The generated messages, client and server of `grpc.reflection.v1alpha`.
#[allow(missing_docs, clippy::all)]
pub mod v1alpha {
    include!("generated/grpc.reflection.v1alpha.rs");
}

use v1::server_reflection_request::MessageRequest;
use v1::server_reflection_response::MessageResponse;
use v1::{
    ErrorResponse, ExtensionNumberResponse, FileDescriptorResponse, ListServiceResponse, ServerReflectionRequest,
    ServerReflectionResponse, ServiceResponse,
};

/// Collects descriptor sets, then builds the reflection services.
#[derive(Debug, Clone)]
pub struct Reflection {
    sets: Vec<&'static [u8]>,
}

impl Default for Reflection {
    fn default() -> Self {
        Reflection::new()
    }
}

/// A descriptor set that does not decode.
#[derive(Debug)]
pub struct BadDescriptors(fastrs::DecodeError);

impl std::fmt::Display for BadDescriptors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a registered descriptor set does not decode: {}", self.0)
    }
}

impl std::error::Error for BadDescriptors {}

impl Reflection {
    /// The reflection services' own schemas, registered.
    #[must_use]
    pub fn new() -> Self {
        Reflection {
            sets: vec![v1::FILE_DESCRIPTOR_SET, v1alpha::FILE_DESCRIPTOR_SET],
        }
    }

    /// Registers an encoded `google.protobuf.FileDescriptorSet` (a
    /// package's `FILE_DESCRIPTOR_SET`).
    #[must_use]
    pub fn register_descriptor_set(mut self, set: &'static [u8]) -> Self {
        self.sets.push(set);
        self
    }

    /// Registers the package of `M` and the packages it imports.
    #[must_use]
    pub fn register_described<M: Described>(mut self) -> Self {
        self.sets.push(M::FILE_DESCRIPTOR_SET);
        self.sets.extend(M::IMPORTED_DESCRIPTOR_SETS);
        self
    }

    /// Indexes the registered files.
    ///
    /// # Errors
    /// A registered set that does not decode.
    pub fn build(self) -> Result<ReflectionServices, BadDescriptors> {
        let mut index = Index::default();
        for set in self.sets {
            let set = FileDescriptorSet::decode(set).map_err(BadDescriptors)?;
            for file in set.file {
                index.add(file);
            }
        }
        Ok(ReflectionServices { index: Arc::new(index) })
    }
}

/// The built index, from which both versions' services are made.
#[derive(Debug, Clone)]
pub struct ReflectionServices {
    index: Arc<Index>,
}

impl ReflectionServices {
    /// `grpc.reflection.v1.ServerReflection`.
    #[must_use]
    pub fn v1(&self) -> v1::server_reflection_server::ServerReflectionServer<ReflectionV1> {
        v1::server_reflection_server::ServerReflectionServer::new(ReflectionV1 {
            index: self.index.clone(),
        })
    }

    /// `grpc.reflection.v1alpha.ServerReflection`, for older clients.
    #[must_use]
    pub fn v1alpha(&self) -> v1alpha::server_reflection_server::ServerReflectionServer<ReflectionV1alpha> {
        v1alpha::server_reflection_server::ServerReflectionServer::new(ReflectionV1alpha {
            index: self.index.clone(),
        })
    }
}

/// What the registered files declare, by name.
#[derive(Debug, Default)]
struct Index {
    /// File name → the file and its encoding.
    files: HashMap<String, (FileDescriptorProto, Vec<u8>)>,
    /// Fully qualified symbol → the file declaring it.
    symbols: HashMap<String, String>,
    /// (extended message, number) → the file declaring the extension.
    extensions: HashMap<(String, i32), String>,
    services: Vec<String>,
}

impl Index {
    fn add(&mut self, file: FileDescriptorProto) {
        let name = file.name().to_string();
        if self.files.contains_key(&name) {
            return;
        }
        let package = file.package();
        let mut symbols = Vec::new();
        for m in &file.message_type {
            self.message(m, package, &name, &mut symbols);
        }
        symbols.extend(file.enum_type.iter().map(|e| join(package, e.name())));
        for s in &file.service {
            let full = join(package, s.name());
            symbols.extend(s.method.iter().map(|m| join(&full, m.name())));
            self.services.push(full.clone());
            symbols.push(full);
        }
        for ext in &file.extension {
            symbols.push(join(package, ext.name()));
            let extendee = ext.extendee().trim_start_matches('.').to_string();
            self.extensions.insert((extendee, ext.number()), name.clone());
        }
        for s in symbols {
            self.symbols.entry(s).or_insert_with(|| name.clone());
        }
        let encoded = file.encode_to_vec();
        self.files.insert(name, (file, encoded));
    }

    fn message(&mut self, m: &DescriptorProto, scope: &str, file: &str, symbols: &mut Vec<String>) {
        let full = join(scope, m.name());
        symbols.extend(m.field.iter().map(|f| join(&full, f.name())));
        symbols.extend(m.enum_type.iter().map(|e| join(&full, e.name())));
        for ext in &m.extension {
            symbols.push(join(&full, ext.name()));
            let extendee = ext.extendee().trim_start_matches('.').to_string();
            self.extensions.insert((extendee, ext.number()), file.to_string());
        }
        for nested in &m.nested_type {
            self.message(nested, &full, file, symbols);
        }
        symbols.push(full);
    }

    /// `name` and the files it imports, transitively, encoded.
    fn file_with_imports(&self, name: &str) -> Option<Vec<Vec<u8>>> {
        self.files.get(name)?;
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut queue = vec![name.to_string()];
        while let Some(next) = queue.pop() {
            if !seen.insert(next.clone()) {
                continue;
            }
            if let Some((file, encoded)) = self.files.get(&next) {
                out.push(encoded.clone());
                queue.extend(file.dependency.iter().filter_map(|d| d.as_str()).map(str::to_string));
            }
        }
        Some(out)
    }

    fn answer(&self, request: ServerReflectionRequest) -> ServerReflectionResponse {
        let not_found = |what: String| MessageResponse::ErrorResponse(error(Code::NotFound, what));
        let files = |found: Option<Vec<Vec<u8>>>, what: String| match found {
            Some(file_descriptor_proto) => MessageResponse::FileDescriptorResponse(FileDescriptorResponse {
                file_descriptor_proto,
                ..Default::default()
            }),
            None => not_found(what),
        };
        let answer = match &request.message_request {
            Some(MessageRequest::FileByFilename(name)) => {
                files(self.file_with_imports(name), format!("no file named {name:?}"))
            }
            Some(MessageRequest::FileContainingSymbol(symbol)) => {
                let found = self.symbols.get(symbol.trim_start_matches('.'));
                files(
                    found.and_then(|f| self.file_with_imports(f)),
                    format!("no symbol {symbol:?}"),
                )
            }
            Some(MessageRequest::FileContainingExtension(ext)) => {
                let key = (
                    ext.containing_type.trim_start_matches('.').to_string(),
                    ext.extension_number,
                );
                let found = self.extensions.get(&key);
                files(
                    found.and_then(|f| self.file_with_imports(f)),
                    format!("no extension {} of {:?}", key.1, key.0),
                )
            }
            Some(MessageRequest::AllExtensionNumbersOfType(ty)) => {
                let ty = ty.trim_start_matches('.');
                if self.symbols.contains_key(ty) {
                    let mut extension_number: Vec<i32> = self
                        .extensions
                        .keys()
                        .filter(|(of, _)| of == ty)
                        .map(|&(_, n)| n)
                        .collect();
                    extension_number.sort_unstable();
                    MessageResponse::AllExtensionNumbersResponse(ExtensionNumberResponse {
                        base_type_name: ty.to_string(),
                        extension_number,
                        ..Default::default()
                    })
                } else {
                    not_found(format!("no message type {ty:?}"))
                }
            }
            Some(MessageRequest::ListServices(_)) => MessageResponse::ListServicesResponse(ListServiceResponse {
                service: self
                    .services
                    .iter()
                    .map(|name| ServiceResponse {
                        name: name.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
            None => MessageResponse::ErrorResponse(error(Code::InvalidArgument, "an empty request".into())),
        };
        ServerReflectionResponse {
            valid_host: request.host.clone(),
            original_request: Some(request),
            message_response: Some(answer),
            ..Default::default()
        }
    }
}

fn error(code: Code, error_message: String) -> ErrorResponse {
    ErrorResponse {
        error_code: code as i32,
        error_message,
        ..Default::default()
    }
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// The stream of answers of one reflection call.
pub type Answers<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;

/// The v1 service.
#[derive(Debug, Clone)]
pub struct ReflectionV1 {
    index: Arc<Index>,
}

#[tonic::async_trait]
impl v1::server_reflection_server::ServerReflection for ReflectionV1 {
    type ServerReflectionInfoStream = Answers<ServerReflectionResponse>;

    async fn server_reflection_info(
        &self,
        request: Request<Streaming<ServerReflectionRequest>>,
    ) -> Result<Response<Self::ServerReflectionInfoStream>, Status> {
        let index = self.index.clone();
        let answers = request.into_inner().map(move |r| r.map(|r| index.answer(r)));
        Ok(Response::new(Box::pin(answers)))
    }
}

/// The v1alpha service: the same answers (its messages are v1's on the
/// wire, so each is converted by re-encoding).
#[derive(Debug, Clone)]
pub struct ReflectionV1alpha {
    index: Arc<Index>,
}

#[tonic::async_trait]
impl v1alpha::server_reflection_server::ServerReflection for ReflectionV1alpha {
    type ServerReflectionInfoStream = Answers<v1alpha::ServerReflectionResponse>;

    async fn server_reflection_info(
        &self,
        request: Request<Streaming<v1alpha::ServerReflectionRequest>>,
    ) -> Result<Response<Self::ServerReflectionInfoStream>, Status> {
        let index = self.index.clone();
        let answers = request.into_inner().map(move |r| {
            let request =
                ServerReflectionRequest::decode(&r?.encode_to_vec()).map_err(|e| Status::internal(e.to_string()))?;
            let answer = index.answer(request);
            v1alpha::ServerReflectionResponse::decode(&answer.encode_to_vec())
                .map_err(|e| Status::internal(e.to_string()))
        });
        Ok(Response::new(Box::pin(answers)))
    }
}
