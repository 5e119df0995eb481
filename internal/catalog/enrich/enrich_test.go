package enrich

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// goldenRow is one 2×2 table of testdata/enrichment_golden.tsv with R's
// answers (written by testdata/enrichment_golden.R from
// testdata/enrichment_input.tsv).
type goldenRow struct {
	id                      string
	k, n, K, N              int
	p, odds, fold, bh, bonf float64
}

func readGolden(t *testing.T) []goldenRow {
	t.Helper()
	f, err := os.Open("testdata/enrichment_golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []goldenRow
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 10 {
			t.Fatalf("golden line %d has %d columns", line+1, len(c))
		}
		ints := make([]int, 4)
		for i := range ints {
			if ints[i], err = strconv.Atoi(c[1+i]); err != nil {
				t.Fatalf("golden line %d: %v", line+1, err)
			}
		}
		floats := make([]float64, 5)
		for i := range floats {
			if floats[i], err = strconv.ParseFloat(c[5+i], 64); err != nil {
				t.Fatalf("golden line %d: %v", line+1, err)
			}
		}
		rows = append(rows, goldenRow{id: c[0], k: ints[0], n: ints[1], K: ints[2], N: ints[3],
			p: floats[0], odds: floats[1], fold: floats[2], bh: floats[3], bonf: floats[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 15 {
		t.Fatalf("golden file has %d rows", len(rows))
	}
	return rows
}

// close reports whether got is want within a relative tolerance (exactly
// for 0, infinities and NaN).
func closeTo(got, want, rel float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0) || want == 0:
		return got == want
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestAgainstR: p-values, odds ratios, fold enrichment and both
// adjustments agree with R (phyper, p.adjust) on every table of the golden
// file, tiny p-values (1e-45), a count of 0, a count equal to the term's
// size, ties and an undefined odds ratio included.
func TestAgainstR(t *testing.T) {
	rows := readGolden(t)
	ps := make([]float64, len(rows))
	worst := 0.0
	for i, r := range rows {
		ps[i] = UpperTail(r.k, r.n, r.K, r.N)
		if r.p > 0 {
			worst = max(worst, math.Abs(ps[i]-r.p)/r.p)
		}
		if !closeTo(ps[i], r.p, 1e-9) {
			t.Errorf("%s: UpperTail(%d, %d, %d, %d) = %.17g, R says %.17g", r.id, r.k, r.n, r.K, r.N, ps[i], r.p)
		}
		if got := float64(SampleOddsRatio(r.k, r.n, r.K, r.N)); !closeTo(got, r.odds, 1e-12) {
			t.Errorf("%s: odds ratio = %v, R says %v", r.id, got, r.odds)
		}
		if r.K > 0 && r.n > 0 {
			if got := (float64(r.k) / float64(r.n)) / (float64(r.K) / float64(r.N)); !closeTo(got, r.fold, 1e-12) {
				t.Errorf("%s: fold = %v, R says %v", r.id, got, r.fold)
			}
		}
	}
	t.Logf("largest relative difference from R's p-values: %.2g", worst)
	bh, bonf := BenjaminiHochberg(ps), Bonferroni(ps)
	for i, r := range rows {
		if !closeTo(bh[i], r.bh, 1e-9) {
			t.Errorf("%s: BH = %.17g, R says %.17g", r.id, bh[i], r.bh)
		}
		if !closeTo(bonf[i], r.bonf, 1e-9) {
			t.Errorf("%s: Bonferroni = %.17g, R says %.17g", r.id, bonf[i], r.bonf)
		}
	}
	var tiny bool
	for _, r := range rows {
		tiny = tiny || (r.p > 0 && r.p < 1e-30)
	}
	if !tiny {
		t.Error("the golden file has no p-value below 1e-30")
	}
}

// TestUpperTailSumsToOne: the tails at k and k+1 differ by exactly the
// probability of k, and the tail at the lowest possible count is 1.
func TestUpperTailSumsToOne(t *testing.T) {
	n, K, N := 89, 60, 2656
	total := 0.0
	for k := 0; k <= min(n, K); k++ {
		total += UpperTail(k, n, K, N) - UpperTail(k+1, n, K, N)
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("the probabilities sum to %.17g", total)
	}
	if got := UpperTail(min(n, K)+1, n, K, N); got != 0 {
		t.Errorf("beyond the largest count: %v", got)
	}
}

// TestAnalyze: the tested terms, their counts and genes, the cut-off, the
// order, and adjustments over every tested term whatever the cut-off.
func TestAnalyze(t *testing.T) {
	// Twenty annotated genes 0..19; gene 20 has no annotation.
	terms := []Annotation{
		{ID: "GO:0000003", Name: "c", Genes: []int32{0, 1, 2, 3}},
		{ID: "GO:0000001", Name: "a", Genes: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
		{ID: "GO:0000002", Name: "b", Genes: []int32{0, 1, 2, 3}},
		{ID: "GO:0000004", Name: "d", Genes: []int32{10, 11}},
		{ID: "GO:0000005", Name: "e", Genes: []int32{19}},
	}
	step := []int32{0, 1, 2, 3, 19, 20}
	name := func(g int32) string { return "G" + strconv.Itoa(int(g)) }
	all, err := Analyze(terms, step, 1, name)
	if err != nil {
		t.Fatal(err)
	}
	if all.StepSize != 6 || all.ResultSize != 5 || all.BackgroundSize != 20 || all.TestedTerms != 4 {
		t.Fatalf("sizes = step %d, annotated %d, background %d, tested %d; want 6, 5, 20, 4",
			all.StepSize, all.ResultSize, all.BackgroundSize, all.TestedTerms)
	}
	var ids []string
	for _, term := range all.Terms {
		ids = append(ids, term.GOID)
	}
	// b and c tie on p: GO id order; GO:0000004 has no step gene: untested.
	if got := strings.Join(ids, " "); got != "GO:0000002 GO:0000003 GO:0000005 GO:0000001" {
		t.Fatalf("order = %s", got)
	}
	b := all.Terms[0]
	if b.ResultCount != 4 || b.BackgroundCount != 4 || strings.Join(b.GeneIDs, ",") != "G0,G1,G2,G3" {
		t.Errorf("term b = %+v", b)
	}
	if want := UpperTail(4, 5, 4, 20); b.PValue != want || b.Bonferroni != min(1, 4*want) {
		t.Errorf("term b p = %v bonferroni %v, want %v and %v", b.PValue, b.Bonferroni, want, 4*want)
	}
	if !math.IsInf(float64(b.OddsRatio), 1) || b.FoldEnrichment != (4.0/5)/(4.0/20) {
		t.Errorf("term b odds %v fold %v", b.OddsRatio, b.FoldEnrichment)
	}

	cut, err := Analyze(terms, step, 0.05, name)
	if err != nil {
		t.Fatal(err)
	}
	if cut.TestedTerms != 4 || len(cut.Terms) != 2 {
		t.Fatalf("with cutoff 0.05: tested %d, returned %d; want 4 and 2", cut.TestedTerms, len(cut.Terms))
	}
	if cut.Terms[0].Benjamini != all.Terms[0].Benjamini {
		t.Errorf("the cutoff changed the adjustment: %v vs %v", cut.Terms[0].Benjamini, all.Terms[0].Benjamini)
	}

	for _, bad := range []float64{0, -0.1, 1.5, math.NaN()} {
		if _, err := Analyze(terms, step, bad, name); !errors.Is(err, ErrInvalidCutoff) {
			t.Errorf("cutoff %v: err = %v", bad, err)
		}
	}
	empty, err := Analyze(terms, []int32{20}, 0.05, name)
	if err != nil || empty.ResultSize != 0 || empty.TestedTerms != 0 || empty.Terms == nil {
		t.Errorf("a step without annotated genes: %+v, %v", empty, err)
	}
}

// TestOddsRatioJSON: finite ratios are numbers, an infinite one the
// string "Infinity", an undefined one null, and they read back.
func TestOddsRatioJSON(t *testing.T) {
	for _, tt := range []struct {
		o    OddsRatio
		json string
	}{{2.5, "2.5"}, {OddsRatio(math.Inf(1)), `"Infinity"`}, {OddsRatio(math.NaN()), "null"}, {0, "0"}} {
		b, err := json.Marshal(tt.o)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.o, b, err, tt.json)
		}
		var back OddsRatio
		if err := json.Unmarshal(b, &back); err != nil || !closeTo(float64(back), float64(tt.o), 0) {
			t.Errorf("Unmarshal(%s) = %v, %v", b, back, err)
		}
	}
}
