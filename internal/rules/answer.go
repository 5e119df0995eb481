package rules

import (
	"fmt"
	"slices"
	"strings"

	"strategist/internal/english"
)

// answerTurn answers a message that asks for no search (english.Classify
// says which kind) from the catalog's data, building nothing: a gene's
// annotation, a GO term's name and definition, the searches for
// something, the strategy's steps and counts, or why Strategist does not
// do what was asked. Each answer says how the message was read.
func answerTurn(t *turn, cl english.Classification) response {
	a := newAsks(t)
	switch cl.Intent {
	case english.IntentConfirm:
		return confirmAnswer(a)
	case english.IntentDecline:
		return say(intro + "\n\nI read that as a no: nothing was built or changed. Say what to change, or describe other genes to plan.")
	case english.IntentGeneQuestion:
		return geneAnswer(a, strings.Fields(cl.Subject))
	case english.IntentGOQuestion:
		return goAnswer(a, cl.Subject)
	case english.IntentSearchQuestion:
		return searchesAnswer(a, cl.Subject)
	case english.IntentStrategyQuestion:
		return strategyAnswer(a)
	case english.IntentGeneTrace:
		return traceAnswer(a, cl.Subject)
	case english.IntentThanks:
		return say(intro + "\n\nGlad to help. Nothing was built or changed; say what to change, or describe other genes to plan.")
	case english.IntentCapability:
		return say(intro + "\n\n" + capabilities)
	case english.IntentUnsupported:
		if cl.OnThePage != "" {
			return say(intro + "\n\nI read that as a request for " + cl.Unsupported + ". I do not do that from the chat, so nothing was built or changed: " + cl.OnThePage + ".")
		}
		if cl.Unsupported == english.UnsupportedGeneSets {
			return say(intro + "\n\nI read that as a request to save genes as a list. I do not save lists from the chat, so nothing was built or changed: " +
				"open a step's results and use **Save list** there (the list is yours across conversations, can start or join a strategy, and can be the conversation's controls); " +
				"**Upload a gene list** on the same panel takes pasted ids or a file.")
		}
		return say(intro + "\n\nI read that as a request for " + cl.Unsupported + ", which Strategist does not do, so nothing was built or changed. " + capabilities)
	}
	return say(intro + "\n\nI read that as a message that is not about genes, so nothing was built. " + capabilities)
}

// confirmAnswer builds the plan the researcher agreed to: the saved draft
// is handed to the executor, confirmed by their message, so the build
// starts when the turn ends. With no draft, or one already built, it says
// so and builds nothing.
func confirmAnswer(a *asks) response {
	read := intro + "\n\n" + english.Quote(strings.TrimSpace(a.t.user)) + " agrees to build the plan."
	if !a.t.has("request_executor_build") {
		return say(read + " This role cannot start a build; click **Build this plan** on the plan to build it.")
	}
	d := a.get(newCall("request_executor_build", map[string]any{"confirmed": true}))
	if d == nil {
		return response{calls: a.calls}
	}
	var br struct {
		Status string `json:"status"`
	}
	built := d.decode(&br)
	switch {
	case !built && len(a.t.asked) > 1:
		return say(read + fmt.Sprintf(" My last question offered %d readings and no plan is drafted yet, so nothing was built: reply with the number of the one you meant, or say it in your own words.", len(a.t.asked)))
	case !built:
		return say(read + " There is no plan to build yet (" + d.msg + "): describe the genes you want, for example \"tRNA genes on chromosome 5\".")
	case br.Status == "already_built":
		return say(read + " It is built already: the strategy beside the chat is its result, and nothing new was started. " +
			"To change it, say how, for example \"now also exclude chromosome 5\".")
	}
	return say(read + " The build starts now: the steps appear beside the chat as they are made, each with its count.")
}

