#!/usr/bin/env bash
# fetch-data.sh fills data/pf3d7/ with the offline gene data Strategist reads at
# start (see data/SOURCES.md). Called by `make data`, by `make run` when the
# data is missing, and by make test when STRATEGIST_DATA_SOURCE is set.
#
# Where the files come from:
#   - $STRATEGIST_DATA_SOURCE when set: a local directory laid out like data/
#     (with pf3d7/) or holding the files directly (CI sets it to its mirror,
#     because CI cannot reach the data's host);
#   - else the public repository EmilieGllch/falciparum_transcriptome_manuscript,
#     pinned to commit e7a9d33715264c741abfee77253e2244f5a8d91a
#     ($STRATEGIST_DATA_BASE_URL overrides the download base, for mirrors).
# go_terms.tsv, go_synonyms.tsv and go_definitions.tsv, when no local copy
# exists, are derived from Debian's r-bioc-go.db 3.16.0-1 (GO release
# 2022-07-01) with apt-get, dpkg-deb and sqlite3, exactly as the shipped
# files were made.
#
# Every file is checked against the sha256 in data/SOURCES.md; a mismatch
# stops the script with an error and leaves no bad file behind.
# $STRATEGIST_DATA_DEST changes the destination (default: data/ in the repo).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${STRATEGIST_DATA_DEST:-$root/data}/pf3d7"
commit="e7a9d33715264c741abfee77253e2244f5a8d91a"
base_url="${STRATEGIST_DATA_BASE_URL:-https://raw.githubusercontent.com/EmilieGllch/falciparum_transcriptome_manuscript/$commit}"

# name | path in the source repository | sha256
files=(
  "GeneAnnotationPlasmoDB.txt|all_gene_analysis/data/GeneAnnotationPlasmoDB.txt|fa61a2605443f21a7bed203106ac4f9b9e6e7d58b3c7796d42791aaea5362f1e"
  "geneID_mappings.txt|all_gene_analysis/data/geneID_mappings.txt|965b5dcc4cf2a65cdcd119381ff3644e03d1b5a009afd00abe7a50c70d020c39"
  "go_gene_lists.txt|all_gene_analysis/data/go_gene_lists.txt|2fba0b273441156458432cf532367e63d2337069bf9f093c015b42dc276fc45f"
  "LICENSE.falciparum_transcriptome_manuscript.MIT.txt|LICENSE|f00426c29bc62b36968678eb80d704f750268732a6fe9ba38dbca7f84d4e5548"
)
go_terms_sha256="5ff73e37078b69950114c7cbc02536925429aee59b7d87a9c15acdb64c82dc9e"
go_synonyms_sha256="f66530bbbfc832f9a10e05df6b509d0a8fd4654a99f8a1523994bc51ffe9b1c3"
go_definitions_sha256="3d69551ec34a5346b22414340107667c3df1ab67727163349c60c0a861c5e6f6"
seed_sets_sha256="ca7ad040f8e41f45cb1b2bd1912369ccec6e432b5baebf326afb16d36a907fd4"
seed_index_sha256="2e3dbe50d53f24a5159aebca218a7b740ec53d58575954c724ce98ac61b4c95b"
go_deb_version="3.16.0-1"
go_deb_sha256="6cf9c43b97212811ecb7ad0d7cde12e76f984ab7494a59c02455239a9dd3243d"
# GO ids named by the project's tests and examples beyond the gene lists.
go_extra_ids="GO:0004672 GO:0008233 GO:0055085 GO:0003735 GO:0006457 GO:0006260 GO:0016301"

work_dirs=()
cleanup() {
  for d in "${work_dirs[@]}"; do rm -rf "$d"; done
  rm -f "$dest"/.*.tmp 2>/dev/null || true
}
trap cleanup EXIT

say() { printf 'fetch-data: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    die "neither sha256sum nor shasum is installed; cannot verify the data"
  fi
}

# verify FILE SHA256: succeed when the file exists with that checksum.
verify() {
  [[ -f "$1" ]] && [[ "$(sha256 "$1")" == "$2" ]]
}

# install TMP NAME SHA256: check TMP and move it into place, or fail loudly.
install_checked() {
  local tmp="$1" name="$2" want="$3" got
  got="$(sha256 "$tmp")"
  if [[ "$got" != "$want" ]]; then
    rm -f "$tmp"
    die "sha256 mismatch for $name: got $got, want $want (source changed or corrupted; nothing was installed)"
  fi
  chmod 0644 "$tmp"
  mv -f "$tmp" "$dest/$name"
  say "ok  $name"
}

