#!/usr/bin/env bash
# Installs LMDB's C library and headers when they are missing (Debian/Ubuntu via apt, macOS via Homebrew).
set -euo pipefail
if pkg-config --exists lmdb 2>/dev/null; then
    exit 0
fi
case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-lmdb: liblmdb is missing and apt-get is not available; install LMDB's development package (lmdb.pc) by hand" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "ensure-lmdb: installing liblmdb-dev and pkg-config" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liblmdb-dev pkg-config >/dev/null
    ;;
Darwin)
    if ! command -v brew >/dev/null 2>&1; then
        echo "ensure-lmdb: LMDB is missing and Homebrew is not installed; run 'brew install lmdb pkg-config' once Homebrew is available" >&2
        exit 1
    fi
    brew install lmdb pkg-config
    ;;
*)
    echo "ensure-lmdb: unsupported system $(uname -s); install LMDB (lmdb.pc) by hand" >&2
    exit 1
    ;;
esac
pkg-config --exists lmdb || { echo "ensure-lmdb: lmdb.pc still not found after installing" >&2; exit 1; }
