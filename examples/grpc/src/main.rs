//! A gRPC server and client in one process over 127.0.0.1: the server keeps
//! orders in memory; the client places two and lists them back.

use std::sync::Mutex;

use tokio_stream::StreamExt as _;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// `acme.orders.v1` (the `Orders` client and server) and the shop's
/// messages it imports (`acme.shop.v1`), in modules named after their
/// packages.
#[allow(dead_code)] // accessors of fields this example does not read
mod protos {
    include!(concat!(env!("OUT_DIR"), "/protos.rs"));
}

use protos::acme::orders::v1::orders_client::OrdersClient;
use protos::acme::orders::v1::orders_server::{self, OrdersServer};
use protos::acme::orders::v1::{Customer, Placed};
use protos::acme::shop::v1::{order, Order};

/// The service: orders in memory.
#[derive(Default)]
struct Shop {
    orders: Mutex<Vec<Order>>,
}

#[tonic::async_trait]
impl orders_server::Orders for Shop {
    async fn place(&self, request: Request<Order>) -> Result<Response<Placed>, Status> {
        let mut order = request.into_inner();
        if order.customer.is_empty() {
            return Err(Status::invalid_argument("an order needs a customer"));
        }
        let mut orders = self.orders.lock().map_err(|_| Status::internal("store poisoned"))?;
        order.id = orders.len() as u64 + 1;
        let placed = Placed {
            id: order.id,
            ..Default::default()
        };
        orders.push(order);
        Ok(Response::new(placed))
    }

    type ListByCustomerStream = tokio_stream::Iter<std::vec::IntoIter<Result<Order, Status>>>;

    async fn list_by_customer(
        &self,
        request: Request<Customer>,
    ) -> Result<Response<Self::ListByCustomerStream>, Status> {
        let name = request.into_inner().name;
        let orders = self.orders.lock().map_err(|_| Status::internal("store poisoned"))?;
        let theirs: Vec<_> = orders.iter().filter(|o| o.customer == name).cloned().map(Ok).collect();
        Ok(Response::new(tokio_stream::iter(theirs)))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(OrdersServer::new(Shop::default()))
            // Without TCP_NODELAY, small answers wait for delayed ACKs (40 ms).
            .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true))),
    );

    let mut client = OrdersClient::connect(format!("http://{addr}")).await?;
    for (sku, quantity) in [("A-1", 2), ("B-7", 1)] {
        let order = Order {
            customer: "Ada".into(),
            lines: vec![order::Line {
                sku: sku.into(),
                quantity,
                unit_price: 1250,
                ..Default::default()
            }],
            ..Default::default()
        };
        let placed = client.place(order).await?.into_inner();
        println!("placed order {} ({quantity} x {sku})", placed.id);
    }
    let refused = client.place(Order::default()).await.expect_err("no customer");
    println!("refused: {:?}: {}", refused.code(), refused.message());

    let customer = Customer {
        name: "Ada".into(),
        ..Default::default()
    };
    let mut orders = client.list_by_customer(customer).await?.into_inner();
    while let Some(order) = orders.next().await {
        let order = order?;
        println!("Ada's order {}: {} line(s)", order.id, order.lines.len());
    }
    server.abort();
    Ok(())
}
