#!/usr/bin/env bash
# ThreadSanitizer on the concurrent parts: group commit and its gathering, several engines and
# processes, hooks and queued requests, subscriptions, projections catching up while sessions
# append, the stress and reliability tests. Not the single-threaded input fuzzers, which the main
# run covers, nor StoreMediaTests, which run the `rewind` tool that this build leaves out.
#
#   bash scripts/tsan-tests.sh           builds (when needed) and runs them
#   bash scripts/tsan-tests.sh --build   only builds them (.ci/run starts this in the background)
#
# - Its own scratch path, .build-tsan (git ignores `.build-*`). SwiftPM locks a scratch path, so a
#   run started while the build is under way waits for it, then finds it up to date.
# - REWIND_BUILD_ONLY (Package.swift): only the test targets that hold these suites, the helper
#   process they start and what those depend on are built (318 CPU seconds against 737 for the whole
#   package on 2 cores, 2026-12-02).
# - Debug information kept: TSan's reports name lines.
# - --no-parallel: tests slowed down ten times and run side by side starve each other past their
#   one-minute time limits (the engine's subscription and two-engine tests); one at a time they
#   pass with room to spare.
# - scripts/tsan-suppressions.txt: TSan cannot see the standard library's Synchronization.Mutex on
#   Linux (futex calls in an uninstrumented library), so code whose state only a Mutex guards is
#   not checked (the file says which).
# RELIABILITY.md ("Sanitizers") has what the run found and the AddressSanitizer run.
set -euo pipefail
cd "$(dirname "$0")/.."
export REWIND_BUILD_ONLY="RewindTests ReliabilityTests RewindLMDBTests RewindTestHelper"
flags=(-Xswiftc -sanitize=thread --scratch-path .build-tsan)
case "${1:-}" in
    --build) exec swift build --build-tests "${flags[@]}" ;;
    "") ;;
    *) echo "tsan-tests.sh: unknown argument '$1' (expected --build or nothing)" >&2; exit 2 ;;
esac
TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt" exec swift test --no-parallel "${flags[@]}" \
    --filter 'GroupCommitTests|CommitGatheringTests|TwoEnginesTests|TwoProcessesTests|SubscriptionTests|HookTests|CommitVisibilityTests|StoreFullTests|ProjectionRegistryTests|ReliabilityTests|RewindLMDBTests|ConcurrencyStressTests|QueuedRequestTests' \
    --skip 'ArchiveImportFuzzTests|MachineInterchangeFuzzTests|RecordDecoderFuzzTests|StoreMediaTests'
