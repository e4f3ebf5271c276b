#!/usr/bin/env bash
# `npm run mutate [-- <target>…]`: mutation testing (Stryker, its jest runner) of the targets in
# tools/mutation/targets.cjs, one at a time, each against its own unit specs. Reports go to
# reports/mutation/<target>/ (index.html, mutation.json); not part of `npm test` or CI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ROUNDTABLE_POLICY="${ROUNDTABLE_POLICY:-$PWD/test/fixtures/policy/test-policy.yaml}"
all="$(node -e 'console.log(Object.keys(require("./tools/mutation/targets.cjs")).join(" "))')"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && read -r -a targets <<<"$all"
for t in "${targets[@]}"; do
  if [[ " $all " != *" $t "* ]]; then echo "unknown mutation target \"$t\": one of $all" >&2; exit 2; fi
done
for t in "${targets[@]}"; do
  echo "--- mutate $t"
  # MUTATE_FORCE=1 re-tests every mutant (the incremental file can keep a stale result, e.g. of module-level code).
  MUTATE_TARGET="$t" npx stryker run tools/mutation/stryker.config.mjs ${MUTATE_FORCE:+--force}
done
# One line per target: the score as the reports say it.
node tools/mutation/summary.mjs "${targets[@]}"
