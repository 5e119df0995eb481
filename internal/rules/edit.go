package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"strategist/internal/english"
)

// removeByNameRE reads a request to delete a step by its name: "remove
// the transmembrane-domain step", "drop the chromosome 14 search", "delete
// the DNA repair restriction". It deletes that step; it never adds an
// exclusion of it.
var removeByNameRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|then|also),?\s+)*(?:remove|delete|drop|take out|get rid of)\s+(?:the|that|this)\s+(.+?)\s+(step|search|restriction|exclusion|filter|requirement|criterion|condition|part|one|bit|branch|piece)s?\s*(?:[:,.;!].*|\s+but\s+.*)?$`)

// removedStep finds the step a remove-by-name request names among the
// strategy's searches: the one whose name, search or values hold every
// word of the name (a word may be a prefix of at least five letters:
// "domain" names "domains"). It says why when none or several match.
func (o *strategyOverview) removedStep(user string) (target, why string, ok bool) {
	if m := removeOperatorRE.FindStringSubmatch(user); m != nil {
		return o.removedOperand(strings.ToLower(m[1]))
	}
	name, noun, ok := removedName(user)
	back := false
	if !ok {
		if name, back = putBack(user); !back {
			return "", "", false
		}
	}
	if combine, named := o.combineNamed(name); named && !back {
		return "", combine, true
	}
	leaves := o.leafSteps(o.RootStepID)
	hits := o.stepsNamed(name)
	if strings.EqualFold(noun, "one") && len(hits) == 0 {
		return "", "", false // "remove the glycolipid ones": genes to exclude, not a step
	}
	if back {
		// "put chromosome 3 back": the step an exclusion takes away.
		hits = slices.DeleteFunc(hits, func(s stepSummary) bool { return !o.excluded(s.StepID) })
		if len(hits) == 0 {
			return "", fmt.Sprintf("no exclusion of the strategy takes away %s (its searches are %s); nothing was changed", english.Quote(name), names(leaves)), true
		}
	}
	switch len(hits) {
	case 1:
		return hits[0].StepID, "", true
	case 0:
		return "", fmt.Sprintf("no step of the strategy is named %s (its searches are %s); nothing was changed", english.Quote(name), names(leaves)), true
	}
	return "", fmt.Sprintf("%d steps match %s (%s): say which to remove; nothing was changed", len(hits), english.Quote(name), names(hits)), true
}

// combineOperators are the words that name a combine by its operator.
var combineOperators = map[string]string{
	"intersection": "INTERSECT", "intersect": "INTERSECT", "union": "UNION", "minus": "MINUS", "subtraction": "MINUS",
	"combine": "", "combination": "", "boolean": "",
}

// combineNamed answers a request to remove a combine named by its
// operator ("delete the intersection step"): a strategy is one result,
// so taking a combine out would leave its inputs as two; nothing is
// changed, and the answer says what can be done instead.
func (o *strategyOverview) combineNamed(name string) (string, bool) {
	op, ok := combineOperators[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return "", false
	}
	var hits []stepSummary
	for _, s := range o.Steps {
		if len(s.Inputs) == 2 && (op == "" || s.Operator == op) {
			hits = append(hits, s)
		}
	}
	if len(hits) != 1 {
		return fmt.Sprintf("the strategy has %d %s steps (%s); nothing was changed", len(hits), strings.ToLower(name), names(hits)), true
	}
	s := hits[0]
	l, _ := o.step(s.Inputs[0])
	r, _ := o.step(s.Inputs[1])
	return fmt.Sprintf("step %s (%s) joins %s and %s into one result, and a strategy has one result, so removing it would leave two; "+
		"nothing was changed. To keep one side, say \"remove the %s step\"",
		s.StepID, s.DisplayName, english.Quote(l.DisplayName), english.Quote(r.DisplayName), r.DisplayName), true
}

// namedThenRemovedRE reads the same request with the step named first:
// "the mitochondrial genome part — drop it", "that chromosome 4 step:
// remove it, please".
var namedThenRemovedRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|and|then|also|actually),?\s+)*(?:the|that|this)\s+(.+?)\s+(step|search|restriction|exclusion|filter|requirement|criterion|condition|part|bit|branch)s?\s*[—–:,;-]?\s*(?:please\s+)?(?:remove|delete|drop|lose|ditch|scrap|cut|take\s+out|get\s+rid\s+of)\s+(?:it|that|this|them)(?:\s+out)?(?:,?\s+please)?\s*[.!]*\s*$`)

