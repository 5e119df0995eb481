package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/english"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// orthologSearch is the transform that carries genes to their orthologs.
const orthologSearch = "GenesByOrthologs"

// orthologOffline says what an ortholog step's count is offline.
const orthologOffline = "Offline the transform is built without a count (OrthoMCL's ortholog groups are not in the snapshot); " +
	"on the live site it counts like any step."

// orthologPlan plans a request about the strategy's genes in another
// organism: a transform of the strategy into their orthologs there, or,
// to keep its own genes that have orthologs there, the strategy
// intersected with those orthologs carried back to its organism. It
// returns the tree and what it builds, or the response to give instead: a
// refusal, a question, or the calls still running.
func orthologPlan(a *asks, cur *strategyOverview, o *english.Orthologs, user string) (*plan.TreeNode, string, *response) {
	if cur == nil {
		r := say(intro + "\n\nI read that as carrying the strategy's genes to their orthologs in " + english.Quote(o.Organism) +
			", but this conversation has no strategy yet. Find the genes first (for example \"genes with a signal peptide\"), then ask for their orthologs.")
		return nil, "", &r
	}
	target, answer, pending := orthologOrganism(a, o.Organism, user)
	switch {
	case pending:
		return nil, "", &response{calls: a.calls}
	case answer != nil:
		return nil, "", answer
	}
	kind := "orthologs"
	if o.Syntenic {
		kind = "syntenic orthologs"
	}
	root := &plan.TreeNode{Type: plan.KindStep, StepID: strategy.StepID(cur.RootStepID)}
	if !o.Keep {
		return orthologTask(root, target, o.Syntenic, kind+" in "+target), fmt.Sprintf(
			"I planned carrying the strategy's genes (its root, step %s) to their %s in %s with the transform %s.",
			cur.RootStepID, kind, target, orthologSearch), nil
	}
	source := cur.organism()
	switch {
	case source == "":
		r := say(intro + "\n\nI could not tell which organism the strategy's genes are in, so I cannot carry their orthologs back to it. " +
			"Ask for their orthologs in " + target + " instead, and the transform's result is those genes.")
		return nil, "", &r
	case source == target:
		r := say(intro + "\n\nThe strategy's genes are already in " + target + ": every one is its own ortholog there, so nothing was planned.")
		return nil, "", &r
	}
	// The strategy is searched again for the transform: a step is used
	// by one step only, and the strategy's root is the intersection's.
	again, why := replan(cur.Steps, cur.RootStepID, func(string) bool { return false })
	if again == nil {
		r := say(intro + "\n\nI could not plan it: " + why + ".")
		return nil, "", &r
	}
	there := orthologTask(again, target, o.Syntenic, kind+" in "+target)
	// Back the same way: a gene of the strategy that is only a
	// non-syntenic ortholog of a syntenic one there is not kept.
	back := orthologTask(there, source, o.Syntenic, kind+" back in "+source)
	tree := &plan.TreeNode{Type: plan.KindCombine, Operator: strategy.Intersect, Left: root, Right: back,
		DisplayName: limit("with "+kind+" in "+target, 120)}
	return tree, fmt.Sprintf("I planned keeping the strategy's genes (its root, step %s) that have %s in %s: the strategy is searched again, "+
		"carried to %s with %s, carried back to %s, and intersected with the strategy, so its own genes are the result.",
		cur.RootStepID, kind, target, target, orthologSearch, source), nil
}

// orthologTask is the transform of input into its orthologs in organism.
func orthologTask(input *plan.TreeNode, organism string, syntenic bool, name string) *plan.TreeNode {
	organisms, _ := json.Marshal([]string{organism})
	params := map[string]string{"organism": string(organisms), "isSyntenic": "no"}
	if syntenic {
		params["isSyntenic"] = "yes"
	}
	ctx, _ := marshal(plan.TaskContext{SearchName: orthologSearch, Parameters: params, DisplayName: limit(capitalize(name), 120)})
	return &plan.TreeNode{Type: plan.KindTask, Task: "Transform the genes into their " + name + " (" + orthologSearch + ")", Context: ctx, Input: input}
}

