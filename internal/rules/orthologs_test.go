package rules_test

import (
	"slices"
	"strings"
	"testing"

	"strategist/internal/event"
	"strategist/internal/strategy"
)

// TestOrthologTransform: a request to carry the strategy's genes to their
// orthologs in another organism of the site builds GenesByOrthologs over
// the strategy's root, without a count offline; keeping the genes that
// have orthologs there intersects the strategy with its orthologs carried
// there and back.
func TestOrthologTransform(t *testing.T) {
	w := newWorld(t)
	w.built(t, "DNA repair genes on chromosome 5")
	carried := w.built(t, "Carry these to their orthologs in Plasmodium vivax P01.")
	snap, root := rootCount(t, carried.emitted)
	if root.SearchName != "GenesByOrthologs" || root.Kind != strategy.KindTransform || root.Parameters["organism"] != `["Plasmodium vivax P01"]` ||
		root.Parameters["isSyntenic"] != "no" || root.Count != nil {
		t.Fatalf("root after the transform: %+v\n%s", root, carried.end.Text)
	}
	if len(snap.Steps) != 4 {
		t.Errorf("%d steps, want the strategy's 3 and the transform", len(snap.Steps))
	}

	w = newWorld(t)
	w.built(t, "DNA repair genes on chromosome 5")
	kept := w.built(t, "keep only those with syntenic orthologs in P. vivax P01")
	snap, root = rootCount(t, kept.emitted)
	if root.Operator != strategy.Intersect || len(snap.Steps) != 9 {
		t.Fatalf("root %+v, %d steps; want an intersection of 9 steps\n%s", root, len(snap.Steps), kept.end.Text)
	}
	var orgs []string
	for _, s := range snap.Steps {
		if s.SearchName == "GenesByOrthologs" {
			if s.Parameters["isSyntenic"] != "yes" {
				t.Errorf("transform %s is not syntenic: %v", s.ID, s.Parameters)
			}
			orgs = append(orgs, s.Parameters["organism"])
		}
	}
	slices.Sort(orgs)
	if want := []string{`["Plasmodium falciparum 3D7"]`, `["Plasmodium vivax P01"]`}; !slices.Equal(orgs, want) {
		t.Errorf("transforms to %v, want there and back %v", orgs, want)
	}
}

// TestOrthologOrganism: an organism that fits several of the site's is a
// question, one it does not have a refusal, and with no strategy there is
// nothing to carry; none of them builds.
func TestOrthologOrganism(t *testing.T) {
	w := newWorld(t)
	none := w.turn(t, "plan", "carry these to their orthologs in P. vivax P01")
	if !strings.Contains(none.end.Text, "no strategy yet") || len(find[*event.HandoffRequested](none.emitted)) != 0 {
		t.Errorf("with no strategy:\n%s", none.end.Text)
	}
	w.built(t, "DNA repair genes on chromosome 5")
	asked := w.turn(t, "plan", "map them to their orthologs in P. vivax")
	qs := find[*event.QuestionAsked](asked.emitted)
	if len(qs) != 1 || len(qs[0].Options) != 4 || len(find[*event.HandoffRequested](asked.emitted)) != 0 {
		t.Fatalf("P. vivax is four strains: want a question of 4 options, got %d questions\n%s", len(qs), asked.end.Text)
	}
	if !strings.Contains(qs[0].Options[0].Message, "Plasmodium vivax P01") {
		t.Errorf("option %+v does not name the strain", qs[0].Options[0])
	}
	refused := w.turn(t, "plan", "carry these to their orthologs in Toxoplasma gondii ME49")
	if !strings.Contains(refused.end.Text, "none named") || len(find[*event.HandoffRequested](refused.emitted)) != 0 {
		t.Errorf("an organism the site lacks:\n%s", refused.end.Text)
	}
	combine := w.turn(t, "plan", "Delete the intersection step but keep both searches exactly as they are.")
	if !strings.Contains(combine.end.Text, "a strategy has one result") || len(find[*event.HandoffRequested](combine.emitted)) != 0 {
		t.Errorf("removing the only combine:\n%s", combine.end.Text)
	}
}

// TestOperatorEdit: a change of a combine's operator rebuilds that
// combine with its inputs reused; one already of that operator, or a
// strategy without a combine, changes nothing.
func TestOperatorEdit(t *testing.T) {
	w := newWorld(t)
	w.built(t, "DNA repair genes on chromosome 5")
	flipped := w.built(t, "Flip the last combine - the one joining the two searches - to a UNION, and explain why the counts differ.")
	snap, root := rootCount(t, flipped.emitted)
	if root.Operator != strategy.Union || len(snap.Steps) != 3 {
		t.Fatalf("root %+v of %d steps, want a UNION of the same two searches\n%s", root, len(snap.Steps), flipped.end.Text)
	}
	same := w.turn(t, "plan", "make it a union")
	if !strings.Contains(same.end.Text, "already a UNION") || len(find[*event.HandoffRequested](same.emitted)) != 0 {
		t.Errorf("a union made a union:\n%s", same.end.Text)
	}
	back := w.built(t, "turn the union into an intersection")
	if _, root := rootCount(t, back.emitted); root.Operator != strategy.Intersect {
		t.Errorf("root %+v, want an INTERSECT\n%s", root, back.end.Text)
	}
}

// TestOperatorEditNamed: of two combines, the one the words name by its
// operator changes ("intersect" and "intersection" name the same one).
func TestOperatorEditNamed(t *testing.T) {
	w := newWorld(t)
	w.built(t, "DNA repair genes on chromosome 5, excluding the tRNA genes")
	r := w.built(t, "turn the intersection into a union")
	snap, root := rootCount(t, r.emitted)
	if root.Operator != strategy.Minus {
		t.Fatalf("root %+v, want the exclusion kept\n%s", root, r.end.Text)
	}
	var ops []strategy.Operator
	for _, s := range snap.Steps {
		if s.Operator != "" {
			ops = append(ops, s.Operator)
		}
	}
	if !slices.Contains(ops, strategy.Union) || slices.Contains(ops, strategy.Intersect) {
		t.Errorf("combines %v, want the intersection made a union\n%s", ops, r.end.Text)
	}
}
