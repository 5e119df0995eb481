package offline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"strategist/internal/catalog/enrich"
)

// The files Load reads, relative to the data directory. They are PlasmoDB
// exports for Plasmodium falciparum 3D7 plus GO term names; data/SOURCES.md
// says where each comes from and how `make data` fetches it.
const (
	FileGeneAnnotation = "pf3d7/GeneAnnotationPlasmoDB.txt"
	FileGeneMappings   = "pf3d7/geneID_mappings.txt"
	FileGOGeneLists    = "pf3d7/go_gene_lists.txt"
	FileGOTerms        = "pf3d7/go_terms.tsv"
	// GO's own synonyms and definitions of the same release as
	// go_terms.tsv, for its current ids and the ids replacing the others.
	FileGOSynonyms    = "pf3d7/go_synonyms.tsv"
	FileGODefinitions = "pf3d7/go_definitions.tsv"
)

// dataFiles lists every file Load needs, in the order they are read.
func dataFiles() []string {
	return []string{FileGeneAnnotation, FileGeneMappings, FileGOGeneLists, FileGOTerms, FileGOSynonyms, FileGODefinitions}
}

// MissingDataError says the gene data is not where Strategist looked, naming
// the first file that is missing, so the user knows to run `make data`.
type MissingDataError struct {
	Dir  string
	File string
	Err  error
}

func (e *MissingDataError) Error() string {
	return fmt.Sprintf("offline: gene data missing: %s not found in %s (run `make data` to fetch it)", e.File, e.Dir)
}

func (e *MissingDataError) Unwrap() error { return e.Err }

// ParseError says a data file exists but does not have the expected shape.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("offline: parse %s line %d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("offline: parse %s: %s", e.File, e.Msg)
}

// Gene is one P. falciparum 3D7 gene of the snapshot.
type Gene struct {
	ID            string
	TranscriptIDs []string
	Product       string
	Type          string
	Symbol        string
	Chromosome    string
	// ChromosomeFromID is true when geneID_mappings.txt has no row for the
	// gene and Chromosome was read from the gene id itself (PF3D7_CC…,
	// PF3D7_API…, mitochondrial mal*_ ids), which agrees with every mapped gene.
	ChromosomeFromID bool
	PreviousIDs      []string
}

// GOTerm is a GO term name from go_terms.tsv.
type GOTerm struct {
	ID         string
	Name       string
	Ontology   string // BP, MF or CC
	Status     string // current, obsolete or secondary_id (GO release 2022-07-01)
	ReplacedBy string
}

// Data is the gene snapshot, read once at start and shared read-only by every
// request: nothing in it changes after Load returns, so readers need no lock.
type Data struct {
	genes []Gene // sorted by ID; a gene's index is its identity in results
	// ids maps lower-cased gene ids, transcript ids and previous ids to gene
	// indexes (a retired id can name several genes).
	ids     map[string][]int32
	goSets  map[string][]int32 // GO id -> sorted gene indexes
	goOrder []string           // GO ids in file order
	goTerms map[string]GOTerm
	// goSynonyms and goDefinitions are GO's own synonyms (exact, broad,
	// narrow and related together) and definition of a GO id.
	goSynonyms    map[string][]string
	goDefinitions map[string]string
	// goMerged maps current GO ids the file has no set for to the file's
	// ids GO has merged into them; goMergedInto is the reverse.
	goMerged     map[string][]string
	goMergedInto map[string]string
	// goBP is every biological-process gene set, in file order, for
	// enrichment.
	goBP        []enrich.Annotation
	geneTypes   []string
	chromosomes []string
}

// Load reads the snapshot from dir (laid out like data/: pf3d7/…). A missing
// directory or file is a *MissingDataError; a malformed file a *ParseError.
func Load(dir string) (*Data, error) {
	raw := make(map[string][]byte, 4)
	for _, f := range dataFiles() {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &MissingDataError{Dir: dir, File: f, Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("offline: load %s: %w", f, err)
		}
		raw[f] = b
	}
	d := &Data{}
	if err := d.parseAnnotation(raw[FileGeneAnnotation]); err != nil {
		return nil, err
	}
	if err := d.parseMappings(raw[FileGeneMappings]); err != nil {
		return nil, err
	}
	if err := d.parseGOSets(raw[FileGOGeneLists]); err != nil {
		return nil, err
	}
	if err := d.parseGOTerms(raw[FileGOTerms]); err != nil {
		return nil, err
	}
	if err := d.parseGOPairs(raw[FileGOSynonyms], FileGOSynonyms, "synonym", func(id, v string) {
		d.goSynonyms[id] = append(d.goSynonyms[id], v)
	}); err != nil {
		return nil, err
	}
	if err := d.parseGOPairs(raw[FileGODefinitions], FileGODefinitions, "definition", func(id, v string) {
		d.goDefinitions[id] = v
	}); err != nil {
		return nil, err
	}
	d.buildGOMerges()
	d.buildGOAnnotations()
	d.buildVocabularies()
	return d, nil
}

