// Package catalogtest is the conformance suite of catalog.Catalog: the
// behaviour the offline snapshot and the live WDK client must share so
// that agents plan the same way on either. Each implementation runs it
// from its own tests with a constructor and a Fixture naming the searches
// and queries its data can answer:
//
//	catalogtest.Run(t, func(t *testing.T) (catalog.Catalog, catalogtest.Fixture) { ... })
package catalogtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"strategist/internal/catalog"
)

// Fixture names what the suite uses of the catalog under test. Both
// catalogs serve PlasmoDB-shaped gene searches, so most fields are the
// same; the queries differ with the data each can answer.
type Fixture struct {
	// Site is a site the catalog serves, RecordType its gene record type
	// ("transcript").
	Site, RecordType string
	// GOSearch is the gene search by GO term, which SearchForSearches must
	// rank first for "GO term". Required holds values for its parameters
	// that have no default (the GO ids), so that Validate succeeds.
	GOSearch string
	Required map[string]string
	// MultiPick is a multi-pick parameter of GOSearch whose vocabulary the
	// catalog checks (evidence codes), with two of its terms.
	MultiPick string
	Terms     [2]string
	// Boolean is the record type's boolean combine and Operator its
	// operator parameter (INTERSECT, UNION, MINUS).
	Boolean, Operator string
	// A and B are leaf queries whose answers overlap.
	A, B *catalog.Query
	// NotEvaluable is a query the catalog cannot answer, or nil when it
	// can answer everything (the live site).
	NotEvaluable *catalog.Query
}

// Run checks newCatalog's catalog against the shared behaviour. Every
// subtest builds its own catalog.
func Run(t *testing.T, newCatalog func(t *testing.T) (catalog.Catalog, Fixture)) {
	tests := []struct {
		name string
		run  func(t *testing.T, c catalog.Catalog, f Fixture)
	}{
		{"Listing", testListing},
		{"SearchByName", testSearchByName},
		{"NotFound", testNotFound},
		{"SearchForSearches", testSearchForSearches},
		{"ValidateFillsDefaults", testValidateFillsDefaults},
		{"ValidateProblems", testValidateProblems},
		{"MultiPickRoundTrip", testMultiPickRoundTrip},
		{"AnswerCombine", testAnswerCombine},
		{"AnswerPaging", testAnswerPaging},
		{"NotEvaluable", testNotEvaluable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := newCatalog(t)
			tt.run(t, c, f)
		})
	}
}

var ctx = context.Background()

func testListing(t *testing.T, c catalog.Catalog, f Fixture) {
	sites, err := c.Sites(ctx)
	if err != nil {
		t.Fatalf("Sites() error = %v", err)
	}
	if !slices.ContainsFunc(sites, func(s catalog.Site) bool { return s.ID == f.Site && s.DisplayName != "" }) {
		t.Errorf("Sites() = %+v, want %s with a display name", sites, f.Site)
	}
	rts, err := c.RecordTypes(ctx, f.Site)
	if err != nil {
		t.Fatalf("RecordTypes() error = %v", err)
	}
	if !slices.ContainsFunc(rts, func(rt catalog.RecordType) bool { return rt.Name == f.RecordType && rt.DisplayName != "" }) {
		t.Errorf("RecordTypes() = %+v, want %s", rts, f.RecordType)
	}
	genes, err := c.Searches(ctx, f.Site, f.RecordType)
	if err != nil {
		t.Fatalf("Searches(%s) error = %v", f.RecordType, err)
	}
	seen := map[string]bool{}
	for _, s := range genes {
		if s.RecordType != f.RecordType || s.DisplayName == "" || s.Kind == "" {
			t.Errorf("Searches(%s) lists %+v", f.RecordType, s)
		}
		if seen[s.Name] {
			t.Errorf("Searches(%s) lists %s twice", f.RecordType, s.Name)
		}
		seen[s.Name] = true
	}
	if !seen[f.GOSearch] {
		t.Errorf("Searches(%s) lacks %s", f.RecordType, f.GOSearch)
	}
	all, err := c.Searches(ctx, f.Site, "")
	if err != nil {
		t.Fatalf("Searches(all) error = %v", err)
	}
	for name := range seen {
		if !slices.ContainsFunc(all, func(s catalog.SearchSummary) bool { return s.Name == name }) {
			t.Errorf("Searches(all) lacks %s, listed for %s", name, f.RecordType)
		}
	}
}

