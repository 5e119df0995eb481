package rules_test

import (
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/event"
)

// TestAskBack: a phrase that maps to no search ends the planner's turn
// with a question, not a plan with a number. Its options are the GO
// terms the catalog's vocabulary look-ups found for the words, each with
// the catalog's count, and a text search marked approximate; answering
// with an option's message continues the conversation and plans it.
func TestAskBack(t *testing.T) {
	data := loadData(t)
	w := newWorld(t)
	plan := w.turn(t, "plan", "ligases on chromosome 11")
	if n := len(find[*event.HandoffRequested](plan.emitted)); n != 0 {
		t.Fatalf("%d builds requested for an unmapped phrase; the planner said:\n%s", n, plan.end.Text)
	}
	qs := find[*event.QuestionAsked](plan.emitted)
	if len(qs) != 1 {
		t.Fatalf("%d questions asked; the planner said:\n%s", len(qs), plan.end.Text)
	}
	q := qs[0]
	if q.QuestionID == "" || !strings.Contains(q.Question, "ligases") || !q.FreeText || len(q.Options) < 2 || len(q.Options) > 4 {
		t.Fatalf("question %+v", q)
	}
	last := q.Options[len(q.Options)-1]
	if !last.Approximate || !strings.Contains(last.Message, "text search for ligases") || last.Count == nil {
		t.Errorf("the last option is not the text search, counted and marked approximate: %+v", last)
	}
	for _, o := range q.Options[:len(q.Options)-1] {
		if o.Approximate || o.Count == nil || !strings.HasPrefix(o.Builds, "GenesByGoTerm") || !strings.Contains(o.Message, "on chromosome 11") {
			t.Errorf("a vocabulary option is not a counted GO search in the researcher's request: %+v", o)
		}
	}
	if plan.end.Reason != agent.StopCompleted || !strings.Contains(plan.end.Text, q.Question) || !strings.Contains(plan.end.Text, q.Options[0].Message) {
		t.Errorf("the answer does not carry the question and its options (%v):\n%s", plan.end.Reason, plan.end.Text)
	}

	// Choosing the first reading plans it: its GO term on chromosome 11.
	first := q.Options[0]
	_, after, ok := strings.Cut(first.Message, "GO:")
	if !ok || len(after) < 7 {
		t.Fatalf("the first option's message %q names no GO id", first.Message)
	}
	id := "GO:" + after[:7]
	answer := w.turn(t, "plan", first.Message)
	handoffs := find[*event.HandoffRequested](answer.emitted)
	if len(handoffs) != 1 || len(find[*event.QuestionAsked](answer.emitted)) != 0 {
		t.Fatalf("answering %q planned nothing; the planner said:\n%s", first.Message, answer.end.Text)
	}
	if got := planTree(t, handoffs[0].Plan); !strings.Contains(got, "GenesByGoTerm "+id) || !strings.Contains(got, "Pf3D7_11_v3") {
		t.Errorf("answer planned %s, want %s on chromosome 11", got, id)
	}
	if *first.Count != len(data.GO(id)) {
		t.Errorf("option counted %d genes for %s, the data has %d", *first.Count, id, len(data.GO(id)))
	}
}

// TestTextSearchAsked: asking for a text search plans one, marked
// approximate, without a question.
func TestTextSearchAsked(t *testing.T) {
	w := newWorld(t)
	plan := w.turn(t, "plan", "text search for ligases on chromosome 11")
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 || len(find[*event.QuestionAsked](plan.emitted)) != 0 {
		t.Fatalf("no plan for an asked-for text search; the planner said:\n%s", plan.end.Text)
	}
	if got := planTree(t, handoffs[0].Plan); !strings.Contains(got, "GenesByText ligase") {
		t.Errorf("planned %s, want a text search for ligase", got)
	}
	if !strings.Contains(plan.end.Text, "as you asked") {
		t.Errorf("the plan does not say the text search was asked for:\n%s", plan.end.Text)
	}
}

// TestAskBackNothingNear: a phrase with no vocabulary term near it is
// asked back too, never built with a number unasked: the question offers
// the text search, marked approximate, as its one reading, and welcomes
// the researcher's own words.
func TestAskBackNothingNear(t *testing.T) {
	w := newWorld(t)
	plan := w.turn(t, "plan", "zzqx flurble")
	if n := len(find[*event.HandoffRequested](plan.emitted)); n != 0 {
		t.Fatalf("%d builds requested for a phrase nothing is near; the planner said:\n%s", n, plan.end.Text)
	}
	qs := find[*event.QuestionAsked](plan.emitted)
	if len(qs) != 1 {
		t.Fatalf("%d questions asked; the planner said:\n%s", len(qs), plan.end.Text)
	}
	q := qs[0]
	if !q.FreeText || len(q.Options) != 1 || !q.Options[0].Approximate || !strings.Contains(q.Options[0].Message, "text search for zzqx flurble") {
		t.Fatalf("question %+v, want the text search as its one reading, free text welcome", q)
	}
	if !strings.Contains(q.Question, "say it another way") || !strings.Contains(plan.end.Text, q.Question) {
		t.Errorf("the question does not invite other words, or the answer does not carry it:\n%s", plan.end.Text)
	}
}

// TestAskBackAccepted: a yes to a question that offered one reading takes
// that reading (plans the text search it offered, marked approximate); a
// yes to a question of several readings asks which, building nothing.
func TestAskBackAccepted(t *testing.T) {
	w := newWorld(t)
	w.turn(t, "plan", "zzqx flurble")
	plan := w.turn(t, "plan", "Yes, go ahead and build it.")
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 {
		t.Fatalf("a yes to the one reading offered planned nothing; the planner said:\n%s", plan.end.Text)
	}
	if got := planTree(t, handoffs[0].Plan); !strings.Contains(got, `GenesByText "zzqx flurble"`) {
		t.Errorf("planned %s, want the text search the question offered", got)
	}

	w = newWorld(t)
	w.turn(t, "plan", "genes with high gametocyte expression")
	plan = w.turn(t, "plan", "yes please")
	if n := len(find[*event.HandoffRequested](plan.emitted)); n != 0 {
		t.Fatalf("a yes to a question of several readings planned %d; the planner said:\n%s", n, plan.end.Text)
	}
	if !strings.Contains(plan.end.Text, "reply with the number of the one you meant") {
		t.Errorf("the answer does not ask which reading:\n%s", plan.end.Text)
	}
}
