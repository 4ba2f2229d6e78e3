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
//! with the files it imports, transitively. The files are linked into a
//! `fastrs::reflect::DescriptorPool`, the same schema layer as reflection,
//! `DynamicMessage` and the text format; [`Reflection::with_pool`] serves a
//! pool loaded at run time.

use std::collections::HashSet;
use std::sync::Arc;

use fastrs::reflect::{DescriptorPool, FileDescriptor, PoolError};
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
    pool: DescriptorPool,
}

impl Default for Reflection {
    fn default() -> Self {
        Reflection::new()
    }
}

/// Registered descriptors that do not decode or link; says which file and
/// symbol.
#[derive(Debug)]
pub struct BadDescriptors(PoolError);

impl std::fmt::Display for BadDescriptors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the registered descriptors do not link: {}", self.0)
    }
}

impl std::error::Error for BadDescriptors {}

impl Reflection {
    /// The reflection services' own schemas, registered.
    #[must_use]
    pub fn new() -> Self {
        Reflection {
            sets: vec![v1::FILE_DESCRIPTOR_SET, v1alpha::FILE_DESCRIPTOR_SET],
            pool: DescriptorPool::new(),
        }
    }

    /// Serves the files of `pool` too: a schema loaded at run time (a
    /// gateway's or a registry's), or `DescriptorPool::global()`.
    #[must_use]
    pub fn with_pool(mut self, pool: DescriptorPool) -> Self {
        self.pool = pool;
        self
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

    /// Links the registered files into one pool (`fastrs::reflect`), which
    /// the services answer from.
    ///
    /// # Errors
    /// Registered sets that do not decode or link: a file of one name with
    /// two contents, a name declared twice, an import not registered.
    pub fn build(self) -> Result<ReflectionServices, BadDescriptors> {
        let mut pool = self.pool;
        pool.add_file_descriptor_sets(&self.sets).map_err(BadDescriptors)?;
        Ok(ReflectionServices {
            index: Arc::new(Index { pool }),
        })
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

/// What the registered files declare: a descriptor pool, which finds
/// symbols, extensions and imports by name.
#[derive(Debug)]
struct Index {
    pool: DescriptorPool,
}

impl Index {
    /// `file` and the files it imports, transitively, encoded.
    fn file_with_imports(&self, file: &FileDescriptor) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut queue = vec![file.clone()];
        while let Some(next) = queue.pop() {
            if !seen.insert(next.name().to_string()) {
                continue;
            }
            out.push(next.encoded().to_vec());
            queue.extend(next.dependencies());
        }
        out
    }

    fn answer(&self, request: ServerReflectionRequest) -> ServerReflectionResponse {
        let not_found = |what: String| MessageResponse::ErrorResponse(error(Code::NotFound, what));
        let files = |found: Option<FileDescriptor>, what: String| match found {
            Some(file) => MessageResponse::FileDescriptorResponse(FileDescriptorResponse {
                file_descriptor_proto: self.file_with_imports(&file),
                ..Default::default()
            }),
            None => not_found(what),
        };
        let pool = &self.pool;
        let answer = match &request.message_request {
            Some(MessageRequest::FileByFilename(name)) => {
                files(pool.get_file_by_name(name), format!("no file named {name:?}"))
            }
            Some(MessageRequest::FileContainingSymbol(symbol)) => {
                files(pool.get_file_containing_symbol(symbol), format!("no symbol {symbol:?}"))
            }
            Some(MessageRequest::FileContainingExtension(ext)) => {
                let ty = ext.containing_type.trim_start_matches('.');
                let found = u32::try_from(ext.extension_number)
                    .ok()
                    .and_then(|n| pool.get_message_by_name(ty)?.get_extension(n));
                files(
                    found.map(|e| e.file()),
                    format!("no extension {} of {ty:?}", ext.extension_number),
                )
            }
            Some(MessageRequest::AllExtensionNumbersOfType(ty)) => {
                let ty = ty.trim_start_matches('.');
                match pool.get_message_by_name(ty) {
                    Some(message) => {
                        let mut extension_number: Vec<i32> = message
                            .extensions()
                            .filter_map(|e| i32::try_from(e.number()).ok())
                            .collect();
                        extension_number.sort_unstable();
                        MessageResponse::AllExtensionNumbersResponse(ExtensionNumberResponse {
                            base_type_name: ty.to_string(),
                            extension_number,
                            ..Default::default()
                        })
                    }
                    None => not_found(format!("no message type {ty:?}")),
                }
            }
            Some(MessageRequest::ListServices(_)) => MessageResponse::ListServicesResponse(ListServiceResponse {
                service: pool
                    .all_services()
                    .map(|s| ServiceResponse {
                        name: s.full_name().to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(index: &Index, request: MessageRequest) -> MessageResponse {
        let request = ServerReflectionRequest {
            message_request: Some(request),
            ..Default::default()
        };
        index.answer(request).message_response.expect("an answer")
    }

    fn file_names(response: MessageResponse) -> Vec<String> {
        let MessageResponse::FileDescriptorResponse(files) = response else {
            panic!("files expected, got {response:?}")
        };
        // Each file's name is its first field (1), a short string.
        let mut names: Vec<String> = files
            .file_descriptor_proto
            .iter()
            .map(|f| {
                assert_eq!(f[0], 0x0a, "the name comes first");
                String::from_utf8(f[2..2 + usize::from(f[1])].to_vec()).unwrap()
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn answers_every_kind_of_request_from_the_pool() {
        let services = Reflection::new()
            .register_described::<fastrs::well_known::Timestamp>()
            .build()
            .unwrap();
        let index = &services.index;
        let by_symbol = |s: &str| file_names(ask(index, MessageRequest::FileContainingSymbol(s.into())));
        let reflection = ["grpc/reflection/v1/reflection.proto"];
        assert_eq!(by_symbol("grpc.reflection.v1.ServerReflection"), reflection);
        assert_eq!(
            by_symbol("grpc.reflection.v1.ServerReflection.ServerReflectionInfo"),
            reflection
        );
        assert_eq!(by_symbol(".grpc.reflection.v1.ErrorResponse.error_code"), reflection);
        assert_eq!(
            by_symbol("google.protobuf.Timestamp"),
            ["google/protobuf/timestamp.proto"]
        );
        let by_name = file_names(ask(
            index,
            MessageRequest::FileByFilename("google/protobuf/timestamp.proto".into()),
        ));
        assert_eq!(by_name, ["google/protobuf/timestamp.proto"]);
        for missing in [
            MessageRequest::FileContainingSymbol("no.Such".into()),
            MessageRequest::FileContainingSymbol("grpc.reflection".into()),
            MessageRequest::FileByFilename("nope.proto".into()),
            MessageRequest::AllExtensionNumbersOfType("no.Such".into()),
        ] {
            let MessageResponse::ErrorResponse(e) = ask(index, missing) else {
                panic!("not found expected")
            };
            assert_eq!(e.error_code, Code::NotFound as i32);
        }
        let MessageResponse::ListServicesResponse(list) = ask(index, MessageRequest::ListServices(String::new()))
        else {
            panic!("a list expected")
        };
        let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection"
            ]
        );
        let MessageResponse::AllExtensionNumbersResponse(numbers) = ask(
            index,
            MessageRequest::AllExtensionNumbersOfType("google.protobuf.Timestamp".into()),
        ) else {
            panic!("numbers expected")
        };
        assert!(numbers.extension_number.is_empty());
    }

    #[test]
    fn descriptors_that_do_not_link_are_refused() {
        let result = Reflection::new()
            .register_descriptor_set(&[0x0a, 0x02, 0x0a, 0x00, 0xff])
            .build();
        assert!(result.is_err());
    }
}
