//! Connect clients (`connect=true`): per `service`, a client with the
//! methods of tonic's generated client (same names, request and response
//! types), calling `fastrs_tonic::connect::ConnectClient`. Methods marked
//! `NO_SIDE_EFFECTS` are called with GET (cacheable), as Connect allows.

use heck::ToSnakeCase as _;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::grpc::in_service_module;
use super::tokens::doc_attrs;
use crate::model::names;
use crate::model::{Package, Rpc, Service};

/// The Connect client modules of `package`'s services `services`.
pub fn clients(package: &Package, services: &[Service]) -> TokenStream {
    let clients = services.iter().map(|s| client(package, s));
    quote!(#(#clients)*)
}

fn client(package: &Package, service: &Service) -> TokenStream {
    let module = format_ident!("{}_connect_client", service.name.to_snake_case());
    let name = format_ident!("{}ConnectClient", service.name);
    let docs = doc_attrs(&service.docs);
    let summary = format!(
        " A Connect client of `{}`: the methods of tonic's client, over the Connect protocol.",
        full_name(service)
    );
    let methods = service.methods.iter().map(|rpc| method(package, service, rpc));
    quote! {
        /// Connect clients of the service (fastrs-tonic's `connect-client`).
        pub mod #module {
            #docs
            #[doc = ""]
            #[doc = #summary]
            #[derive(Debug, Clone)]
            pub struct #name {
                inner: ::fastrs_tonic::connect::ConnectClient,
            }

            impl #name {
                /// A client that calls through `inner` (its server, HTTP
                /// version and codec).
                pub fn new(inner: ::fastrs_tonic::connect::ConnectClient) -> Self {
                    Self { inner }
                }

                #(#methods)*
            }
        }
    }
}

/// One method: its call, of the kind its streaming makes it.
fn method(package: &Package, service: &Service, rpc: &Rpc) -> TokenStream {
    let name = names::field_ident(&rpc.name);
    let path = format!("/{}/{}", full_name(service), rpc.name);
    let input = in_service_module(&rpc.input, package);
    let output = in_service_module(&rpc.output, package);
    let docs = doc_attrs(&rpc.docs);
    let deprecated = rpc.deprecated.then(|| quote!(#[deprecated]));
    let streaming = quote!(::fastrs_tonic::connect::ConnectStreaming);
    let (request, answer, call) = match (rpc.client_streaming, rpc.server_streaming) {
        (false, false) if rpc.side_effect_free => (
            quote!(impl ::tonic::IntoRequest<#input>),
            quote!(#output),
            quote!(self.inner.unary_get(#path, ::tonic::IntoRequest::<#input>::into_request(request))),
        ),
        (false, false) => (
            quote!(impl ::tonic::IntoRequest<#input>),
            quote!(#output),
            quote!(self.inner.unary(#path, ::tonic::IntoRequest::<#input>::into_request(request))),
        ),
        (false, true) => (
            quote!(impl ::tonic::IntoRequest<#input>),
            quote!(#streaming<#output>),
            quote!(self.inner.server_streaming(#path, ::tonic::IntoRequest::<#input>::into_request(request))),
        ),
        (true, false) => (
            quote!(impl ::tonic::IntoStreamingRequest<Message = #input>),
            quote!(#output),
            quote!(self.inner.client_streaming(#path, request.into_streaming_request())),
        ),
        (true, true) => (
            quote!(impl ::tonic::IntoStreamingRequest<Message = #input>),
            quote!(#streaming<#output>),
            quote!(self.inner.streaming(#path, request.into_streaming_request())),
        ),
    };
    // With validation, a single request is checked before it is sent, as
    // the gRPC client's codec checks each.
    let check = (package.validation.is_some() && !rpc.client_streaming).then(|| {
        quote! {
            let request = ::fastrs_tonic::validate::checked(request)?;
        }
    });
    quote! {
        #docs
        #deprecated
        pub async fn #name(&self, request: #request) -> ::core::result::Result<::tonic::Response<#answer>, ::tonic::Status> {
            #check
            #call.await
        }
    }
}

/// `pkg.Service`.
fn full_name(service: &Service) -> String {
    if service.package.is_empty() {
        service.name.clone()
    } else {
        format!("{}.{}", service.package, service.name)
    }
}
