package strategy

import (
	"context"

	"strategist/internal/catalog"
)

// Overlap is a combine's two inputs compared gene by gene, as VEuPathDB's
// combine box shows them: how many genes are in both inputs, in the left
// (primary) input only, and in the right only.
type Overlap struct {
	Both      int `json:"both"`
	LeftOnly  int `json:"leftOnly"`
	RightOnly int `json:"rightOnly"`
}

// overlapPageSize is how many records Genes reads at a time.
const overlapPageSize = 1000

// Genes reads every gene id of a query's answer, a page at a time.
func Genes(ctx context.Context, a Answerer, site string, q *catalog.Query) (map[string]bool, error) {
	genes := map[string]bool{}
	page := catalog.Page{Limit: overlapPageSize}
	for {
		ans, err := a.Answer(ctx, site, q, page)
		if err != nil {
			return nil, err
		}
		for _, r := range ans.Records {
			genes[r.GeneID] = true
		}
		page.Offset += len(ans.Records)
		if len(ans.Records) == 0 || page.Offset >= ans.Count {
			return genes, nil
		}
	}
}

// Overlaps compares the inputs of every INTERSECT, UNION and MINUS step of
// s whose two inputs were counted from the offline snapshot, reading each
// input's genes from a. The other steps have none: a live site's gene ids
// are not read page by page to draw a picture, and an input whose genes
// cannot be read leaves its combine out rather than guessed at.
func Overlaps(ctx context.Context, a Answerer, s Snapshot) map[StepID]Overlap {
	g := &Graph{Name: s.Name, SiteID: s.SiteID, RecordType: s.RecordType, Steps: s.Steps}
	genes := map[StepID]map[string]bool{}
	read := func(id StepID) (map[string]bool, bool) {
		if set, ok := genes[id]; ok {
			return set, set != nil
		}
		genes[id] = nil
		st, ok := s.Step(id)
		if !ok || st.CountProvenance == nil || !st.CountProvenance.Offline {
			return nil, false
		}
		q, err := g.Query(id)
		if err != nil {
			return nil, false
		}
		set, err := Genes(ctx, a, s.SiteID, q)
		if err != nil {
			return nil, false
		}
		genes[id] = set
		return set, true
	}
	out := map[StepID]Overlap{}
	for _, st := range s.Steps {
		if st.Kind != KindCombine || len(st.Inputs) != 2 {
			continue
		}
		switch st.Operator {
		case Intersect, Union, Minus:
		default:
			continue
		}
		left, ok := read(st.Inputs[0])
		if !ok {
			continue
		}
		right, ok := read(st.Inputs[1])
		if !ok {
			continue
		}
		var o Overlap
		for id := range left {
			if right[id] {
				o.Both++
			} else {
				o.LeftOnly++
			}
		}
		o.RightOnly = len(right) - o.Both
		out[st.ID] = o
	}
	return out
}
