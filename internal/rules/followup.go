package rules

import (
	"fmt"
	"strings"

	"strategist/internal/english"
)

// strategyOverview is get_strategy's answer: only the fields read.
type strategyOverview struct {
	RootStepID string        `json:"rootStepId"`
	Steps      []stepSummary `json:"steps"`
	Previous   *struct {
		RootStepID      string        `json:"rootStepId"`
		Steps           []stepSummary `json:"steps"`
		RootStillExists bool          `json:"rootStillExists"`
	} `json:"previous"`
}

type stepSummary struct {
	StepID        string            `json:"stepId"`
	DisplayName   string            `json:"displayName"`
	Kind          string            `json:"kind"`
	SearchName    string            `json:"searchName"`
	KeyParameters map[string]string `json:"keyParameters"`
	Operator      string            `json:"operator"`
	Inputs        []string          `json:"inputs"`
	Count         stepCount         `json:"count"`
}

// stepCount is a step's count as get_strategy reports it.
type stepCount struct {
	Status      string `json:"status"`
	Value       *int   `json:"value"`
	Message     string `json:"message"`
	Approximate bool   `json:"approximate"`
}

// describe says the count in words: the number and its mark, or why there
// is none.
func (c stepCount) describe() string {
	switch {
	case c.Value != nil && c.Approximate:
		return fmt.Sprintf("%d genes (approximate)", *c.Value)
	case c.Value != nil:
		return fmt.Sprintf("%d genes", *c.Value)
	case c.Message != "":
		return "no count: " + c.Message
	}
	return "no count yet"
}

// current reads the conversation's strategy with get_strategy: nil when
// it has none (or the role cannot read it), pending while the call runs.
func current(a *asks) (ov *strategyOverview, pending bool) {
	if !a.t.has("get_strategy") {
		return nil, false
	}
	d := a.get(newCall("get_strategy", map[string]any{}))
	if d == nil {
		return nil, true
	}
	var o strategyOverview
	if !d.decode(&o) || o.RootStepID == "" {
		return nil, false
	}
	return &o, false
}

func (o *strategyOverview) step(id string) (stepSummary, bool) {
	for _, s := range o.Steps {
		if s.StepID == id {
			return s, true
		}
	}
	return stepSummary{}, false
}

// stepNode is a clause that reuses step id of the strategy. Its text is
// the step's name alone: it becomes part of the names of the steps built on
// it, and names never carry step ids.
func (o *strategyOverview) stepNode(id string) *english.Node {
	name := "step " + id
	if s, ok := o.step(id); ok && s.DisplayName != "" {
		name = s.DisplayName
	}
	return &english.Node{Clause: &english.Clause{Kind: english.KindStep, Location: id,
		Text: limit(name, 80)}}
}

// repeatFollowUp makes a message such as "and chromosome 13 too" do
// again what the message before it did (exclude, restrict or add).
func repeatFollowUp(p *english.Parsed, user, previous string) {
	if p.Follow != english.FollowNone || !english.Repeats(user) || previous == "" {
		return
	}
	if prev := english.Parse(previous); prev.Follow == english.FollowExclude ||
		prev.Follow == english.FollowRestrict || prev.Follow == english.FollowAdd {
		p.Follow, p.Part = prev.Follow, p.Root
	}
}

