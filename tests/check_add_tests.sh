#!/bin/sh
# pecheck_add_tests registered one ctest test per cell of the subject, and no
# other: the tests named PREFIX.<id> are exactly `pecheck run --list-cells`.
# usage: check_add_tests.sh PECHECK BUILD_DIR SUBJECT PREFIX
set -eu
pecheck=$1 build=$2 subject=$3 prefix=$4
cells=$("$pecheck" run --subject "$subject" --list-cells --no-regressions | cut -f1 | sort)
tests=$(cd "$build" && ctest -N | sed -n "s/^ *Test *#[0-9]*: $prefix\.//p" | sort)
if [ -z "$cells" ]; then echo "no cells listed for $subject"; exit 1; fi
if [ "$cells" != "$tests" ]; then
  echo "cells of $subject:"; echo "$cells"; echo "tests named $prefix.*:"; echo "$tests"; exit 1
fi
echo "$(echo "$tests" | wc -l) cells, one test each"
