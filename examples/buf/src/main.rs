//! Uses the code that `buf generate` writes into `src/gen`: run
//! `buf generate` first (see `buf.gen.yaml`), then `cargo run`.

#[allow(dead_code)]
mod gen {
    include!("gen/mod.rs");
}

use fastrs::Message;
use gen::acme::common::v1::Money;
use gen::acme::shop::v1::{order, Order};
use gen::acme::stock::v1::{Item, Kind};

fn main() -> Result<(), fastrs::DecodeError> {
    let eur = |minor_units| Money {
        currency: "EUR".into(),
        minor_units,
        ..Default::default()
    };
    let order = Order {
        id: 7,
        customer: "Ada".into(),
        lines: vec![order::Line {
            item: Some(Item {
                sku: Some("BOOK-1".into()),
                unit_price: Some(eur(1250)),
                kind: Some(Kind::Book),
                ..Default::default()
            }),
            quantity: 2,
            ..Default::default()
        }],
        total: Some(eur(2500)),
        ..Default::default()
    };
    let bytes = order.encode_to_vec();
    let back = Order::decode(&bytes)?;
    assert_eq!(back, order);
    println!("order {} for {}: {} bytes", back.id, back.customer, bytes.len());
    Ok(())
}
