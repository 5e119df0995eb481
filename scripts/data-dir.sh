# Sourced by make targets: find_data_dir exports STRATEGIST_DATA_DIR when the
# offline gene data is found (./data, ../shared/data, or STRATEGIST_DATA_SOURCE
# copied into ./data by scripts/fetch-data.sh).
find_data_dir() {
  if [ -n "${STRATEGIST_DATA_DIR:-}" ]; then return 0; fi
  local d
  for d in data ../shared/data; do
    if [ -f "$d/pf3d7/GeneAnnotationPlasmoDB.txt" ]; then
      export STRATEGIST_DATA_DIR; STRATEGIST_DATA_DIR=$(cd "$d" && pwd); return 0
    fi
  done
  if [ -n "${STRATEGIST_DATA_SOURCE:-}" ] && [ -x scripts/fetch-data.sh ]; then
    scripts/fetch-data.sh && export STRATEGIST_DATA_DIR; STRATEGIST_DATA_DIR=$(pwd)/data
    return 0
  fi
  echo "offline gene data not found (run make data); tests that need it will skip, or fail with CI=true" >&2
}
