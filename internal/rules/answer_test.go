package rules_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/eval"
	"strategist/internal/event"
)

// TestAnswersBuildNothing: a message that is not a search is answered in
// words from the data, and nothing is planned, saved or built.
func TestAnswersBuildNothing(t *testing.T) {
	data := loadData(t)
	gene := "PF3D7_0930300" // MSP1
	tests := []struct {
		name, message string
		says          []string
	}{
		{"a gene question", "What does " + gene + " do?",
			[]string{"question about a gene", data.Product[gene], data.Symbol[gene], data.Sequence[gene], data.PreviousIDs[gene][0], "plasmodb.org/plasmo/app/record/gene/" + gene}},
		{"a gene's id asked for by its product", "gene id of merozoite surface protein 1?",
			[]string{"question about a gene", "product that matches it", gene}},
		{"a gene asked for by its product in British spelling", "which gene codes for haem oxygenase? I need its id",
			[]string{"question about a gene", "product that matches it", "PF3D7_1011900", "heme oxygenase"}},
		// Made-up names beside a place are asked about, never left out.
		{"unknown names beside a place", "zorblat fimbrase genes on chromosome 4", []string{"zorblat fimbrase"}},
		// A genus and species the catalog does not know is never cut off
		// to answer for P. falciparum: it is refused as an organism.
		{"an unknown organism before a GO name", "Chromera velia cytokinesis genes on chromosome 5",
			[]string{"'Chromera velia' reads as a genus and species", "no organism 'Chromera velia'", "Plasmodium falciparum 3D7"}},
		{"a genus alone before a gene type", "Haemoproteus snoRNA genes", []string{"'Haemoproteus' reads as a genus, and", "Plasmodium falciparum 3D7"}},
		{"a proper name before a place word is no organism", "Maurer's cleft genes", []string{"I could not map 'Maurer cleft'"}},
		// A GO name inside the topic of a piece of research is not cut out of it.
		{"a GO id question", "what does GO:0006281 mean?", []string{"question about a GO term", "'DNA repair'", "GO defines it: The process of restoring DNA"}},
		{"a GO name question", "What is karyokinesis in GO terms?", []string{"GO:0000280", "'nuclear division'", "GO lists 'karyokinesis' as a synonym"}},
		{"a question about searches", "Which searches find genes by GO term?", []string{"question about searches", "GenesByGoTerm"}},
		{"a confirmation with no plan", "Yes, go ahead and build it.", []string{"no plan to build yet"}},
		{"a decline", "not yet, thanks", []string{"nothing was built or changed"}},
		{"a gene set", "Save these genes as a gene set called invasion", []string{"save genes as a list", "Save list", "nothing was built or changed"}},
		{"a download", "download these as a CSV", []string{"downloading genes", "Download all", "nothing was built or changed"}},
		{"show the genes with no strategy", "show me the genes", []string{"has none yet"}},
		{"memory", "Please remember that I prefer results as tables", []string{"remembering preferences", "does not do", "What I can do"}},
		{"off-topic", "What is a good recipe for banana bread?", []string{"not about genes"}},
		{"keys pressed", "asdf qwerty", []string{"not about genes"}},
		{"no strategy yet", "how many genes is that?", []string{"has none yet"}},
		{"nothing to remove", "remove the chromosome 5 step", []string{"no strategy yet, so there is nothing to remove"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", tt.message)
			if plan.end.Reason != agent.StopCompleted {
				t.Fatalf("plan turn ended %v: %v", plan.end.Reason, plan.end.Err)
			}
			if n := len(find[*event.HandoffRequested](plan.emitted)) + len(find[*event.ArtifactSaved](plan.emitted)); n != 0 {
				t.Errorf("%d artifacts and handoffs; want none:\n%s", n, plan.end.Text)
			}
			for _, s := range tt.says {
				if !strings.Contains(plan.end.Text, s) {
					t.Errorf("the answer does not say %q:\n%s", s, plan.end.Text)
				}
			}
		})
	}
}

