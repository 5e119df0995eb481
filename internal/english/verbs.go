package english

// A follow-up is often a verb, what it moves, and the result named by a
// pronoun anywhere around it: "kick chromosome 11 out of it", "fold
// chromosome 14 into that as well", "pare it back to what lies on
// chromosome 3", "extend it with chromosome 4's tRNA loci". The verb says
// the kind, with the particle that goes with it; the result's name and
// the particles are not part of what is moved.
var (
	// narrowVerbs narrow the result to a part: "… to X".
	narrowVerbs = WordSet("whittle pare narrow trim confine limit restrict reduce shrink cut take bring boil slim")
	// growVerbs add a part to the result: "… X in", "… with X".
	growVerbs = WordSet("fold bring add extend include tack append widen expand broaden top throw chuck toss pop stick slot")
	// cutVerbs take a part out of the result: "… X out", "… X off".
	cutVerbs = WordSet("scratch kick knock lop bin dump nix zap chop cull excise scrub strip subtract remove drop exclude discard ditch scrap eliminate toss throw chuck take shave prune weed purge lose omit axe cut trim boot filter")
	// followParticles go with the verbs and name no genes.
	followParticles = WordSet("out off away back down in into onto with alongside along to from of as well too also likewise now again please then so come comes")
	// placeVerbs say what a place has, after it: "everything chromosome
	// 14 contributes".
	placeVerbs = WordSet("contributes contribute holds hold carries carry provides provide has have encodes encode")
	// growParticles are the particles that make a grow verb add.
	growParticles = WordSet("in into onto with alongside along to")
	// cutParticles are the particles that make a cut verb take away.
	cutParticles = WordSet("out off away from")
)

// verbFollowUp reads a follow-up made of a verb, a part and the result
// named by a pronoun, or a part said to go "on top of those"; false when
// the words are not one.
func verbFollowUp(w []token) (FollowUp, []token, bool) {
	if n := len(w); n > 2 && !w[n-1].quoted && referenceWords[w[n-1].low] {
		// "the snoRNA genes on top of those", "… alongside it", "… in
		// addition to that".
		for _, tail := range [][]string{{"on", "top", "of"}, {"alongside"}, {"in", "addition", "to"}, {"over", "and", "above"}} {
			if k := n - 1 - len(tail); k > 0 && hasWords(w[k:], tail) {
				return FollowAdd, w[:k], true
			}
		}
	}
	if len(w) < 3 || w[0].quoted {
		return FollowNone, nil, false
	}
	verb := w[0].low
	refs, to := 0, -1
	var particles []string
	for i, t := range w[1:] {
		switch {
		case t.quoted:
		case resultWord(t) || !t.quoted && referenceWords[t.low] && i > 0 && w[i].low == "that": // "that set"
			refs++
		case t.low == "to" && to < 0:
			to = i + 1
		}
		if !t.quoted && followParticles[t.low] {
			particles = append(particles, t.low)
		}
	}
	has := func(set map[string]bool) bool {
		for _, p := range particles {
			if set[p] {
				return true
			}
		}
		return false
	}
	switch {
	case narrowVerbs[verb] && refs > 0 && to > 0 && to < len(w)-1 && onlyReferenceBefore(w[1:to]):
		// "pare it back to what lies on chromosome 3", "whittle that list
		// down to chromosome 13".
		return FollowRestrict, trimJoiners(narrowingLead(w[to+1:])), true
	case growVerbs[verb] && refs > 0 && has(growParticles):
		return FollowAdd, partOf(w[1:]), true
	case cutVerbs[verb] && (refs > 0 || has(cutParticles) || !narrowVerbs[verb] && !growVerbs[verb]):
		return FollowExclude, partOf(w[1:]), true
	}
	return FollowNone, nil, false
}

// resultWord reports whether a word names the result so far ("it",
// "those", "the list"); "one", "ones", "search" and "set" may name a part.
func resultWord(t token) bool {
	return !t.quoted && referenceWords[t.low] && t.low != "one" && t.low != "ones" && t.low != "search" && t.low != "set"
}

// onlyReferenceBefore reports whether the words between a narrowing verb
// and its "to" only name the result ("it back", "that list down").
func onlyReferenceBefore(w []token) bool {
	for _, t := range w {
		if t.quoted || !referenceWords[t.low] && !followParticles[t.low] && t.low != "the" && t.low != "my" && t.low != "our" {
			return false
		}
	}
	return true
}

// partOf is the words a verb moves: without the result's name and the
// particles next to it, next to the verb or at the end ("kick chromosome
// 11 out of it", "fold chromosome 14 into that as well"), and without the
// words that only say "everything" ("lop off everything chromosome 14
// contributes"); particles inside the part stay ("genes involved in …").
func partOf(w []token) []token {
	drop := make([]bool, len(w))
	particle := func(i int) bool {
		return !w[i].quoted && (followParticles[w[i].low] || w[i].low == "the" || w[i].low == "everything" || w[i].low == "whatever")
	}
	for i := range w {
		if !resultWord(w[i]) {
			continue
		}
		drop[i] = true
		for j := i - 1; j >= 0 && particle(j) && !drop[j]; j-- {
			drop[j] = true
		}
		for j := i + 1; j < len(w) && particle(j); j++ {
			drop[j] = true
		}
	}
	for j := 0; j < len(w) && particle(j); j++ {
		drop[j] = true
	}
	for j := len(w) - 1; j >= 0 && (particle(j) || placeVerbs[w[j].low] && j > 0 && isNumeric(w[j-1].low)); j-- {
		drop[j] = true
	}
	var out []token
	for i, t := range w {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return trimJoiners(out)
}

// withoutPlaceVerb drops "whatever" before a place and the verb after it
// that says what the place has: "whatever chromosomes 3 and 8
// contribute" is chromosomes 3 and 8.
func withoutPlaceVerb(w []token) []token {
	if n := len(w); n > 2 && !w[n-1].quoted && placeVerbs[w[n-1].low] && isNumeric(w[n-2].low) {
		w = w[:n-1]
		for len(w) > 0 && !w[0].quoted && (w[0].low == "whatever" || w[0].low == "everything" || w[0].low == "anything") {
			w = w[1:]
		}
	}
	return w
}
