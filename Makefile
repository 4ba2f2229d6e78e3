# fastrs: `make demo` runs the quickstart, `make test` runs every test.
CARGO ?= cargo

.PHONY: all demo test conformance package tools lint fmt bless wkt bench bench-validate compile-bench stats profile miri fuzz clean

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
	$(CARGO) test -q -p fastrs --lib   # alone: the runtime without the features other crates turn on
	$(CARGO) test -q -p fastrs --lib --features json   # JSON and reflection without `descriptor`
	$(CARGO) run -q -p fastrs-example
	$(CARGO) run -q -p fastrs-example-grpc
	$(CARGO) run -q -p fastrs-example-connect
	$(CARGO) run -q -p fastrs-example-validate
	$(CARGO) run -q -p fastrs-example-otlp
	$(CARGO) build -p fastrs-no-std
	$(CARGO) build -p protoc-gen-fastrs --no-default-features
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(DOC)

# Google's conformance runner (protobuf v36.0, binary + JSON and text format
# suites, editions included) on the testee, once with speed-mode and once
# with size-mode generated code, once reading binary payloads through
# zero-copy views, and once through DynamicMessage (no generated test
# messages: a descriptor pool and reflection). Needs ../shared/conformance/ beside the
# repository (SHARED=dir elsewhere). A test in a failure list that passes
# fails the run, so the lists only ever shrink.
SHARED ?= ../shared
CONFORMANCE_OUT = target/conformance
conformance:
	@test -x $(SHARED)/conformance/runner/conformance_test_runner || \
		{ cat tests/conformance/src/notice.txt; exit 1; }
	$(if $(filter-out ../shared,$(SHARED)),FASTRS_SHARED=$(abspath $(SHARED))) \
		$(CARGO) build --release -p fastrs-conformance
	@for mode in speed size view dynamic; do \
		out=$(CONFORMANCE_OUT)/$$mode; mkdir -p $$out; echo "$$mode mode:"; \
		FASTRS_CONFORMANCE_MODE=$$mode $(SHARED)/conformance/runner/conformance_test_runner \
			--maximum_edition 2023 --enforce_recommended \
			--failure_list tests/conformance/failure_list.txt \
			--text_format_failure_list tests/conformance/text_format_failure_list.txt \
			--output_dir $$out \
			$(abspath target/release/fastrs-conformance) > $$out/log.txt 2>&1; \
		status=$$?; grep 'CONFORMANCE SUITE' $$out/log.txt; \
		if [ $$status -ne 0 ]; then cat $$out/*_tests.txt 2>/dev/null | head -50; \
			echo "full log: $$out/log.txt"; exit $$status; fi; \
	done

# The five published crates, packaged together and each verified by a
# build from its package (as `cargo publish` would), then their sizes.
#
# Cargo verifies each package against the others through a temporary local
# registry, and unpacks them into CARGO_HOME's registry/src/-<hash>/, where
# the hash comes from the checkout's path. An unpacked copy left there by an
# earlier run of the same version is reused as is, so a rebuilt checkout would
# be verified against stale sources: remove our crates' copies first. Those
# directories hold only local registries (a remote registry's directory
# starts with its host name). Cargo also takes a registry crate's build as
# fresh whatever its sources, so the verification builds of our crates in
# target/debug (their fingerprints: name, then a 16-digit hash) go too.
PACKAGED_FINGERPRINTS = $(foreach crate,fastrs fastrs-compiler fastrs-tonic fastrs-cli protoc-gen-fastrs,\
	target/debug/.fingerprint/$(crate)-????????????????)
package:
	rm -rf $(PACKAGED_FINGERPRINTS)
	rm -rf $${CARGO_HOME:-$$HOME/.cargo}/registry/src/-*/fastrs-[0-9]* \
		$${CARGO_HOME:-$$HOME/.cargo}/registry/src/-*/fastrs-tonic-[0-9]* \
		$${CARGO_HOME:-$$HOME/.cargo}/registry/src/-*/fastrs-cli-[0-9]* \
		$${CARGO_HOME:-$$HOME/.cargo}/registry/src/-*/fastrs-compiler-[0-9]* \
		$${CARGO_HOME:-$$HOME/.cargo}/registry/src/-*/protoc-gen-fastrs-[0-9]*
	$(CARGO) package -p fastrs -p fastrs-compiler -p protoc-gen-fastrs -p fastrs-tonic -p fastrs-cli
	@ls -l target/package/*.crate

# What tests need from the system rather than from pinned files: Debian's
# Chromium for the browser test (npm and Python packages install themselves).
tools:
	tests/tools/install-chromium

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(DOC)

# The published crates' API docs, and the docs of generated code (the test
# schemas and, with ../shared, the corpus), with every rustdoc warning an
# error: .proto comments must render as written.
DOC = RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p fastrs -p fastrs-compiler -p protoc-gen-fastrs -p fastrs-tonic --features fastrs/json,fastrs/descriptor,fastrs/text,fastrs/bytes,fastrs/reflect,fastrs/validate,fastrs-tonic/health,fastrs-tonic/reflection,fastrs-tonic/connect-client,fastrs-tonic/validate \
	&& RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p fastrs-tests -p fastrs-corpus

fmt:
	$(CARGO) fmt --all

# Side-by-side benchmarks (release build, a few minutes): prints the table and
# writes benches/results.md (`make stats` copies it into benches/README.md),
# then the gRPC rows (fastrs-tonic against tonic-prost): benches/grpc-results.md,
# then .proto compile speed (fastrs-compiler, protox, protoc): benches/compile-speed.md.
bench:
	$(CARGO) run --release -p fastrs-bench --bin fastrs-bench -- --out benches/results.md
	$(CARGO) run --release -p fastrs-bench-grpc -- --out benches/grpc-results.md
	$(CARGO) run --release -p fastrs-bench --bin compile-speed -- --out benches/compile-speed.md
	$(MAKE) bench-validate

# Validation against protovalidate-buffa and prost-protovalidate, in a crate
# and target directory of their own (the peers' dependencies stay out of the
# main build). prost-protovalidate's build needs protoc: the vendored one.
VALIDATE_BENCH = --manifest-path benches/validate/Cargo.toml
bench-validate:
	$(CARGO) fetch $(VALIDATE_BENCH)
	PROTOC=$${PROTOC:-$$(find $${CARGO_HOME:-$$HOME/.cargo}/registry/src -path '*protoc-bin-vendored-linux-*/bin/protoc' | head -1)} \
		CARGO_TARGET_DIR=target/bench-validate $(CARGO) run --release $(VALIDATE_BENCH) -- --out benches/validate-results.md