// NumGenes is the size of the universe (5,712 for the 2017 export).
func (d *Data) NumGenes() int { return len(d.genes) }

// Gene returns the gene with the given id (exact, as in the export).
func (d *Data) Gene(id string) (Gene, bool) {
	i, ok := slices.BinarySearchFunc(d.genes, id, func(g Gene, id string) int { return strings.Compare(g.ID, id) })
	if !ok {
		return Gene{}, false
	}
	return d.genes[i], true
}

// GeneTypes lists the distinct gene types, sorted.
func (d *Data) GeneTypes() []string { return slices.Clone(d.geneTypes) }

// Chromosomes lists the genomic sequences genes lie on: nuclear chromosomes
// in order, then the organelle genomes.
func (d *Data) Chromosomes() []string { return slices.Clone(d.chromosomes) }

// GOTermIDs lists the GO ids that have gene sets, in file order.
func (d *Data) GOTermIDs() []string { return slices.Clone(d.goOrder) }

// GOTermInfo returns the name of a GO id from go_terms.tsv (also for ids
// without a gene set, such as the molecular-function ids listed there).
// Case is ignored ("go:0006281").
func (d *Data) GOTermInfo(id string) (GOTerm, bool) {
	id, _ = canonicalGOID(id)
	t, ok := d.goTerms[id]
	return t, ok
}

// lines splits b on LF, CR or CRLF and drops a trailing empty line.
func lines(b []byte) [][]byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	ls := bytes.Split(b, []byte("\n"))
	for len(ls) > 0 && len(bytes.TrimSpace(ls[len(ls)-1])) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// field returns column i of a TAB-separated row, trimmed, with the export's
// markers for a missing value ("N/A", "null") turned into "".
func field(cols [][]byte, i int) string {
	if i >= len(cols) {
		return ""
	}
	s := strings.TrimSpace(string(cols[i]))
	switch s {
	case "N/A", "null", "NULL", "NA":
		return ""
	}
	return s
}

func checkHeader(file string, header []byte, want ...string) error {
	cols := bytes.Split(header, []byte("\t"))
	for i, w := range want {
		if i >= len(cols) || strings.TrimSpace(string(cols[i])) != w {
			return &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("header column %d is not %q", i+1, w)}
		}
	}
	return nil
}

func (d *Data) parseAnnotation(b []byte) error {
	ls := lines(b)
	if len(ls) == 0 {
		return &ParseError{File: FileGeneAnnotation, Msg: "empty file"}
	}
	if err := checkHeader(FileGeneAnnotation, ls[0], "[Gene ID]", "[Transcript ID]", "[Product Description]", "[Gene Type]", "[Gene Name or Symbol]"); err != nil {
		return err
	}
	byID := make(map[string]int, 6000)
	genes := make([]Gene, 0, 6000)
	for n, l := range ls[1:] {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		cols := bytes.Split(l, []byte("\t"))
		id, tx := field(cols, 0), field(cols, 1)
		if id == "" {
			return &ParseError{File: FileGeneAnnotation, Line: n + 2, Msg: "empty gene id"}
		}
		i, seen := byID[id]
		if !seen {
			i = len(genes)
			byID[id] = i
			genes = append(genes, Gene{ID: id, Product: field(cols, 2), Type: field(cols, 3), Symbol: field(cols, 4)})
		}
		g := &genes[i]
		if tx != "" {
			g.TranscriptIDs = append(g.TranscriptIDs, tx)
		}
		// A gene's first transcript row carries its attributes; later rows
		// only fill what the first left empty.
		if g.Product == "" {
			g.Product = field(cols, 2)
		}
		if g.Type == "" {
			g.Type = field(cols, 3)
		}
		if g.Symbol == "" {
			g.Symbol = field(cols, 4)
		}
	}
	slices.SortFunc(genes, func(a, b Gene) int { return strings.Compare(a.ID, b.ID) })
	d.genes = genes
	return nil
}