// isRemoval reports whether a message asks to delete a step by name.
func isRemoval(user string) bool {
	_, _, ok := removedName(user)
	_, back := putBack(user)
	return ok || back
}

// removedName is the name of the step a remove-by-name request names,
// and the word it calls the step by ("step", "part", "one").
func removedName(user string) (name, noun string, ok bool) {
	if m := removeByNameRE.FindStringSubmatch(user); m != nil {
		return m[1], m[2], true
	}
	if m := namedThenRemovedRE.FindStringSubmatch(user); m != nil {
		return m[1], m[2], true
	}
	return "", "", false
}

// removeOperatorRE reads a request to take back an exclusion or a
// restriction without naming its step: "take that exclusion out again",
// "drop the restriction", "remove the last filter".
var removeOperatorRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|then|also|actually|sorry),?\s+)*(?:remove|delete|drop|lose|undo|take\s+out|take|get\s+rid\s+of)\s+(?:the|that|this|my)\s+(?:last\s+|latest\s+|new\s+)?(exclusion|restriction|filter)\s*(?:out|away|off)?(?:\s+again)?\s*[.!]*\s*$`)

// removedOperand finds what the strategy's outermost exclusion (MINUS) or
// restriction (INTERSECT; a filter is either) takes away or keeps: the
// step to remove so that the combine gives its left input again.
func (o *strategyOverview) removedOperand(kind string) (target, why string, ok bool) {
	want := map[string][]string{"exclusion": {"MINUS"}, "restriction": {"INTERSECT"}, "filter": {"MINUS", "INTERSECT"}}[kind]
	queue := []string{o.RootStepID}
	for len(queue) > 0 {
		s, found := o.step(queue[0])
		queue = queue[1:]
		if !found || len(s.Inputs) != 2 {
			continue
		}
		if slices.Contains(want, s.Operator) {
			return s.Inputs[1], "", true
		}
		queue = append(queue, s.Inputs...)
	}
	return "", fmt.Sprintf("the strategy has no %s to take out; nothing was changed", kind), true
}

// stepsNamed returns the strategy's searches whose name, search or values
// hold every word of a name, each a whole word ("7" is not in "Pf3D7"),
// or one sharing its first five letters ("domain" names "domains");
// "location" and "chromosome" name a location step.
func (o *strategyOverview) stepsNamed(name string) []stepSummary {
	var words []string
	for _, w := range strings.Fields(strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(name))) {
		switch w {
		case "the", "that", "this", "search", "step", "searches", "steps", "one":
		default:
			words = append(words, w)
		}
	}
	var hits []stepSummary
	for _, s := range o.leafSteps(o.RootStepID) {
		text := strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(s.DisplayName + " " + s.SearchName + " " +
			strings.Join(mapValues(s.KeyParameters), " ") + " " + familyNames[s.SearchName]))
		if s.SearchName == "GenesByLocation" {
			text += " location chromosome"
		}
		tokens := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		all := len(words) > 0
		for _, w := range words {
			all = all && slices.ContainsFunc(tokens, func(t string) bool {
				return t == w || len(w) > 5 && strings.HasPrefix(t, w[:5])
			})
		}
		if all {
			hits = append(hits, s)
		}
	}
	return hits
}

// withoutStep is the strategy's tree from id with step target taken out:
// a combine that loses one input becomes its other input; what the
// removal does not touch is reused as it is.
func (o *strategyOverview) withoutStep(id, target string) *english.Node {
	s, ok := o.step(id)
	if !ok || id == target {
		return nil
	}
	if len(s.Inputs) != 2 {
		return o.stepNode(id)
	}
	l, r := o.withoutStep(s.Inputs[0], target), o.withoutStep(s.Inputs[1], target)
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	keep := func(n *english.Node, in string) bool { return n.Clause != nil && n.Clause.Location == in }
	if keep(l, s.Inputs[0]) && keep(r, s.Inputs[1]) {
		return o.stepNode(id)
	}
	return &english.Node{Op: english.Op(s.Operator), Left: l, Right: r}
}

// paramEditRE reads a change to a step's numeric parameter: "relax the
// minimum to 15 transmembrane domains", "raise the ExportPred score to
// 10", "change the transmembrane range to 1 to 99".
var paramEditRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|then|also|actually),?\s+)*(?:relax|raise|lower|change|set|increase|decrease|reduce|make|tighten|loosen|move)\s+(?:the\s+)?(.*?)\b(minimum|min|lower bound|maximum|max|upper bound|range|threshold|cutoff|cut-off|score|limit)\b(.*?)\s+to\s+(\d+(?:\.\d+)?)(?:\s*(?:-|–|to)\s*(\d+(?:\.\d+)?))?\b(.*)$`)

