#!/usr/bin/env bash
# Debian packages the site needs: a CJK font for Chinese figure labels, one for the
# Chinese PDF, and Chromium for the browser tests and the PDFs. Installs only what is missing.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# (no grep -q: with pipefail its early exit would fail the pipeline)
fc-list 2>/dev/null | grep "Noto Sans CJK SC" >/dev/null || missing+=(fonts-noto-cjk)
# The Chinese PDF's text font: unlike Noto CJK, its glyphs map back to ideographs only.
fc-list 2>/dev/null | grep "WenQuanYi Micro Hei" >/dev/null || missing+=(fonts-wqy-microhei)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo)
else
  echo "error: these Debian packages are missing: ${missing[*]}" >&2
  echo "       installing them needs root or password-less sudo. Run as root:" >&2
  echo "       apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "installing Debian packages: ${missing[*]}"
"${run[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# matplotlib caches the font list; make it see the new fonts.
rm -f "${XDG_CACHE_HOME:-$HOME/.cache}"/matplotlib/fontlist-*.json
