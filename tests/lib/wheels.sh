# shellcheck shell=bash
# wheels.sh: real Windows wheels from PyPI for the tests (source it).
#
#   wheel_fetch PROJECT VERSION [PY]  print the cached wheel's path (fetched once,
#                                 sha256-checked against PyPI; tests/lib/wheels.py;
#                                 PY=3.8: the cp38 build)
#                                 status 3: PyPI/pip did not give us the file
#   wheel_unpack WHEEL DIR        extract the wheel into DIR (a site-packages)
#   pip_python                    print a Python that has pip (or fail)
#
# Which Python runs pip: $TDC_PIP_PYTHON if set, else the first of the
# python3s on PATH, pyenv's, and Debian's /usr/bin/python3 (python3-pip,
# installed by .ci/deps) whose `-m pip --version` works. tests/run puts
# Debian's python3 first on PATH; either pip downloads the same bytes.
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
export TDC_CACHE
WHEELS_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/wheels.py

pip_python() {
	local p
	if [ -n "${TDC_PIP_PYTHON:-}" ]; then
		echo "$TDC_PIP_PYTHON"
		return 0
	fi
	for p in $(type -ap python3) "$HOME/.pyenv/shims/python3" /usr/bin/python3; do
		[ -x "$p" ] && "$p" -m pip --version >/dev/null 2>&1 && { echo "$p"; return 0; }
	done
	echo "wheels.sh: no python3 with pip (install python3-pip)" >&2
	return 1
}

wheel_fetch() {
	local py
	py=$(pip_python) || return 3
	TDC_PIP_PYTHON=$py "$py" "$WHEELS_PY" fetch "$1" "$2" ${3:+"$3"}
}

# wheel_unpack WHEEL DIR: a wheel is a zip whose top level is site-packages.
wheel_unpack() {
	mkdir -p "$2" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
}
