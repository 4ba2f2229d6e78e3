//! One service, three protocols, one port: the catalog is a plain tonic
//! service, and two tower layers serve it over Connect (`ConnectLayer`,
//! JSON and binary) and gRPC-Web (`tonic_web`) beside gRPC.
//!
//! `cargo run -p fastrs-example-connect` starts the server on a free port,
//! calls it as curl would (Connect JSON over HTTP/1.1, POST and GET), with
//! the generated Connect client and with tonic's gRPC client, and exits. With `-- --serve [--port 8080]` it
//! keeps serving, for curl, buf curl and browsers (see the README).

use std::error::Error;

use fastrs_tonic::connect::ConnectClient;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_stream::StreamExt as _;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// `acme.catalog.v1`: the messages, tonic's `Catalog` client and server,
/// the Connect client.
mod protos {
    include!(concat!(env!("OUT_DIR"), "/protos.rs"));
}

use protos::acme::catalog::v1::catalog_client::CatalogClient;
use protos::acme::catalog::v1::catalog_connect_client::CatalogConnectClient;
use protos::acme::catalog::v1::catalog_server::{self, CatalogServer};
use protos::acme::catalog::v1::{LookupRequest, Product, SearchRequest};

/// The service: a fixed list of products.
struct Catalog {
    products: Vec<Product>,
}

impl Catalog {
    fn new() -> Self {
        let product = |sku: &str, name: &str, unit_price| Product {
            sku: sku.into(),
            name: name.into(),
            unit_price,
            ..Default::default()
        };
        Catalog {
            products: vec![
                product("A-1", "red teapot", 2500),
                product("B-7", "blue teacup", 900),
                product("C-3", "red kettle", 4200),
            ],
        }
    }
}

#[tonic::async_trait]
impl catalog_server::Catalog for Catalog {
    async fn lookup(&self, request: Request<LookupRequest>) -> Result<Response<Product>, Status> {
        let sku = request.into_inner().sku;
        match self.products.iter().find(|p| p.sku == sku) {
            Some(product) => Ok(Response::new(product.clone())),
            None => Err(Status::not_found(format!("no product {sku:?}"))),
        }
    }

    type SearchStream = tokio_stream::Iter<std::vec::IntoIter<Result<Product, Status>>>;

    async fn search(&self, request: Request<SearchRequest>) -> Result<Response<Self::SearchStream>, Status> {
        let word = request.into_inner().word;
        let found: Vec<_> = self
            .products
            .iter()
            .filter(|p| p.name.contains(&word))
            .cloned()
            .map(Ok)
            .collect();
        Ok(Response::new(tokio_stream::iter(found)))
    }
}

/// Serves the catalog on `listener` over gRPC, gRPC-Web and Connect, on
/// HTTP/1.1 and HTTP/2, to callers of any origin.
async fn serve(listener: TcpListener) -> Result<(), Box<dyn Error + Send + Sync>> {
    let pool = descriptors()?;
    // Without TCP_NODELAY, small answers wait for delayed ACKs (40 ms).
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .accept_http1(true)
        .layer(fastrs_tonic::connect::ConnectLayer::new(pool).cors(fastrs_tonic::connect::Cors::any_origin()))
        .layer(tonic_web::GrpcWebLayer::new())
        .add_service(CatalogServer::new(Catalog::new()))
        .serve_with_incoming(incoming)
        .await?;
    Ok(())
}

/// The catalog's descriptors: Connect's JSON is read and written by them.
fn descriptors() -> Result<fastrs::reflect::DescriptorPool, fastrs::reflect::PoolError> {
    let mut pool = fastrs::reflect::DescriptorPool::new();
    pool.add_described::<Product>()?;
    Ok(pool)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--serve") {
        let port = match args.iter().position(|a| a == "--port") {
            Some(i) => args.get(i + 1).ok_or("--port needs a number")?.parse()?,
            None => 8080,
        };
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        println!("serving acme.catalog.v1.Catalog on http://127.0.0.1:{port} (gRPC, gRPC-Web, Connect)");
        return serve(listener).await;
    }

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(serve(listener));

    // Connect unary, JSON over HTTP/1.1: what curl or a browser's fetch sends.
    let path = "/acme.catalog.v1.Catalog/Lookup";
    let (status, body) = http(addr, "POST", path, r#"{"sku": "A-1"}"#).await?;
    println!("Connect POST {path}: {status} {body}");
    let (status, body) = http(addr, "POST", path, r#"{"sku": "Z-9"}"#).await?;
    println!("Connect POST {path} (unknown SKU): {status} {body}");
    // GET, as Lookup is free of side effects: the message in the query.
    let query = "?encoding=json&message=%7B%22sku%22%3A%22B-7%22%7D";
    let (status, body) = http(addr, "GET", &format!("{path}{query}"), "").await?;
    println!("Connect GET {path}{query}: {status} {body}");

    // The generated Connect client: tonic's client methods, over Connect
    // (here JSON over HTTP/1.1; `ConnectClient::http2` and the binary codec
    // are the others).
    let base = format!("http://{addr}");
    let connect = CatalogConnectClient::new(ConnectClient::new(&base).json(descriptors()?));
    let request = LookupRequest {
        sku: "C-3".into(),
        ..Default::default()
    };
    let product = connect.lookup(request).await?.into_inner();
    println!(
        "Connect client Lookup(\"C-3\"): {} ({} cents)",
        product.name, product.unit_price
    );
    let request = SearchRequest {
        word: "tea".into(),
        ..Default::default()
    };
    let mut found = connect.search(request).await?.into_inner();
    while let Some(product) = found.message().await? {
        println!("Connect client Search(\"tea\"): {} {}", product.sku, product.name);
    }

    // The same service over gRPC, with tonic's generated client.
    let mut client = CatalogClient::connect(format!("http://{addr}")).await?;
    let request = SearchRequest {
        word: "red".into(),
        ..Default::default()
    };
    let mut found = client.search(request).await?.into_inner();
    while let Some(product) = found.next().await {
        let product = product?;
        println!(
            "gRPC Search(\"red\"): {} {} ({} cents)",
            product.sku, product.name, product.unit_price
        );
    }
    server.abort();
    Ok(())
}

/// One HTTP/1.1 request with a JSON body; the answer's status line and body.
async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    json: &str,
) -> Result<(String, String), Box<dyn Error + Send + Sync>> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{json}",
        json.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.lines().next().unwrap_or("").trim_start_matches("HTTP/1.1 ");
    Ok((status.to_owned(), body.to_owned()))
}