// editedParameter finds the step and the parameter a change names, and
// the step as it would be with the new value: the leaf steps with a
// minimum or maximum parameter, narrowed by the words around the
// parameter's name ("transmembrane", "ExportPred"). ok is false when the
// message is not such a change.
func (o *strategyOverview) editedParameter(user string) (target string, part *english.Node, why string, ok bool) {
	m := paramEditRE.FindStringSubmatch(user)
	if m == nil {
		return "", nil, "", false
	}
	which, lo, hi := strings.ToLower(m[2]), m[4], m[5]
	words := strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(m[1] + " " + m[3] + " " + m[6])))
	type cand struct {
		s        stepSummary
		min, max string
	}
	var hits []cand
	for _, s := range o.leafSteps(o.RootStepID) {
		var c cand
		for k := range s.KeyParameters {
			switch lk := strings.ToLower(k); {
			case strings.HasPrefix(lk, "min") || strings.Contains(lk, "_min") || strings.HasSuffix(lk, "_gte"):
				c.min = k
			case strings.HasPrefix(lk, "max") || strings.Contains(lk, "_max") || strings.HasSuffix(lk, "_lte"):
				c.max = k
			}
		}
		if c.min == "" && c.max == "" {
			continue
		}
		text := strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(s.DisplayName + " " + s.SearchName))
		match := true
		for _, w := range words {
			if len(w) > 4 && !strings.Contains(text, w[:5]) && !slices.Contains([]string{"domains", "domain", "score", "value"}, w) {
				match = false
			}
		}
		if match {
			c.s = s
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 0:
		return "", nil, "no step of the strategy has a minimum or maximum to change; nothing was changed", true
	case 1:
	default:
		var ss []stepSummary
		for _, h := range hits {
			ss = append(ss, h.s)
		}
		return "", nil, fmt.Sprintf("%d steps have a value to change (%s): say which; nothing was changed", len(hits), names(ss)), true
	}
	h := hits[0]
	params := map[string]string{}
	for k, v := range h.s.KeyParameters {
		params[k] = v
	}
	switch {
	case hi != "" && h.min != "" && h.max != "":
		params[h.min], params[h.max] = lo, hi
	case (which == "maximum" || which == "max" || which == "upper bound") && h.max != "":
		params[h.max] = lo
	case h.min != "":
		params[h.min] = lo
	default:
		params[h.max] = lo
	}
	c := &english.Clause{Kind: english.KindSearch, Search: h.s.SearchName, Params: params,
		Text: fmt.Sprintf("%s with %s", orUnknown(h.s.DisplayName, h.s.SearchName), paramList(params))}
	return h.s.StepID, &english.Node{Clause: c}, "", true
}

// insteadRE reads the "instead" that ends a message.
var insteadRE = regexp.MustCompile(`(?i)[,\s]+instead(?:\s+of\s+(?:that|this|it))?\s*[.!]*\s*$`)

