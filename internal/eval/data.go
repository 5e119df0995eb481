// Package eval is Strategist's evaluation set and its scorer: requests a
// researcher might type, each with the strategy it should build written as
// an expected tree, counted here from the raw PlasmoDB export files and
// never through the catalog under test; a client that plays each case over
// the public HTTP API and SSE stream (plan, accept the handoff, build); and
// a scorer that compares what was built with what was expected and prints
// accuracy by category.
//
// The reader in this file is deliberately plain and separate from the
// offline catalog's loader (internal/catalog/offline), so that a bug there
// cannot hide in an expected count.
package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The raw files Load reads, relative to the data directory (data/SOURCES.md
// says where each comes from).
const (
	fileAnnotation = "pf3d7/GeneAnnotationPlasmoDB.txt"
	fileMappings   = "pf3d7/geneID_mappings.txt"
	fileGOLists    = "pf3d7/go_gene_lists.txt"
	fileGOTerms    = "pf3d7/go_terms.tsv"
)

// Sequence ids of the two organelle genomes.
const (
	SeqApicoplast    = "PFC10_API_IRAB"
	SeqMitochondrion = "M76611"
)

// ErrNoData says the data directory lacks the raw files (run `make data`).
var ErrNoData = errors.New("eval: gene data not found")

// Data is the raw export as plain maps: every gene of
// GeneAnnotationPlasmoDB.txt with its type, product, symbol, previous ids
// and the sequence it lies on, the GO biological-process gene sets of
// go_gene_lists.txt as the 2017 file gives them, and the GO term names and
// replacements of go_terms.tsv.
type Data struct {
	Genes       []string            // gene ids, in file order
	Type        map[string]string   // gene -> gene type ("tRNA encoding")
	Sequence    map[string]string   // gene -> genomic sequence id ("Pf3D7_05_v3")
	Product     map[string]string   // gene -> product description
	Symbol      map[string]string   // gene -> symbol, "" when none
	PreviousIDs map[string][]string // gene -> legacy ids
	GOSets      map[string]Set      // GO id -> genes, exactly as the 2017 file lists them
	GONames     map[string]string   // GO id -> name (GO release 2022-07-01)
	// ReplacedBy maps a GO id that GO has since merged into another to the
	// id that replaced it (go_terms.tsv's replaced_by column).
	ReplacedBy map[string]string
}

// Load reads the raw files under dir (laid out like data/: pf3d7/…). Genes
// without a row in geneID_mappings.txt lie where their id says:
// PF3D7_05… on Pf3D7_05_v3, PF3D7_API… on the apicoplast genome
// (PFC10_API_IRAB), PF3D7_MIT… and the mitochondrial mal_mito…, mal_rna…
// and malmito… ids on the mitochondrial genome (M76611).
func Load(dir string) (*Data, error) {
	d := &Data{Type: map[string]string{}, Sequence: map[string]string{}, Product: map[string]string{},
		Symbol: map[string]string{}, PreviousIDs: map[string][]string{}, GOSets: map[string]Set{},
		GONames: map[string]string{}, ReplacedBy: map[string]string{}}
	gene := map[string]string{} // gene and transcript ids -> gene id
	steps := []struct {
		file  string
		parse func(rows [][]string) error
	}{
		{fileAnnotation, func(rows [][]string) error { return d.readAnnotation(rows, gene) }},
		{fileMappings, func(rows [][]string) error { return d.readMappings(rows, gene) }},
		{fileGOLists, d.readGOLists},
		{fileGOTerms, d.readGOTerms},
	}
	for _, s := range steps {
		rows, err := readRows(dir, s.file)
		if err != nil {
			return nil, err
		}
		if err := s.parse(rows); err != nil {
			return nil, fmt.Errorf("eval: load %s: %w", s.file, err)
		}
	}
	if err := d.placeUnmapped(); err != nil {
		return nil, fmt.Errorf("eval: load: %w", err)
	}
	return d, nil
}

// readRows reads a TAB-separated file without its header row. Line ends
// may be LF or CR (go_gene_lists.txt uses CR).
func readRows(dir, name string) ([][]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is not in %s (run `make data`)", ErrNoData, name, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: load %s: %w", name, err)
	}
	lines := strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' })
	var rows [][]string
	for i, l := range lines {
		if i > 0 && strings.TrimSpace(l) != "" {
			rows = append(rows, strings.Split(l, "\t"))
		}
	}
	return rows, nil
}

