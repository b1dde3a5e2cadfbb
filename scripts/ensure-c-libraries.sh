#!/usr/bin/env bash
# Installs the C libraries the package builds against when they are missing: LMDB (CLMDB) on
# every system, and on Linux libcurl (CCurl, RewindSync's HTTP transport there). Debian/Ubuntu via
# apt, macOS via Homebrew. With `--with-lmdb-tools`, also LMDB's command-line tools (mdb_copy,
# mdb_stat, mdb_load; Debian's lmdb-utils, part of Homebrew's lmdb): the benchmark suite's
# compaction baseline runs mdb_copy.
set -euo pipefail
with_tools=false
case "${1:-}" in
"") ;;
--with-lmdb-tools) with_tools=true ;;
*)
    echo "ensure-c-libraries: unknown argument '$1' (the only one is --with-lmdb-tools)" >&2
    exit 2
    ;;
esac
case "$(uname -s)" in
Linux)
    missing=()
    pkg-config --exists lmdb 2>/dev/null || missing+=(liblmdb-dev)
    if $with_tools && ! command -v mdb_copy >/dev/null 2>&1; then missing+=(lmdb-utils); fi
    pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev)
    command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
    if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-c-libraries: ${missing[*]} missing and apt-get is not available; install LMDB's and libcurl's development packages (lmdb.pc, libcurl.pc) by hand" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "ensure-c-libraries: installing ${missing[*]} and pkg-config" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" pkg-config >/dev/null
    pkg-config --exists lmdb libcurl || { echo "ensure-c-libraries: lmdb.pc or libcurl.pc still not found after installing" >&2; exit 1; }
    if $with_tools && ! command -v mdb_copy >/dev/null 2>&1; then
        echo "ensure-c-libraries: mdb_copy still not found after installing lmdb-utils" >&2
        exit 1
    fi
    ;;
Darwin)
    if pkg-config --exists lmdb 2>/dev/null && { ! $with_tools || command -v mdb_copy >/dev/null 2>&1; }; then
        exit 0
    fi
    if ! command -v brew >/dev/null 2>&1; then
        echo "ensure-c-libraries: LMDB is missing and Homebrew is not installed; run 'brew install lmdb pkg-config' once Homebrew is available" >&2
        exit 1
    fi
    brew install lmdb pkg-config
    pkg-config --exists lmdb || { echo "ensure-c-libraries: lmdb.pc still not found after installing" >&2; exit 1; }
    ;;
*)
    echo "ensure-c-libraries: unsupported system $(uname -s); install LMDB (lmdb.pc) by hand" >&2
    exit 1
    ;;
esac