func testSearchByName(t *testing.T, c catalog.Catalog, f Fixture) {
	byType, err := c.Search(ctx, f.Site, f.RecordType, f.GOSearch)
	if err != nil {
		t.Fatalf("Search(%s, %s) error = %v", f.RecordType, f.GOSearch, err)
	}
	anyType, err := c.Search(ctx, f.Site, "", f.GOSearch)
	if err != nil {
		t.Fatalf("Search(any, %s) error = %v", f.GOSearch, err)
	}
	if byType.Name != f.GOSearch || byType.RecordType != f.RecordType || byType.Kind != catalog.KindLeaf {
		t.Errorf("Search(%s) = %s of %s, kind %s", f.GOSearch, byType.Name, byType.RecordType, byType.Kind)
	}
	if anyType.Name != byType.Name || len(anyType.Params) != len(byType.Params) || len(byType.Params) == 0 {
		t.Errorf("Search without a record type differs: %d params, with it %d", len(anyType.Params), len(byType.Params))
	}
	if _, ok := byType.Param(f.MultiPick); !ok {
		t.Errorf("Search(%s) has no parameter %s", f.GOSearch, f.MultiPick)
	}
	b, err := c.Search(ctx, f.Site, "", f.Boolean)
	if err != nil {
		t.Fatalf("Search(%s) error = %v", f.Boolean, err)
	}
	if b.Kind != catalog.KindCombine || len(b.InputParams) != 2 {
		t.Errorf("Search(%s) is a %s with inputs %v, want a combine of two", f.Boolean, b.Kind, b.InputParams)
	}
	if _, ok := b.Param(f.Operator); !ok {
		t.Errorf("Search(%s) has no parameter %s", f.Boolean, f.Operator)
	}
}

func testNotFound(t *testing.T, c catalog.Catalog, f Fixture) {
	const site, search = "no-such-site", "GenesByNoSuchThing"
	calls := map[string]func() error{
		"RecordTypes(unknown site)": func() error { _, err := c.RecordTypes(ctx, site); return err },
		"Searches(unknown site)":    func() error { _, err := c.Searches(ctx, site, ""); return err },
		"Search(unknown site)":      func() error { _, err := c.Search(ctx, site, "", f.GOSearch); return err },
		"Search(unknown search)":    func() error { _, err := c.Search(ctx, f.Site, "", search); return err },
		"SearchForSearches(unknown site)": func() error {
			_, err := c.SearchForSearches(ctx, site, "GO term", "", 5)
			return err
		},
		"Validate(unknown search)": func() error { _, err := c.Validate(ctx, f.Site, search, nil); return err },
		"Answer(unknown search)": func() error {
			_, err := c.Answer(ctx, f.Site, &catalog.Query{Search: search}, catalog.Page{})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, catalog.ErrNotFound) {
			t.Errorf("%s error = %v, want catalog.ErrNotFound", name, err)
		}
	}
}

func testSearchForSearches(t *testing.T, c catalog.Catalog, f Fixture) {
	for _, rt := range []string{"", f.RecordType} {
		got, err := c.SearchForSearches(ctx, f.Site, "GO term", rt, 3)
		if err != nil {
			t.Fatalf("SearchForSearches(GO term, %q) error = %v", rt, err)
		}
		if len(got) == 0 || got[0].Name != f.GOSearch || got[0].Score <= 0 {
			t.Errorf("SearchForSearches(GO term, %q) = %v, want %s first with a score", rt, names(got), f.GOSearch)
		}
		if len(got) > 3 {
			t.Errorf("SearchForSearches(limit 3) gave %d", len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Errorf("scores not descending: %+v", got)
			}
		}
	}
	if got, err := c.SearchForSearches(ctx, f.Site, "zebrafish xylophone", "", 5); err != nil || len(got) != 0 {
		t.Errorf("SearchForSearches(unrelated words) = %v, %v; want none", names(got), err)
	}
	all, err := c.SearchForSearches(ctx, f.Site, "", f.RecordType, 2)
	if err != nil || len(all) != 2 {
		t.Errorf("SearchForSearches(no words, limit 2) = %v, %v; want two searches", names(all), err)
	}
}

