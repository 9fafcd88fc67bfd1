#!/bin/sh
# The image's entry point. With no arguments, or with options of `run` (`--clock frozen`),
# or with `run ...`, it runs `mockserver run` on MOCKSERVER_HOST:MOCKSERVER_PORT (the image sets
# 0.0.0.0:8080), with the control plane guarded by MOCKSERVER_ADMIN_TOKEN when that is set.
# Any other arguments are another mockserver command (`validate FILE`, `--version`), with or
# without a leading `mockserver`. `exec` makes mockserver PID 1, so it gets the SIGTERM of
# `podman stop` / `docker stop` itself.
#
# The variables are passed as flags: an option given both ways takes the flag, so the values
# are the same whether or not this mockserver reads its MOCKSERVER_ variables itself.
set -eu
if [ "${1-}" = mockserver ]; then
    shift
fi
case "${1-}" in
    --version) exec mockserver --version ;;
    "" | -*) ;;
    run) shift ;;
    *) exec mockserver "$@" ;;
esac
set -- --host "${MOCKSERVER_HOST:-0.0.0.0}" --port "${MOCKSERVER_PORT:-8080}" "$@"
if [ -n "${MOCKSERVER_ADMIN_TOKEN-}" ]; then
    set -- --admin-token "$MOCKSERVER_ADMIN_TOKEN" "$@"
fi
exec mockserver run "$@"
