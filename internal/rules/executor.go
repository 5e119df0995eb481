package rules

import (
	"strategist/internal/english"
	"strategist/internal/event"
	"strategist/internal/plan"

	"encoding/json"
	"fmt"
	"strings"
)

// parseBuildContext reads the approved plan of a build message
// (plan.ReadBuildMessage); a plan without a task is not one to build here.
func parseBuildContext(user string) (plan.BuildContext, *plan.TreeNode, bool) {
	bc, tree, ok := plan.ReadBuildMessage(user)
	if !ok || tree.Tasks()+len(tree.Steps()) == 0 {
		return plan.BuildContext{}, nil, false
	}
	return bc, tree, true
}

// executeTurn plays the executor: build an approved plan (delegating
// plans of two or more tasks), or a plain request with the graph tools;
// then validate the strategy and report the counts the catalog computed.
func executeTurn(t *turn) response {
	a := newAsks(t)
	if bc, tree, ok := parseBuildContext(t.user); ok {
		return buildApproved(a, bc, tree)
	}
	// A question, a thanks or a request the page fulfils is answered as in
	// plan mode: typed after a build (the composer is then in execute
	// mode), it must not become a search that replaces the strategy.
	if cl := english.Classify(t.user); cl.Intent != english.IntentSearch {
		return answerTurn(t, cl)
	}
	p, read := readRequest(a, t.user)
	if !read {
		return response{calls: a.calls}
	}
	if p.Follow == english.FollowEnrich {
		return enrichTurn(a)
	}
	if p.Follow == english.FollowControls {
		return controlsTurn(a, p.Known)
	}
	// Genes the request says its result should have are its positive
	// controls, set before the build so that its check reports them.
	if known := setKnown(a, p.Known); known != nil && !known.ok {
		return say(intro + knownText(known))
	}
	// With a strategy already built, a message refines or replaces it, as
	// in plan mode: the scheduler builds the new tree, reusing the
	// strategy's steps and removing the roots it replaces, so a follow-up
	// never leaves a second, separate root.
	var cur *strategyOverview
	if t.has("delegate_strategy_subtasks") {
		var pending bool
		if cur, pending = current(a); pending {
			return response{calls: a.calls}
		}
	}
	if p.Follow == english.FollowUndo {
		if cur == nil {
			return say(intro + "\n\nThere is nothing to undo: this conversation has no strategy yet.")
		}
		tree, why := undoPlan(cur)
		if tree == nil {
			return say(intro + "\n\nI could not undo: " + why + ".")
		}
		raw, err := marshal(tree)
		if err != nil {
			return say(intro + "\n\nI could not undo: " + err.Error() + ".")
		}
		return delegateAs(a, goalOf(t.user), raw, tree, "I rebuilt the strategy as it was before the last change, going back to its root step "+cur.Previous.RootStepID+".", nil)
	}
	if p.Follow == english.FollowOrthologs {
		tree, what, stop := orthologPlan(a, cur, p.Orthologs, t.user)
		if stop != nil {
			return *stop
		}
		raw, err := marshal(tree)
		if err != nil {
			return say(intro + "\n\nI could not build it: " + err.Error() + ".")
		}
		return delegateAs(a, goalOf(t.user), raw, tree, what+" "+orthologOffline, nil)
	}
	if p.Root == nil && (cur == nil || !operatorEditRE.MatchString(t.user)) {
		return say(nothingToSearch(t.user))
	}
	var followNote string
	if cur != nil {
		var refusal string
		if followNote, refusal = applyFollowUp(&p, cur, t.user, lastRequest(t.earlier)); refusal != "" {
			return say(intro + "\n\nI could not make the change: " + refusal + ".")
		}
	}
	res, ready := resolve(a, p)
	if !ready {
		return response{calls: a.calls}
	}
	m := newMapped(p, res)
	if fails := m.failures(); len(fails) > 0 {
		return say(intro + "\n\nI understood: " + p.Root.Describe() + ".\n\nI could not build it: " + strings.Join(fails, "; ") + ".")
	}
	if cur != nil {
		tree := m.plan(p.Root)
		raw, err := marshal(tree)
		if err != nil {
			return say(intro + "\n\nI could not build it: " + err.Error() + ".")
		}
		return delegateAs(a, goalOf(t.user), raw, tree, "I understood: **"+p.Root.Describe()+"**. "+followNote+".", &p)
	}
	if depth(p.Root) > maxDirectDepth && t.has("delegate_strategy_subtasks") {
		// Too many levels of combines to build one level per round.
		tree := m.plan(p.Root)
		raw, err := marshal(tree)
		if err == nil {
			return delegate(a, goalOf(t.user), raw, tree)
		}
	}
	b := newBuilder(a)
	root, failed := b.build(m, p.Root)
	switch {
	case failed != "":
		return say(intro + "\n\nI understood: " + p.Root.Describe() + ".\n\n" + failed)
	case root == "":
		return response{calls: a.calls}
	}
	stated, _ := marshal(m.plan(p.Root))
	return report(a, "I understood: **"+p.Root.Describe()+"** and built it with the graph tools.", root, b.steps, checked{plan: stated})
}

