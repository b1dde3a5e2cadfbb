#!/usr/bin/env bash
# make test: every test of the package, then the SCXML conformance cases, then the fleet server's
# tests on a throwaway PostgreSQL.
#
# The fleet server (Server/) is a package of its own with heavy dependencies (swift-nio,
# postgres-nio, Hummingbird, two BoringSSLs): its build is the longest step. It runs in the
# background from the start, at a lower priority (nice 10), so it takes only the CPU the root
# package's build and tests leave idle (their waits on fsync, child processes and the browser);
# the server's tests then start on a build that is done or nearly done (server-test's own build
# step finds it up to date, or builds what is left and reports any error). Its output is in
# .build/server-build.log.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p .build
log=.build/server-build.log
# BUILD_FLAGS: the flags of every build of make test (the Makefile says why CI sets them), so that
# server-test's build finds this one's products up to date, and conformance's the root's.
# shellcheck disable=SC2086 # the flags are words
(cd Server && exec nice -n 10 swift build --build-tests ${BUILD_FLAGS:-}) >"$log" 2>&1 &
server_build=$!
# However this script ends, the background build does not outlive it.
trap 'kill "$server_build" 2>/dev/null || true' EXIT

# A crash prints the crashed thread's backtrace only (no registers, no image list), so that the
# end of a CI log, often all a reader gets, shows where it crashed; the summary after a failure
# names the tests that never ended.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,preset=friendly,threads=crashed}"
tests_log=.build/root-tests.log
# shellcheck disable=SC2086 # the flags are words
if ! swift test ${BUILD_FLAGS:-} 2>&1 | tee "$tests_log"; then
    bash scripts/unfinished-tests.sh "$tests_log"
    exit 1
fi
make --no-print-directory conformance
# EXTRA_TESTS: a command that runs here, while the server's build finishes (CI's ThreadSanitizer
# run, .ci/run); its failure fails the run.
if [ -n "${EXTRA_TESTS:-}" ]; then
    echo "run-tests: $EXTRA_TESTS"
    bash -c "$EXTRA_TESTS"
fi

echo "run-tests: waiting for the fleet server's build (.build/server-build.log)"
if ! wait "$server_build"; then
    # server-test builds again in the foreground: a real error fails the run there, with its output.
    echo "run-tests: the fleet server's background build failed; server-test builds it again" >&2
fi
trap - EXIT
make --no-print-directory server-test
