//! Decode limits reach generated servers through the codec's default
//! (`fastrs_tonic::set_default_decode_options`). A test binary of its own:
//! the setting is process-wide.

use std::time::Duration;

use fastrs::Message as _;

#[test]
fn decode_limits_apply_to_generated_servers() {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    rt.block_on(async {
        fastrs_tonic::set_default_decode_options(fastrs::DecodeOptions {
            recursion_limit: 0,
            ..Default::default()
        });
        let (listener, addr) = fastrs_grpc_interop::server::bind(0).await.expect("binds");
        let serving = tokio::spawn(fastrs_grpc_interop::server::serve(listener));
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("an address")
            .connect_timeout(Duration::from_secs(5))
            .connect()
            .await
            .expect("connects");
        // SimpleRequest { payload: Payload { .. } }: one nested level, one
        // more than the limit allows.
        let request = fastrs_grpc_interop::pb::SimpleRequest {
            payload: Some(fastrs_grpc_interop::server::payload(1).expect("size")),
            ..Default::default()
        };
        let status = fastrs_grpc_interop::raw::unary(channel.clone(), request.encode_to_vec())
            .await
            .expect_err("too deep");
        assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
        assert!(status.message().contains("recursion"), "{}", status.message());
        // A flat request still passes.
        let flat = fastrs_grpc_interop::pb::SimpleRequest::default().encode_to_vec();
        fastrs_grpc_interop::raw::unary(channel, flat)
            .await
            .expect("a flat request");
        serving.abort();
    });
}