// maxDirectDepth is the deepest tree of combines the executor builds
// itself, one level per round; deeper ones are delegated (the scheduler
// joins combines without model calls), so a turn stays within its rounds.
const maxDirectDepth = 4

// depth counts the levels of combines above the deepest clause.
func depth(n *english.Node) int {
	if n == nil || n.Clause != nil {
		return 0
	}
	return 1 + max(depth(n.Left), depth(n.Right))
}

// buildApproved builds the plan the researcher approved.
func buildApproved(a *asks, bc plan.BuildContext, tree *plan.TreeNode) response {
	goal := bc.Goal
	if strings.TrimSpace(goal) == "" {
		goal = "the approved plan"
	}
	if (tree.Tasks() >= 2 || len(tree.Steps()) > 0) && a.t.has("delegate_strategy_subtasks") {
		return delegate(a, goal, bc.Plan, tree)
	}
	// One search: built directly on an empty strategy; on one that has
	// steps, the scheduler builds it, since it also removes the old roots.
	if cur, pending := current(a); pending {
		return response{calls: a.calls}
	} else if cur != nil && a.t.has("delegate_strategy_subtasks") {
		return delegate(a, goal, bc.Plan, tree)
	}
	if tree.Type == plan.KindTask && tree.Input == nil {
		if ctx, ok := tree.TaskContext(); ok && a.t.has("create_step") {
			c := createCall(ctx.SearchName, ctx.Parameters, orDefault(ctx.DisplayName, tree.Task))
			d := a.get(c)
			if d == nil {
				return response{calls: a.calls}
			}
			var sr stepResult
			if !d.decode(&sr) {
				return say(fmt.Sprintf("%s\n\nI could not create the step for %s: %s (%s).", intro, english.Quote(tree.Task), d.msg, d.code))
			}
			steps := []builtStep{{label: tree.Task, step: sr.Step.StepID}}
			return report(a, "I built the approved plan, one search: "+tree.Task+".", sr.Step.StepID, steps, checked{plan: bc.Plan})
		}
		// A task without a search in its context: read its words like a
		// request.
		return executeTurn(&turn{user: tree.Task, calls: a.t.calls, byKey: a.t.byKey, tools: a.t.tools, rounds: a.t.rounds})
	}
	return say(intro + "\n\nThis plan has " + fmt.Sprint(tree.Tasks()) + " tasks but this role cannot delegate them, so I did not build it.")
}

// delegateResult is the wire form of delegate_strategy_subtasks' result.
type delegateResult struct {
	DelegationID string `json:"delegationId"`
	Status       string `json:"status"`
	RootStepID   string `json:"rootStepId"`
	Nodes        []struct {
		ID         string `json:"id"`
		Kind       string `json:"kind"`
		Label      string `json:"label"`
		Status     string `json:"status"`
		RootStepID string `json:"rootStepId"`
		Summary    string `json:"summary"`
		Error      string `json:"error"`
	} `json:"nodes"`
}

// delegate hands the plan, as given, to the sub-agents.
func delegate(a *asks, goal string, raw json.RawMessage, tree *plan.TreeNode) response {
	return delegateAs(a, goal, raw, tree, fmt.Sprintf("I delegated the approved plan (%d tasks, %d combines) to sub-agents; every node ended done.",
		tree.Tasks(), tree.Combines()), nil)
}