// applyFollowUp puts a follow-up's change into the request tree: the
// strategy's root (as a reused step) joined with the new part, or the path
// above a replaced step rebuilt around its replacement. It returns a note
// for the answer, or a reason the change cannot be planned. A message that
// repeats the one before (user after previous) first takes its kind.
func applyFollowUp(p *english.Parsed, o *strategyOverview, user, previous string) (note, refusal string) {
	repeatFollowUp(p, user, previous)
	if p.Follow == english.FollowNone && p.Root != nil && (english.AlsoAdds(user) || english.Repeats(user) && allLocations(p.Root)) {
		// "and also the rRNA genes on chromosome 5"; "chr 11 as well" after
		// a request for one chromosome's genes widens it.
		p.Follow, p.Part = english.FollowAdd, p.Root
	}
	root := o.stepNode(o.RootStepID)
	ops := map[english.FollowUp]english.Op{english.FollowExclude: english.OpMinus, english.FollowRestrict: english.OpIntersect, english.FollowAdd: english.OpUnion}
	if family := droppedFamily(p); family != "" {
		n := o.without(o.RootStepID, family)
		if n == nil || (n.Clause != nil && n.Clause.Location == o.RootStepID) {
			return "", fmt.Sprintf("the strategy has no %s part to drop, or nothing would be left without it", familyNames[family])
		}
		p.Root = n
		return fmt.Sprintf("I drop the %s steps and keep the rest of the strategy", familyNames[family]), ""
	}
	if tree, note, why, ok := o.editedOperator(user); ok {
		if tree == nil {
			return "", why
		}
		p.Follow, p.Root = english.FollowReplace, tree
		return note, ""
	}
	if target, part, why, ok := o.editedParameter(user); ok {
		if target == "" {
			return "", why
		}
		s, _ := o.step(target)
		p.Follow, p.Root = english.FollowReplace, o.rebuild(o.RootStepID, target, part)
		return fmt.Sprintf("I change step %s (%s) to %s and keep the rest of the strategy", target, s.DisplayName, part.Clause.Text), ""
	}
	if target, why, ok := o.removedStep(user); ok {
		if target == "" {
			return "", why
		}
		n := o.withoutStep(o.RootStepID, target)
		if n == nil {
			return "", "that step is all the strategy has; to start again, describe the genes you want"
		}
		s, _ := o.step(target)
		p.Follow, p.Root = english.FollowExclude, n
		return fmt.Sprintf("I remove step %s (%s) and keep the rest of the strategy", target, s.DisplayName), ""
	}
	switch p.Follow {
	case english.FollowExclude, english.FollowRestrict, english.FollowAdd:
		if p.Part == nil {
			return "", "I could not tell what to " + p.Follow.String() + ": name it, for example \"now also exclude chromosome 5\""
		}
		if note, ok := o.widen(p); ok {
			return note, ""
		}
		p.Root = &english.Node{Op: ops[p.Follow], Left: root, Right: p.Part}
		return fmt.Sprintf("this refines the strategy you have (%s): its steps are reused, not built again", root.Clause.Text), ""
	case english.FollowReplace:
		if p.Part == nil {
			return "", "I could not tell what to put in its place"
		}
		target, why := o.replaced(p)
		if target == "" {
			if q, rest, ok := madeInstead(user); ok && p.Replaced == nil {
				*p = q // "restrict to chromosome 10 instead" after an undo
				return applyFollowUp(p, o, rest, previous)
			}
			return "", why
		}
		p.Root = o.rebuild(o.RootStepID, target, p.Part)
		s, _ := o.step(target)
		return fmt.Sprintf("I replace step %s (%s) with %s and keep the rest of the strategy", target, s.DisplayName, p.Part.Describe()), ""
	}
	return "Building this replaces the current strategy (" + root.Clause.Text + "); Undo brings it back", ""
}

// replaced finds the step a replacement takes the place of: the one the
// message names ("replace chromosome 14 with 13"), else the only step of
// the same kind as the new part ("use proteolysis instead").
func (o *strategyOverview) replaced(p *english.Parsed) (string, string) {
	leaves := o.leafSteps(o.RootStepID)
	family := ""
	if p.Replaced != nil && p.Replaced.Clause != nil && p.Replaced.Clause.Kind == english.KindTerm {
		family = familyWord(p.Replaced.Clause.Text) // "swap the GO term for proteolysis"
	}
	if family != "" {
		var hits []string
		for _, s := range leaves {
			if s.SearchName == family {
				hits = append(hits, s.StepID)
			}
		}
		if named := o.stepsNamed(p.Replaced.Clause.Text); len(hits) != 1 && len(named) == 1 {
			return named[0].StepID, "" // "swap out the hexose metabolic process step for …"
		} else if len(hits) == 1 {
			return hits[0], ""
		}
		return "", fmt.Sprintf("the strategy has %d %s steps (%s); say which to replace", len(hits), familyNames[family], names(leaves))
	}
	if p.Replaced != nil && p.Replaced.Clause != nil {
		var hits []string
		for _, s := range leaves {
			if stepMatches(s, p.Replaced.Clause) {
				hits = append(hits, s.StepID)
			}
		}
		if len(hits) == 1 {
			return hits[0], ""
		}
		if named := o.stepsNamed(p.Replaced.Clause.Text); len(hits) == 0 && len(named) == 1 {
			return named[0].StepID, "" // "replace the transmembrane-domain search with …"
		}
		return "", fmt.Sprintf("I could not find one step of the strategy that is %s (its searches are %s)", p.Replaced.Describe(), names(leaves))
	}
	if p.Part.Clause == nil {
		return "", "say which step to replace, for example \"replace chromosome 14 with chromosome 13\""
	}
	var hits []string
	for _, s := range leaves {
		if sameFamily(s, p.Part.Clause) {
			hits = append(hits, s.StepID)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], ""
	case 0:
		return "", fmt.Sprintf("no step of the strategy is of the same kind as %s (its searches are %s); say which to replace", p.Part.Describe(), names(leaves))
	}
	return "", fmt.Sprintf("several steps could be replaced by %s (%s); say which, for example \"replace %s with %s\"",
		p.Part.Describe(), names(leaves), o.nameOf(hits[0]), p.Part.Describe())
}

func (o *strategyOverview) nameOf(id string) string {
	s, _ := o.step(id)
	return s.DisplayName
}

// leafSteps lists the searches under step id, left to right.
func (o *strategyOverview) leafSteps(id string) []stepSummary {
	s, ok := o.step(id)
	if !ok {
		return nil
	}
	if len(s.Inputs) == 0 {
		return []stepSummary{s}
	}
	var out []stepSummary
	for _, in := range s.Inputs {
		out = append(out, o.leafSteps(in)...)
	}
	return out
}

func names(steps []stepSummary) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.StepID+" "+english.Quote(s.DisplayName))
	}
	return strings.Join(out, ", ")
}