func (d *Data) parseMappings(b []byte) error {
	ls := lines(b)
	if len(ls) == 0 {
		return &ParseError{File: FileGeneMappings, Msg: "empty file"}
	}
	if err := checkHeader(FileGeneMappings, ls[0], "[Gene ID]", "[Genomic Sequence ID]", "[UniProt ID]", "[Entrez Gene ID]", "[Gene Name or Symbol]", "[Previous ID(s)]"); err != nil {
		return err
	}
	index := make(map[string]int32, 2*len(d.genes))
	for i, g := range d.genes {
		index[g.ID] = int32(i)
		for _, t := range g.TranscriptIDs {
			index[t] = int32(i)
		}
	}
	for _, l := range ls[1:] {
		cols := bytes.Split(l, []byte("\t"))
		key := field(cols, 0)
		i, ok := index[key]
		if !ok {
			// Rows keyed by ids the annotation export does not carry (old
			// apicoplast ids, genes dropped since) describe no gene here.
			continue
		}
		g := &d.genes[i]
		if c := field(cols, 1); c != "" {
			g.Chromosome = c
		}
		if g.Symbol == "" {
			g.Symbol = field(cols, 4)
		}
		for p := range strings.SplitSeq(field(cols, 5), ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(g.PreviousIDs, p) {
				g.PreviousIDs = append(g.PreviousIDs, p)
			}
		}
	}
	for i := range d.genes {
		g := &d.genes[i]
		if g.Chromosome == "" {
			g.Chromosome = chromosomeFromID(g.ID)
			g.ChromosomeFromID = g.Chromosome != ""
		}
	}
	d.ids = make(map[string][]int32, 3*len(d.genes))
	add := func(id string, i int32) {
		k := strings.ToLower(id)
		if !slices.Contains(d.ids[k], i) {
			d.ids[k] = append(d.ids[k], i)
		}
	}
	for i, g := range d.genes {
		add(g.ID, int32(i))
		for _, t := range g.TranscriptIDs {
			add(t, int32(i))
		}
		for _, p := range g.PreviousIDs {
			add(p, int32(i))
		}
	}
	return nil
}