// present is a field's value, or "" for the exports' missing markers.
func present(v string) string {
	v = strings.TrimSpace(v)
	if v == "N/A" || v == "null" {
		return ""
	}
	return v
}

// readAnnotation reads one row per transcript: gene, transcript, product,
// gene type, symbol. It fills gene with each gene and transcript id's gene.
func (d *Data) readAnnotation(rows [][]string, gene map[string]string) error {
	for i, c := range rows {
		if len(c) < 5 || c[0] == "" {
			return fmt.Errorf("row %d has %d columns, want at least 5", i+2, len(c))
		}
		g := c[0]
		if _, seen := d.Type[g]; !seen {
			d.Genes = append(d.Genes, g)
		}
		d.Type[g], d.Product[g], d.Symbol[g] = c[3], c[2], present(c[4])
		gene[g], gene[c[1]] = g, g
	}
	if len(d.Genes) == 0 {
		return errors.New("no genes")
	}
	return nil
}

// readMappings reads each gene's sequence and previous ids. A row names a
// gene or one of its transcripts; rows of ids the annotation does not have
// (retired genes, legacy apicoplast ids) are skipped.
func (d *Data) readMappings(rows [][]string, gene map[string]string) error {
	for i, c := range rows {
		if len(c) < 2 {
			return fmt.Errorf("row %d has %d columns, want at least 2", i+2, len(c))
		}
		g := gene[c[0]]
		if g == "" {
			continue
		}
		if seq := present(c[1]); seq != "" {
			d.Sequence[g] = seq
		}
		if len(c) > 5 {
			for _, p := range strings.Split(c[5], ",") {
				if p = present(p); p != "" {
					d.PreviousIDs[g] = append(d.PreviousIDs[g], p)
				}
			}
		}
	}
	return nil
}

