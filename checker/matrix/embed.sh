#!/bin/sh
# embed.sh NAME FILE: prints a C file that defines NAME (the bytes of FILE,
# NUL-terminated) and NAME_len, so the default matrix is compiled into the
# program and works with no file at all.
set -eu
name=$1
file=$2
echo "/* generated from $file by checker/matrix/embed.sh; do not edit */"
echo "#include <stddef.h>"
echo "const char $name[] = {"
od -An -v -tx1 "$file" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
echo "0x00 };"
echo "const size_t ${name}_len = sizeof($name) - 1;"
