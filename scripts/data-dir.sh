# Sourced by make targets and scripts: find_data_dir exports STRATEGIST_DATA_DIR
# by the one rule the server and the tests follow: STRATEGIST_DATA_DIR when
# set, else ./data at the repository root. When ./data lacks the data and
# STRATEGIST_DATA_SOURCE names a local copy (CI's mirror), scripts/fetch-data.sh
# copies it into ./data first, checking every checksum.
find_data_dir() {
  if [ -n "${STRATEGIST_DATA_DIR:-}" ]; then return 0; fi
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ ! -f "$root/data/pf3d7/GeneAnnotationPlasmoDB.txt" ] && [ -n "${STRATEGIST_DATA_SOURCE:-}" ]; then
    "$root/scripts/fetch-data.sh" || return 1
  fi
  if [ -f "$root/data/pf3d7/GeneAnnotationPlasmoDB.txt" ]; then
    export STRATEGIST_DATA_DIR="$root/data"
    return 0
  fi
  echo "offline gene data not found in ./data (run make data); tests that need it will skip, or fail with CI=true" >&2
}