func testValidateFillsDefaults(t *testing.T, c catalog.Catalog, f Fixture) {
	s, err := c.Search(ctx, f.Site, "", f.GOSearch)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Validate(ctx, f.Site, f.GOSearch, f.Required)
	if err != nil {
		t.Fatalf("Validate(required only) error = %v", err)
	}
	for _, p := range s.Params {
		v, ok := got[p.Name]
		switch {
		case p.SiteDefault:
		case !ok:
			t.Errorf("Validate() left out %s", p.Name)
		case f.Required[p.Name] == "" && p.HasDefault && v != p.Default:
			t.Errorf("Validate() filled %s = %q, want its default %q", p.Name, v, p.Default)
		}
	}
	for name := range got {
		if _, ok := s.Param(name); !ok {
			t.Errorf("Validate() returned %s, not a parameter of %s", name, f.GOSearch)
		}
	}
}

func testValidateProblems(t *testing.T, c catalog.Catalog, f Fixture) {
	s, err := c.Search(ctx, f.Site, "", f.GOSearch)
	if err != nil {
		t.Fatal(err)
	}
	paramNames := make([]string, len(s.Params))
	for i, p := range s.Params {
		paramNames[i] = p.Name
	}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range f.Required {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	p, _ := s.Param(f.MultiPick)
	bad := "No Such Evidence"
	tests := []struct {
		name          string
		search        string
		params        map[string]string
		key, wantText string
	}{
		{"unknown parameter", f.GOSearch, with("colour", "red"), "colour", catalog.UnknownParamMessage(f.GOSearch, "colour", paramNames)},
		{"term outside the vocabulary", f.GOSearch, with(f.MultiPick, catalog.EncodeTerms([]string{bad})), f.MultiPick,
			catalog.NewVocabulary(p.Vocabulary).Problem(bad)},
		{"comma-joined multi-pick", f.GOSearch, with(f.MultiPick, f.Terms[0]+","+f.Terms[1]), f.MultiPick,
			"'" + f.Terms[0] + "," + f.Terms[1] + "' is not one term; give several values as a JSON array string such as [\"a\",\"b\"] (values are not split on commas)."},
		{"empty multi-pick", f.GOSearch, with(f.MultiPick, "[]"), f.MultiPick, catalog.MsgEmpty},
		{"two values on a single-pick", f.Boolean, map[string]string{f.Operator: `["UNION","MINUS"]`}, f.Operator, ""},
		{"input-step given a value", f.Boolean, map[string]string{f.Operator: "UNION", inputOf(t, c, f): "12"}, inputOf(t, c, f), catalog.MsgInputStepValue},
	}
	for k := range f.Required {
		tests = append(tests, struct {
			name          string
			search        string
			params        map[string]string
			key, wantText string
		}{"omitted " + k, f.GOSearch, map[string]string{}, k, catalog.MsgEmpty})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Validate(ctx, f.Site, tt.search, tt.params)
			ve, ok := errors.AsType[*catalog.ValidationError](err)
			if !ok {
				t.Fatalf("Validate(%v) = %v, %v; want a *catalog.ValidationError", tt.params, got, err)
			}
			if ve.Search != tt.search || len(ve.ByKey[tt.key]) == 0 {
				t.Fatalf("Validate(%v) problems = %v, want one for %s", tt.params, ve, tt.key)
			}
			if tt.wantText != "" && !slices.Contains(ve.ByKey[tt.key], tt.wantText) {
				t.Errorf("Validate(%v) says %q for %s, want %q", tt.params, ve.ByKey[tt.key], tt.key, tt.wantText)
			}
		})
	}
}

// inputOf is the boolean's first input-step parameter.
func inputOf(t *testing.T, c catalog.Catalog, f Fixture) string {
	t.Helper()
	b, err := c.Search(ctx, f.Site, "", f.Boolean)
	if err != nil || len(b.InputParams) == 0 {
		t.Fatalf("Search(%s) = %v, %v", f.Boolean, b, err)
	}
	return b.InputParams[0]
}