// placeUnmapped reads the sequence of genes without a mapping row from
// their ids.
func (d *Data) placeUnmapped() error {
	for _, g := range d.Genes {
		if d.Sequence[g] != "" {
			continue
		}
		u := strings.ToUpper(g)
		switch {
		case strings.HasPrefix(u, "PF3D7_API"):
			d.Sequence[g] = SeqApicoplast
		case strings.HasPrefix(u, "PF3D7_MIT"), strings.HasPrefix(u, "MAL_MITO"), strings.HasPrefix(u, "MAL_RNA"), strings.HasPrefix(u, "MALMITO"):
			d.Sequence[g] = SeqMitochondrion
		case len(u) > 8 && strings.HasPrefix(u, "PF3D7_") && isDigits(u[6:8]):
			d.Sequence[g] = "Pf3D7_" + u[6:8] + "_v3"
		default:
			return fmt.Errorf("gene %s has no mapping row and its id does not say where it lies", g)
		}
	}
	return nil
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// readGOLists reads `GO:nnnnnnn<TAB>"gene,gene,…,"` rows.
func (d *Data) readGOLists(rows [][]string) error {
	for i, c := range rows {
		if len(c) < 2 || !strings.HasPrefix(c[0], "GO:") {
			return fmt.Errorf("row %d is not a GO id and its genes", i+2)
		}
		set := Set{}
		for _, g := range strings.Split(strings.Trim(c[1], `"`), ",") {
			if g = strings.TrimSpace(g); g != "" {
				set[g] = true
			}
		}
		d.GOSets[c[0]] = set
	}
	return nil
}

// readGOTerms reads go_id, name, ontology, status, replaced_by.
func (d *Data) readGOTerms(rows [][]string) error {
	for i, c := range rows {
		if len(c) < 2 || !strings.HasPrefix(c[0], "GO:") {
			return fmt.Errorf("row %d is not a GO term", i+2)
		}
		d.GONames[c[0]] = c[1]
		if len(c) > 4 && strings.TrimSpace(c[4]) != "" {
			d.ReplacedBy[c[0]] = strings.TrimSpace(c[4])
		}
	}
	return nil
}

// All is every gene of the export (GenesByTaxon for P. falciparum 3D7).
func (d *Data) All() Set { return d.where(func(string) bool { return true }) }

// OfType is the genes of a gene type, spelled as in the export ("tRNA
// encoding", "protein coding").
func (d *Data) OfType(typ string) Set {
	return d.where(func(g string) bool { return d.Type[g] == typ })
}

// On is the genes on a genomic sequence ("Pf3D7_14_v3", "M76611").
func (d *Data) On(seq string) Set {
	return d.where(func(g string) bool { return d.Sequence[g] == seq })
}

// GO is the 2017 file's gene set of a GO id (empty when the file does not
// list the id).
func (d *Data) GO(id string) Set { return Union(d.GOSets[id]) }

// IDs is the genes among ids that the export has.
func (d *Data) IDs(ids ...string) Set {
	s := Set{}
	for _, id := range ids {
		if _, ok := d.Type[id]; ok {
			s[id] = true
		}
	}
	return s
}

// Words is a plain approximation of the offline text search: the genes
// whose id, symbol, previous ids or product description has, for every
// word of text, a word starting with it (case-insensitive). Text cases are
// scored on being marked approximate, so this count is for reports only.
func (d *Data) Words(text string) Set {
	want := words(text)
	return d.where(func(g string) bool {
		have := words(strings.Join(append([]string{g, d.Symbol[g], d.Product[g]}, d.PreviousIDs[g]...), " "))
		for _, w := range want {
			found := false
			for _, h := range have {
				if strings.HasPrefix(h, w) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return len(want) > 0
	})
}

// words lower-cases s and splits it into runs of letters, digits, '_' and
// '.', trimmed of dots.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.')
	}) {
		if w = strings.Trim(w, "."); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func (d *Data) where(keep func(g string) bool) Set {
	s := Set{}
	for _, g := range d.Genes {
		if keep(g) {
			s[g] = true
		}
	}
	return s
}

// Set is a set of gene ids.
type Set map[string]bool

func (s Set) String() string { return fmt.Sprintf("%d genes", len(s)) }

// Union is the genes in any of the sets.
func Union(sets ...Set) Set {
	out := Set{}
	for _, s := range sets {
		for g := range s {
			out[g] = true
		}
	}
	return out
}

// Intersect is the genes in both a and b.
func Intersect(a, b Set) Set {
	out := Set{}
	for g := range a {
		if b[g] {
			out[g] = true
		}
	}
	return out
}

// Minus is the genes of a that are not in b.
func Minus(a, b Set) Set {
	out := Set{}
	for g := range a {
		if !b[g] {
			out[g] = true
		}
	}
	return out
}

// fileSeedSets holds PathFinder's seed control sets (optional: see
// data/SOURCES.md).
const fileSeedSets = "pf3d7/pathfinder_seed_gene_sets_plasmodb.tsv"

// LoadSeedSets reads PathFinder's seed control sets under dir: set name ->
// its gene ids, in file order. Without the file it is ErrNoData.
func LoadSeedSets(dir string) (map[string][]string, error) {
	rows, err := readRows(dir, fileSeedSets)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for i, r := range rows {
		if len(r) != 2 || r[0] == "" || r[1] == "" {
			return nil, fmt.Errorf("eval: load %s: row %d is not a set name and a gene id", fileSeedSets, i+2)
		}
		out[r[0]] = append(out[r[0]], r[1])
	}
	return out, nil
}