// TestGeneAnswerNamesItsProcesses: the answer to a gene question names GO
// processes, each one whose gene set in the raw files holds the gene.
func TestGeneAnswerNamesItsProcesses(t *testing.T) {
	data := loadData(t)
	gene := "PF3D7_0930300"
	w := newWorld(t)
	r := w.turn(t, "plan", "What does "+gene+" do?")
	_, after, ok := strings.Cut(r.end.Text, "GO processes, the most specific first:")
	if !ok {
		t.Fatalf("the answer names no GO processes:\n%s", r.end.Text)
	}
	after, _, _ = strings.Cut(after, "\n")
	ids := regexp.MustCompile(`GO:\d{7}`).FindAllString(after, -1)
	if len(ids) == 0 {
		t.Fatalf("no GO ids among the processes: %s", after)
	}
	for _, id := range ids {
		if !data.GO(id)[gene] {
			t.Errorf("%s is named, but its gene set in the raw files lacks %s", id, gene)
		}
	}
}

// TestExecuteModeAnswers: after a build the composer is in execute mode;
// a question, a thanks or a count typed there is answered without a
// build, and "which step drops …" follows the gene through the steps.
func TestExecuteModeAnswers(t *testing.T) {
	data := loadData(t)
	w := newWorld(t)
	plan := w.turn(t, "plan", "DNA repair genes not on chromosome 14")
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 {
		t.Fatalf("no plan:\n%s", plan.end.Text)
	}
	build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
	want := eval.Minus(data.GO("GO:0006281"), data.On("Pf3D7_14_v3"))
	checkOneRoot(t, build, want)
	const lost = "PF3D7_1405400" // a DNA repair gene on chromosome 14
	if !data.GO("GO:0006281")[lost] || !data.On("Pf3D7_14_v3")[lost] {
		t.Fatalf("%s is not a DNA repair gene on chromosome 14 in the raw files", lost)
	}
	for _, tt := range []struct{ msg, says string }{
		{"thanks!", "Nothing was built or changed"},
		{"What does PF3D7_1133400 do?", "question about a gene"},
		{"how many genes now?", strconv.Itoa(len(want)) + " genes"},
		{"which step drops " + lost + "?", "is not in the result"},
		{"which step drops " + lost + "?", "It is lost at this step: s3"},
	} {
		r := w.turn(t, "execute", tt.msg)
		if n := len(find[*event.GraphSnapshot](r.emitted)); n != 0 {
			t.Errorf("%q changed the strategy %d times:\n%s", tt.msg, n, r.end.Text)
		}
		if !strings.Contains(r.end.Text, tt.says) {
			t.Errorf("%q: the answer does not say %q:\n%s", tt.msg, tt.says, r.end.Text)
		}
	}
}

// TestConfirmationBuilds: a yes to a proposed plan hands that plan to the
// executor confirmed (the server accepts it when the turn ends), without
// planning again; a yes once it is built starts nothing.
func TestConfirmationBuilds(t *testing.T) {
	data := loadData(t)
	w := newWorld(t)
	plan := w.turn(t, "plan", "DNA repair genes")
	proposed := find[*event.HandoffRequested](plan.emitted)
	if len(proposed) != 1 || proposed[0].Confirmed {
		t.Fatalf("the plan turn requested %d handoffs (want one, unconfirmed):\n%s", len(proposed), plan.end.Text)
	}
	if thanks := w.turn(t, "plan", "thanks!"); len(find[*event.HandoffRequested](thanks.emitted)) != 0 {
		t.Errorf("a thanks asked for a build:\n%s", thanks.end.Text)
	}
	yes := w.turn(t, "plan", "Yes, go ahead and build it.")
	confirmed := find[*event.HandoffRequested](yes.emitted)
	if len(confirmed) != 1 || !confirmed[0].Confirmed {
		t.Fatalf("the yes requested %d handoffs (want one, confirmed):\n%s", len(confirmed), yes.end.Text)
	}
	if n := len(find[*event.ArtifactSaved](yes.emitted)); n != 0 {
		t.Errorf("the yes saved %d artifacts; it plans nothing again", n)
	}
	if string(confirmed[0].Plan) != string(proposed[0].Plan) {
		t.Errorf("the yes built another plan:\n%s\nwant\n%s", confirmed[0].Plan, proposed[0].Plan)
	}
	if !strings.Contains(yes.end.Text, "build starts now") {
		t.Errorf("the answer does not say the build starts:\n%s", yes.end.Text)
	}
	build := w.turnAccepting(t, "execute", buildMessage(t, confirmed[0]), confirmed[0].HandoffID)
	checkOneRoot(t, build, data.GO("GO:0006281"))
	again := w.turn(t, "plan", "ok, build it")
	if n := len(find[*event.HandoffRequested](again.emitted)); n != 0 {
		t.Errorf("a yes after the build requested %d handoffs:\n%s", n, again.end.Text)
	}
	if !strings.Contains(again.end.Text, "built already") {
		t.Errorf("the answer does not say the plan is built:\n%s", again.end.Text)
	}
}

