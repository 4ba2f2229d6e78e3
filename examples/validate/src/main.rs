//! protovalidate's rules on fastrs messages: a request validated in
//! place, read with `decode_validated`, validated as a `DynamicMessage`,
//! and sent to a gRPC service that refuses it with the violations in the
//! status details.

use fastrs::reflect::{DynamicMessage, ReflectMessage};
use fastrs::validate::{DecodeValidated, Rejected, Validate};
use fastrs::Message;
use fastrs_tonic::validate::checked;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

#[allow(dead_code)] // accessors of fields this example does not read
mod protos {
    include!(concat!(env!("OUT_DIR"), "/protos.rs"));
}

use protos::acme::signup::v1::signup_client::SignupClient;
use protos::acme::signup::v1::signup_server::{self, SignupServer};
use protos::acme::signup::v1::{Address, CreateAccountRequest, CreateAccountResponse};

/// The service: its handler runs only for valid requests.
struct Accounts;

#[tonic::async_trait]
impl signup_server::Signup for Accounts {
    async fn create_account(
        &self,
        request: Request<CreateAccountRequest>,
    ) -> Result<Response<CreateAccountResponse>, Status> {
        let request = request.into_inner();
        println!("server: creating an account for {}", request.email);
        Ok(Response::new(CreateAccountResponse {
            id: 1,
            ..Default::default()
        }))
    }
}

fn request() -> CreateAccountRequest {
    CreateAccountRequest {
        email: "ada@example.com".into(),
        name: "Ada".into(),
        age: 36,
        tags: vec!["math".into()],
        address: Some(Address {
            line1: "12 St James's Square".into(),
            city: "London".into(),
            country: "GB".into(),
            ..Default::default()
        }),
        password: "correct horse".into(),
        password_confirmation: "correct horse".into(),
        ..Default::default()
    }
}

fn broken() -> CreateAccountRequest {
    CreateAccountRequest {
        email: "ada at example.com".into(),
        age: 7,
        tags: vec!["Math".into()],
        password_confirmation: "oops".into(),
        ..request()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. In place: `validate` gives every violation (path, rule, message).
    request().validate()?;
    let err = broken().validate().expect_err("broken");
    println!("{err}");

    // 2. From bytes: decode and validate in one call.
    let bytes = broken().encode_to_vec();
    match CreateAccountRequest::decode_validated(&bytes) {
        Err(Rejected::Invalid(e)) => {
            println!(
                "decode_validated: {} violation(s)",
                e.violations().map_or(0, |v| v.violations.len())
            );
        }
        other => panic!("expected violations, got {other:?}"),
    }

    // 3. The same rules on a message known only through its descriptor.
    let dynamic = DynamicMessage::decode(CreateAccountRequest::descriptor(), &bytes)?;
    assert_eq!(dynamic.validate(), broken().validate());
    println!("DynamicMessage: the same violations");

    // 4. A gRPC service: the server refuses invalid requests before its
    // handler runs; the client checks before sending.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(SignupServer::new(Accounts))
            .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true))),
    );
    let mut client = SignupClient::connect(format!("http://{addr}")).await?;
    let created = client.create_account(checked(request())?).await?.into_inner();
    println!("client: account {} created", created.id);

    let not_sent = checked(broken()).expect_err("invalid");
    println!("client: not sent: {:?}", not_sent.code());

    // Sent anyway, it is refused by the server with the same status: the
    // violations in the details.
    let status = client.create_account(broken()).await.expect_err("refused");
    let violations = fastrs_tonic::validate::violations(&status).expect("violations in the details");
    println!("server: refused with {:?}:", status.code());
    for v in &violations.violations {
        let field = v.field.as_ref().map(fastrs::validate::path_string).unwrap_or_default();
        let field = if field.is_empty() {
            "(the message)".to_string()
        } else {
            field
        };
        println!(
            "  {field}: {} [{}]",
            v.message.as_deref().unwrap_or(""),
            v.rule_id.as_deref().unwrap_or("")
        );
    }
    server.abort();
    Ok(())
}