// chromosomeFromID reads the genomic sequence from a PlasmoDB 3D7 gene id:
// PF3D7_CCnnnnn lies on chromosome CC, PF3D7_API… on the apicoplast genome
// and the mal_mito/mal_rna/malmito ids on the mitochondrial genome.
func chromosomeFromID(id string) string {
	u := strings.ToUpper(id)
	switch {
	case strings.HasPrefix(u, "PF3D7_API"):
		return "PFC10_API_IRAB"
	case strings.HasPrefix(u, "PF3D7_MIT"), strings.HasPrefix(u, "MAL_MITO"), strings.HasPrefix(u, "MAL_RNA"), strings.HasPrefix(u, "MALMITO"):
		return "M76611"
	case len(u) >= 8 && strings.HasPrefix(u, "PF3D7_") && isDigit(u[6]) && isDigit(u[7]):
		return "Pf3D7_" + u[6:8] + "_v3"
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d *Data) parseGOSets(b []byte) error {
	ls := lines(b)
	if len(ls) == 0 {
		return &ParseError{File: FileGOGeneLists, Msg: "empty file"}
	}
	if err := checkHeader(FileGOGeneLists, ls[0], "GO_ID", "Genes"); err != nil {
		return err
	}
	index := make(map[string]int32, len(d.genes))
	for i, g := range d.genes {
		index[g.ID] = int32(i)
	}
	d.goSets = make(map[string][]int32, len(ls))
	for n, l := range ls[1:] {
		id, list, ok := bytes.Cut(l, []byte("\t"))
		goID := strings.TrimSpace(string(id))
		if !ok || !strings.HasPrefix(goID, "GO:") {
			return &ParseError{File: FileGOGeneLists, Line: n + 2, Msg: "want GO:nnnnnnn<TAB>\"genes\""}
		}
		list = bytes.Trim(bytes.TrimSpace(list), `"`)
		var set []int32
		for g := range bytes.SplitSeq(list, []byte(",")) {
			g = bytes.TrimSpace(g)
			if len(g) == 0 {
				continue // every list ends with a comma
			}
			i, ok := index[string(g)]
			if !ok {
				return &ParseError{File: FileGOGeneLists, Line: n + 2, Msg: fmt.Sprintf("gene %s of %s is not in %s", g, goID, FileGeneAnnotation)}
			}
			set = append(set, i)
		}
		slices.Sort(set)
		set = slices.Compact(set)
		if _, dup := d.goSets[goID]; !dup {
			d.goOrder = append(d.goOrder, goID)
		}
		d.goSets[goID] = set
	}
	return nil
}

func (d *Data) parseGOTerms(b []byte) error {
	ls := lines(b)
	if len(ls) == 0 {
		return &ParseError{File: FileGOTerms, Msg: "empty file"}
	}
	if err := checkHeader(FileGOTerms, ls[0], "go_id", "name", "ontology"); err != nil {
		return err
	}
	d.goTerms = make(map[string]GOTerm, len(ls))
	for n, l := range ls[1:] {
		cols := bytes.Split(l, []byte("\t"))
		t := GOTerm{ID: field(cols, 0), Name: field(cols, 1), Ontology: field(cols, 2), Status: field(cols, 3), ReplacedBy: field(cols, 4)}
		if !strings.HasPrefix(t.ID, "GO:") {
			return &ParseError{File: FileGOTerms, Line: n + 2, Msg: "want a GO id in the first column"}
		}
		d.goTerms[t.ID] = t
	}
	return nil
}

// parseGOPairs reads a two-column file of GO ids and values (synonyms or
// definitions), handing each row to add.
func (d *Data) parseGOPairs(b []byte, file, column string, add func(id, value string)) error {
	ls := lines(b)
	if len(ls) == 0 {
		return &ParseError{File: file, Msg: "empty file"}
	}
	if err := checkHeader(file, ls[0], "go_id", column); err != nil {
		return err
	}
	if d.goSynonyms == nil {
		d.goSynonyms, d.goDefinitions = map[string][]string{}, map[string]string{}
	}
	for n, l := range ls[1:] {
		cols := bytes.Split(l, []byte("\t"))
		id, v := field(cols, 0), field(cols, 1)
		if !strings.HasPrefix(id, "GO:") {
			return &ParseError{File: file, Line: n + 2, Msg: "want a GO id in the first column"}
		}
		if v != "" { // GO defines some terms only by their name
			add(id, v)
		}
	}
	return nil
}

// GOSynonyms returns GO's own synonyms of a GO id (none for an id GO
// made obsolete or secondary).
func (d *Data) GOSynonyms(id string) []string { return slices.Clone(d.goSynonyms[id]) }

// GODefinition returns GO's definition of a GO id, "" when it has none.
func (d *Data) GODefinition(id string) string { return d.goDefinitions[id] }

func (d *Data) buildVocabularies() {
	types := map[string]bool{}
	chroms := map[string]bool{}
	for _, g := range d.genes {
		if g.Type != "" {
			types[g.Type] = true
		}
		if g.Chromosome != "" {
			chroms[g.Chromosome] = true
		}
	}
	for t := range types {
		d.geneTypes = append(d.geneTypes, t)
	}
	slices.Sort(d.geneTypes)
	for c := range chroms {
		d.chromosomes = append(d.chromosomes, c)
	}
	slices.SortFunc(d.chromosomes, func(a, b string) int {
		if ra, rb := chromosomeRank(a), chromosomeRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

// chromosomeRank orders nuclear chromosomes by number, then the apicoplast
// and mitochondrial genomes, then anything else.
func chromosomeRank(c string) int {
	if len(c) == len("Pf3D7_01_v3") && strings.HasPrefix(c, "Pf3D7_") && isDigit(c[6]) && isDigit(c[7]) {
		return int(c[6]-'0')*10 + int(c[7]-'0')
	}
	switch c {
	case "PFC10_API_IRAB":
		return 100
	case "M76611":
		return 101
	}
	return 200
}

// chromosomeDisplay names a genomic sequence for people.
func chromosomeDisplay(c string) string {
	switch r := chromosomeRank(c); {
	case r < 100:
		return fmt.Sprintf("chromosome %d", r)
	case r == 100:
		return "apicoplast genome"
	case r == 101:
		return "mitochondrial genome"
	}
	return c
}
