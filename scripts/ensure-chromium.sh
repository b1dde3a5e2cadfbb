#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver (Debian's chromium and chromium-driver) when missing,
# and a CJK font (Debian's fonts-noto-cjk) when no font covers Japanese: RewindViewerTests open the
# viewer's pages in them, and one of them checks that kanji are drawn with real glyphs. Elsewhere,
# says how to get them; the browser tests are then skipped, not failed (the CJK test fails without
# a CJK font once the browser is there).
set -euo pipefail
packages=()
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    packages+=(chromium chromium-driver)
fi
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=ja 2>/dev/null)" ]; then
    packages+=(fonts-noto-cjk)
fi
if [ ${#packages[@]} -eq 0 ]; then
    exit 0
fi
case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-chromium: ${packages[*]} missing and apt-get is not available; install them by hand (the viewer's browser tests are skipped without chromium)" >&2
        exit 0
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "ensure-chromium: installing ${packages[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
    ;;
*)
    echo "ensure-chromium: install Chromium and chromedriver on the PATH (e.g. brew install --cask chromium chromedriver) to run the viewer's browser tests; macOS has CJK fonts" >&2
    ;;
esac
