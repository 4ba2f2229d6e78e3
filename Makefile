# fastrs: `make demo` runs the quickstart, `make test` runs every test.
CARGO ?= cargo

.PHONY: all demo test lint fmt bless wkt clean

all:
	$(CARGO) build --workspace --all-targets

# Generates Rust from proto/demo/shop.proto with the pure-Rust parser (no
# protoc needed), builds, encodes and decodes an order, prints sizes.
demo:
	$(CARGO) run -p fastrs-example

# Every test: runtime wire edges, generator units, golden files, parser parity
# with protoc, the protoc plugin end to end, differential tests against prost,
# semantics, the example. Then formatting and lints.
test:
	$(CARGO) test --workspace
	$(CARGO) run -q -p fastrs-example
	$(CARGO) build -p fastrs --no-default-features
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

# Rewrites the golden files after an intended generator change.
wkt:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test well_known

bless:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test golden

clean:
	$(CARGO) clean
