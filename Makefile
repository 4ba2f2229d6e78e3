# fastrs: `make demo` runs the quickstart, `make test` runs every test.
CARGO ?= cargo

.PHONY: all demo test lint fmt bless wkt bench stats profile miri fuzz clean

all:
	$(CARGO) build --workspace --all-targets

# Generates Rust from proto/demo/shop.proto with the pure-Rust parser (no
# protoc needed), builds, encodes and decodes an order, prints sizes.
demo:
	$(CARGO) run -p fastrs-example

# Every test: runtime wire edges, generator units, golden files, parser parity
# with protoc, the protoc plugin end to end, differential tests against prost,
# semantics, the example. Then formatting, lints and the API docs.
test:
	$(CARGO) test --workspace
	$(CARGO) run -q -p fastrs-example
	$(CARGO) build -p fastrs-no-std
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(DOC)

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(DOC)

# The published crates' API docs, with broken links as errors.
DOC = RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p fastrs -p protoc-gen-fastrs --features fastrs/json

fmt:
	$(CARGO) fmt --all

# Side-by-side benchmarks (release build, a few minutes): prints the table and
# writes benches/results.md. `make stats` copies it into the README.
bench:
	$(CARGO) run --release -p fastrs-bench -- --out benches/results.md

stats:
	$(CARGO) run --release -p fastrs-bench -- splice benches/results.md README.md

# Instructions per operation under callgrind (stable on a noisy machine):
# make profile W="int64 large" OP=1 LIB=fastrs
profile:
	$(CARGO) build --release -p fastrs-bench
	benches/profile.sh "$(W)" $(OP) $(LIB)

# The runtime's tests under Miri (nightly; the Miri component is installed if
# missing). Checks the few unsafe blocks for undefined behaviour.
miri:
	rustup component add --toolchain nightly miri rust-src
	CARGO_TARGET_DIR=target/miri $(CARGO) +nightly miri test -p fastrs

# Each fuzz target for FUZZ_SECONDS (default 60) with cargo-fuzz (nightly).
FUZZ_SECONDS ?= 60
fuzz:
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	cd fuzz && for t in $$($(CARGO) +nightly fuzz list); do \
		mkdir -p corpus/$$t; \
		$(CARGO) +nightly fuzz run $$t corpus/$$t $$(test -d seeds/$$t && echo seeds/$$t) \
			-- -max_total_time=$(FUZZ_SECONDS) || exit 1; done

# Rewrites the golden files after an intended generator change.
wkt:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test well_known

bless:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test golden

clean:
	$(CARGO) clean
