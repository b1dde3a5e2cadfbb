#!/usr/bin/env bash
# Installs LMDB's command-line tools (mdb_copy, mdb_stat, mdb_load) when they are missing: the
# benchmark suite's compaction baseline runs mdb_copy, and some tests use mdb_load and mdb_stat
# (skipped without them). Debian/Ubuntu via apt (lmdb-utils), macOS via Homebrew (lmdb).
set -euo pipefail
if command -v mdb_copy >/dev/null 2>&1; then exit 0; fi
case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-lmdb-utils: mdb_copy is missing and apt-get is not available; install LMDB's tools (lmdb-utils) by hand" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "ensure-lmdb-utils: installing lmdb-utils" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq lmdb-utils >/dev/null
    ;;
Darwin)
    if ! command -v brew >/dev/null 2>&1; then
        echo "ensure-lmdb-utils: mdb_copy is missing and Homebrew is not installed; run 'brew install lmdb' once Homebrew is available" >&2
        exit 1
    fi
    brew install lmdb
    ;;
*)
    echo "ensure-lmdb-utils: unsupported system $(uname -s); install LMDB's tools (mdb_copy) by hand" >&2
    exit 1
    ;;
esac
command -v mdb_copy >/dev/null 2>&1 || { echo "ensure-lmdb-utils: mdb_copy still not found after installing" >&2; exit 1; }
