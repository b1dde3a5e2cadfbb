#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver (Debian's chromium and chromium-driver) when missing:
# RewindViewerTests open the viewer's pages in them. Elsewhere, says how to get them; the browser
# tests are then skipped, not failed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-chromium: chromium/chromedriver are missing and apt-get is not available; install them by hand (the viewer's browser tests are skipped without them)" >&2
        exit 0
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "ensure-chromium: installing chromium and chromium-driver" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
    ;;
*)
    echo "ensure-chromium: install Chromium and chromedriver on the PATH (e.g. brew install --cask chromium chromedriver) to run the viewer's browser tests" >&2
    ;;
esac
