package rules_test

import (
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/eval"
	"strategist/internal/event"
)

// TestConversations: a follow-up edits the strategy the conversation has,
// and every build leaves one root whose count is the one computed from the
// raw files for the whole conversation.
func TestConversations(t *testing.T) {
	for _, tt := range conversationCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			var plan run
			var build run
			for i, msg := range tt.messages {
				plan = w.turn(t, "plan", msg)
				handoffs := find[*event.HandoffRequested](plan.emitted)
				if plan.end.Reason != agent.StopCompleted || len(handoffs) != 1 {
					t.Fatalf("message %d %q: no plan (%v); the planner said:\n%s", i+1, msg, plan.end.Reason, plan.end.Text)
				}
				build = w.turn(t, "execute", buildMessage(t, handoffs[0]))
				if build.end.Reason != agent.StopCompleted {
					t.Fatalf("message %d %q: build ended %v: %v\n%s", i+1, msg, build.end.Reason, build.end.Err, build.end.Text)
				}
			}
			if !strings.Contains(plan.end.Text, tt.says) {
				t.Errorf("the last answer does not say %q:\n%s", tt.says, plan.end.Text)
			}
			checkOneRoot(t, build, tt.want)
		})
	}
}

// TestDraftEdits: in plan mode, a change to a plan not built yet edits
// that plan (the previous request's tree) instead of planning the change
// alone; the build then has the edited tree.
func TestDraftEdits(t *testing.T) {
	data := loadData(t)
	repair, chr14, chr13 := data.GO("GO:0006281"), data.On("Pf3D7_14_v3"), data.On("Pf3D7_13_v3")
	for _, tt := range []struct {
		name     string
		messages []string
		want     eval.Set
	}{
		{"exclude", []string{"DNA repair or DNA replication genes on chromosome 14", "Same, but also exclude tRNA genes"},
			eval.Minus(eval.Intersect(eval.Union(repair, data.GO("GO:0006260")), chr14), data.OfType("tRNA encoding"))},
		{"replace", []string{"DNA repair genes on chromosome 14", "use chromosome 13 instead"}, eval.Intersect(repair, chr13)},
		{"take the exclusion back", []string{"DNA repair genes on chromosome 14 excluding tRNA genes", "take that exclusion out again"}, eval.Intersect(repair, chr14)},
		{"two changes in a row", []string{"DNA repair genes", "also include DNA replication", "and leave out chromosome 13"},
			eval.Minus(eval.Union(repair, data.GO("GO:0006260")), chr13)},
		{"a question between two changes", []string{"DNA repair genes", "exclude chromosome 14", "what does GO:0006281 mean?", "and chromosome 13 too"},
			eval.Minus(eval.Minus(repair, chr14), chr13)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			var plan run
			for _, msg := range tt.messages {
				plan = w.turn(t, "plan", msg)
			}
			handoffs := find[*event.HandoffRequested](plan.emitted)
			if len(handoffs) != 1 {
				t.Fatalf("the edit planned nothing:\n%s", plan.end.Text)
			}
			if !strings.Contains(plan.end.Text, "plan drafted for your previous request") {
				t.Errorf("the answer does not say it edits the draft:\n%s", plan.end.Text)
			}
			checkOneRoot(t, w.turn(t, "execute", buildMessage(t, handoffs[0])), tt.want)
		})
	}
}

// TestConversationsInExecuteMode: after the first build the page's
// composer is in execute mode, and a follow-up typed there edits the
// strategy just as it does through a plan: one root, the same count.
func TestConversationsInExecuteMode(t *testing.T) {
	for _, tt := range conversationCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", tt.messages[0])
			handoffs := find[*event.HandoffRequested](plan.emitted)
			if len(handoffs) != 1 {
				t.Fatalf("no plan; the planner said:\n%s", plan.end.Text)
			}
			build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
			for i, msg := range tt.messages[1:] {
				if build = w.turn(t, "execute", msg); build.end.Reason != agent.StopCompleted {
					t.Fatalf("message %d %q: ended %v: %v\n%s", i+2, msg, build.end.Reason, build.end.Err, build.end.Text)
				}
			}
			if !strings.Contains(build.end.Text, tt.says) {
				t.Errorf("the last answer does not say %q:\n%s", tt.says, build.end.Text)
			}
			checkOneRoot(t, build, tt.want)
		})
	}
}

// checkOneRoot checks that a build left one root of the expected size.
func checkOneRoot(t *testing.T, build run, want eval.Set) {
	t.Helper()
	snap, root := rootCount(t, build.emitted)
	if len(snap.Roots) != 1 {
		t.Errorf("the strategy has roots %v, want one", snap.Roots)
	}
	if root.Count == nil || *root.Count != len(want) {
		t.Errorf("root count = %s, want %d (computed from the raw files)\n%s", show(root.Count), len(want), build.end.Text)
	}
}

type conversationCase struct {
	name     string
	messages []string
	want     eval.Set
	says     string // in the last answer
}