// rebuild writes the tree of step id with step target (a search or a
// combine) replaced by part: the combines on the path to target are
// planned again, everything beside the path is reused as it is.
func (o *strategyOverview) rebuild(id, target string, part *english.Node) *english.Node {
	if id == target {
		return part
	}
	s, ok := o.step(id)
	if !ok || len(s.Inputs) != 2 || !o.holds(id, target) {
		return o.stepNode(id)
	}
	return &english.Node{Op: english.Op(s.Operator), Left: o.rebuild(s.Inputs[0], target, part), Right: o.rebuild(s.Inputs[1], target, part)}
}

// stepMatches reports whether a step is what a clause names.
func stepMatches(s stepSummary, c *english.Clause) bool {
	values := strings.ToLower(strings.Join(mapValues(s.KeyParameters), " "))
	switch c.Kind {
	case english.KindLocation:
		return s.SearchName == "GenesByLocation" && strings.Contains(values, sequenceHint(c.Location))
	case english.KindGOID:
		for _, id := range c.IDs {
			if !strings.Contains(values, strings.ToLower(id)) {
				return false
			}
		}
		return true
	case english.KindGeneIDs:
		return s.SearchName == "GeneByLocusTag"
	}
	name := strings.ToLower(s.DisplayName + " " + values)
	for _, v := range c.Variants {
		if strings.Contains(name, strings.ToLower(v)) {
			return true
		}
	}
	return false
}

// sequenceHint is how a location appears in GenesByLocation's value.
func sequenceHint(loc string) string {
	switch loc {
	case "apicoplast":
		return "api"
	case "mitochondrion":
		return "m76611"
	}
	if len(loc) == 1 {
		loc = "0" + loc
	}
	return strings.ToLower("_" + loc + "_")
}

// sameFamily reports whether a step searches for the same kind of thing
// as a clause: a location for a location, a term for a term.
func sameFamily(s stepSummary, c *english.Clause) bool {
	switch c.Kind {
	case english.KindLocation:
		return s.SearchName == "GenesByLocation"
	case english.KindGOID:
		return s.SearchName == "GenesByGoTerm"
	case english.KindGeneIDs:
		return s.SearchName == "GeneByLocusTag"
	case english.KindTerm:
		if _, typ := english.GeneTypeName(c.Text); typ {
			return s.SearchName == "GenesByGeneType"
		}
		return s.SearchName == "GenesByGoTerm" || s.SearchName == "GenesByText"
	}
	return false
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// familyNames name the searches a researcher may drop as a kind of
// condition ("drop the chromosome restriction").
var familyNames = map[string]string{
	"GenesByLocation": "chromosome", "GenesByGoTerm": "GO term", "GenesByGeneType": "gene type", "GenesByText": "text search",
}

// droppedFamily reads "drop the chromosome restriction", "remove the GO
// filter": the search whose steps the follow-up takes out, or "".
func droppedFamily(p *english.Parsed) string {
	if p.Follow != english.FollowExclude || p.Part == nil || p.Part.Clause == nil || p.Part.Clause.Kind != english.KindTerm {
		return ""
	}
	words := strings.Fields(english.Normalize(p.Part.Clause.Text))
	condition := false
	for _, w := range words {
		switch english.Singular(w) {
		case "restriction", "filter", "limit", "constraint", "condition", "requirement", "qualifier":
			condition = true
		}
	}
	if !condition {
		return ""
	}
	return familyWord(p.Part.Clause.Text)
}

// familyWord reads the name of a kind of step ("the chromosome", "GO
// term", "gene type", "text search") as the search those steps use.
func familyWord(text string) string {
	words := strings.Fields(english.Normalize(text))
	for _, w := range words {
		switch english.Singular(w) {
		case "chromosome", "location", "region", "sequence":
			return "GenesByLocation"
		case "go", "process", "term", "ontology":
			return "GenesByGoTerm"
		case "type":
			return "GenesByGeneType"
		case "text", "word", "keyword":
			return "GenesByText"
		}
	}
	return ""
}

// without writes the tree of step id with the searches of one family
// taken out: a combine that loses one input becomes its other input. It
// returns nil when nothing is left.
func (o *strategyOverview) without(id, family string) *english.Node {
	s, ok := o.step(id)
	if !ok {
		return nil
	}
	if len(s.Inputs) == 0 {
		if s.SearchName == family {
			return nil
		}
		return o.stepNode(id)
	}
	if len(s.Inputs) != 2 {
		return o.stepNode(id)
	}
	l, r := o.without(s.Inputs[0], family), o.without(s.Inputs[1], family)
	switch {
	case l == nil && r == nil:
		return nil
	case l == nil:
		return r
	case r == nil:
		return l
	}
	keep := func(n *english.Node, in string) bool { return n.Clause != nil && n.Clause.Location == in }
	if keep(l, s.Inputs[0]) && keep(r, s.Inputs[1]) {
		return o.stepNode(id) // nothing of the family below: reuse the combine
	}
	return &english.Node{Op: english.Op(s.Operator), Left: l, Right: r}
}
