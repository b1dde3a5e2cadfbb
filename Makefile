# The two set-up commands of the README. Each installs LMDB first when it is missing.
CONFORMANCE_DIR ?= ../shared/conformance/scxml-test-framework

.PHONY: demo test deps build conformance

deps:
	@bash scripts/ensure-lmdb.sh

build: deps
	swift build

## make demo: the main job — runs the example flows through the engine on an embedded default store.
demo: deps
	swift run rewind demo

## make test: the whole test suite, then the SCXML conformance cases when the folder exists.
test: deps
	swift test
	@if [ -d "$(CONFORMANCE_DIR)" ]; then \
		swift run rewind-conformance "$(CONFORMANCE_DIR)"; \
	else \
		echo "conformance: skipped, $(CONFORMANCE_DIR) not found"; \
	fi

conformance: deps
	swift run rewind-conformance "$(CONFORMANCE_DIR)"
