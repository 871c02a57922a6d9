#!/usr/bin/env bash
# A Debian 12 base image made from Debian's packages alone (no image registry needed):
#   deploy/docker/debian-base.sh python   -> localhost/raffe-base:bookworm  (python3)
#   deploy/docker/debian-base.sh redis    -> localhost/raffe-redis:bookworm (redis-server)
# mmdebstrap builds the root file system (about 20 s), podman imports it as an image.
set -euo pipefail
kind=${1:-python}
engine=${CONTAINER_ENGINE:-podman}
case "$kind" in
  python)
    packages=python3,python3-venv
    image=localhost/raffe-base:bookworm
    changes=(--change 'CMD ["python3"]')
    ;;
  redis)
    # The official image's contract: the arguments go to redis-server, uid 999 runs it.
    packages=redis-server
    image=localhost/raffe-redis:bookworm
    changes=(--change 'ENTRYPOINT ["redis-server"]' --change 'USER 999:999'
             --change 'WORKDIR /data')
    ;;
  *) echo "usage: $0 python|redis" >&2; exit 2 ;;
esac
if "$engine" image exists "$image" 2>/dev/null && [ -z "${REBUILD:-}" ]; then
  echo "$image: already here (REBUILD=1 makes it again)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# minbase: essential packages and apt only; docs and locales dropped as the slim images do.
mmdebstrap --quiet --variant=minbase --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --customize-hook='mkdir -p "$1/data" && chown 999:999 "$1/data"' \
  bookworm "$work/root.tar"
"$engine" import --quiet "${changes[@]}" "$work/root.tar" "$image" >/dev/null
echo "$image: $("$engine" image inspect --format '{{.Size}}' "$image" | numfmt --to=si)B"
