package rules

import (
	"strategist/internal/english"
	"strategist/internal/plan"

	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// subtask is a sub-agent's task as its user message gives it.
type subtask struct {
	node   string
	text   string
	ctx    plan.TaskContext
	hasCtx bool
	deps   []plan.Dependency
}

// parseSubtask reads a sub-agent's task message (plan.ReadTaskMessage):
// the node, the task text, the search its context names and its input
// steps.
func parseSubtask(user string) subtask {
	m, _ := plan.ReadTaskMessage(user)
	st := subtask{node: m.NodeID, text: m.Task, deps: m.Inputs}
	st.ctx, st.hasCtx = plan.ReadTaskContext(m.Context)
	return st
}

// subagentTurn plays a sub-agent: create the task's step from its context
// (transform its input when it has one), falling back once when the
// catalog refuses the values, and finish the task with the step.
func subagentTurn(t *turn) response {
	st := parseSubtask(t.user)
	a := newAsks(t)
	if !t.has("finish_subtask") {
		return say(st.giveUp("this role has no finish_subtask tool"))
	}
	var root, summary, failed string
	if st.hasCtx {
		root, summary, failed = st.fromContext(a)
	} else {
		root, summary, failed = st.fromWords(a)
	}
	switch {
	case failed != "":
		return say(st.giveUp(failed))
	case root == "":
		return response{calls: a.calls}
	}
	f := a.get(newCall("finish_subtask", map[string]string{"root_step_id": root, "summary": summary}))
	switch {
	case f == nil:
		return response{calls: a.calls}
	case !f.ok:
		return say(st.giveUp(fmt.Sprintf("finish_subtask refused step %s (%s: %s)", root, f.code, f.msg)))
	}
	return say(intro + "\n\nTask " + st.node + " is done: " + summary)
}

func (st subtask) giveUp(why string) string {
	return fmt.Sprintf("%s\n\nI could not build task %s (%s): %s.", intro, st.node, limit(st.text, 200), why)
}

// stepCall creates the task's step, or transforms its input step.
func (st subtask) stepCall(search string, params map[string]string, display string) call {
	if len(st.deps) > 0 {
		return newCall("transform_step", map[string]any{"input_step_id": st.deps[0].StepID, "search_name": search,
			"parameters": params, "display_name": limit(display, 200)})
	}
	return createCall(search, params, display)
}

// fromContext builds the step the plan's context names. If the catalog
// refuses some values, it tries once without them; if that fails too (or
// nothing was named), a task that starts from a search falls back to a
// text search for its words.
func (st subtask) fromContext(a *asks) (root, summary, failed string) {
	name := orDefault(st.ctx.DisplayName, limit(st.text, 120))
	d := a.get(st.stepCall(st.ctx.SearchName, st.ctx.Parameters, name))
	if d == nil {
		return "", "", ""
	}
	if d.ok {
		return st.done(d, "")
	}
	why := fmt.Sprintf("%s refused %s (%s: %s)", d.name, st.ctx.SearchName, d.code, d.msg)
	if bad := refusedKeys(d, st.ctx.Parameters); len(bad) > 0 {
		kept := maps.Clone(st.ctx.Parameters)
		for _, k := range bad {
			delete(kept, k)
		}
		d2 := a.get(st.stepCall(st.ctx.SearchName, kept, name))
		if d2 == nil {
			return "", "", ""
		}
		if d2.ok {
			return st.done(d2, fmt.Sprintf("The catalog refused %s, so I left %s out and used the defaults. ",
				strings.Join(bad, ", "), pronoun(len(bad))))
		}
		why += fmt.Sprintf("; without %s it refused again (%s: %s)", strings.Join(bad, ", "), d2.code, d2.msg)
	}
	if len(st.deps) > 0 || !a.t.has("get_search_parameters") {
		return "", "", why
	}
	return st.textFallback(a, why)
}

// refusedKeys are the parameters a validation error names that the call
// set.
func refusedKeys(d *done, params map[string]string) []string {
	var v struct {
		Details struct {
			ByKey map[string]json.RawMessage `json:"byKey"`
		} `json:"details"`
	}
	if json.Unmarshal(d.result, &v) != nil {
		return nil
	}
	var out []string
	for k := range v.Details.ByKey {
		if _, set := params[k]; set {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// textFallback builds a text search for the task's words.
func (st subtask) textFallback(a *asks, why string) (root, summary, failed string) {
	text := searchNeeds[needText].search
	pd := a.get(paramsCall(text, ""))
	if pd == nil {
		return "", "", ""
	}
	var sd searchDetails
	if !pd.decode(&sd) {
		return "", "", why + "; and the text search's parameters could not be read"
	}
	phrase := orDefault(st.ctx.Phrase, st.text)
	expr := textExpression(phrase)
	params := map[string]string{paramText: expr}
	for _, p := range sd.Parameters {
		if _, set := params[p.Name]; set || !p.Required {
			continue
		}
		leaves := leafTerms(p.Values)
		if len(leaves) == 0 {
			return "", "", why + "; and the text search needs " + p.Name + ", which I cannot fill"
		}
		params[p.Name] = jsonList(leaves[0])
	}
	d := a.get(createCall(text, params, "text "+expr))
	if d == nil {
		return "", "", ""
	}
	if !d.ok {
		return "", "", fmt.Sprintf("%s; the text search fallback was refused too (%s: %s)", why, d.code, d.msg)
	}
	return st.done(d, fmt.Sprintf("I could not map %s with the plan's search (%s); I used a text search for it. ", english.Quote(phrase), why))
}

// fromWords builds a task that names no search by reading its words like a
// request.
func (st subtask) fromWords(a *asks) (root, summary, failed string) {
	if len(st.deps) > 0 {
		return "", "", "the task builds on input steps but its context names no search to apply to them"
	}
	p := english.Parse(st.text)
	if p.Root == nil {
		return "", "", "I found nothing to search for in its words"
	}
	res, ready := resolve(a, p)
	if !ready {
		return "", "", ""
	}
	m := newMapped(p, res)
	if fails := m.failures(); len(fails) > 0 {
		return "", "", strings.Join(fails, "; ")
	}
	b := newBuilder(a)
	root, failed = b.build(m, p.Root)
	if failed != "" || root == "" {
		return "", "", failed
	}
	var notes []string
	for _, c := range p.Root.Leaves() {
		if l := res.leaves[c]; l.unmapped {
			notes = append(notes, l.how)
		}
	}
	summary = fmt.Sprintf("Built by Strategist's offline planner (not a language model): step %s, %s, read from the task's words as %s.",
		root, m.searchTree(p.Root), p.Root.Describe())
	if len(notes) > 0 {
		summary += " " + strings.Join(notes, " ")
	}
	return root, limit(summary, 1000), ""
}

// done reads the created step and writes the task's summary.
func (st subtask) done(d *done, note string) (root, summary, failed string) {
	var sr stepResult
	if !d.decode(&sr) || sr.Step.StepID == "" {
		return "", "", fmt.Sprintf("%s answered without a step id", d.name)
	}
	s := sr.Step
	summary = fmt.Sprintf("%sBuilt by Strategist's offline planner (not a language model): step %s, %s with %s; %s.",
		note, s.StepID, s.SearchName, paramList(s.Parameters), strings.ReplaceAll(s.Count.describe(), "**", ""))
	return s.StepID, limit(summary, 1000), ""
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