// TestQuestionsAfterABuild: a question, a decline or an unsupported
// request after a build leaves the strategy as it was, and a question
// about it gives its count.
func TestQuestionsAfterABuild(t *testing.T) {
	data := loadData(t)
	want := len(data.GO("GO:0006281"))
	for _, msg := range []string{"how many genes is that?", "how many genes now?", "not yet", "Save these as a gene set", "Summarize this conversation so far"} {
		t.Run(msg, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", "DNA repair genes")
			handoffs := find[*event.HandoffRequested](plan.emitted)
			if len(handoffs) != 1 {
				t.Fatalf("no plan:\n%s", plan.end.Text)
			}
			build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
			after := w.turn(t, "plan", msg)
			if n := len(find[*event.HandoffRequested](after.emitted)); n != 0 {
				t.Errorf("%q asked for a build:\n%s", msg, after.end.Text)
			}
			if strings.HasPrefix(msg, "how many") || strings.HasPrefix(msg, "Summarize") {
				if !strings.Contains(after.end.Text, strconv.Itoa(want)+" genes") {
					t.Errorf("the answer does not give the count %d:\n%s", want, after.end.Text)
				}
			}
			checkOneRoot(t, build, data.GO("GO:0006281"))
			if n := len(find[*event.GraphSnapshot](after.emitted)); n != 0 {
				t.Errorf("%q changed the strategy %d times", msg, n)
			}
		})
	}
}

// TestWhatEachStepRemoved: asked what each step removed, the answer
// counts what each combine took from its first input, and says when one
// took nothing.
func TestWhatEachStepRemoved(t *testing.T) {
	data := loadData(t)
	all := len(data.GO("GO:0006508"))
	kept := len(eval.Minus(data.GO("GO:0006508"), data.On("Pf3D7_03_v3")))
	w := newWorld(t)
	w.built(t, "proteolysis genes excluding chromosome 3")
	after := w.turn(t, "plan", "what did each step remove?")
	want := regexp.MustCompile(fmt.Sprintf(`%d genes, removing %d of s\d+'s %d \(the result\)`, kept, all-kept, all))
	if !want.MatchString(after.end.Text) {
		t.Errorf("the answer does not count what the exclusion removed (%d of %d):\n%s", all-kept, all, after.end.Text)
	}
}

// TestParameterEdit: "relax the minimum to N" sets that value on the
// step that has it and keeps the rest of the strategy.
func TestParameterEdit(t *testing.T) {
	w := newWorld(t)
	w.built(t, "genes with a signal peptide and 4 to 20 transmembrane domains")
	edit := w.turn(t, "plan", "Relax the minimum to 2 transmembrane domains.")
	arts := find[*event.ArtifactSaved](edit.emitted)
	if len(arts) != 2 || len(find[*event.HandoffRequested](edit.emitted)) != 1 {
		t.Fatalf("no plan for the edit:\n%s", edit.end.Text)
	}
	raw, _ := json.Marshal(arts[1].Artifact.Plan)
	for _, want := range []string{`"min_tm":"2"`, `"max_tm":"20"`, `"stepId"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the plan lacks %s:\n%s\n%s", want, raw, edit.end.Text)
		}
	}
	if !strings.Contains(edit.end.Text, "I change step") {
		t.Errorf("the answer does not say which step it changes:\n%s", edit.end.Text)
	}
}

// TestReplaceByName: "replace the <name> search with …" finds the step by
// the words of its name and puts the new search in its place.
func TestReplaceByName(t *testing.T) {
	w := newWorld(t)
	w.built(t, "genes with a signal peptide and 4 to 20 transmembrane domains")
	edit := w.turn(t, "plan", "Replace the transmembrane-domain search with exported proteins")
	arts := find[*event.ArtifactSaved](edit.emitted)
	if len(arts) != 2 {
		t.Fatalf("no plan for the replacement:\n%s", edit.end.Text)
	}
	raw, _ := json.Marshal(arts[1].Artifact.Plan)
	if !strings.Contains(string(raw), "GenesByExportPrediction") || strings.Contains(string(raw), "GenesByTransmembraneDomains") {
		t.Errorf("the plan does not put the export search in the transmembrane step's place:\n%s\n%s", raw, edit.end.Text)
	}
}
