#!/bin/sh
# Run by `npm test` before the suite: the browser tier drives Debian's chromium, the scale-out tests
# put Debian's pgbouncer in front of PostgreSQL, and the receipt tests read PDFs with poppler's pdftotext
# (nothing downloads a browser or a binary at install).
# Installs what is missing when it can (root with apt-get); otherwise says how, and the suite runs anyway:
# only the tests that need the missing program fail, each naming it.
set -eu
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -x /usr/sbin/pgbouncer ] || [ -x /usr/bin/pgbouncer ] || missing="$missing pgbouncer"
command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing what the tests need:$missing"
  apt-get update -qq
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
else
  echo "The browser, pgbouncer and PDF tests need:$missing. Install with: sudo apt-get install -y$missing" >&2
  echo "(npm run test:unit needs neither.)" >&2
fi