download() {
  local url="$1" out="$2"
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 -o "$out" "$url"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$out" "$url"
  else
    die "neither curl nor wget is installed; install one, or set STRATEGIST_DATA_SOURCE to a local copy"
  fi
}

# find_source sets src to the local directory to copy from, if any.
src=""
find_source() {
  local c="${STRATEGIST_DATA_SOURCE:-}"
  [[ -n "$c" ]] || return 0
  if [[ -d "$c/pf3d7" ]]; then
    src="$(cd "$c/pf3d7" && pwd)"
  elif [[ -f "$c/GeneAnnotationPlasmoDB.txt" ]]; then
    src="$(cd "$c" && pwd)"
  else
    die "STRATEGIST_DATA_SOURCE=$c holds neither pf3d7/ nor GeneAnnotationPlasmoDB.txt"
  fi
}

# go_db prints the path of GO.sqlite from Debian's r-bioc-go.db, downloading
# and unpacking the package once per run. $1 names the file being derived.
go_db_path=""
go_db() {
  local work
  if [[ -n "$go_db_path" ]]; then
    return 0
  fi
  for tool in apt-get dpkg-deb sqlite3; do
    command -v "$tool" >/dev/null 2>&1 ||
      die "$1 has no local copy and deriving it needs $tool (Debian: apt-get install sqlite3 dpkg); or set STRATEGIST_DATA_SOURCE to a directory with $1"
  done
  work="$(mktemp -d)"
  work_dirs+=("$work")
  say "deriving $1 from Debian r-bioc-go.db $go_deb_version (12 MB download)"
  (cd "$work" && apt-get download "r-bioc-go.db=$go_deb_version" >/dev/null 2>&1) ||
    die "apt-get download r-bioc-go.db=$go_deb_version failed (is a Debian bookworm source configured? try apt-get update)"
  local deb
  deb="$(ls "$work"/r-bioc-go.db_*.deb)"
  [[ "$(sha256 "$deb")" == "$go_deb_sha256" ]] || die "sha256 mismatch for $(basename "$deb"): want $go_deb_sha256"
  dpkg-deb -x "$deb" "$work/x"
  go_db_path="$(find "$work/x" -name GO.sqlite | head -n1)"
  [[ -n "$go_db_path" ]] || die "GO.sqlite not found in $(basename "$deb")"
}

# derive_go_terms writes go_terms.tsv: the name, ontology and 2022-07-01
# status of every GO id in go_gene_lists.txt (then the extra ids), read from
# GO.sqlite of Debian's r-bioc-go.db.
derive_go_terms() {
  local out="$1" work db
  go_db go_terms.tsv
  db="$go_db_path"
  work="$(mktemp -d)"
  work_dirs+=("$work")
  { tr '\r' '\n' <"$dest/go_gene_lists.txt" | tail -n +2 | cut -f1 | grep '^GO:'
    printf '%s\n' $go_extra_ids
  } | awk '!seen[$0]++' >"$work/ids.txt"
  sqlite3 -batch :memory: >"$out" <<SQL
ATTACH 'file:$db?mode=ro' AS go;
CREATE TABLE want(go_id TEXT);
.mode tabs
.import $work/ids.txt want
.headers off
SELECT 'go_id','name','ontology','status_in_GO_2022-07-01','replaced_by';
SELECT w.go_id,
  COALESCE(t.term, o.term, p.term),
  COALESCE(t.ontology, o.ontology, p.ontology),
  CASE WHEN t.go_id IS NOT NULL THEN 'current'
       WHEN o.go_id IS NOT NULL THEN 'obsolete'
       WHEN p.go_id IS NOT NULL THEN 'secondary_id'
       ELSE 'missing' END,
  CASE WHEN t.go_id IS NULL AND o.go_id IS NULL AND p.go_id IS NOT NULL THEN p.go_id ELSE '' END
FROM want w
LEFT JOIN go.go_term t ON t.go_id = w.go_id
LEFT JOIN go.go_obsolete o ON o.go_id = w.go_id
LEFT JOIN (SELECT s.secondary AS sec, MIN(gt.go_id) AS go_id, gt.term AS term, gt.ontology AS ontology
           FROM go.go_synonym s JOIN go.go_term gt ON gt._id = s._id
           WHERE s.secondary IS NOT NULL GROUP BY s.secondary) p ON p.sec = w.go_id
ORDER BY w.rowid;
SQL
}