// traceAnswer follows a gene through the strategy (trace_gene): in the
// result or not, and the steps that lose it, each with its name. Without
// the tool (plan mode) it says where the question is answered.
func traceAnswer(a *asks, gene string) response {
	read := intro + "\n\nI read that as a question about where the strategy keeps or loses " + gene + ", so I change nothing."
	if !a.t.has("trace_gene") {
		return say(read + " I follow a gene through the steps in execute mode (the message box after a build): ask there, for example \"which step drops " + gene + "?\".")
	}
	cur, pending := current(a)
	if pending {
		return response{calls: a.calls}
	}
	if cur == nil {
		return say(read + " This conversation has no strategy yet.")
	}
	d := a.get(newCall("trace_gene", map[string]string{"gene": gene}))
	if d == nil {
		return response{calls: a.calls}
	}
	var tr struct {
		Gene  string `json:"gene"`
		Steps []struct {
			StepID string `json:"stepId"`
			Found  *bool  `json:"found"`
		} `json:"steps"`
		LostAt []string `json:"lostAt"`
	}
	if !d.decode(&tr) {
		return say(read + " I could not follow it: " + d.msg + ".")
	}
	name := func(id string) string {
		s, _ := cur.step(id)
		return id + " (" + orUnknown(s.DisplayName, s.SearchName) + ")"
	}
	var b strings.Builder
	b.WriteString(read + "\n\n")
	inRoot := false
	for _, s := range tr.Steps {
		if s.StepID == cur.RootStepID && s.Found != nil && *s.Found {
			inRoot = true
		}
	}
	if inRoot {
		fmt.Fprintf(&b, "**%s is in the result** (step %s).", tr.Gene, name(cur.RootStepID))
	} else {
		fmt.Fprintf(&b, "**%s is not in the result.**", tr.Gene)
	}
	if len(tr.LostAt) > 0 {
		lost := make([]string, len(tr.LostAt))
		for i, id := range tr.LostAt {
			lost[i] = name(id)
		}
		where := "this step"
		if len(lost) > 1 {
			where = "these steps"
		}
		fmt.Fprintf(&b, " It is lost at %s: %s.", where, strings.Join(lost, "; "))
	}
	var has, lacks []string
	for _, s := range tr.Steps {
		switch {
		case s.Found == nil:
		case *s.Found:
			has = append(has, s.StepID)
		default:
			lacks = append(lacks, s.StepID)
		}
	}
	if len(has) > 0 {
		fmt.Fprintf(&b, "\n\nSteps that have it: %s.", strings.Join(has, ", "))
	}
	if len(lacks) > 0 {
		fmt.Fprintf(&b, " Steps that do not: %s.", strings.Join(lacks, ", "))
	}
	return say(b.String())
}

// capabilities says what Strategist does instead.
const capabilities = "What I can do: build a search strategy for P. falciparum 3D7 genes from a description " +
	"(\"DNA repair genes not on chromosome 14\", \"tRNA genes on chromosomes 5 and 6\"), change it (\"now also exclude chromosome 5\", " +
	"\"undo that\"), count its genes, and answer questions about a gene (\"What does PF3D7_0930300 do?\"), a GO term " +
	"(\"What is GO:0006281?\") or the strategy (\"how many genes is that?\")."

// geneLink is the gene's page on PlasmoDB.
func geneLink(id string) string {
	return "https://plasmodb.org/plasmo/app/record/gene/" + id
}

