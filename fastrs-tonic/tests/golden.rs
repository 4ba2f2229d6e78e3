//! The golden files of the optional outputs (`tests/golden/golden.service.rs`
//! and its size-mode twin: views, a gRPC service, the embedded descriptor
//! set, `bytes` fields as `Bytes`) and of the Connect client
//! (`tests/golden/connect/`) compile warning-free and work. They are
//! checked against the generator by fastrs-tests' golden test; this crate
//! has what they need (tonic, and its own `connect-client` feature).

#[deny(warnings)]
#[allow(dead_code)]
mod speed {
    include!("../../tests/golden/golden.service.rs");
}

#[deny(warnings)]
#[allow(dead_code)]
mod size {
    include!("../../tests/golden/size/golden.service.rs");
}

/// The Connect client's golden file: the service with tonic's client and
/// server and the generated Connect client.
#[cfg(feature = "connect-client")]
#[deny(warnings)]
#[allow(dead_code)]
mod connect {
    include!("../../tests/golden/connect/golden.service.rs");
}

use fastrs::bytes::Bytes;
use fastrs::Message;

macro_rules! both_modes {
    ($($test:ident => $body:expr;)*) => {$(
        mod $test {
            #[test]
            fn speed() {
                use super::speed as golden;
                $body
            }
            #[test]
            fn size() {
                use super::size as golden;
                $body
            }
        }
    )*};
}

fn blob<B: Default>(make: impl FnOnce(&mut B)) -> B {
    let mut b = B::default();
    make(&mut b);
    b
}

both_modes! {
    shared_bytes_slice_the_input => {
        let original = super::blob(|b: &mut golden::Blob| {
            b.key = "k".into();
            b.data = super::Bytes::from_static(b"payload");
            b.chunks = vec![super::Bytes::from_static(b"a"), super::Bytes::from_static(b"bc")];
            b.checksum = Some(super::Bytes::from_static(b"\x01\x02"));
            b.metadata.insert("type".into(), super::Bytes::from_static(b"text/plain"));
            b.origin = Some(golden::blob::Origin::InlineSource(super::Bytes::from_static(b"src")));
            b.offsets = vec![-1, 0, 1 << 40];
            b.previous = Some(Box::new(super::blob(|p: &mut golden::Blob| p.key = "old".into())));
        });
        let wire = super::Bytes::from(super::Message::encode_to_vec(&original));
        let back = <golden::Blob as super::Message>::decode_shared(&wire).unwrap();
        assert_eq!(back, original);
        // The payload is a slice of the input, not a copy.
        let range = wire.as_ptr_range();
        assert!(range.contains(&back.data.as_ptr()));
        assert!(range.contains(&back.chunks[1].as_ptr()));
    };
    views_read_what_was_written => {
        let original = super::blob(|b: &mut golden::Blob| {
            b.key = "k".into();
            b.data = super::Bytes::from_static(b"payload");
            b.checksum = Some(super::Bytes::from_static(b"sum"));
            b.offsets = vec![3, -4];
            b.origin = Some(golden::blob::Origin::Url("https://example.com/k".into()));
        });
        let wire = super::Message::encode_to_vec(&original);
        let view = golden::BlobView::decode(&wire).unwrap();
        assert_eq!(view.key, "k");
        assert_eq!(view.data, b"payload");
        assert_eq!(view.checksum, Some(&b"sum"[..]));
        assert_eq!(view.offsets.iter().collect::<Vec<_>>(), [3, -4]);
        assert_eq!(view.to_owned(), original);
    };
    the_descriptor_set_describes_the_service => {
        use fastrs::descriptor::FileDescriptorSet;
        let set = <FileDescriptorSet as super::Message>::decode(golden::FILE_DESCRIPTOR_SET).unwrap();
        let file = &set.file[0];
        assert_eq!(file.name(), "golden/service.proto");
        let service = &file.service[0];
        assert_eq!(service.name(), "Store");
        let streaming: Vec<_> = service
            .method
            .iter()
            .map(|m| (m.name(), m.client_streaming(), m.server_streaming()))
            .collect();
        assert_eq!(
            streaming,
            [("Get", false, false), ("List", false, true), ("Put", true, false), ("Sync", true, true)]
        );
    };
}