func testMultiPickRoundTrip(t *testing.T, c catalog.Catalog, f Fixture) {
	tests := []struct {
		given string
		want  []string
	}{
		{catalog.EncodeTerms([]string{f.Terms[1], f.Terms[0]}), []string{f.Terms[1], f.Terms[0]}},
		{f.Terms[0], []string{f.Terms[0]}}, // a bare term is a one-term array
		{catalog.EncodeTerms([]string{f.Terms[0], f.Terms[0]}), []string{f.Terms[0]}},
	}
	for _, tt := range tests {
		params := map[string]string{f.MultiPick: tt.given}
		for k, v := range f.Required {
			params[k] = v
		}
		got, err := c.Validate(ctx, f.Site, f.GOSearch, params)
		if err != nil {
			t.Fatalf("Validate(%s=%s) error = %v", f.MultiPick, tt.given, err)
		}
		if want := catalog.EncodeTerms(tt.want); got[f.MultiPick] != want {
			t.Errorf("Validate(%s=%s) = %s, want %s", f.MultiPick, tt.given, got[f.MultiPick], want)
		}
		terms, ok := catalog.DecodeTerms(got[f.MultiPick])
		if !ok || !slices.Equal(terms, tt.want) {
			t.Errorf("DecodeTerms(%s) = %v, want %v", got[f.MultiPick], terms, tt.want)
		}
		// What Validate returns is accepted again unchanged.
		again, err := c.Validate(ctx, f.Site, f.GOSearch, got)
		if err != nil || again[f.MultiPick] != got[f.MultiPick] {
			t.Errorf("Validate(its own result) = %v, %v", again, err)
		}
	}
}

func testAnswerCombine(t *testing.T, c catalog.Catalog, f Fixture) {
	site := siteOf(t, c, f)
	all := catalog.Page{Limit: 1000}
	a := answer(t, c, f, f.A, all)
	b := answer(t, c, f, f.B, all)
	if a.Count == 0 || b.Count == 0 {
		t.Fatalf("the fixture's leaves answer %d and %d genes; the suite needs both non-empty", a.Count, b.Count)
	}
	for _, ans := range []*catalog.Answer{a, b} {
		if ans.Provenance.Source == "" || ans.Provenance.Offline != site.Offline {
			t.Errorf("provenance %+v, want a source and Offline=%v", ans.Provenance, site.Offline)
		}
	}
	combine := func(op string) *catalog.Answer {
		return answer(t, c, f, &catalog.Query{Search: f.Boolean, Params: map[string]string{f.Operator: op}, Inputs: []*catalog.Query{f.A, f.B}}, all)
	}
	and, or, minus := combine("INTERSECT"), combine("UNION"), combine("MINUS")
	if and.Count == 0 {
		t.Errorf("the fixture's leaves do not overlap (A %d, B %d genes); the suite needs them to", a.Count, b.Count)
	}
	if and.Count > min(a.Count, b.Count) {
		t.Errorf("|A∩B| = %d > min(|A| %d, |B| %d)", and.Count, a.Count, b.Count)
	}
	if or.Count != a.Count+b.Count-and.Count {
		t.Errorf("|A∪B| = %d, want |A|+|B|-|A∩B| = %d+%d-%d", or.Count, a.Count, b.Count, and.Count)
	}
	if minus.Count != a.Count-and.Count {
		t.Errorf("|A-B| = %d, want |A|-|A∩B| = %d-%d", minus.Count, a.Count, and.Count)
	}
	t.Logf("|A| %d, |B| %d, |A∩B| %d, |A∪B| %d, |A-B| %d", a.Count, b.Count, and.Count, or.Count, minus.Count)
	if len(a.Records) == a.Count && len(b.Records) == b.Count { // both whole on one page
		inA, inB := ids(a), ids(b)
		for _, r := range and.Records {
			if !inA[r.GeneID] || !inB[r.GeneID] {
				t.Errorf("A∩B holds %s, which is not in both", r.GeneID)
			}
		}
		for _, r := range minus.Records {
			if !inA[r.GeneID] || inB[r.GeneID] {
				t.Errorf("A-B holds %s", r.GeneID)
			}
		}
	}
	for _, ans := range []*catalog.Answer{and, or, minus} {
		if ans.Provenance.Source == "" {
			t.Errorf("a combined answer has no provenance: %+v", ans.Provenance)
		}
	}
}

