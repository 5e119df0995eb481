// Package enrich is Strategist's Gene Ontology enrichment: which GO terms
// the genes of a strategy step are over-represented in, against the
// organism's annotated genes, tested the way VEuPathDB's GO enrichment
// analysis tests them.
//
// For each term the step's annotated genes fall in, the 2×2 table
//
//	                 in the term     not in the term
//	step genes       k               n − k
//	other genes      K − k           N − K − n + k
//
// (n: the step's genes with at least one annotation; K: the background's
// genes in the term; N: the background, every gene with at least one
// annotation) is tested with the one-sided hypergeometric test, which is
// Fisher's exact test with alternative "greater": p = P(X ≥ k) for X the
// number of term genes among n genes drawn without replacement from N
// (R's phyper(k-1, K, N-K, n, lower.tail = FALSE)). The p-values of all
// tested terms are adjusted together, by Benjamini–Hochberg (false
// discovery rate) and by Bonferroni; a term is tested when at least one of
// the step's genes is annotated to it (terms without one have p = 1 and
// are not listed, as on VEuPathDB). The cut-off filters the terms returned
// by their unadjusted p-value; it never changes the adjustments.
//
// The arithmetic is here once (UpperTail, BenjaminiHochberg, Bonferroni,
// SampleOddsRatio); testdata holds golden values computed by R from the
// same tables (enrichment_golden.R), so the tests need no R.
package enrich

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"strategist/internal/catalog"
)

// DefaultCutoff is the p-value cut-off when none is given, VEuPathDB's
// default.
const DefaultCutoff = 0.05

// ErrInvalidCutoff refuses a cut-off that is not a p-value a term could
// pass: it must be a number greater than 0 and at most 1.
var ErrInvalidCutoff = errors.New("the p-value cutoff must be a number greater than 0 and at most 1")

// CheckCutoff returns ErrInvalidCutoff unless 0 < c ≤ 1.
func CheckCutoff(c float64) error {
	if !(c > 0 && c <= 1) { // also refuses NaN
		return ErrInvalidCutoff
	}
	return nil
}

// UnavailableError says enrichment cannot be computed for a site: the
// live VEuPathDB sites' annotations are not available to Strategist. It is
// permanent for the site (not a "try later").
type UnavailableError struct {
	Site   string
	Reason string
}

func (e *UnavailableError) Error() string {
	return "GO enrichment is not available for site " + e.Site + ": " + e.Reason
}

// Annotation is one term with its genes: gene numbers of the caller's
// universe, ascending and distinct.
type Annotation struct {
	ID    string
	Name  string
	Genes []int32
}

// OddsRatio is the sample odds ratio of a term's 2×2 table,
// (k·(N−K−n+k)) / ((n−k)·(K−k)). In JSON it is a number when finite, the
// string "Infinity" when the denominator is 0 and the numerator is not
// (every step gene is in the term, or every term gene is in the step), and
// null when both are 0 (undefined).
type OddsRatio float64

// MarshalJSON encodes the ratio as a number, "Infinity" or null.
func (o OddsRatio) MarshalJSON() ([]byte, error) {
	f := float64(o)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *OddsRatio) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		*o = OddsRatio(math.NaN())
		return nil
	case `"Infinity"`:
		*o = OddsRatio(math.Inf(1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("enrich: odds ratio: %w", err)
	}
	*o = OddsRatio(f)
	return nil
}

// String is the ratio as the TSV download and messages write it: "Inf",
// "NA" or the number.
func (o OddsRatio) String() string {
	f := float64(o)
	switch {
	case math.IsNaN(f):
		return "NA"
	case math.IsInf(f, 1):
		return "Inf"
	}
	return fmt.Sprintf("%.4g", f)
}

// Term is one tested term.
type Term struct {
	GOID string `json:"goId"`
	Name string `json:"name"`
	// ResultCount is k: the step's genes in the term.
	ResultCount int `json:"resultCount"`
	// BackgroundCount is K: the background's genes in the term.
	BackgroundCount int `json:"backgroundCount"`
	// ResultSize is n, the step's annotated genes; BackgroundSize is N.
	// They are the same for every term of a result and repeated here so a
	// row reads on its own.
	ResultSize     int       `json:"resultSize"`
	BackgroundSize int       `json:"backgroundSize"`
	FoldEnrichment float64   `json:"foldEnrichment"`
	OddsRatio      OddsRatio `json:"oddsRatio"`
	PValue         float64   `json:"pValue"`
	// Benjamini and Bonferroni are PValue adjusted over all tested terms.
	Benjamini  float64 `json:"benjamini"`
	Bonferroni float64 `json:"bonferroni"`
	// GeneIDs are the step's genes in the term, in gene-id order.
	GeneIDs []string `json:"geneIds"`
}

// Result is a step's enrichment.
type Result struct {
	// Ontology is the GO aspect tested ("biological process").
	Ontology string `json:"ontology"`
	// Method says how terms were tested and adjusted.
	Method string  `json:"method"`
	Cutoff float64 `json:"cutoff"`
	// StepSize is how many genes the step has; ResultSize how many of them
	// have an annotation (n); BackgroundSize the annotated genes (N).
	StepSize       int `json:"stepSize"`
	ResultSize     int `json:"resultSize"`
	BackgroundSize int `json:"backgroundSize"`
	// TestedTerms is how many terms were tested (and adjusted over);
	// Terms those whose p-value is at most Cutoff, by p-value then GO id.
	TestedTerms int    `json:"testedTerms"`
	Terms       []Term `json:"terms"`
	// Limits says what the data cannot offer (other GO aspects, evidence
	// codes).
	Limits     string             `json:"limits,omitempty"`
	Provenance catalog.Provenance `json:"provenance"`
}

