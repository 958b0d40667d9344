#!/usr/bin/env bash
# System packages the project needs beyond pip: fonts the scene generator renders tiles with,
# Debian's chromium for the browser test (npm fetches axe-core for its accessibility check), and
# a PostgreSQL server for the storage tests.
# Installs only what is missing; needs root (as on CI and the dev machines).
set -euo pipefail
want=(fonts-dejavu-core fonts-liberation2 fonts-roboto fonts-open-sans fonts-freefont-ttf fonts-croscore fonts-lato chromium postgresql)
missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# npm from any source will do (a Node.js install may bring its own instead of Debian's package).
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system packages missing (run as root to install): ${missing[*]}" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system packages: installed"