func conversationCases(t *testing.T) []conversationCase {
	data := loadData(t)
	const (
		repair, replication = "GO:0006281", "GO:0006260"
		chr5, chr13, chr14  = "Pf3D7_05_v3", "Pf3D7_13_v3", "Pf3D7_14_v3"
	)
	return []conversationCase{
		{"exclude", []string{"DNA repair genes", "now also exclude chromosome 5"},
			eval.Minus(data.GO(repair), data.On(chr5)), "reused"},
		{"restrict", []string{"DNA repair genes", "only those on chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"add", []string{"DNA repair genes", "also add DNA replication genes"},
			eval.Union(data.GO(repair), data.GO(replication)), "reused"},
		{"replace a term without naming it", []string{"DNA repair genes on chromosome 14", "use DNA replication instead"},
			eval.Intersect(data.GO(replication), data.On(chr14)), "I replace step"},
		{"replace a named location", []string{"tRNA genes on chromosome 14", "replace chromosome 14 with 13"},
			eval.Intersect(data.OfType("tRNA encoding"), data.On(chr13)), "I replace step"},
		{"two follow-ups", []string{"DNA repair genes", "exclude chromosome 14", "also exclude chromosome 5"},
			eval.Minus(eval.Minus(data.GO(repair), data.On(chr14)), data.On(chr5)), "reused"},
		{"the same again", []string{"translation genes", "exclude chromosome 14", "and chromosome 13 too"},
			eval.Minus(eval.Minus(data.GO("GO:0006412"), data.On(chr14)), data.On(chr13)), "reused"},
		{"remove a step by its name", []string{"DNA repair genes not on chromosome 14", "remove the chromosome 14 step"},
			data.GO(repair), "I remove step"},
		{"remove a search by its name", []string{"DNA repair genes on chromosome 14 excluding tRNA genes", "delete the tRNA search"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "I remove step"},
		{"take the exclusion back without naming it", []string{"DNA repair genes on chromosome 14", "now exclude tRNA genes", "take that exclusion out again"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "I remove step"},
		{"a correction replaces what it names", []string{"DNA repair genes on chromosome 14", "sorry, I meant DNA replication"},
			eval.Intersect(data.GO(replication), data.On(chr14)), "I replace step"},
		{"return to before a change", []string{"DNA repair genes", "exclude chromosome 5", "revert to before the exclusion"},
			data.GO(repair), "going back"},
		{"set a kind of step", []string{"tRNA genes on chromosome 14", "set the gene type to rRNA"},
			eval.Intersect(data.OfType("rRNA encoding"), data.On(chr14)), "I replace step"},
		{"switch the GO term", []string{"DNA repair genes on chromosome 14", "switch the GO term to DNA replication"},
			eval.Intersect(data.GO(replication), data.On(chr14)), "I replace step"},
		{"narrow them down", []string{"DNA repair genes", "narrow those down to chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"restore the previous version", []string{"DNA repair genes", "exclude chromosome 5", "restore the previous version"},
			data.GO(repair), "going back"},
		{"a place that has to go", []string{"translation genes", "exclude chromosome 14", "chromosome 13 has to go as well"},
			eval.Minus(eval.Minus(data.GO("GO:0006412"), data.On(chr14)), data.On(chr13)), "reused"},
		{"and also adds", []string{"tRNA genes on chromosome 5", "and also the rRNA genes on chromosome 5"},
			eval.Union(eval.Intersect(data.OfType("tRNA encoding"), data.On(chr5)), eval.Intersect(data.OfType("rRNA encoding"), data.On(chr5))), "reused"},
		{"drop a condition", []string{"DNA repair genes on chromosome 14", "drop the chromosome restriction"},
			data.GO(repair), "I drop the chromosome steps"},
		{"replace a kind of step", []string{"translation genes on chromosome 3", "swap the GO term for proteolysis"},
			eval.Intersect(data.GO("GO:0006508"), data.On("Pf3D7_03_v3")), "I replace step"},
		{"refer back to the result", []string{"DNA repair genes", "can you exclude chromosomes 13 and 14 from the result?"},
			eval.Minus(data.GO(repair), eval.Union(data.On(chr13), data.On(chr14))), "reused"},
		// The README's follow-up removes nothing, so it is asked about; the
		// answer "…, anyway" builds it and says so.
		{"the README's follow-up, built anyway", []string{"DNA repair or DNA replication genes on chromosome 14", "now also exclude the apicoplast genome, anyway"},
			eval.Minus(eval.Intersect(eval.Union(data.GO(repair), data.GO(replication)), data.On(chr14)), data.On("PFC10_API_IRAB")), "removes nothing"},
		{"narrow with the result named first", []string{"DNA repair genes", "of those, only the ones on chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"narrow with keep", []string{"translation genes", "among these, keep the ones on chromosome 13"},
			eval.Intersect(data.GO("GO:0006412"), data.On(chr13)), "reused"},
		{"a union whose second item says where it lies", []string{"genes involved in DNA repair or lying on chromosome 5"},
			eval.Union(data.GO(repair), data.On(chr5)), ""},
		{"undo", []string{"DNA repair genes", "exclude chromosome 5", "undo that"},
			data.GO(repair), "going back"},
		{"a change made instead of one undone", []string{"DNA repair genes", "restrict to chromosome 5", "undo that", "restrict to chromosome 14 instead"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"a step named before it is dropped", []string{"DNA repair genes or genes on chromosome 5", "the chromosome 5 part — drop it"},
			data.GO(repair), "I remove step"},
		{"an excluded place put back", []string{"DNA repair genes", "exclude chromosome 5", "put chromosome 5 back"},
			data.GO(repair), "I remove step"},
		{"a chromosome named by its number alone", []string{"tRNA genes on chromosomes 5 and 7", "remove the chromosome 7 step"},
			eval.Intersect(data.OfType("tRNA encoding"), data.On(chr5)), "I remove step"},
		{"a step named 'one'", []string{"tRNA genes on chromosome 5 or 14", "remove the chromosome 14 one"},
			eval.Intersect(data.OfType("tRNA encoding"), data.On(chr5)), "I remove step"},
		{"which of them", []string{"DNA repair genes", "which of them are on chromosome 14?"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"limit the result", []string{"DNA repair genes", "limit the result to chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"and more of the same kind", []string{"tRNA genes", "and the rRNA ones too"},
			eval.Union(data.OfType("tRNA encoding"), data.OfType("rRNA encoding")), "reused"},
		{"a place added to a restriction to a place widens it", []string{"DNA repair genes on chromosome 13", "include chromosome 14 as well"},
			eval.Intersect(data.GO(repair), eval.Union(data.On(chr13), data.On(chr14))), "I widen step"},
		{"a place named 'as well' after a request for one place's genes widens it", []string{"DNA repair genes, chromosome 13", "chromosome 14 as well, please"},
			eval.Intersect(data.GO(repair), eval.Union(data.On(chr13), data.On(chr14))), "I widen step"},
		{"a last exclusion done again 'while you're at it'", []string{"DNA repair genes", "drop chromosome 13", "and chromosome 14 while you're at it"},
			eval.Minus(eval.Minus(data.GO(repair), data.On(chr13)), data.On(chr14)), "reused"},
		{"one of two excluded places put back", []string{"DNA repair genes except chromosomes 13 and 14", "put chromosome 13 back"},
			eval.Minus(data.GO(repair), data.On(chr14)), "I remove step"},
		{"a restriction that names the part kept", []string{"DNA repair genes", "keep the chromosome 14 portion and lose the rest"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"the excluded chromosome changed", []string{"DNA repair genes minus chromosome 14", "change the excluded chromosome to 13"},
			eval.Minus(data.GO(repair), data.On(chr13)), "I replace step"},
		{"a correction after 'no wait'", []string{"DNA repair genes on chromosome 13", "no wait, chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "I replace step"},
		{"the same but for another place", []string{"DNA repair genes on chromosome 13", "same but for chromosome 14"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "I replace step"},
		{"an exclusion taken back in words", []string{"DNA repair genes", "exclude chromosome 5", "don't exclude chromosome 5 after all"},
			data.GO(repair), "I remove step"},
		{"an exclusion taken back as staying", []string{"DNA repair genes", "exclude chromosome 5", "hmm, chromosome 5 can stay after all"},
			data.GO(repair), "I remove step"},
		{"the genes of a process removed as 'ones'", []string{"DNA replication genes", "now remove the DNA repair ones"},
			eval.Minus(data.GO(replication), data.GO(repair)), "reused"},
		{"a correction of the kind of gene", []string{"tRNA genes on chromosome 5", "actually rRNA genes, not tRNA"},
			eval.Intersect(data.OfType("rRNA encoding"), data.On(chr5)), "I replace step"},
		{"the excluded place corrected", []string{"DNA repair genes, chromosome 14 excluded", "no wait — it's chromosome 13 I want out, not 14"},
			eval.Minus(data.GO(repair), data.On(chr13)), "I replace step"},
		{"a step swapped out", []string{"DNA repair genes or tRNA genes", "swap out the DNA repair step for DNA replication"},
			eval.Union(data.GO(replication), data.OfType("tRNA encoding")), "I replace step"},
		{"one of two GO steps swapped by name", []string{"DNA repair genes or translation genes", "swap out the DNA repair step for DNA replication"},
			eval.Union(data.GO(replication), data.GO("GO:0006412")), "I replace step"},
		{"which ones", []string{"DNA repair genes", "which ones sit on chromosome 14?"},
			eval.Intersect(data.GO(repair), data.On(chr14)), "reused"},
		{"a new request replaces the strategy", []string{"DNA repair genes", "tRNA genes on chromosome 5"},
			eval.Intersect(data.OfType("tRNA encoding"), data.On(chr5)), "replaces the current strategy"},
	}
}