# derive_go_extra OUT NAME writes go_synonyms.tsv or go_definitions.tsv for
# every id go_terms.tsv marks current and every id it names as a
# replacement: the label synonyms of the term (GO.db keeps no scope, so
# exact, broad, narrow and related ones together), or its definition with
# TABs and newlines made spaces.
derive_go_extra() {
  local out="$1" name="$2" work db query
  go_db "$name"
  db="$go_db_path"
  work="$(mktemp -d)"
  work_dirs+=("$work")
  awk -F'\t' 'NR > 1 && $4 == "current" { print $1 } NR > 1 && $5 != "" { print $5 }' "$dest/go_terms.tsv" |
    awk '!seen[$0]++' >"$work/ids.txt"
  case "$name" in
    go_synonyms.tsv) query="SELECT 'go_id','synonym';
SELECT t.go_id, s.synonym FROM want w JOIN go.go_term t ON t.go_id = w.go_id
  JOIN go.go_synonym s ON s._id = t._id WHERE s.like_go_id = 0 ORDER BY t.go_id, s.synonym;" ;;
    go_definitions.tsv) query="SELECT 'go_id','definition';
SELECT t.go_id, replace(replace(replace(t.definition, char(9), ' '), char(13), ' '), char(10), ' ')
  FROM want w JOIN go.go_term t ON t.go_id = w.go_id ORDER BY t.go_id;" ;;
    *) die "no derivation for $name" ;;
  esac
  sqlite3 -batch :memory: >"$out" <<SQL
ATTACH 'file:$db?mode=ro' AS go;
CREATE TABLE want(go_id TEXT);
.mode tabs
.import $work/ids.txt want
.headers off
$query
SQL
}

mkdir -p "$dest"
find_source
if [[ -n "$src" ]]; then
  say "copying from $src"
else
  say "downloading from $base_url"
fi

for entry in "${files[@]}"; do
  IFS='|' read -r name path want <<<"$entry"
  if verify "$dest/$name" "$want"; then
    say "ok  $name (already present)"
    continue
  fi
  tmp="$dest/.$name.tmp"
  if [[ -n "$src" ]]; then
    [[ -f "$src/$name" ]] || die "$src/$name is missing"
    cp "$src/$name" "$tmp"
  else
    download "$base_url/$path" "$tmp" || { rm -f "$tmp"; die "download of $base_url/$path failed"; }
  fi
  install_checked "$tmp" "$name" "$want"
done

if verify "$dest/go_terms.tsv" "$go_terms_sha256"; then
  say "ok  go_terms.tsv (already present)"
else
  tmp="$dest/.go_terms.tsv.tmp"
  if [[ -n "$src" && -f "$src/go_terms.tsv" ]]; then
    cp "$src/go_terms.tsv" "$tmp"
  else
    derive_go_terms "$tmp"
  fi
  install_checked "$tmp" go_terms.tsv "$go_terms_sha256"
fi

# The GO synonyms and definitions of the same release, for the ids of
# go_terms.tsv: copied from the local source, or derived like it.
for entry in "go_synonyms.tsv|$go_synonyms_sha256" "go_definitions.tsv|$go_definitions_sha256"; do
  IFS='|' read -r name want <<<"$entry"
  if verify "$dest/$name" "$want"; then
    say "ok  $name (already present)"
    continue
  fi
  tmp="$dest/.$name.tmp"
  if [[ -n "$src" && -f "$src/$name" ]]; then
    cp "$src/$name" "$tmp"
  else
    derive_go_extra "$tmp" "$name"
  fi
  install_checked "$tmp" "$name" "$want"
done
# PathFinder's seed control sets (gene-id lists it pairs with its example
# strategies), extracted from its Python source rather than served as
# files: copied from the local source only, and optional (the evaluation's
# control-set tests need them; nothing else does).
for entry in "pathfinder_seed_gene_sets_plasmodb.tsv|$seed_sets_sha256" "pathfinder_seed_gene_sets_plasmodb.index.tsv|$seed_index_sha256"; do
  IFS='|' read -r name want <<<"$entry"
  if verify "$dest/$name" "$want"; then
    say "ok  $name (already present)"
  elif [[ -n "$src" && -f "$src/$name" ]]; then
    cp "$src/$name" "$dest/.$name.tmp"
    install_checked "$dest/.$name.tmp" "$name" "$want"
  else
    say "skipped $name: the seed control sets come only from a local copy (STRATEGIST_DATA_SOURCE); see data/SOURCES.md"
  fi
done
say "gene data ready in $dest"
