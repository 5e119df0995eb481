package catalogtool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"strategist/internal/catalog"
	"strategist/internal/english"
	"strategist/internal/tool"
)

// ParamsArgs are the arguments of get_search_parameters.
type ParamsArgs struct {
	RecordType      string `json:"record_type" jsonschema:"the search's record type, e.g. transcript"`
	SearchName      string `json:"search_name" jsonschema:"the search's name as search_for_searches gives it, e.g. GenesByGoTerm"`
	VocabularyQuery string `json:"vocabulary_query,omitempty" jsonschema:"words or an id to find in vocabularies too large to list, e.g. DNA repair"`
}

// Term is one allowed value of a parameter.
type Term struct {
	Term    string `json:"term"`
	Display string `json:"display,omitempty"` // left out when it is the term
	Parent  string `json:"parent,omitempty"`
	// Synonym is the term's synonym the vocabulary query named, when the
	// query matched a synonym rather than the term's name; Synonyms are
	// the synonyms that hold the query's words, when more than one does.
	Synonym  string   `json:"synonym,omitempty"`
	Synonyms []string `json:"synonyms,omitempty"`
	// Definition defines a term the vocabulary query named exactly (by
	// its id, name or a synonym), where the catalog has one.
	Definition string `json:"definition,omitempty"`
}

