//! The fastrs quickstart: build a message, encode it, decode it, merge, reuse,
//! read it as a zero-copy view, and the same message as proto3 JSON.
//! Run with `make demo` (or `cargo run -p fastrs-example`).

use fastrs::Message;

/// The generated code for package `acme.shop.v1`, in modules that mirror it.
pub mod acme {
    pub mod shop {
        pub mod v1 {
            fastrs::include_proto!("acme.shop.v1");
        }
    }
}

use acme::shop::v1::{order, Order, Status};

fn sample_order() -> Order {
    Order {
        id: 42,
        customer: "Ada Lovelace".into(),
        lines: vec![
            order::Line {
                sku: "BOOK-1843".into(),
                quantity: 2,
                unit_price: 1999,
                ..Default::default()
            },
            order::Line {
                sku: "PEN-7".into(),
                quantity: 10,
                unit_price: 150,
                ..Default::default()
            },
        ],
        status: Status::Placed.into(),
        labels: [("channel".to_string(), "web".to_string())].into(),
        payment: Some(order::Payment::CardToken("tok_visa".into())),
        note: Some("leave at the door".into()),
        ..Default::default()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let order = sample_order();

    // Encode: size once, then write into an exactly sized buffer.
    let bytes = order.encode_to_vec();
    println!(
        "encoded {} into {} bytes (size() = {})",
        Order::FULL_NAME,
        bytes.len(),
        order.size()
    );

    // Decode into a new message.
    let decoded = Order::decode(&bytes)?;
    assert_eq!(decoded, order);
    println!(
        "decoded: customer {:?}, {} lines, status {:?}",
        decoded.customer,
        decoded.lines.len(),
        decoded.status
    );

    // Append into a reused buffer: no allocation once its capacity suffices.
    let mut out = Vec::with_capacity(256);
    for _ in 0..3 {
        out.clear();
        order.encode_append(&mut out);
    }
    println!(
        "appended into a reused Vec: {} bytes, capacity {}",
        out.len(),
        out.capacity()
    );

    // fast_read merges: scalars overwrite, repeated fields append.
    let update = Order {
        status: Status::Shipped.into(),
        lines: vec![order::Line {
            sku: "GIFT".into(),
            quantity: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut merged = decoded.clone();
    merged.fast_read(&update.encode_to_vec())?;
    println!("after merge: status {:?}, {} lines", merged.status, merged.lines.len());
    assert_eq!(merged.lines.len(), 3);
    assert_eq!(merged.status, Status::Shipped);

    // clear keeps allocated capacity, so a message can be reused across decodes.
    merged.clear();
    merged.fast_read(&bytes)?;
    assert_eq!(merged, order);

    // A zero-copy view: strings borrowed from `bytes`, repeated fields and
    // maps read as they are iterated; nothing allocated.
    let view = acme::shop::v1::OrderView::decode(&bytes)?;
    let quantities: u32 = view.lines.iter().map(|line| line.quantity).sum();
    println!(
        "view: customer {:?} (borrowed), {} lines, {quantities} items, channel {:?}",
        view.customer,
        view.lines.len(),
        view.labels.get(&"channel")
    );
    assert_eq!(view.to_owned(), order);

    // Malformed input is an error that says what and where, never a panic.
    let err = Order::decode(&bytes[..bytes.len() - 1]).unwrap_err();
    println!("truncated input: {err}");

    // proto3 JSON: lowerCamelCase names, 64-bit integers as strings, enums by name.
    let json = fastrs::json::to_string(&order)?;
    println!("as JSON: {json}");
    let from_json: Order = fastrs::json::from_str(&json)?;
    assert_eq!(from_json, order);
    let err = fastrs::json::from_str::<Order>(r#"{"id": "forty-two"}"#).unwrap_err();
    println!("bad JSON: {err}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn demo_runs() {
        super::main().unwrap();
    }
}
