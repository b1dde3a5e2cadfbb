# The two set-up commands of the README. Each installs LMDB (and on Linux libcurl) first when missing.
CONFORMANCE_DIR ?= ../shared/conformance/scxml-test-framework
# Rewind's own cases (delays, <cancel>, internal and external event order, <if>, undeliverable sends).
OWN_CONFORMANCE_DIR := Tests/ConformanceCases

.PHONY: demo test deps browser build conformance server-test lint format

deps:
	@bash scripts/ensure-c-libraries.sh

## The viewer's browser tests need headless Chromium and chromedriver (Debian's chromium, chromium-driver).
browser:
	@bash scripts/ensure-chromium.sh

build: deps
	swift build

## make demo: the main job — runs the example flows through the engine on an embedded default store.
demo: deps
	swift run rewind demo

## make test: every test. Installs Chromium for the viewer's browser tests when missing; the
## package's whole suite, the SCXML conformance cases (Rewind's own, and the shared ones when
## their folder exists), then the fleet server's tests on a throwaway PostgreSQL (server-test).
## The server's package builds in the background meanwhile, at a lower priority
## (scripts/run-tests.sh says why). EXTRA_TESTS="command" runs that command after the root's tests,
## while the server's build finishes (CI's ThreadSanitizer run, scripts/tsan-tests.sh).
test: deps browser
	@bash scripts/run-tests.sh

## BUILD_FLAGS: flags of every build make test does, the root's and the server's (CI's .ci/run
## sets `-debug-info-format none`: shorter builds; a crash's backtrace then names functions without
## their lines). One value for all of them, so that each finds the others' products up to date.
BUILD_FLAGS ?=
export BUILD_FLAGS

conformance: deps
	@if [ -d "$(CONFORMANCE_DIR)" ]; then \
		swift run $(BUILD_FLAGS) rewind-conformance "$(CONFORMANCE_DIR)" "$(OWN_CONFORMANCE_DIR)"; \
	else \
		echo "conformance: $(CONFORMANCE_DIR) not found, running Rewind's own cases only"; \
		swift run $(BUILD_FLAGS) rewind-conformance "$(OWN_CONFORMANCE_DIR)"; \
	fi

## make server-test: the fleet server's package (Server/): build it once with its tests (and the
## root's `rewind`, which `rewind push`'s tests run), then run them against a throwaway PostgreSQL
## cluster (Server/scripts/with-postgres.sh). One test at a time: each starts servers (and some a
## PostgreSQL cluster of their own); run all at once on 2 cores, the whole suite hung twice with
## every task suspended and no timer pending (the cause is not found yet; see RELIABILITY.md).
## scripts/run-tests.sh's background build of the server uses the same BUILD_FLAGS.
server-test: deps
	swift build --product rewind $(BUILD_FLAGS)
	cd Server && swift build --build-tests $(BUILD_FLAGS)
	bash Server/scripts/with-postgres.sh sh -c 'cd Server && swift test --skip-build --no-parallel'

## make lint: the toolchain's `swift format` with the checked-in .swift-format (4 spaces, lines of
## at most 120 characters), over every Swift source of the repository; CI runs it first and fails
## on any finding. make format rewrites the files the same way.
SWIFT_DIRS := Sources Tests Server/Sources Server/Tests Benchmarks/Benchmarks Benchmarks/Sources Fuzz/Sources
lint:
	swift format lint --strict --recursive $(SWIFT_DIRS)

format:
	swift format format --in-place --recursive $(SWIFT_DIRS)
