package web_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/offline"
	"strategist/internal/offlinetest"
	"strategist/internal/strategy"
	"strategist/web"
)

var geneCatalog = offlinetest.Shared(offline.Open)

// The acceptance strategy's combines, drawn with their overlaps computed
// from the offline snapshot's genes: the UNION of DNA replication and DNA
// repair and the MINUS of chromosome 14 from it (89 at the root) show
// VEuPathDB's three regions, and neither says it changes nothing.
func TestGraphShowsCombineOverlaps(t *testing.T) {
	cat := geneCatalog(t)
	h := newHarness(t)
	c := h.fold(readRecorded(t, "offline_acceptance.jsonl"))
	if c.Strategy == nil {
		t.Fatal("the recorded conversation has no strategy")
	}
	p := h.page(c)
	p.Overlaps = strategy.Overlaps(context.Background(), cat, *c.Strategy)
	doc := query(t, web.ConversationView(web.Page{Title: "t", CSRFToken: "tok"}, p))

	type box struct {
		Operator, Count, Both, LeftOnly, RightOnly, Noop string
	}
	var got []box
	steps := tid(doc.Selection, "graph-step").Filter(`[data-kind="combine"]`)
	for i := range steps.Length() {
		s := steps.Eq(i)
		o := tid(s, "graph-step-overlap")
		both, _ := o.Attr("data-both")
		left, _ := o.Attr("data-left-only")
		right, _ := o.Attr("data-right-only")
		count, _ := s.Attr("data-count")
		st, _ := c.Strategy.Step(strategy.StepID(s.AttrOr("data-step-id", "")))
		got = append(got, box{string(st.Operator), count, both, left, right, tid(s, "graph-step-noop").Text()})
	}
	// The root: 19 of the union's 108 genes are among chromosome 14's
	// 802, 89 are not. The union: DNA replication's 57 genes and DNA
	// repair's 60 share 9.
	want := []box{
		{"MINUS", "89", "19", "89", "783", ""},
		{"UNION", "108", "9", "48", "51", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("combine boxes mismatch (-want +got):\n%s", diff)
	}
}
