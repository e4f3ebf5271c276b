#!/usr/bin/env bash
# Keeps the browser tests' screenshots as CI artifacts: every PNG under test-results/ (the axe pass's
# page shots at 1280 and 390 px, test-results/screenshots/, and the flows' shots, test-results/workbench/)
# is copied to $ARTIFACTS_DIR/screenshots (default: artifacts/ in the checkout), with an index.html
# that shows them all on one page, and the folder is printed. Runs even when the tests failed: a shot
# of what went wrong is worth most then. Never fails the build itself.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dest="${ARTIFACTS_DIR:-$PWD/artifacts}/screenshots"
mapfile -t shots < <(find test-results -name '*.png' -type f 2>/dev/null | sort)
if [ "${#shots[@]}" -eq 0 ]; then
  echo "screenshots: none under test-results/ (the browser tests did not run)"
  exit 0
fi
mkdir -p "$dest"
{
  echo '<!doctype html><meta charset="utf-8"><title>Workbench screenshots</title>'
  echo '<style>body{font-family:sans-serif;margin:1rem}figure{display:inline-block;margin:.5rem;vertical-align:top}img{max-width:420px;border:1px solid #ccc}</style>'
  echo "<h1>Workbench screenshots (${#shots[@]})</h1>"
} > "$dest/index.html"
for f in "${shots[@]}"; do
  # test-results/screenshots/run-1280.png -> screenshots--run-1280.png: one flat folder, names kept apart.
  name="$(echo "${f#test-results/}" | sed 's#/#--#g')"
  cp "$f" "$dest/$name"
  printf '<figure><a href="%s"><img src="%s" alt="%s"></a><figcaption>%s</figcaption></figure>\n' "$name" "$name" "$name" "$name" >> "$dest/index.html"
done
echo "screenshots: ${#shots[@]} kept in $dest (index.html shows them all)"