// geneAnswer reports each gene's annotation as lookup_genes gives it.
func geneAnswer(a *asks, ids []string) response {
	if !a.t.has("lookup_genes") {
		return say(intro + "\n\nI read that as a question about " + strings.Join(ids, ", ") + ", but this role cannot look genes up; nothing was built.")
	}
	d := a.get(lookupCall(ids))
	if d == nil {
		return response{calls: a.calls}
	}
	var gm geneMatches
	if !d.decode(&gm) {
		return say(intro + "\n\nI read that as a question about " + strings.Join(ids, ", ") + ", but the gene look-up failed: " + d.msg + ". Nothing was built.")
	}
	var b strings.Builder
	b.WriteString(intro + "\n\nI read that as a question about a gene, so I answer from the gene data and build nothing.\n")
	// A gene asked about by its product's name ("gene id of myosin A")
	// has no id or symbol match: the genes whose product matches answer,
	// the first few.
	byProduct := !slices.ContainsFunc(gm.Genes, func(g geneMatch) bool { return g.MatchedOn != "product" })
	if byProduct && len(gm.Genes) > 0 {
		have, first := " has", ""
		if len(gm.Genes) > 1 {
			have = "s have"
		}
		if len(gm.Genes) > 5 {
			first = ", the first 5"
		}
		fmt.Fprintf(&b, "\nNo gene has %s as its id or symbol; %d gene%s a product that matches it%s:\n",
			english.Quote(strings.Join(ids, " ")), len(gm.Genes), have, first)
		gm.Genes = gm.Genes[:min(len(gm.Genes), 5)]
		gm.Unmatched, ids = nil, nil
		for _, g := range gm.Genes {
			ids = append(ids, g.GeneID)
		}
	}
	for _, g := range gm.Genes {
		if g.MatchedOn == "product" && !byProduct {
			continue
		}
		name := g.GeneID
		if g.Symbol != "" {
			name += " (" + g.Symbol + ")"
		}
		fmt.Fprintf(&b, "\n- **%s** is %s", name, orUnknown(g.Product, "a gene with no product description"))
		if g.GeneType != "" {
			fmt.Fprintf(&b, ", a %s gene", g.GeneType)
		}
		if g.Chromosome != "" {
			fmt.Fprintf(&b, " on %s", g.Chromosome)
		}
		b.WriteString(".")
		if len(g.PreviousIDs) > 0 {
			fmt.Fprintf(&b, " Previous ids: %s.", strings.Join(g.PreviousIDs, ", "))
		}
		if len(g.Processes) > 0 {
			ps := make([]string, len(g.Processes))
			for i, p := range g.Processes {
				ps[i] = p.Display + " (" + p.Term + ")"
			}
			fmt.Fprintf(&b, " GO processes, the most specific first: %s.", strings.Join(ps, "; "))
		}
		fmt.Fprintf(&b, " Its page on PlasmoDB: %s", geneLink(g.GeneID))
	}
	for _, u := range gm.Unmatched {
		fmt.Fprintf(&b, "\n- %s matches no gene of the snapshot.", u)
	}
	b.WriteString("\n\nTo build a strategy with these genes, say for example \"" + strings.Join(ids, " and ") + "\".")
	return say(b.String())
}

