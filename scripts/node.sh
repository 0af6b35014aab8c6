#!/usr/bin/env bash
# Prints the bin directory of the Node.js every make target runs on, installing it first when needed.
#
# The version is pinned in one place, package.json's "engines.node". By default that exact version is unpacked from
# the npm registry's node-linux-<arch> package (the binary the `node` package installs) into
# ${TRIBUTARY_NODE_CACHE:-~/.cache/tributary}/node-v<version>-linux-<arch>, once per machine, so clones share it.
# The node on PATH is used instead, with no download, when it is that exact version, or when USE_SYSTEM_NODE=1 and it
# is of the same major line. Any other major version is refused: the services, DuckDB's bindings and the bench are
# tested on that line alone.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { printf 'node.sh: %s\n' "$*" >&2; exit 1; }

version=$(sed -n '/"engines"/,/}/s/.*"node": *"\([0-9][0-9.]*\)".*/\1/p' package.json)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "package.json engines.node must be one exact version (e.g. \"24.21.0\"), found '${version}'"
major=${version%%.*}

system=$(command -v node 2>/dev/null || true)
system_version=$([ -n "$system" ] && "$system" --version 2>/dev/null || true)
if [ "$system_version" = "v$version" ]; then dirname "$system"; exit 0; fi
if [ "${USE_SYSTEM_NODE:-0}" = 1 ]; then
  [ -n "$system" ] || fail "USE_SYSTEM_NODE=1 but there is no node on PATH; unset it and make installs Node $version"
  [ "${system_version#v}" != "$system_version" ] && [ "${system_version#v$major.}" != "$system_version" ] \
    || fail "USE_SYSTEM_NODE=1 but $system is ${system_version:-unreadable}; Tributary runs on Node $major (package.json engines.node: $version): install Node $major, or unset USE_SYSTEM_NODE and make installs $version"
  dirname "$system"; exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no node-linux package for $(uname -m); install Node $version yourself and run make with USE_SYSTEM_NODE=1" ;;
esac
cache=${TRIBUTARY_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tributary}
home="$cache/node-v$version-linux-$arch"
if [ ! -x "$home/bin/node" ]; then
  command -v npm >/dev/null || fail "npm is needed once to fetch Node $version from the npm registry"
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.node-v$version.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "node.sh: installing Node $version (node-linux-$arch from the npm registry) into $home" >&2
  # npm checks the tarball against the registry's integrity hash; the system npm works under any Node it runs on.
  npm pack --silent --pack-destination "$tmp" "node-linux-$arch@$version" >/dev/null \
    || fail "could not fetch node-linux-$arch@$version from the npm registry (is it reachable?)"
  tar -xzf "$tmp"/node-linux-"$arch"-"$version".tgz -C "$tmp"
  [ "$("$tmp/package/bin/node" --version)" = "v$version" ] || fail "the unpacked node-linux-$arch@$version does not run here"
  # A rename is atomic: two makes starting at once both end with one complete install.
  mv -T "$tmp/package" "$home" 2>/dev/null || [ -x "$home/bin/node" ] || fail "could not move Node $version into $home"
fi
echo "$home/bin"
