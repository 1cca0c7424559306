#!/usr/bin/env bash
# Builds the peer the folder bench compares against: skilljack-mcp at its v0.5.1 tag, with its own
# lockfile (npm ci) and its own build (tsc). The result goes to bench/peers/.skilljack-mcp/ (not
# committed: it is someone else's code, rebuilt on demand; CI never needs it).
#
#   bench/peers/build-skilljack.sh [SOURCE]
#
# SOURCE is a git URL or a local clone holding the tag (default: the project on GitHub).
set -euo pipefail
TAG=v0.5.1
SOURCE=${1:-${SKILLJACK_SOURCE:-https://github.com/olaservo/skilljack-mcp.git}}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/.skilljack-mcp"
if [ -f "$OUT/dist/index.js" ] && [ "$(cat "$OUT/.built-tag" 2>/dev/null)" = "$TAG" ]; then
  echo "skilljack-mcp $TAG already built in $OUT" >&2
  exit 0
fi
rm -rf "$OUT" "$OUT.tmp"
git clone --quiet --depth 1 --branch "$TAG" "$SOURCE" "$OUT.tmp" 2>/dev/null ||
  { rm -rf "$OUT.tmp"; git clone --quiet "$SOURCE" "$OUT.tmp" && git -C "$OUT.tmp" checkout --quiet "$TAG"; }
cd "$OUT.tmp"
# Its lockfile. `npm ci` (npm 10) refuses it: it lacks entries for esbuild's optional platform
# packages (under the dev tool tsx); `npm install` keeps every version it pins and adds those.
npm ci --no-audit --no-fund --ignore-scripts >&2 || npm install --no-audit --no-fund --ignore-scripts >&2
npx --no-install tsc >&2
rm -rf .git
echo "$TAG" >.built-tag
cd "$HERE" && mv "$OUT.tmp" "$OUT"
echo "built skilljack-mcp $TAG in $OUT (MIT: $OUT/LICENSE)" >&2