// organism is the organism the strategy's searches name, or "" when none
// does.
func (o *strategyOverview) organism() string {
	for _, s := range o.Steps {
		var orgs []string
		if json.Unmarshal([]byte(s.KeyParameters["organism"]), &orgs) == nil && len(orgs) == 1 && s.SearchName != orthologSearch {
			return orgs[0]
		}
	}
	return ""
}

// orthologOrganism finds the organism a request names among those the
// transform offers: the one that fits, else a refusal naming the nearest,
// or a question when several fit ("P. vivax" is four strains).
func orthologOrganism(a *asks, mention, user string) (string, *response, bool) {
	query := speciesWord(mention)
	d := a.get(paramsCall(orthologSearch, query))
	if d == nil {
		return "", nil, true
	}
	var sd searchDetails
	var p *wireParam
	if d.ok && d.decode(&sd) {
		p, _ = sd.param("organism")
	}
	if p == nil {
		r := say(intro + "\n\nThis catalog has no transform to orthologs (" + orthologSearch + "), so I cannot carry the genes to " + english.Quote(mention) + ".")
		return "", &r, false
	}
	fits := organismsNamed(mention, leafTerms(p.Values))
	switch {
	case len(fits) == 1:
		return fits[0], nil, false
	case len(fits) == 0:
		var near []string
		for _, s := range append(leafTerms(p.Values), leafTerms(p.Suggestions)...) {
			if !slices.Contains(near, s) && len(near) < 5 {
				near = append(near, s)
			}
		}
		text := intro + "\n\nThe site's organisms for orthologs hold none named " + english.Quote(mention) + ", so nothing was planned."
		if len(near) > 0 {
			text += " The nearest it has: " + strings.Join(near, ", ") + "."
		}
		r := say(text)
		return "", &r, false
	}
	var opts []askOption
	for _, f := range fits[:min(len(fits), 4)] {
		opts = append(opts, askOption{Label: "orthologs in " + f, Message: reworded(user, mention, f, "carry these to their orthologs in "+f)})
	}
	question := fmt.Sprintf("%s fits %d of the site's organisms. Which one should the orthologs come from?", english.Quote(mention), len(fits))
	if !a.t.has("ask_researcher") {
		r := say(intro + "\n\n" + question + " " + strings.Join(fits, ", ") + ". Name one and nothing is built until you do.")
		return "", &r, false
	}
	q := a.get(newCall("ask_researcher", map[string]any{"question": question, "options": opts, "free_text": true}))
	if q == nil {
		return "", nil, true
	}
	var b strings.Builder
	b.WriteString(intro + "\n\n" + question + "\n\n")
	for i, o := range opts {
		fmt.Fprintf(&b, "%d. %s. Answer %s.\n", i+1, o.Label, english.Quote(o.Message))
	}
	b.WriteString("\nChoose one, or name the organism as the site writes it. Nothing is planned or built until you answer.")
	r := say(b.String())
	return "", &r, false
}

// speciesWord is the word of an organism's name a vocabulary query looks
// for: the longest one that is not the genus or an abbreviation.
func speciesWord(mention string) string {
	best := ""
	for _, w := range strings.Fields(strings.ToLower(mention)) {
		if strings.HasSuffix(w, ".") || w == "plasmodium" || w == "strain" {
			continue
		}
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// organismsNamed are the organisms whose names hold every word of a
// mention ("P." for any genus starting with P); of several, the one of as
// many words as the mention, when only one is.
func organismsNamed(mention string, organisms []string) []string {
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(mention, ".", ". ")))
	var fits []string
	for _, org := range organisms {
		have := strings.Fields(strings.ToLower(org))
		ok := len(words) > 0
		for i, w := range words {
			if genus, abbr := strings.CutSuffix(w, "."); abbr {
				ok = ok && i == 0 && genus != "" && strings.HasPrefix(have[0], genus)
				continue
			}
			ok = ok && slices.Contains(have, w)
		}
		if ok {
			fits = append(fits, org)
		}
	}
	if len(fits) > 1 {
		var same []string
		for _, f := range fits {
			if len(strings.Fields(f)) == len(words) {
				same = append(same, f)
			}
		}
		if len(same) == 1 {
			return same
		}
	}
	return fits
}
