//! gRPC services (`grpc=tonic`): a tonic client and server per `service`,
//! written by tonic-build's generator (the shape tonic users know) with
//! fastrs's codec, `fastrs_tonic::FastrsCodec`; with `validate=true`, the
//! server's is `fastrs_tonic::validate::ServerCodec`, which refuses
//! requests that break their rules.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::names::{self, TypePath};
use crate::model::{Package, Rpc, Service};

/// The codec every method encodes and decodes with.
const CODEC: &str = "::fastrs_tonic::FastrsCodec";

/// The codec of servers of packages with validation. (Clients check
/// requests with `fastrs_tonic::validate::checked`: a codec's error while
/// sending is a broken stream, not the status the server would give.)
const VALIDATING: &str = "::fastrs_tonic::validate::ServerCodec";

/// The client and server modules of `package`'s services `services`.
pub fn services(package: &Package, services: &[Service]) -> TokenStream {
    let mut builder = tonic_build::CodeGenBuilder::new();
    builder.emit_package(true).build_transport(true);
    let server_codec = match package.validation {
        Some(_) => VALIDATING,
        None => CODEC,
    };
    let out = services.iter().map(|s| {
        let client = builder.generate_client(&GrpcService::new(s, package, CODEC), "super");
        let server = builder.generate_server(&GrpcService::new(s, package, server_codec), "super");
        quote!(#client #server)
    });
    quote!(#(#out)*)
}

/// `path` as written in a module of `package`'s module (where clients and
/// servers sit).
pub(super) fn in_service_module(path: &TypePath, package: &Package) -> TokenStream {
    let from_package = path.relative_to(&package.scope);
    match path {
        TypePath::Local { .. } => quote!(super::#from_package),
        TypePath::Absolute(_) => from_package,
    }
}

/// A service as tonic-build reads it.
struct GrpcService<'s> {
    service: &'s Service,
    methods: Vec<GrpcMethod>,
}

impl<'s> GrpcService<'s> {
    fn new(service: &'s Service, package: &Package, codec: &'static str) -> Self {
        let methods = service
            .methods
            .iter()
            .map(|m| GrpcMethod::new(m, package, codec))
            .collect();
        GrpcService { service, methods }
    }
}

impl tonic_build::Service for GrpcService<'_> {
    type Comment = String;
    type Method = GrpcMethod;

    fn name(&self) -> &str {
        &self.service.name
    }

    fn package(&self) -> &str {
        &self.service.package
    }

    fn identifier(&self) -> &str {
        &self.service.name
    }

    fn methods(&self) -> &[GrpcMethod] {
        &self.methods
    }

    fn comment(&self) -> &[String] {
        &self.service.docs
    }
}

/// A method as tonic-build reads it: names and types worked out up front.
struct GrpcMethod {
    /// The Rust method name (`unary_call`, `r#type`).
    rust_name: String,
    proto_name: String,
    /// Request and response types as written in the client and server
    /// modules, one level below the package's module.
    types: (TokenStream, TokenStream),
    client_streaming: bool,
    server_streaming: bool,
    docs: Vec<String>,
    deprecated: bool,
    /// The path of the codec it encodes and decodes with.
    codec: &'static str,
}

impl GrpcMethod {
    fn new(rpc: &Rpc, package: &Package, codec: &'static str) -> Self {
        let in_module = |path: &TypePath| in_service_module(path, package);
        GrpcMethod {
            rust_name: names::field_ident(&rpc.name).to_string(),
            proto_name: rpc.name.clone(),
            types: (in_module(&rpc.input), in_module(&rpc.output)),
            client_streaming: rpc.client_streaming,
            server_streaming: rpc.server_streaming,
            docs: rpc.docs.clone(),
            deprecated: rpc.deprecated,
            codec,
        }
    }
}

impl tonic_build::Method for GrpcMethod {
    type Comment = String;

    fn name(&self) -> &str {
        &self.rust_name
    }

    fn identifier(&self) -> &str {
        &self.proto_name
    }

    fn codec_path(&self) -> &str {
        self.codec
    }

    fn client_streaming(&self) -> bool {
        self.client_streaming
    }

    fn server_streaming(&self) -> bool {
        self.server_streaming
    }

    fn comment(&self) -> &[String] {
        &self.docs
    }

    fn deprecated(&self) -> bool {
        self.deprecated
    }

    fn request_response_name(&self, _proto_path: &str, _compile_well_known_types: bool) -> (TokenStream, TokenStream) {
        self.types.clone()
    }
}