// Method describes the test and the corrections, for Result.Method.
const Method = "one-sided hypergeometric test (Fisher's exact test, alternative \"greater\") per GO term the step's annotated genes fall in, " +
	"against every annotated gene; Benjamini–Hochberg and Bonferroni adjustments over all tested terms; the cutoff filters terms by unadjusted p-value"

// Analyze tests the terms for a step's genes (gene numbers of the same
// universe as the annotations, ascending and distinct; genes without an
// annotation are left out of the test). geneID names a gene number for
// Term.GeneIDs. Only the terms with p ≤ cutoff are returned; Ontology,
// Limits and Provenance are the caller's to fill.
func Analyze(terms []Annotation, step []int32, cutoff float64, geneID func(int32) string) (*Result, error) {
	if err := CheckCutoff(cutoff); err != nil {
		return nil, err
	}
	annotated := map[int32]bool{}
	for _, t := range terms {
		for _, g := range t.Genes {
			annotated[g] = true
		}
	}
	inStep := make(map[int32]bool, len(step))
	n := 0
	for _, g := range step {
		if !inStep[g] {
			inStep[g] = true
			if annotated[g] {
				n++
			}
		}
	}
	N := len(annotated)
	out := &Result{Method: Method, Cutoff: cutoff, StepSize: len(inStep), ResultSize: n, BackgroundSize: N, Terms: []Term{}}
	var tested []Term
	for _, a := range terms {
		var genes []int32
		for _, g := range a.Genes {
			if inStep[g] {
				genes = append(genes, g)
			}
		}
		k, K := len(genes), len(a.Genes)
		if k == 0 {
			continue
		}
		t := Term{
			GOID: a.ID, Name: a.Name, ResultCount: k, BackgroundCount: K, ResultSize: n, BackgroundSize: N,
			FoldEnrichment: (float64(k) / float64(n)) / (float64(K) / float64(N)),
			OddsRatio:      SampleOddsRatio(k, n, K, N),
			PValue:         UpperTail(k, n, K, N),
			GeneIDs:        make([]string, len(genes)),
		}
		for i, g := range genes {
			t.GeneIDs[i] = geneID(g)
		}
		tested = append(tested, t)
	}
	ps := make([]float64, len(tested))
	for i, t := range tested {
		ps[i] = t.PValue
	}
	bh, bonf := BenjaminiHochberg(ps), Bonferroni(ps)
	for i := range tested {
		tested[i].Benjamini, tested[i].Bonferroni = bh[i], bonf[i]
	}
	out.TestedTerms = len(tested)
	for _, t := range tested {
		if t.PValue <= cutoff {
			out.Terms = append(out.Terms, t)
		}
	}
	slices.SortFunc(out.Terms, func(a, b Term) int {
		return cmp.Or(cmp.Compare(a.PValue, b.PValue), cmp.Compare(a.GOID, b.GOID))
	})
	return out, nil
}

// UpperTail is P(X ≥ k) for X hypergeometric: the number of term genes
// among n genes drawn without replacement from N genes of which K are in
// the term. It is exact up to rounding: the probability of one outcome,
// the largest of the tail, is computed in log space from lgamma, and the
// others relative to it by the ratio of neighbouring probabilities, so
// nothing underflows before the end and no subtraction loses digits.
func UpperTail(k, n, K, N int) float64 {
	lo, hi := max(0, n-(N-K)), min(n, K)
	switch {
	case k <= lo:
		return 1
	case k > hi:
		return 0
	}
	// The probabilities rise up to the mode and fall after it: the tail's
	// largest is at k or, when k is below the mode, at the mode.
	mode := int(math.Floor(float64(n+1) * float64(K+1) / float64(N+2)))
	top := max(k, min(mode, hi))
	sum, r := 1.0, 1.0
	for x := top; x < hi; x++ { // P(x+1)/P(x)
		r *= float64(K-x) * float64(n-x) / (float64(x+1) * float64(N-K-n+x+1))
		sum += r
	}
	r = 1.0
	for x := top; x > k; x-- { // P(x-1)/P(x)
		r *= float64(x) * float64(N-K-n+x) / (float64(K-x+1) * float64(n-x+1))
		sum += r
	}
	return min(1, math.Exp(logPMF(top, n, K, N)+math.Log(sum)))
}

// logPMF is log P(X = x) for the hypergeometric distribution of UpperTail.
func logPMF(x, n, K, N int) float64 {
	return logChoose(K, x) + logChoose(N-K, n-x) - logChoose(N, n)
}

func logChoose(n, k int) float64 {
	return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
}

func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

// SampleOddsRatio is the odds ratio of the 2×2 table of UpperTail's
// arguments: +Inf when only the denominator is 0, NaN when both are.
func SampleOddsRatio(k, n, K, N int) OddsRatio {
	num := float64(k) * float64(N-K-n+k)
	den := float64(n-k) * float64(K-k)
	if den == 0 {
		if num == 0 {
			return OddsRatio(math.NaN())
		}
		return OddsRatio(math.Inf(1))
	}
	return OddsRatio(num / den)
}

// BenjaminiHochberg adjusts p-values for the false discovery rate over all
// of them, as R's p.adjust(p, "BH"): the i-th smallest becomes
// min over j ≥ i of p(j)·m/j, capped at 1.
func BenjaminiHochberg(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	out := make([]float64, m)
	running := 1.0
	for r := m - 1; r >= 0; r-- {
		i := order[r]
		running = min(running, p[i]*float64(m)/float64(r+1))
		out[i] = running
	}
	return out
}

// Bonferroni multiplies each p-value by how many there are, capped at 1.
func Bonferroni(p []float64) []float64 {
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = min(1, v*float64(len(p)))
	}
	return out
}
