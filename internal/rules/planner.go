package rules

import (
	"strategist/internal/english"
	"strategist/internal/plan"

	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// planTurn plays the planner: parse the request, map every clause through
// the catalog tools, save a planning artifact and a delegation draft,
// request the build, and say what will be built. Each step runs once; a
// failed step is reported instead of retried.
func planTurn(t *turn) response {
	if cl := english.Classify(t.user); cl.Intent != english.IntentSearch {
		return answerTurn(t, cl)
	}
	a := newAsks(t)
	p, read := readRequest(a, t.user)
	cur, pending := current(a)
	if pending || !read {
		return response{calls: a.calls}
	}
	var followNote string
	if cur == nil {
		if m := removeOperatorRE.FindStringSubmatch(t.user); m != nil {
			drafted, _ := draftedRequest(t.sinceBuild)
			note, ok := draftWithout(&p, drafted, strings.ToLower(m[1]))
			if !ok {
				return say(intro + "\n\nI read that as taking back the " + strings.ToLower(m[1]) + ", but there is no strategy or plan with one to change. " + capabilities)
			}
			followNote = note
		}
	}
	if cur == nil && followNote == "" && isRemoval(t.user) {
		return say(intro + "\n\nI read that as removing a step, but this conversation has no strategy yet, so there is nothing to remove. " + capabilities)
	}
	if p.Follow == english.FollowUndo {
		return undoTurn(a, cur, goalOf(t.user))
	}
	if p.Follow == english.FollowOrthologs {
		tree, what, stop := orthologPlan(a, cur, p.Orthologs, t.user)
		if stop != nil {
			return *stop
		}
		return draftTree(a, goalOf(t.user), tree, "carry the genes to orthologs", intro+"\n\n"+what+" "+orthologOffline,
			"Click **Build this plan** to build it.")
	}
	if p.Follow == english.FollowEnrich {
		return say(enrichInPlanMode(cur))
	}
	if p.Follow == english.FollowControls {
		known := setKnown(a, p.Known)
		if a.pending() {
			return response{calls: a.calls}
		}
		return say(controlsInPlanMode(cur) + knownText(known))
	}
	if p.Root == nil && (cur == nil || !operatorEditRE.MatchString(t.user)) {
		return say(nothingToSearch(t.user))
	}
	if org := t.organismNamed(); cur == nil && p.Organism == "" && org != "" {
		// The conversation's organism is the last one it named: a later
		// message that names none is about it too, and building it on P.
		// falciparum would answer another question.
		return say(intro + "\n\nThis conversation asked about " + english.Quote(org) + ", which this catalog does not have, so I read " +
			"this message as about it too and nothing was built. The catalog has Plasmodium falciparum 3D7 only; to search it, " +
			"name it with the request, for example \"tRNA genes on chromosome 5 in P. falciparum 3D7\".")
	}
	if cur == nil && followNote == "" {
		repeatFollowUp(&p, t.user, lastRequest(t.sinceBuild))
	}
	if cur == nil && followNote == "" && p.Follow != english.FollowNone {
		drafted, _ := draftedRequest(t.sinceBuild)
		followNote, _ = draftFollowUp(&p, drafted)
	}
	if cur != nil {
		var refusal string
		if followNote, refusal = applyFollowUp(&p, cur, t.user, lastRequest(t.earlier)); refusal != "" {
			return say(intro + "\n\nI could not plan the change: " + refusal + ".")
		}
	} else if t.has("set_conversation_title") {
		// Only a conversation's first request names it.
		a.get(newCall("set_conversation_title", map[string]string{"title": limit(capitalize(p.Root.Describe()), 200)}))
	}
	known := setKnown(a, p.Known)
	res, ready := resolve(a, p)
	if !ready || a.pending() {
		return response{calls: a.calls}
	}
	m := newMapped(p, res)
	if fails := m.failures(); len(fails) > 0 {
		return say(intro + "\n\nI understood: " + p.Root.Describe() + ".\n\nI could not plan it: " + strings.Join(fails, "; ") + "." + knownText(known))
	}
	m.followNote = followNote
	if ask, ok := askCall(m, t.user); ok && t.has("ask_researcher") {
		d := a.get(ask)
		if d == nil {
			return response{calls: a.calls}
		}
		return say(questionText(m, d))
	}
	plan := m.plan(p.Root)
	goal := goalOf(t.user)
	if t.has("count_plan") && t.has("ask_researcher") && (mayIdle(p.Root, p.Follow) || otherReading(m, t.user) != nil) {
		// An organelle named so that it has two readings (its genome, or
		// the genes whose annotation names it) that give different counts
		// is asked about; so is an exclusion or restriction that would
		// change nothing, unless the researcher wants it anyway.
		d := a.get(countPlanCall(plan))
		var other *done
		oc := otherReading(m, t.user)
		if oc != nil {
			other = a.get(countPlanCall(m.withLeaf(oc, m.res.leaves[oc].other).plan(p.Root)))
		}
		if d == nil || oc != nil && other == nil {
			return response{calls: a.calls}
		}
		var cp, op countedPlan
		d.decode(&cp)
		if oc != nil && other.decode(&op) {
			// The other reading is one when it finds genes and its own
			// exclusion or restriction is not idle; then different
			// counts are a question.
			_, idleOther := idleStep(p.Root, op, p.Follow)
			if g, o := cp.root(), op.root(); g != nil && o != nil && *g != *o && *o > 0 && !idleOther {
				q := a.get(readingsAsk(m, oc, g, o, t.user))
				if q == nil {
					return response{calls: a.calls}
				}
				return say(questionText(m, q))
			}
		}
		if id, ok := idleStep(p.Root, cp, p.Follow); ok {
			if !anywayRE.MatchString(t.user) {
				q := a.get(idleAsk(m, id, t.user))
				if q == nil {
					return response{calls: a.calls}
				}
				return say(questionText(m, q))
			}
			m.followNote = strings.TrimPrefix(m.followNote+"; "+idleNote(id), "; ")
		}
	}

	var art *done
	if t.has("save_planning_artifact") {
		if art = a.get(artifactCall(m)); art == nil {
			return response{calls: a.calls}
		}
	}
	if !t.has("save_delegation_draft") {
		return say(planText(m, plan, art, nil, nil) + "\n\nThis role cannot save a delegation plan, so nothing will be built from here." + knownText(known))
	}
	draft := a.get(newCall("save_delegation_draft", map[string]any{"goal": goal, "plan": plan}))
	if draft == nil {
		return response{calls: a.calls}
	}
	if !draft.ok {
		return say(planText(m, plan, art, draft, nil) + knownText(known))
	}
	var build *done
	if t.has("request_executor_build") {
		var saved struct {
			ArtifactID string `json:"artifactId"`
		}
		draft.decode(&saved)
		if build = a.get(newCall("request_executor_build", map[string]string{"goal": goal, "artifact_id": saved.ArtifactID})); build == nil {
			return response{calls: a.calls}
		}
	}
	return say(planText(m, plan, art, draft, build) + knownText(known))
}

// nothingToSearch answers a request with no words to search for.
func nothingToSearch(user string) string {
	return intro + "\n\nI found nothing to search for in " + english.Quote(limit(strings.TrimSpace(user), 200)) +
		". Name what the genes should have, for example: \"genes involved in DNA repair, excluding genes on chromosome 14\", " +
		"\"tRNA genes on chromosome 5\" or \"PF3D7_1133400 and MSP1\"."
}

// organismNamed is the organism the conversation's messages named last,
// when it is not P. falciparum 3D7, else "".
func (t *turn) organismNamed() string {
	for i := len(t.earlier) - 1; i >= 0; i-- {
		if english.Parse(t.earlier[i]).Organism != "" {
			return foreignOrganism(t.earlier[i])
		}
	}
	return ""
}

// foreignOrganism is the organism a message names when it is not P.
// falciparum 3D7 (the catalog's only one), else "".
func foreignOrganism(msg string) string {
	if msg == "" {
		return ""
	}
	org := english.Parse(msg).Organism
	rest := strings.NewReplacer("plasmodium", "", "p.", "", "falciparum", "", "pf3d7", "", "3d7", "", " ", "").Replace(strings.ToLower(org))
	if rest == "" {
		return "" // P. falciparum 3D7 in one of its spellings, or none named
	}
	return org
}

// goalOf is the researcher's request as the plan's goal.
func goalOf(user string) string {
	g := strings.Join(strings.Fields(user), " ")
	if g == "" {
		g = "the researcher's request"
	}
	return limit(g, 500)
}

// artifactCall saves what the planner understood and chose.
func artifactCall(m *mapped) call {
	type part struct {
		Phrase     string            `json:"phrase"`
		SearchName string            `json:"searchName"`
		Parameters map[string]string `json:"parameters"`
		How        string            `json:"how"`
		Mapped     bool              `json:"mapped"`
	}
	var parts []part
	for _, c := range m.p.Root.Leaves() {
		l := m.res.leaves[c]
		parts = append(parts, part{Phrase: c.Text, SearchName: l.search, Parameters: l.params, How: l.how, Mapped: !l.unmapped})
	}
	return newCall("save_planning_artifact", map[string]any{
		"title":            limit("What I understood: "+m.p.Root.Describe(), 200),
		"summary_markdown": artifactMarkdown(m),
		"assumptions":      assumptions(m),
		"parameters": map[string]any{
			"understood": m.p.Root.Describe(),
			"tree":       m.searchTree(m.p.Root),
			"organism":   m.res.organism,
			"parts":      parts,
		},
	})
}

// artifactMarkdown explains the plan: what was understood, which searches
// and values were chosen and how, and every phrase that could not be
// mapped.
func artifactMarkdown(m *mapped) string {
	var b strings.Builder
	b.WriteString("*Written by Strategist's offline planner, which is not a language model: it reads requests with fixed rules and maps them through the catalog's own tools.*\n\n")
	fmt.Fprintf(&b, "## What I understood\n\n**%s**\n\n", m.p.Root.Describe())
	fmt.Fprintf(&b, "As a strategy: `%s`\n\n", m.searchTree(m.p.Root))
	if m.res.orgNote != "" {
		fmt.Fprintf(&b, "Organism: %s.\n\n", m.res.orgNote)
	}
	b.WriteString("## Searches and parameters\n\n")
	for _, c := range m.p.Root.Leaves() {
		l := m.res.leaves[c]
		if l.step != "" {
			fmt.Fprintf(&b, "- %s of the strategy you have, reused as it is.\n", c.Text)
			continue
		}
		fmt.Fprintf(&b, "- %s → **%s** (%s): %s.\n", english.Quote(c.Text), l.search, paramList(l.params), l.how)
	}
	if m.followNote != "" {
		fmt.Fprintf(&b, "\n%s.\n", capitalize(m.followNote))
	}
	b.WriteString("\n## How I found the searches\n\n")
	for n := range numNeeds {
		pk := m.res.picks[n]
		switch {
		case pk.rank > 0:
			fmt.Fprintf(&b, "- %s: search_for_searches(%s) ranked %s #%d (score %.2f).\n",
				searchNeeds[n].what, english.Quote(searchNeeds[n].query), searchNeeds[n].search, pk.rank, pk.score)
		case pk.note != "":
			fmt.Fprintf(&b, "- %s: %s.\n", searchNeeds[n].what, pk.note)
		}
	}
	b.WriteString("\n## Could not map\n\n")
	unmapped := 0
	for _, c := range m.p.Root.Leaves() {
		if l := m.res.leaves[c]; l.unmapped {
			unmapped++
			fmt.Fprintf(&b, "- %s.\n", l.how)
		}
	}
	if unmapped == 0 {
		b.WriteString("Nothing: every part of the request mapped to a catalog search.\n")
	}
	if len(m.p.Notes) > 0 {
		b.WriteString("\n## Notes on reading the request\n\n")
		for _, n := range m.p.Notes {
			fmt.Fprintf(&b, "- %s.\n", capitalize(n))
		}
	}
	b.WriteString("\nCounts are not known yet: they come from the catalog when the strategy is built.\n")
	return b.String()
}

// assumptions are the readings a researcher should check.
func assumptions(m *mapped) []string {
	var out []string
	ops := map[english.Op]bool{}
	var walk func(n *english.Node)
	walk = func(n *english.Node) {
		if n == nil || n.Clause != nil {
			return
		}
		ops[n.Op] = true
		walk(n.Left)
		walk(n.Right)
	}
	walk(m.p.Root)
	if ops[english.OpUnion] {
		out = append(out, "'or' keeps genes found by either side (UNION).")
	}
	if ops[english.OpIntersect] {
		out = append(out, "'and' keeps genes found by both sides (INTERSECT).")
	}
	if ops[english.OpMinus] {
		out = append(out, "an exclusion ('excluding', 'but not', 'except', 'minus', 'not on') removes its genes from everything before it (MINUS); it binds loosest.")
	}
	if ops[english.OpUnion] && ops[english.OpIntersect] {
		out = append(out, "'and' binds tighter than 'or'.")
	}
	if m.res.orgNote != "" {
		out = append(out, capitalize(m.res.orgNote)+".")
	}
	for _, n := range m.p.Notes {
		out = append(out, capitalize(n)+".")
	}
	return out
}

// planText is the planner's closing message.
func planText(m *mapped, plan *plan.TreeNode, art, draft, build *done) string {
	var b strings.Builder
	b.WriteString(intro + "\n\n")
	fmt.Fprintf(&b, "I understood: **%s**", m.p.Root.Describe())
	if m.res.organism != "" {
		fmt.Fprintf(&b, ", in %s", m.res.organism)
	}
	b.WriteString(".\n\n")
	if m.followNote != "" {
		b.WriteString(capitalize(m.followNote) + ".\n\n")
	}
	var unmapped []string
	for _, c := range m.p.Root.Leaves() {
		l := m.res.leaves[c]
		if l.step != "" {
			fmt.Fprintf(&b, "- %s, reused as it is\n", c.Text)
			continue
		}
		fmt.Fprintf(&b, "- %s → %s %s", english.Quote(c.Text), l.search, keyValue(l))
		switch {
		case l.notEvaluable:
			b.WriteString(" (not evaluable offline: this step will have no count)")
		case l.unmapped && c.Literal:
			b.WriteString(" (approximate: a text search, as you asked)")
		case l.unmapped:
			b.WriteString(" (approximate: a text search)")
		case strings.HasPrefix(l.how, "I read "):
			fmt.Fprintf(&b, " (%s)", l.how)
		}
		b.WriteString("\n")
		if l.unmapped && !c.Literal {
			unmapped = append(unmapped, fmt.Sprintf("I could not map %s; I used a text search for it, so its count is approximate.", english.Quote(c.Text)))
		}
	}
	if len(unmapped) > 0 {
		b.WriteString("\n" + strings.Join(unmapped, "\n") + "\n")
	}
	b.WriteString("\n")
	if art != nil && !art.ok {
		fmt.Fprintf(&b, "Saving the planning artifact failed (%s: %s). ", art.code, art.msg)
	} else if art != nil {
		b.WriteString("I saved a planning artifact that explains these choices. ")
	}
	switch {
	case draft == nil:
	case !draft.ok:
		fmt.Fprintf(&b, "The delegation plan was refused (%s: %s); I did not request a build. %s", draft.code, draft.msg, problemList(draft))
		return b.String()
	default:
		fmt.Fprintf(&b, "I saved a delegation plan of %d task%s and %d combine%s.", plan.Tasks(), plural(plan.Tasks()), plan.Combines(), plural(plan.Combines()))
		if w := draftWarnings(draft); len(w) > 0 {
			fmt.Fprintf(&b, " The catalog warned: %s.", strings.Join(w, "; "))
		}
	}
	switch {
	case build == nil:
	case !build.ok:
		fmt.Fprintf(&b, "\n\nRequesting the build failed (%s: %s).", build.code, build.msg)
	default:
		b.WriteString("\n\nClick **Build this plan** to build it. The counts come from the catalog when the strategy is built; I do not guess them.")
	}
	return b.String()
}

func draftWarnings(d *done) []string {
	var v struct {
		Warnings []string `json:"warnings"`
	}
	d.decode(&v)
	return v.Warnings
}

// problemList renders the problems of a refused call.
func problemList(d *done) string {
	var v struct {
		Details struct {
			Problems []struct {
				Field   string `json:"field"`
				Problem string `json:"problem"`
			} `json:"problems"`
		} `json:"details"`
	}
	if json.Unmarshal(d.result, &v) != nil || len(v.Details.Problems) == 0 {
		return ""
	}
	var parts []string
	for _, p := range v.Details.Problems {
		parts = append(parts, p.Field+": "+p.Problem)
	}
	return "Problems: " + strings.Join(parts, "; ") + "."
}

// capitalize upper-cases the first letter of s, unless its first word
// has capitals of its own (tRNA, snoRNA stay as written).
func capitalize(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if s == "" || strings.ToLower(first) != first {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