// delegateAs delegates tree and reports the result under lead, the answer's
// first sentence. With the request it was planned from (p), the report
// says plainly when an exclusion or restriction of places removed
// nothing.
func delegateAs(a *asks, goal string, raw json.RawMessage, tree *plan.TreeNode, lead string, p *english.Parsed) response {
	d := a.get(newCall("delegate_strategy_subtasks", map[string]any{"goal": goal, "plan": raw}))
	if d == nil {
		return response{calls: a.calls}
	}
	var dr delegateResult
	if !d.decode(&dr) {
		return say(fmt.Sprintf("%s\n\nThe delegation was refused (%s): %s", intro, d.code, d.msg))
	}
	if dr.Status != "completed" || dr.RootStepID == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n\nThe delegation ended %s; the strategy is not complete.\n\n", intro, dr.Status)
		for _, n := range dr.Nodes {
			fmt.Fprintf(&b, "- %s %s: %s", n.ID, n.Label, n.Status)
			if n.Error != "" {
				fmt.Fprintf(&b, " (%s)", n.Error)
			}
			b.WriteString("\n")
		}
		b.WriteString("\nYou can ask the planner for a simpler plan, or build the missing parts in execute mode.")
		return say(b.String())
	}
	var steps []builtStep
	for _, n := range dr.Nodes {
		if n.RootStepID != "" {
			steps = append(steps, builtStep{label: n.ID + " " + n.Label, step: n.RootStepID})
		}
	}
	chk := checked{delegation: d}
	if p != nil && len(steps) == len(dr.Nodes) {
		chk.note = func(counted map[string]*done) string {
			// The plan's nodes, and so its steps, are in post-order.
			var cp countedPlan
			for _, s := range steps {
				var cr struct {
					Count countView `json:"count"`
				}
				counted[s.step].decode(&cr)
				cp.Nodes = append(cp.Nodes, countedNode{Count: cr.Count.Value})
			}
			if id, ok := idleStep(p.Root, cp, p.Follow); ok {
				return idleNote(id) + "."
			}
			return ""
		}
	}
	return report(a, lead, dr.RootStepID, steps, chk)
}

// builtStep is a step the report counts.
type builtStep struct {
	label string
	step  string
}

// countView is the wire form of a step's count.
type countView struct {
	Status      string `json:"status"`
	Value       *int   `json:"value"`
	Message     string `json:"message"`
	Provenance  string `json:"provenance"`
	Approximate bool   `json:"approximate"`
}

// describe renders a count exactly as the tools gave it, never a number
// they did not give: "**57 genes** (source)"; an approximate count (a text
// search contributed) "**≈ 8 genes (approximate: text search)** (source)",
// and its zero "**no text matches**", not an exact-sounding "0 genes"; a
// count the catalog cannot compute "**not evaluable offline** (why)",
// with no number.
func (c countView) describe() string {
	switch {
	case c.Status == "ok" && c.Value != nil:
		s := "**" + c.amount() + "**"
		if c.Provenance != "" {
			s += " (" + c.Provenance + ")"
		}
		return s
	case c.Status == "not_evaluable":
		s := "**not evaluable offline**"
		if why := notEvaluableReason(c.Message); why != "" {
			s += " (" + why + ")"
		}
		return s
	case c.Message != "":
		return c.Message
	}
	return "no count was given (status " + orDefault(c.Status, "unknown") + ")"
}

// amount says how many genes an ok count has.
func (c countView) amount() string {
	n := *c.Value
	genes := fmt.Sprintf("%d genes", n)
	if n == 1 {
		genes = "1 gene"
	}
	switch {
	case c.Approximate && n == 0:
		return "no text matches"
	case c.Approximate:
		return "≈ " + genes + " (approximate: text search)"
	}
	return genes
}

