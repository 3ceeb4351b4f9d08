#!/usr/bin/env bash
# Builds the Spawnpoint image: deploy/image/build.sh [--tag NAME] [--local-base]
#   --local-base  build on a base made from Debian packages (deploy/image/build-base.sh) instead of the
#                 public node:20 slim image: for machines that reach no image registry (CI here).
# Prints the tag and the image's size. Layers are cached: a rebuild with the same lockfile reuses the
# dependency layer. Containers run here with `--runtime runc` and explicit ulimits (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
TAG="localhost/spawnpoint:dev"
LOCAL_BASE=false
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    --local-base) LOCAL_BASE=true; shift ;;
    *) echo "usage: $0 [--tag NAME] [--local-base]" >&2; exit 64 ;;
  esac
done
args=()
if $LOCAL_BASE; then args+=(--build-arg "BASE=$(bash deploy/image/build-base.sh)"); fi
# npm's CA bundle (this machine's, when npm is set to one: a TLS-inspecting proxy) for the install step.
ca="${NPM_CA_FILE:-$(npm config get cafile 2>/dev/null || true)}"
if [ -n "$ca" ] && [ "$ca" != null ] && [ "$ca" != undefined ] && [ -s "$ca" ]; then args+=(--secret "id=npm_ca,src=$ca"); fi
# Explicit limits at or below this host's hard limits (podman's defaults raise them and runc refuses).
nofile="$(ulimit -Hn)"; nproc="$(ulimit -Hu)"
{ [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
{ [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ]; } && nproc=4096
podman build --runtime runc --network host --ulimit "nofile=${nofile}:${nofile}" --ulimit "nproc=${nproc}:${nproc}" \
  "${args[@]}" --tag "$TAG" --file Containerfile . >&2
echo "$TAG $(podman image inspect --format '{{.Size}}' "$TAG")"