/// The generated service, served and called over a real connection: by
/// tonic's generated client over gRPC, and by the generated Connect client
/// through `ConnectLayer`.
macro_rules! store_service {
    ($golden:ident, $serve:expr, $client:expr) => {
        use std::pin::Pin;

        use tokio_stream::{Stream, StreamExt};
        use tonic::{Request, Response, Status, Streaming};

        use crate::$golden::store_server::{Store, StoreServer};
        use crate::$golden::{Blob, GetRequest, ListRequest};

        type Blobs = Pin<Box<dyn Stream<Item = Result<Blob, Status>> + Send>>;
        type Incoming = tokio_stream::wrappers::TcpListenerStream;

        struct Keeper;

        fn named(key: &str) -> Blob {
            Blob {
                key: key.into(),
                // `Bytes` in `speed` (bytes=.), `Vec<u8>` in `connect`.
                data: key.as_bytes().to_vec().into(),
                ..Default::default()
            }
        }

        #[tonic::async_trait]
        impl Store for Keeper {
            async fn get(&self, request: Request<GetRequest>) -> Result<Response<Blob>, Status> {
                Ok(Response::new(named(&request.into_inner().key)))
            }

            type ListStream = Blobs;
            async fn list(&self, request: Request<ListRequest>) -> Result<Response<Blobs>, Status> {
                let ListRequest { prefix, limit, .. } = request.into_inner();
                let blobs = (0..limit).map(move |i| Ok(named(&format!("{prefix}{i}"))));
                Ok(Response::new(Box::pin(tokio_stream::iter(blobs))))
            }

            async fn put(&self, request: Request<Streaming<Blob>>) -> Result<Response<Blob>, Status> {
                let mut last = Blob::default();
                let mut blobs = request.into_inner();
                while let Some(blob) = blobs.next().await {
                    last = blob?;
                }
                Ok(Response::new(last))
            }

            type SyncStream = Blobs;
            async fn sync(&self, request: Request<Streaming<Blob>>) -> Result<Response<Blobs>, Status> {
                Ok(Response::new(Box::pin(request.into_inner())))
            }
        }

        #[tokio::test]
        async fn every_kind_of_call_works() {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            tokio::spawn(($serve)(StoreServer::new(Keeper), incoming));
            let base = format!("http://{address}");
            #[allow(unused_mut)]
            let mut client = ($client)(base).await;

            let got = client
                .get(GetRequest {
                    key: "a".into(),
                    ..Default::default()
                })
                .await
                .unwrap();
            assert_eq!(got.into_inner(), named("a"));

            let request = ListRequest {
                prefix: "p".into(),
                limit: 3,
                ..Default::default()
            };
            let listed: Vec<Blob> = client
                .list(request)
                .await
                .unwrap()
                .into_inner()
                .map(Result::unwrap)
                .collect()
                .await;
            assert_eq!(listed, [named("p0"), named("p1"), named("p2")]);

            let put = client
                .put(tokio_stream::iter([named("x"), named("y")]))
                .await
                .unwrap();
            assert_eq!(put.into_inner(), named("y"));

            let synced = client
                .sync(tokio_stream::iter([named("s")]))
                .await
                .unwrap()
                .into_inner();
            let synced: Vec<Blob> = synced.map(Result::unwrap).collect().await;
            assert_eq!(synced, [named("s")]);
        }
    };
}

mod service {
    store_service!(
        speed,
        |service: StoreServer<Keeper>, incoming: Incoming| tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(incoming),
        |base: String| async move { crate::speed::store_client::StoreClient::connect(base).await.unwrap() }
    );
}

#[cfg(feature = "connect-client")]
mod connect_service {
    store_service!(
        connect,
        |service: StoreServer<Keeper>, incoming: Incoming| tonic::transport::Server::builder()
            .layer(fastrs_tonic::connect::ConnectLayer::binary_only())
            .add_service(service)
            .serve_with_incoming(incoming),
        |base: String| async move {
            let inner = fastrs_tonic::connect::ConnectClient::http2(base);
            crate::connect::store_connect_client::StoreConnectClient::new(inner)
        }
    );
}