// notEvaluableReason reads the search and the reason out of a count's
// message ("count unavailable offline: GenesByX is not evaluable offline:
// why" gives "GenesByX: why"), or the message as it is when it is not
// written so.
func notEvaluableReason(msg string) string {
	const phrase = " is not evaluable offline"
	before, after, ok := strings.Cut(msg, phrase)
	if !ok {
		return strings.TrimLeft(strings.TrimPrefix(msg, "count unavailable offline"), ": ")
	}
	if i := strings.LastIndex(before, ": "); i >= 0 {
		before = before[i+2:]
	}
	search := strings.TrimSpace(before)
	why := strings.TrimSpace(strings.TrimPrefix(after, ":"))
	switch {
	case search == "":
		return why
	case why == "":
		return search
	}
	return search + ": " + why
}

// checked says where a build's requirement check comes from: the
// delegation's result, which carries it, or check_requirements over the
// plan of what the request stated; and note, what to say of the counts
// (an exclusion of places that removed nothing), nil for nothing.
type checked struct {
	delegation *done
	plan       json.RawMessage
	note       func(counted map[string]*done) string
}

// report validates the strategy, counts its steps and checks the
// requirements, then says what was built with the counts and their
// provenance, and each requirement with the step that implements it.
func report(a *asks, what, root string, steps []builtStep, chk checked) response {
	var v, check *done
	if a.t.has("validate_strategy") {
		v = a.get(newCall("validate_strategy", map[string]any{}))
	}
	if chk.delegation == nil && len(chk.plan) > 0 && a.t.has("check_requirements") {
		check = a.get(checkCall(chk.plan))
	}
	counted := map[string]*done{}
	if a.t.has("get_result_count") {
		counted[root] = a.get(countCall(root))
		for _, s := range steps {
			counted[s.step] = a.get(countCall(s.step))
		}
	}
	if a.pending() {
		return response{calls: a.calls}
	}
	var b strings.Builder
	b.WriteString(intro + "\n\n" + what + "\n\n")
	fmt.Fprintf(&b, "Root step %s: %s.\n", root, countOf(counted[root]))
	var others []string
	for _, s := range steps {
		if s.step != root {
			others = append(others, fmt.Sprintf("- %s (step %s): %s\n", s.label, s.step, countOf(counted[s.step])))
		}
	}
	if len(others) > 0 {
		b.WriteString("\n" + strings.Join(others, ""))
	}
	if chk.note != nil && a.t.has("get_result_count") {
		if n := chk.note(counted); n != "" {
			b.WriteString("\n" + n + "\n")
		}
	}
	b.WriteString("\n" + validation(v))
	b.WriteString(requirementsText(chk, check))
	return say(b.String())
}

// requirementsText says what the requirement check found, or why there is
// none.
func requirementsText(chk checked, check *done) string {
	switch {
	case chk.delegation != nil:
		var r struct {
			Error string `json:"requirementsError"`
		}
		_ = chk.delegation.decode(&r)
		return checkedText(requirementsOf(chk.delegation), r.Error)
	case check == nil:
		return ""
	}
	var rc event.RequirementsChecked
	if !check.decode(&rc) {
		return checkedText(nil, check.msg+" ("+check.code+")")
	}
	return checkedText(&rc, "")
}

func countCall(step string) call {
	return newCall("get_result_count", map[string]string{"step_id": step})
}

func countOf(d *done) string {
	if d == nil {
		return "not counted (this role has no get_result_count)"
	}
	var cr struct {
		Count countView `json:"count"`
	}
	if !d.decode(&cr) {
		return "the count failed (" + d.code + ": " + d.msg + ")"
	}
	return cr.Count.describe()
}

// validation says what validate_strategy found.
func validation(v *done) string {
	if v == nil {
		return "I could not validate the strategy (this role has no validate_strategy)."
	}
	var vr struct {
		Valid    bool `json:"valid"`
		Problems []struct {
			Message string `json:"message"`
		} `json:"problems"`
		RootStepID string `json:"rootStepId"`
		Hint       string `json:"hint"`
	}
	if !v.decode(&vr) {
		return "validate_strategy failed (" + v.code + ": " + v.msg + ")."
	}
	if vr.Valid {
		return "validate_strategy: the strategy is complete, with one root (" + vr.RootStepID + ")."
	}
	var probs []string
	for _, p := range vr.Problems {
		probs = append(probs, p.Message)
	}
	s := "validate_strategy found problems: " + strings.Join(probs, "; ") + "."
	if vr.Hint != "" {
		s += " " + capitalize(vr.Hint) + "."
	}
	return s
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
