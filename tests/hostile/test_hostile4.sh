#!/usr/bin/env bash
# test_hostile4: hostile inputs, round 4 (issue 34's classes of defect) against
# what issues 30-33 added: py.ini and PEP 514 keys, pyvenv.cfg, ._pth and .pth
# files, PYTHONPATH/PYTHONHOME, conda-meta records, profile files and
# `inventory --write-profile`, --memory/--processes and PagingFiles,
# min_windows and vendor_dlls rows, AMD/Intel display-adapter keys, --app
# (onefile archives that lie, link loops in onedir and cx_Freeze layouts) and
# --host. ~200 cases in tests/hostile/hostile4.py, each on a copy of the torch
# 2.4.0 tree (tests/lib/trees/torch240.sh) run by the sanitizer build: a clear
# error or the right verdict, never a sanitizer report, never a stray
# workflow command or raw HTML in any format, bounded in time.
# HOSTILE4_ONLY=TEXT runs the cases whose name holds TEXT.
TEST_NAME=hostile4
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/trees/loader.sh"
source "$TDC_REPO/tests/lib/trees/torch240.sh"
set -u
base=$(torch240_tree) || {
	not_ok "the torch 2.4.0 tree could not be built"
	tap_done
}
mkdir -p "$tmp/w"
python3 "$TDC_REPO/tests/hostile/hostile4.py" "$B" "$base" "$tmp/w"
TAP_FAILED=$?
tap_done
