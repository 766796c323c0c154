#!/usr/bin/env bash
# Headless Chromium for the UI test (tests/ops/test_ui_browser.py): Debian's chromium + chromium-driver.
# Idempotent: apt is touched only when /usr/bin/chromium is missing, and `apt-get update` runs once, right before.
# No browser download of its own (the network reaches only package registries).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install_browser: apt-get install chromium chromium-driver" >&2
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core