func testAnswerPaging(t *testing.T, c catalog.Catalog, f Fixture) {
	full := answer(t, c, f, f.A, catalog.Page{Limit: 1000})
	if len(full.Records) != full.Count {
		t.Errorf("a page past the end holds %d records of %d genes", len(full.Records), full.Count)
	}
	if !sorted(full.Records) {
		t.Errorf("records are not ordered by gene id: %v", full.Records)
	}
	if full.Count < 3 {
		t.Fatalf("fixture A answers %d genes; paging needs 3", full.Count)
	}
	in := ids(full)
	first := answer(t, c, f, f.A, catalog.Page{Offset: 0, Limit: 2})
	second := answer(t, c, f, f.A, catalog.Page{Offset: 2, Limit: 2})
	if first.Count != full.Count || second.Count != full.Count {
		t.Errorf("counts differ by page: %d, %d, %d", full.Count, first.Count, second.Count)
	}
	// Live pages count transcripts, so a gene may end one page and start
	// the next, and a page may hold fewer genes than its limit.
	for _, p := range []*catalog.Answer{first, second} {
		if len(p.Records) == 0 || len(p.Records) > 2 || !sorted(p.Records) {
			t.Errorf("page = %v, want 1 or 2 records in gene order", p.Records)
		}
		for _, r := range p.Records {
			if !in[r.GeneID] {
				t.Errorf("page holds %s, which the answer does not", r.GeneID)
			}
		}
	}
	if first.Records[0].GeneID != full.Records[0].GeneID {
		t.Errorf("first page starts at %s, the answer at %s", first.Records[0].GeneID, full.Records[0].GeneID)
	}
	if len(first.Records) > 0 && len(second.Records) > 0 && second.Records[0].GeneID < first.Records[len(first.Records)-1].GeneID {
		t.Errorf("second page %v starts before the first %v ends", second.Records, first.Records)
	}
	none := answer(t, c, f, f.A, catalog.Page{})
	if none.Count != full.Count || len(none.Records) != 0 {
		t.Errorf("a page of no records = %d records, count %d", len(none.Records), none.Count)
	}
}

func testNotEvaluable(t *testing.T, c catalog.Catalog, f Fixture) {
	if f.NotEvaluable == nil {
		t.Skip("the catalog answers every search")
	}
	a, err := c.Answer(ctx, f.Site, f.NotEvaluable, catalog.Page{Limit: 10})
	if _, ok := errors.AsType[*catalog.NotEvaluableError](err); !ok || a != nil {
		t.Errorf("Answer(%s) = %+v, %v; want a *catalog.NotEvaluableError and no answer", f.NotEvaluable.Search, a, err)
	}
	// Inside a tree too: no count is made up for the part it cannot answer.
	q := &catalog.Query{Search: f.Boolean, Params: map[string]string{f.Operator: "UNION"}, Inputs: []*catalog.Query{f.A, f.NotEvaluable}}
	a, err = c.Answer(ctx, f.Site, q, catalog.Page{Limit: 10})
	if _, ok := errors.AsType[*catalog.NotEvaluableError](err); !ok || a != nil {
		t.Errorf("Answer(A UNION %s) = %+v, %v; want a *catalog.NotEvaluableError", f.NotEvaluable.Search, a, err)
	}
}

func answer(t *testing.T, c catalog.Catalog, f Fixture, q *catalog.Query, page catalog.Page) *catalog.Answer {
	t.Helper()
	a, err := c.Answer(ctx, f.Site, q, page)
	if err != nil {
		t.Fatalf("Answer(%s) error = %v", q.Key(), err)
	}
	return a
}

func siteOf(t *testing.T, c catalog.Catalog, f Fixture) catalog.Site {
	t.Helper()
	sites, err := c.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sites, func(s catalog.Site) bool { return s.ID == f.Site })
	if i < 0 {
		t.Fatalf("no site %s", f.Site)
	}
	return sites[i]
}

func ids(a *catalog.Answer) map[string]bool {
	out := make(map[string]bool, len(a.Records))
	for _, r := range a.Records {
		out[r.GeneID] = true
	}
	return out
}

func sorted(rs []catalog.Record) bool {
	return slices.IsSortedFunc(rs, func(a, b catalog.Record) int { return strings.Compare(a.GeneID, b.GeneID) })
}

func names(ss []catalog.SearchSummary) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