# Compile time of generated code, fastrs against prost, on the real-world
# schemas of ../shared/corpus (bare crates, and crates using every type; dev
# and release; ROUNDS interleaved builds each): writes benches/compile-time.md.
ROUNDS ?= 3
compile-bench:
	$(CARGO) run --release -p fastrs-compile-bench -- --rounds $(ROUNDS) --out benches/compile-time.md

stats:
	$(CARGO) run --release -p fastrs-bench --bin fastrs-bench -- splice benches/results.md benches/README.md

# Instructions per operation under callgrind (stable on a noisy machine):
# make profile W="int64 large" OP=1 LIB=fastrs
profile:
	$(CARGO) build --release -p fastrs-bench
	benches/profile.sh "$(W)" $(OP) $(LIB)

# The runtime's tests under Miri (nightly; the Miri component is installed if
# missing), then a slice of the size_mode and decode_dynamic fuzz targets'
# seeds through the table interpreters and DynamicMessage (reading the seeds
# needs the file system, so isolation is off). Checks the unsafe blocks for
# undefined behaviour.
miri:
	rustup component add --toolchain nightly miri rust-src
	CARGO_TARGET_DIR=target/miri $(CARGO) +nightly miri test -p fastrs --features bytes,reflect
	CARGO_TARGET_DIR=target/miri MIRIFLAGS=-Zmiri-disable-isolation \
		$(CARGO) +nightly miri test -p fastrs-tests --test fuzz_seeds

# Each fuzz target for FUZZ_SECONDS (default 60) with cargo-fuzz (nightly).
FUZZ_SECONDS ?= 60
fuzz:
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	cd fuzz && for t in $$($(CARGO) +nightly fuzz list); do \
		mkdir -p corpus/$$t; \
		$(CARGO) +nightly fuzz run $$t corpus/$$t $$(test -d seeds/$$t && echo seeds/$$t) \
			-- -max_total_time=$(FUZZ_SECONDS) || exit 1; done

# Rewrites the runtime's generated types (well-known and descriptor) and
# fastrs-tonic's standard services after an intended generator change.
wkt:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test well_known
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tonic --test generated
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-compiler --test well_known_set

# Rewrites the golden files after an intended generator change.
bless:
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-tests --test golden
	FASTRS_BLESS=1 $(CARGO) test -p fastrs-corpus -- golden

clean:
	$(CARGO) clean