func orUnknown(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

// goAnswer reports a GO term's name, the synonym that named it and GO's
// definition, from the GO search's vocabulary.
func goAnswer(a *asks, subject string) response {
	if !a.t.has("get_search_parameters") {
		return say(intro + "\n\nI read that as a question about the GO term " + english.Quote(subject) + ", but this role cannot look GO terms up; nothing was built.")
	}
	d := a.get(paramsCall(searchNeeds[needGO].search, subject))
	if d == nil {
		return response{calls: a.calls}
	}
	var sd struct {
		Parameters []struct {
			Name   string `json:"name"`
			Values []struct {
				wireTerm
				Definition string `json:"definition"`
			} `json:"values"`
		} `json:"parameters"`
	}
	if !d.decode(&sd) {
		return say(intro + "\n\nI could not look the GO term " + english.Quote(subject) + " up: " + d.msg + ". Nothing was built.")
	}
	var names []string
	for _, p := range sd.Parameters {
		if p.Name != paramGO {
			continue
		}
		for _, v := range p.Values {
			exact := strings.EqualFold(v.Term, subject) || english.Normalize(goName(v.wireTerm)) == english.Normalize(subject) || v.Synonym != ""
			if !exact {
				names = append(names, english.Quote(goName(v.wireTerm))+" ("+v.Term+")")
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s\n\nI read that as a question about a GO term, so I answer from GO and build nothing.\n\n**%s** is the GO term %s",
				intro, v.Term, english.Quote(goName(v.wireTerm)))
			if v.Synonym != "" {
				fmt.Fprintf(&b, " (GO lists %s as a synonym of it)", english.Quote(v.Synonym))
			}
			b.WriteString(".")
			if v.Definition != "" {
				fmt.Fprintf(&b, " GO defines it: %s", v.Definition)
			}
			fmt.Fprintf(&b, "\n\nTo count its genes, say \"genes annotated with %s\".", v.Term)
			return say(b.String())
		}
	}
	if len(names) > 0 {
		return say(intro + "\n\nNo GO term is named " + english.Quote(subject) + ". Did you mean " + strings.Join(names[:min(len(names), 4)], ", ") +
			"? Nothing was built.")
	}
	return say(intro + "\n\nNo GO biological process of the snapshot is named " + english.Quote(subject) + " or has it as a synonym. Nothing was built.")
}

// searchesAnswer lists the searches the catalog offers for the question's
// words.
func searchesAnswer(a *asks, subject string) response {
	if !a.t.has("search_for_searches") {
		return say(intro + "\n\n" + capabilities)
	}
	d := a.get(newCall("search_for_searches", map[string]any{"query": subject, "record_type": recordType, "limit": 5}))
	if d == nil {
		return response{calls: a.calls}
	}
	var hits searchHits
	if !d.decode(&hits) || len(hits.Searches) == 0 {
		return say(intro + "\n\nI read that as a question about searches, but the catalog offers none for " + english.Quote(subject) + ". Nothing was built.")
	}
	var b strings.Builder
	b.WriteString(intro + "\n\nI read that as a question about searches, so I list them and build nothing. The catalog's searches for " +
		english.Quote(subject) + ", best first:\n")
	for _, h := range hits.Searches {
		note := ""
		if !h.Evaluable {
			note = " (not evaluable offline)"
		}
		fmt.Fprintf(&b, "\n- %s (%s)%s", h.DisplayName, h.Name, note)
	}
	return say(b.String())
}

// strategyAnswer describes the strategy's steps and counts as get_strategy
// gives them.
func strategyAnswer(a *asks) response {
	cur, pending := current(a)
	if pending {
		return response{calls: a.calls}
	}
	if cur == nil {
		return say(intro + "\n\nI read that as a question about the strategy, but this conversation has none yet. Nothing was built. " + capabilities)
	}
	var b strings.Builder
	b.WriteString(intro + "\n\nI read that as a question about the strategy, so I describe it and change nothing. Its steps, the result last:\n")
	for _, s := range cur.Steps {
		fmt.Fprintf(&b, "\n- %s: %s", s.StepID, orUnknown(s.DisplayName, s.SearchName))
		if s.Operator != "" {
			fmt.Fprintf(&b, " (%s of %s)", s.Operator, strings.Join(s.Inputs, ", "))
		}
		fmt.Fprintf(&b, ": %s", s.Count.describe())
		b.WriteString(cur.effect(s))
		if s.StepID == cur.RootStepID {
			b.WriteString(" (the result)")
		}
	}
	return say(b.String())
}

// effect says what a combine did to its first input, counted: the genes
// an exclusion removed or a restriction dropped, and when it changed
// nothing, or what a union added. Empty for a search, or when a count
// is missing or approximate.
func (o *strategyOverview) effect(s stepSummary) string {
	if len(s.Inputs) != 2 || s.Count.Value == nil || s.Count.Approximate {
		return ""
	}
	in, ok := o.step(s.Inputs[0])
	if !ok || in.Count.Value == nil || in.Count.Approximate {
		return ""
	}
	n, before := *s.Count.Value, *in.Count.Value
	switch {
	case (s.Operator == "MINUS" || s.Operator == "INTERSECT") && n == before:
		return fmt.Sprintf(", removing none of %s's %d", in.StepID, before)
	case s.Operator == "MINUS" || s.Operator == "INTERSECT":
		return fmt.Sprintf(", removing %d of %s's %d", before-n, in.StepID, before)
	case s.Operator == "UNION" && n > before:
		return fmt.Sprintf(", adding %d to %s's %d", n-before, in.StepID, before)
	}
	return ""
}
