package english

// connective is a phrase that joins clauses.
type connective struct {
	words []string
	op    Op
	loose bool
}

// connectives, longest first within each operator so "but not" wins over
// "not" and "and/or" over "and". Loose connectives apply to everything
// before them ("A or B, then keep only C" is INTERSECT(UNION(A, B), C)):
// every exclusion, and the words that restrict a list. This is the one
// list of the words that join or take away: English has no smaller rule
// for them, so they are written out here, and the readers that need them
// elsewhere (an exclusion or restriction written first, leadingConnectives)
// take theirs from it.
var connectives = []connective{
	{words: []string{"and/or"}, op: OpUnion},
	{words: []string{"but", "not", "located", "on"}, op: OpMinus, loose: true},
	{words: []string{"not", "located", "on"}, op: OpMinus, loose: true},
	{words: []string{"not", "located", "in"}, op: OpMinus, loose: true},
	{words: []string{"but", "not"}, op: OpMinus, loose: true},
	{words: []string{"and", "not"}, op: OpMinus, loose: true},
	{words: []string{"but", "excluding"}, op: OpMinus, loose: true},
	{words: []string{"but", "without"}, op: OpMinus, loose: true},
	// A set the genes lack is taken away: "with no transmembrane
	// domain", "that lack a signal peptide".
	{words: []string{"that", "have", "no"}, op: OpMinus, loose: true},
	{words: []string{"which", "have", "no"}, op: OpMinus, loose: true},
	{words: []string{"that", "has", "no"}, op: OpMinus, loose: true},
	{words: []string{"having", "no"}, op: OpMinus, loose: true},
	{words: []string{"with", "no"}, op: OpMinus, loose: true},
	{words: []string{"that", "lack"}, op: OpMinus, loose: true},
	{words: []string{"which", "lack"}, op: OpMinus, loose: true},
	{words: []string{"that", "lacks"}, op: OpMinus, loose: true},
	{words: []string{"devoid", "of"}, op: OpMinus, loose: true},
	{words: []string{"lacking"}, op: OpMinus, loose: true},
	{words: []string{"except", "for"}, op: OpMinus, loose: true},
	{words: []string{"other", "than"}, op: OpMinus, loose: true},
	{words: []string{"leave", "out"}, op: OpMinus, loose: true},
	{words: []string{"leaving", "out"}, op: OpMinus, loose: true},
	{words: []string{"filter", "out"}, op: OpMinus, loose: true},
	{words: []string{"take", "out"}, op: OpMinus, loose: true},
	{words: []string{"take", "away"}, op: OpMinus, loose: true},
	{words: []string{"taking", "away"}, op: OpMinus, loose: true},
	{words: []string{"taking", "out"}, op: OpMinus, loose: true},
	{words: []string{"get", "rid", "of"}, op: OpMinus, loose: true},
	{words: []string{"getting", "rid", "of"}, op: OpMinus, loose: true},
	{words: []string{"i", "don't", "want"}, op: OpMinus, loose: true},
	{words: []string{"i", "do", "not", "want"}, op: OpMinus, loose: true},
	{words: []string{"don't", "want"}, op: OpMinus, loose: true},
	{words: []string{"do", "not", "want"}, op: OpMinus, loose: true},
	{words: []string{"throw", "out"}, op: OpMinus, loose: true},
	{words: []string{"subtract"}, op: OpMinus, loose: true},
	{words: []string{"subtracting"}, op: OpMinus, loose: true},
	{words: []string{"throw", "away"}, op: OpMinus, loose: true},
	{words: []string{"chuck", "out"}, op: OpMinus, loose: true},
	{words: []string{"cut", "out"}, op: OpMinus, loose: true},
	{words: []string{"strip", "out"}, op: OpMinus, loose: true},
	{words: []string{"weed", "out"}, op: OpMinus, loose: true},
	{words: []string{"prune", "away"}, op: OpMinus, loose: true},
	{words: []string{"throwing", "out"}, op: OpMinus, loose: true},
	{words: []string{"absent", "from"}, op: OpMinus, loose: true},
	{words: []string{"prune"}, op: OpMinus, loose: true},
	{words: []string{"lose"}, op: OpMinus, loose: true},
	{words: []string{"losing"}, op: OpMinus, loose: true},
	{words: []string{"ditch"}, op: OpMinus, loose: true},
	{words: []string{"ditching"}, op: OpMinus, loose: true},
	{words: []string{"discard"}, op: OpMinus, loose: true},
	{words: []string{"discarding"}, op: OpMinus, loose: true},
	{words: []string{"are", "not"}, op: OpMinus, loose: true},
	{words: []string{"is", "not"}, op: OpMinus, loose: true},
	{words: []string{"not", "on"}, op: OpMinus, loose: true},
	{words: []string{"not", "in"}, op: OpMinus, loose: true},
	{words: []string{"excluding"}, op: OpMinus, loose: true},
	{words: []string{"exclude"}, op: OpMinus, loose: true},
	{words: []string{"excludes"}, op: OpMinus, loose: true},
	{words: []string{"except"}, op: OpMinus, loose: true},
	{words: []string{"minus"}, op: OpMinus, loose: true},
	{words: []string{"without"}, op: OpMinus, loose: true},
	{words: []string{"remove"}, op: OpMinus, loose: true},
	{words: []string{"removing"}, op: OpMinus, loose: true},
	{words: []string{"drop"}, op: OpMinus, loose: true},
	{words: []string{"dropping"}, op: OpMinus, loose: true},
	{words: []string{"omit"}, op: OpMinus, loose: true},
	{words: []string{"omitting"}, op: OpMinus, loose: true},
	{words: []string{"skip"}, op: OpMinus, loose: true},
	{words: []string{"skipping"}, op: OpMinus, loose: true},
	{words: []string{"aren't"}, op: OpMinus, loose: true},
	{words: []string{"isn't"}, op: OpMinus, loose: true},
	{words: []string{"not"}, op: OpMinus, loose: true},
	{words: []string{"with", "the", "exception", "of"}, op: OpMinus, loose: true},
	{words: []string{"leaving", "aside"}, op: OpMinus, loose: true},
	{words: []string{"leave", "aside"}, op: OpMinus, loose: true},
	{words: []string{"setting", "aside"}, op: OpMinus, loose: true},
	{words: []string{"set", "aside"}, op: OpMinus, loose: true},
	{words: []string{"putting", "aside"}, op: OpMinus, loose: true},
	{words: []string{"not", "counting"}, op: OpMinus, loose: true},
	{words: []string{"not", "including"}, op: OpMinus, loose: true},
	{words: []string{"ignoring"}, op: OpMinus, loose: true},
	{words: []string{"disregarding"}, op: OpMinus, loose: true},
	{words: []string{"excepting"}, op: OpMinus, loose: true},
	{words: []string{"apart", "from"}, op: OpMinus, loose: true},
	{words: []string{"aside", "from"}, op: OpMinus, loose: true},
	{words: []string{"save", "for"}, op: OpMinus, loose: true},
	{words: []string{"barring"}, op: OpMinus, loose: true},
	{words: []string{"outside", "of"}, op: OpMinus, loose: true},
	{words: []string{"outside"}, op: OpMinus, loose: true},
	{words: []string{"subtract"}, op: OpMinus, loose: true},
	{words: []string{"nothing", "from"}, op: OpMinus, loose: true},
	{words: []string{"not", "interested", "in"}, op: OpMinus, loose: true},
	{words: []string{"anywhere", "but"}, op: OpMinus, loose: true},
	{words: []string{"anywhere", "except"}, op: OpMinus, loose: true},
	{words: []string{"everywhere", "but"}, op: OpMinus, loose: true},
	{words: []string{"everywhere", "except"}, op: OpMinus, loose: true},
	{words: []string{"nothing", "on"}, op: OpMinus, loose: true},
	{words: []string{"none", "from"}, op: OpMinus, loose: true},
	{words: []string{"none", "on"}, op: OpMinus, loose: true},
	{words: []string{"keep", "only"}, op: OpIntersect, loose: true},
	{words: []string{"keep", "just"}, op: OpIntersect, loose: true},
	{words: []string{"just", "keep"}, op: OpIntersect, loose: true},
	{words: []string{"show", "only"}, op: OpIntersect, loose: true},
	{words: []string{"only", "show"}, op: OpIntersect, loose: true},
	{words: []string{"filter", "to"}, op: OpIntersect, loose: true},
	{words: []string{"filter", "for"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "it", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "that", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "those", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "these", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "them", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "the", "result", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"restrict", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"limit", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"intersect", "with"}, op: OpIntersect, loose: true},
	{words: []string{"intersected", "with"}, op: OpIntersect, loose: true},
	{words: []string{"overlap", "with"}, op: OpIntersect, loose: true},
	{words: []string{"keeping", "only"}, op: OpIntersect, loose: true},
	{words: []string{"only", "keep"}, op: OpIntersect, loose: true},
	{words: []string{"but", "only"}, op: OpIntersect, loose: true},
	{words: []string{"restricted", "to"}, op: OpIntersect, loose: true},
	{words: []string{"restrict", "to"}, op: OpIntersect, loose: true},
	{words: []string{"restricting", "to"}, op: OpIntersect, loose: true},
	{words: []string{"keeping", "to"}, op: OpIntersect, loose: true},
	{words: []string{"sticking", "to"}, op: OpIntersect, loose: true},
	{words: []string{"keeping", "only"}, op: OpIntersect, loose: true},
	{words: []string{"keeping"}, op: OpIntersect, loose: true},
	{words: []string{"keep", "the", "ones"}, op: OpIntersect, loose: true},
	{words: []string{"restricting", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"limiting", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"confining", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"limiting", "to"}, op: OpIntersect, loose: true},
	{words: []string{"confined", "to"}, op: OpIntersect, loose: true},
	{words: []string{"confining", "to"}, op: OpIntersect, loose: true},
	{words: []string{"limited", "to"}, op: OpIntersect, loose: true},
	{words: []string{"limit", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrowed", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "it", "to"}, op: OpIntersect, loose: true},
	{words: []string{"narrow", "it", "down", "to"}, op: OpIntersect, loose: true},
	{words: []string{"only", "the", "ones"}, op: OpIntersect, loose: true},
	{words: []string{"just", "the", "ones"}, op: OpIntersect, loose: true},
	{words: []string{"only", "those"}, op: OpIntersect, loose: true},
	{words: []string{"just", "those"}, op: OpIntersect, loose: true},
	{words: []string{"keep", "what"}, op: OpIntersect, loose: true},
	{words: []string{"keep", "whatever"}, op: OpIntersect, loose: true},
	{words: []string{"but", "also"}, op: OpIntersect},
	{words: []string{"and", "also"}, op: OpIntersect},
	{words: []string{"as", "well", "as"}, op: OpUnion},
	{words: []string{"along", "with"}, op: OpUnion},
	{words: []string{"together", "with"}, op: OpUnion},
	{words: []string{"plus"}, op: OpUnion},
	{words: []string{"or"}, op: OpUnion},
	{words: []string{"and"}, op: OpIntersect},
	{words: []string{"&"}, op: OpIntersect},
}

// connectiveWords are the words connectives are made of, which are never
// species names or content. Read-only after initialisation.
var connectiveWords = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range connectives {
		for _, w := range c.words {
			m[w] = true
		}
	}
	return m
}()

// connectiveAt returns the connective starting at toks[i], if any.
func connectiveAt(toks []token, i int) (connective, bool) {
	if toks[i].quoted {
		return connective{}, false
	}
	// "3 or more", "2 or fewer" are bounds, not two clauses.
	if toks[i].low == "or" && i >= 1 && i+1 < len(toks) && isNumeric(toks[i-1].low) && boundWords[toks[i+1].low] {
		return connective{}, false
	}
	// "between 10 and 50" is a range, not two clauses.
	if toks[i].low == "and" && i >= 2 && toks[i-2].low == "between" && isNumeric(toks[i-1].low) {
		return connective{}, false
	}
	for _, c := range connectives {
		if i+len(c.words) > len(toks) {
			continue
		}
		ok := true
		for j, w := range c.words {
			if toks[i+j].low != w || toks[i+j].quoted {
				ok = false
				break
			}
		}
		if ok {
			return c, true
		}
	}
	return connective{}, false
}