// ParamInfo is one parameter of a search, as a model needs it to fill it.
type ParamInfo struct {
	Name        string            `json:"name"`
	DisplayName string            `json:"displayName"`
	Type        catalog.ParamType `json:"type"`
	// Required is true when the parameter has no default and may not be
	// empty: a step cannot be built without it.
	Required bool `json:"required"`
	// Hidden parameters are not shown on the site's form; their default
	// is almost always right.
	Hidden bool   `json:"hidden,omitempty"`
	Help   string `json:"help,omitempty"`
	// Default is the value used when the parameter is left out, already in
	// wire encoding; absent when there is none.
	Default *string `json:"default,omitempty"`
	// Format says how to write a value, with an example.
	Format      string   `json:"format"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	MaxSelected int      `json:"maxSelected,omitempty"`
	// Values are the allowed terms: all of them for a small vocabulary,
	// examples or the matches of vocabulary_query for a large one.
	Values []Term `json:"values,omitempty"`
	// Suggestions are the terms nearest in spelling to a vocabulary_query
	// that matched none: possible meanings of a typo, not matches.
	Suggestions []Term `json:"suggestions,omitempty"`
	// VocabularySize is the full number of terms when Values is not all.
	VocabularySize int `json:"vocabularySize,omitempty"`
	// Matches is how many terms matched vocabulary_query, of which Values
	// shows the best.
	Matches        int    `json:"matches,omitempty"`
	VocabularyHint string `json:"vocabularyHint,omitempty"`
	// DependentParams are parameters whose allowed values change with
	// this one's value.
	DependentParams []string `json:"dependentParams,omitempty"`
}

// SearchDetails is the result of get_search_parameters.
type SearchDetails struct {
	Name        string             `json:"name"`
	DisplayName string             `json:"displayName"`
	RecordType  string             `json:"recordType"`
	Kind        catalog.SearchKind `json:"kind"`
	Summary     string             `json:"summary,omitempty"`
	Description string             `json:"description,omitempty"`
	Evaluable   bool               `json:"evaluable"`
	// OfflineNote says what the offline snapshot can answer for the search.
	OfflineNote string `json:"offlineNote,omitempty"`
	// Note reports a correction made to the request (another record type).
	Note string `json:"note,omitempty"`
	// InputParams are the input-step parameters, wired by the graph tools
	// (transform_step, combine_steps), never given a value.
	InputParams []string    `json:"inputParams,omitempty"`
	Parameters  []ParamInfo `json:"parameters"`
	Encoding    string      `json:"encoding"`
}

// encodingNote is the rule every parameter value follows.
const encodingNote = "Every value is a string in the site's encoding: multi-pick values are JSON-array strings such as " +
	`"[\"a\",\"b\"]"` + ", single-pick values one term, numbers written as strings. Send terms, not display labels. " +
	"Leave a parameter out to use its default."

// GetSearchParameters is the get_search_parameters tool.
func (s *Set) GetSearchParameters(ctx context.Context, a ParamsArgs) (*SearchDetails, error) {
	name := strings.TrimSpace(a.SearchName)
	search, err := s.cat.Search(ctx, s.site, a.RecordType, name)
	note := ""
	if errors.Is(err, catalog.ErrNotFound) && a.RecordType != "" {
		// The model often guesses the record type ("gene"); a search's
		// name is unique within a site, so say which one it belongs to.
		if found, anyErr := s.cat.Search(ctx, s.site, "", name); anyErr == nil {
			search, err = found, nil
			note = fmt.Sprintf("%s is a search of record type %q, not %q; use %q", name, found.RecordType, a.RecordType, found.RecordType)
		}
	}
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, s.unknownSearch(ctx, name, err)
	}
	if err != nil {
		return nil, ToolError("get search parameters", err)
	}
	out := &SearchDetails{
		Name: search.Name, DisplayName: search.DisplayName, RecordType: search.RecordType, Kind: search.Kind,
		Summary: search.Summary, Description: search.Description, Evaluable: search.Evaluable, Note: note,
		InputParams: search.InputParams, Parameters: []ParamInfo{}, Encoding: encodingNote,
	}
	if n, ok := s.cat.(siteNoter); ok {
		out.OfflineNote = n.OfflineNoteFor(s.site, search.Name)
	} else if n, ok := s.cat.(offlineNoter); ok {
		out.OfflineNote = n.OfflineNote(search.Name)
	}
	query := strings.TrimSpace(a.VocabularyQuery)
	for _, p := range search.Params {
		if p.Type == catalog.ParamInputStep {
			continue
		}
		out.Parameters = append(out.Parameters, s.paramInfo(p, query))
	}
	return out, nil
}

// unknownSearch is NOT_FOUND with the closest search names: near
// spellings of the name first, then the searches its words rank best.
func (s *Set) unknownSearch(ctx context.Context, name string, cause error) error {
	msg := fmt.Sprintf("site %s has no search %q", s.site, name)
	details := map[string]any{"search": name}
	var names []string
	if all, err := s.cat.Searches(ctx, s.site, ""); err == nil {
		names = nearNames(name, all)
	}
	if ranked, err := s.cat.SearchForSearches(ctx, s.site, name, "", maxSuggestions); err == nil {
		for _, r := range ranked {
			if !slices.Contains(names, r.Name) {
				names = append(names, r.Name)
			}
		}
	}
	if len(names) > 0 {
		names = names[:min(len(names), maxSuggestions)]
		details["suggestions"] = names
		msg += "; did you mean " + strings.Join(names, ", ") + "?"
	}
	return &tool.ToolError{Code: CodeNotFound, Message: msg, Details: details, Err: cause}
}

// maxSuggestions bounds the search names offered for an unknown one.
const maxSuggestions = 3

// nearNames returns the search names within a few edits of name (case
// ignored), closest first.
func nearNames(name string, searches []catalog.SearchSummary) []string {
	type near struct {
		name string
		dist int
	}
	want := strings.ToLower(name)
	limit := max(2, len(want)/4)
	var found []near
	for _, s := range searches {
		if d, ok := english.Near(want, strings.ToLower(s.Name), limit); ok {
			found = append(found, near{s.Name, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return cmp.Compare(a.dist, b.dist) })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// paramInfo describes p, its vocabulary trimmed to what helps a model.
func (s *Set) paramInfo(p catalog.Param, query string) ParamInfo {
	info := ParamInfo{
		Name: p.Name, DisplayName: p.DisplayName, Type: p.Type, Hidden: !p.IsVisible, Help: p.Help,
		Required: !p.HasDefault && !p.AllowEmpty && !p.SiteDefault, Min: p.Min, Max: p.Max,
		DependentParams: p.DependentParams, Format: format(p),
	}
	if p.HasDefault {
		info.Default = ptr(p.Default)
	}
	if p.Type == catalog.ParamMultiPick && p.MaxSelected > 0 {
		info.MaxSelected = p.MaxSelected
	}
	if p.Type != catalog.ParamSinglePick && p.Type != catalog.ParamMultiPick {
		return info
	}
	size := max(p.VocabularySize, len(p.Vocabulary))
	switch {
	case size == 0:
		info.VocabularyHint = "the allowed values are not listed by this catalog; use values the help text names"
	case size <= s.maxTerms && len(p.Vocabulary) == size:
		info.Values = terms(p.Vocabulary)
	case query != "":
		matches := MatchTerms(p.Vocabulary, query)
		info.VocabularySize, info.Matches = size, len(matches)
		info.Values = terms(matches[:min(len(matches), s.maxTerms)])
		for i, m := range matches[:len(info.Values)] {
			if len(m.Synonyms) == 1 { // MatchTerms keeps the synonyms a term was found by
				info.Values[i].Synonym = m.Synonyms[0]
			} else {
				info.Values[i].Synonyms = m.Synonyms // none, or several
			}
			if len(m.Synonyms) == 1 || strings.EqualFold(m.Term, query) || strings.EqualFold(termName(m), query) {
				info.Values[i].Definition = m.Definition
			}
		}
		switch {
		case len(matches) == 0:
			near := NearTerms(p.Vocabulary, query)
			info.Suggestions = terms(near)
			for i, m := range near {
				if len(m.Synonyms) == 1 {
					info.Suggestions[i].Synonym = m.Synonyms[0]
				}
			}
			info.VocabularyHint = fmt.Sprintf("none of the %d terms matches %q; try fewer or other words, or an id", size, query)
			if len(info.Suggestions) > 0 {
				info.VocabularyHint = fmt.Sprintf("none of the %d terms matches %q; suggestions lists the %d nearest in spelling (a typo?), "+
					"which are not matches: use one only if it is what was meant", size, query, len(info.Suggestions))
			}
		case len(matches) > s.maxTerms:
			info.VocabularyHint = fmt.Sprintf("%d of %d terms match %q; the best %d are shown, use more specific words to narrow them", len(matches), size, query, s.maxTerms)
		default:
			info.VocabularyHint = fmt.Sprintf("the %d terms matching %q; send the term, not its display label", len(matches), query)
		}
	default:
		info.VocabularySize = size
		info.Values = terms(p.Vocabulary[:min(vocabularyExamples, len(p.Vocabulary))])
		info.VocabularyHint = fmt.Sprintf("%d terms, too many to list; %d examples shown. Call get_search_parameters again with vocabulary_query "+
			"set to words of the value you need (or its id) to see the matching terms", size, len(info.Values))
	}
	return info
}

func terms(ts []catalog.Term) []Term {
	out := make([]Term, len(ts))
	for i, t := range ts {
		out[i] = Term{Term: t.Term, Parent: t.Parent}
		if t.Display != t.Term {
			out[i].Display = t.Display
		}
	}
	return out
}

// MatchTerms returns the terms whose term or display label contains every
// word of query (case ignored), or one of whose synonyms is the query or
// contains its every word, best first: the label or term is the query,
// then one of its synonyms is (whatever its label holds), then the label
// begins with it, then contains it as written, then has its words apart,
// then only a synonym has them; shorter labels first within each. A term
// matched by a synonym carries that synonym.
func MatchTerms(vocab []catalog.Term, query string) []catalog.Term {
	q := strings.ToLower(strings.TrimSpace(query))
	words := strings.Fields(q)
	type ranked struct {
		t    catalog.Term
		rank int
	}
	var hits []ranked
	for _, t := range vocab {
		term, label := strings.ToLower(t.Term), strings.ToLower(t.Display)
		text := term + " " + label
		named := label == q || term == q || strings.ToLower(termName(t)) == q
		if i := slices.IndexFunc(t.Synonyms, func(s string) bool { return strings.ToLower(s) == q }); i >= 0 && !named {
			// A synonym that is the query outranks a name that only
			// contains its words, this term's own name included.
			hit := t
			hit.Synonyms = []string{t.Synonyms[i]}
			hits = append(hits, ranked{t: hit, rank: 1})
			continue
		}
		if !allIn(words, text) {
			// A term whose own name lacks the words but one of whose GO
			// synonyms holds them all ("host invasion" for "invasion")
			// comes after every name that holds them, with that synonym.
			held := slices.DeleteFunc(slices.Clone(t.Synonyms), func(s string) bool { return !allIn(words, strings.ToLower(s)) })
			if len(held) > 0 {
				hit := t
				hit.Synonyms = held
				hits = append(hits, ranked{t: hit, rank: 5})
			}
			continue
		}
		rank := 4
		switch {
		case named:
			rank = 0
		case strings.HasPrefix(label, q) || strings.HasPrefix(term, q):
			rank = 2
		case strings.Contains(text, q):
			rank = 3
		}
		t.Synonyms = nil
		hits = append(hits, ranked{t: t, rank: rank})
	}
	slices.SortStableFunc(hits, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(len(a.t.Display), len(b.t.Display)))
	})
	out := make([]catalog.Term, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// maxTermSuggestions bounds the near spellings offered for a
// vocabulary_query that matched nothing.
const maxTermSuggestions = 5

// NearTerms returns the terms whose name (the display label without its
// id) or term is within a typo of query, nearest first, at most
// maxTermSuggestions: the whole query against the whole name ("DNA
// repiar" is one swap from "DNA repair"), else each word of the query
// against a word of the name; or a whole synonym within a typo of the
// query (the suggestion carries it). Edits are counted by english.Near, where
// a swap of neighbours is one; how many a word may have grows with its
// length (english.TypoTolerance), so short words must be exact.
func NearTerms(vocab []catalog.Term, query string) []catalog.Term {
	q := strings.ToLower(strings.TrimSpace(query))
	words := strings.Fields(q)
	// rank 0: the whole query is near the whole name; 1: word by word.
	type near struct {
		t          catalog.Term
		dist, rank int
	}
	var found []near
	tol := english.TypoTolerance(utf8.RuneCountInString(q))
	for _, t := range vocab {
		name := strings.ToLower(termName(t))
		d, ok := english.Near(q, name, tol)
		if dt, okt := english.Near(q, strings.ToLower(t.Term), tol); okt && (!ok || dt < d) {
			d, ok = dt, true
		}
		if ok {
			t.Synonyms = nil
			found = append(found, near{t: t, dist: d})
			continue
		}
		// A typo of one of GO's synonyms ("apoptosys" for "apoptosis")
		// suggests its term, carrying the synonym.
		if i, d := nearestSynonym(q, tol, t.Synonyms); i >= 0 {
			t.Synonyms = []string{t.Synonyms[i]}
			found = append(found, near{t: t, dist: d})
			continue
		}
		t.Synonyms = nil
		if d, ok := wordsNear(words, strings.Fields(name)); ok {
			found = append(found, near{t: t, dist: d, rank: 1})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.rank, b.rank), cmp.Compare(len(a.t.Display), len(b.t.Display)))
	})
	out := make([]catalog.Term, 0, min(len(found), maxTermSuggestions))
	for _, f := range found[:min(len(found), maxTermSuggestions)] {
		out = append(out, f.t)
	}
	return out
}

// nearestSynonym returns the synonym within tol edits of q (a typo of
// it), nearest first, and its distance; -1 when none is.
func nearestSynonym(q string, tol int, synonyms []string) (int, int) {
	best, dist := -1, 0
	for i, s := range synonyms {
		if d, ok := english.Near(q, strings.ToLower(s), tol); ok && (best < 0 || d < dist) {
			best, dist = i, d
		}
	}
	return best, dist
}

// wordsNear reports whether every word of want is within a typo of some
// word of have, and the edits that takes in all.
func wordsNear(want, have []string) (int, bool) {
	if len(want) == 0 {
		return 0, false
	}
	total := 0
	for _, w := range want {
		best := -1
		for _, h := range have {
			if d, ok := english.Near(w, h, english.TypoTolerance(utf8.RuneCountInString(w))); ok && (best < 0 || d < best) {
				best = d
			}
		}
		if best < 0 {
			return 0, false
		}
		total += best
	}
	return total, true
}

// termName is a term's display label without the " (term)" that labels
// such as "DNA repair (GO:0006281)" carry, nor what follows it.
func termName(t catalog.Term) string {
	if i := strings.Index(t.Display, " ("+t.Term+")"); i > 0 {
		return t.Display[:i]
	}
	if t.Display == "" {
		return t.Term
	}
	return t.Display
}

func allIn(words []string, text string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// format says how to write a value of p, with an example taken from its
// default or vocabulary where there is one.
func format(p catalog.Param) string {
	example := func(fallback string) string {
		if p.HasDefault && p.Default != "" {
			return p.Default
		}
		if t, ok := firstLeaf(p.Vocabulary); ok {
			if p.Type == catalog.ParamMultiPick {
				return catalog.EncodeTerms([]string{t})
			}
			return t
		}
		return fallback
	}
	switch p.Type {
	case catalog.ParamMultiPick:
		f := "a JSON-array string of terms, e.g. " + strconv.Quote(example(`["term"]`))
		if p.MaxSelected == 1 {
			f += " (exactly one term)"
		}
		return f
	case catalog.ParamSinglePick:
		return "one term, e.g. " + strconv.Quote(example("term"))
	case catalog.ParamNumberRange:
		return `a JSON object string with both ends, e.g. "{\"min\":\"1\",\"max\":\"5\"}"`
	case catalog.ParamNumber:
		return "a number written as a string, e.g. " + strconv.Quote(example("10"))
	case catalog.ParamTimestamp:
		return "whole seconds since 1970, as a string"
	case catalog.ParamDate:
		return `a date "YYYY-MM-DD"`
	case catalog.ParamDateRange:
		return `a JSON object string, e.g. "{\"min\":\"2020-01-01\",\"max\":\"2020-12-31\"}"`
	case catalog.ParamInputDataset:
		return "a dataset value; see help for what this catalog accepts"
	case catalog.ParamFilter:
		return "a JSON filter string; see help"
	}
	if p.IsNumber {
		return "a number written as a string, e.g. " + strconv.Quote(example("10"))
	}
	if p.HasDefault && p.Default != "" {
		return "text, e.g. " + strconv.Quote(p.Default)
	}
	return "text"
}

// firstLeaf returns the first term that is no other term's parent: in a
// tree vocabulary (organisms) a leaf is what a search usually wants.
func firstLeaf(vocab []catalog.Term) (string, bool) {
	parents := make(map[string]bool, len(vocab))
	for _, t := range vocab {
		if t.Parent != "" {
			parents[t.Parent] = true
		}
	}
	for _, t := range vocab {
		if !parents[t.Term] {
			return t.Term, true
		}
	}
	return "", false
}