// madeInstead reads a message that ends with "instead" as the change it
// names without that word, when that is an exclusion, a restriction or an
// addition: there is no step for it to replace, so "instead" is of a
// change undone or not made.
func madeInstead(user string) (english.Parsed, string, bool) {
	rest := insteadRE.ReplaceAllString(user, "")
	if rest == user {
		return english.Parsed{}, "", false
	}
	q := english.Parse(rest)
	switch q.Follow {
	case english.FollowExclude, english.FollowRestrict, english.FollowAdd:
		return q, rest, q.Part != nil
	}
	return english.Parsed{}, "", false
}

// putBackRE reads a request to take back an exclusion by naming what it
// took away: "put chromosome 3 back", "bring back the apicoplast genes",
// "include chromosome 13 again", "chromosome 4 can stay after all".
var putBackRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|actually|hmm|then|on\s+second\s+thoughts?|on\s+reflection|no\s+wait|wait),?\s+)*(?:(?:put|bring|add|let)\s+(?:the\s+)?(.+?)\s+back(?:\s+in)?|(?:bring\s+back|re-?include|restore|reinstate|re-?add|readmit|allow)\s+(?:the\s+)?(.+?)|include\s+(?:the\s+)?(.+?)\s+again|(?:don'?t|do\s+not)\s+exclude\s+(?:the\s+)?(.+?)(?:\s+after\s+all)?|(?:hmm,?\s+)?(?:the\s+)?(.+?)\s+(?:can|may|should)\s+(?:stay|remain|come\s+back|stay\s+in)(?:\s+after\s+all)?)(?:\s+again)?(?:,?\s+please)?\s*[.!]*\s*$`)

// putBack is the name of what a put-back request returns.
func putBack(user string) (string, bool) {
	m := putBackRE.FindStringSubmatch(user)
	if m == nil {
		return "", false
	}
	name := strings.TrimSpace(m[1] + m[2] + m[3] + m[4] + m[5])
	// "let chromosome 13's genes back in": the place is the step's name.
	name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(name, " genes"), " ones"))
	return strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s"), true
}

// excluded reports whether a step is what an exclusion (MINUS) of the
// strategy takes away, alone or as one of a union taken away ("minus
// chromosomes 12 and 13").
func (o *strategyOverview) excluded(id string) bool {
	if o.inputOf(id, "MINUS") == 1 {
		return true
	}
	for _, s := range o.Steps {
		if s.Operator == "UNION" && slices.Contains(s.Inputs, id) && o.excluded(s.StepID) {
			return true
		}
	}
	return false
}

// restricts reports whether a step is an input of an intersection.
func (o *strategyOverview) restricts(id string) bool { return o.inputOf(id, "INTERSECT") >= 0 }

// inputOf is the place of a step among the inputs of a combine of the
// operator that uses it, or -1.
func (o *strategyOverview) inputOf(id, operator string) int {
	for _, s := range o.Steps {
		if s.Operator == operator {
			if i := slices.Index(s.Inputs, id); i >= 0 {
				return i
			}
		}
	}
	return -1
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// widen reads an added place as widening the strategy's restriction to
// a place ("tRNA genes on chromosome 7", then "include chromosome 8 as
// well"): the strategy's one location step that a restriction keeps
// becomes that place or the new one. ok is false when the part is not a
// place or the strategy restricts to no one place.
func (o *strategyOverview) widen(p *english.Parsed) (string, bool) {
	if p.Follow != english.FollowAdd || p.Part == nil || p.Part.Clause == nil || p.Part.Clause.Kind != english.KindLocation {
		return "", false
	}
	var hits []stepSummary
	for _, s := range o.leafSteps(o.RootStepID) {
		if s.SearchName == "GenesByLocation" && o.restricts(s.StepID) {
			hits = append(hits, s)
		}
	}
	if len(hits) != 1 {
		return "", false
	}
	t := hits[0]
	p.Root = o.rebuild(o.RootStepID, t.StepID, &english.Node{Op: english.OpUnion, Left: o.stepNode(t.StepID), Right: p.Part})
	return fmt.Sprintf("I widen step %s (%s) to %s or %s and keep the rest of the strategy", t.StepID, t.DisplayName, t.DisplayName, p.Part.Describe()), true
}
