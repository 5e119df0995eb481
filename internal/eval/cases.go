package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Categories are the kinds of request the set covers, in report order.
var Categories = []string{
	"basic",         // one search, or two joined plainly
	"distribution",  // a qualifier applies to the whole list: (A or B) on chromosome 14
	"location-list", // "on chromosomes 5 and 6", "excluding chromosomes 13 and 14": unions of locations
	"clause",        // a GO id, gene id or gene type is one part of a clause
	"wrapper",       // "Can you find me…", "Show me X, then remove…", questions
	"vocabulary",    // synonyms, abbreviations, spellings, typos, GO ids in any case or replaced
	"organism",      // organisms the catalog has, and ones it lacks (refused)
	"follow-up",     // several messages in one conversation
	"approximate",   // no GO term or gene type: a text search, marked approximate
	"not-evaluable", // searches the offline snapshot cannot answer
	// The kinds below came with the intent cases: messages that are not
	// all search requests, and phrasings the first sets lacked.
	"structure",       // connectives, several sentences, ranges, long lists, "and" inside a GO name
	"context",         // a context phrase (a release, a thesis) before the request
	"exclusion-first", // "Without chromosome 7, …": the exclusion comes first
	"union",           // a process or a location: a union, not an intersection
	"synonym",         // GO's own synonyms of a term's name
	"typo",            // a typo anywhere in a word, its first letters too
	"question",        // a question about a gene, a GO term, a search or the result
	"confirm",         // a confirmation or a decline of a plan
	"unsupported",     // a request for something Strategist does not do
	"off-topic",       // not about genes at all
	"edit",            // a change to the strategy by a step's name, a correction, a return
	"lists",           // a request that names one of the researcher's gene lists
	"controls",        // control lists set on the conversation, and the strategy tested against them
	"ask",             // a phrase that maps to no search: a question back with its readings, nothing built
}

// CoreCategories are the categories every case file of the first sets
// (development and heldout) covers.
var CoreCategories = Categories[:10]

// Outcomes a case can expect.
const (
	OutcomeCount        = "count"         // the tree's exact count at the root
	OutcomeApproximate  = "approximate"   // a built answer marked approximate
	OutcomeNotEvaluable = "not_evaluable" // the named search, marked not evaluable, no number
	OutcomeRefused      = "refused"       // nothing built, and the answer says why
	OutcomeAnswered     = "answered"      // nothing built, and the answer says what the data says
	OutcomeNoBuild      = "no_build"      // nothing built (a decline, an off-topic message)
	OutcomeAsk          = "ask"           // nothing built, and the answer asks the researcher back
)

// Case is one line of a case file: a conversation and what it should leave.
type Case struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Messages []string `json:"messages"` // sent in order in one conversation, each in plan mode
	// Outcome is count (when empty), approximate, not_evaluable or refused.
	Outcome string `json:"outcome,omitempty"`
	// Tree is the strategy expected after the last message (count and
	// approximate); Count is its size, written down as a check on the file
	// and for readers.
	Tree  string `json:"tree,omitempty"`
	Count *int   `json:"count,omitempty"`
	// Search is the search a not_evaluable build must contain.
	Search string `json:"search,omitempty"`
	// Says lists words the answer to the last message must contain
	// (case-insensitive): a refusal's reason, an answer's facts, or, with a
	// count, words the reply must say beside the build.
	Says []string `json:"says,omitempty"`
	Note string   `json:"note,omitempty"`
	// Lists are gene lists the researcher has when the case starts,
	// uploaded before its conversation and deleted after it.
	Lists []CaseList `json:"lists,omitempty"`
	// Controls names two of Lists (either may be empty) as the
	// conversation's positive and negative controls.
	Controls *CaseControls `json:"controls,omitempty"`
}

// CaseList is a gene list a case uploads: its name and its text (ids in
// any case and separator, as a researcher pastes them).
type CaseList struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// CaseControls names a case's control lists by their names in Lists.
type CaseControls struct {
	Positives string `json:"positives,omitempty"`
	Negatives string `json:"negatives,omitempty"`
}

// Expectation is a case made concrete against the data.
type Expectation struct {
	Outcome string
	Tree    *Tree // nil for not_evaluable and refused
	Count   int   // the tree's size, computed from the raw files
	Search  string
	Says    []string
}

// LoadCases reads a JSON-lines case file; blank lines and lines starting
// with # or // are skipped.
func LoadCases(path string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: cases: %w", err)
	}
	var cases []Case
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var c Case
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("eval: %s line %d: %w", path, n, err)
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("eval: %s line %d: %w", path, n, err)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("eval: %s line %d: case id %s is used twice", path, n, c.ID)
		}
		for _, l := range c.Lists {
			// Cases run at once as one user: a name two lists share would
			// be ambiguous.
			if seen["list:"+strings.ToLower(l.Name)] {
				return nil, fmt.Errorf("eval: %s line %d: list name %q is used by another case", path, n, l.Name)
			}
			seen["list:"+strings.ToLower(l.Name)] = true
		}
		seen[c.ID] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	return cases, nil
}

// check validates a case's shape (not its tree against the data).
func (c Case) check() error {
	switch {
	case c.ID == "":
		return errors.New("a case without an id")
	case !slices.Contains(Categories, c.Category):
		return fmt.Errorf("case %s: unknown category %q", c.ID, c.Category)
	case len(c.Messages) == 0 || slices.Contains(c.Messages, ""):
		return fmt.Errorf("case %s: no message, or an empty one", c.ID)
	}
	names := map[string]bool{}
	for _, l := range c.Lists {
		if strings.TrimSpace(l.Name) == "" || strings.TrimSpace(l.Text) == "" || names[l.Name] {
			return fmt.Errorf("case %s: a list needs a name of its own and its genes", c.ID)
		}
		names[l.Name] = true
	}
	if ct := c.Controls; ct != nil {
		for _, n := range []string{ct.Positives, ct.Negatives} {
			if n != "" && !names[n] {
				return fmt.Errorf("case %s: control list %q is not one of its lists", c.ID, n)
			}
		}
	}
	switch c.outcome() {
	case OutcomeCount, OutcomeApproximate:
		if c.Tree == "" || c.Count == nil {
			return fmt.Errorf("case %s: a %s case needs a tree and its count", c.ID, c.outcome())
		}
	case OutcomeNotEvaluable:
		if c.Search == "" {
			return fmt.Errorf("case %s: a not_evaluable case names its search", c.ID)
		}
	case OutcomeRefused, OutcomeAnswered:
		if len(c.Says) == 0 {
			return fmt.Errorf("case %s: a %s case lists words the answer must say", c.ID, c.outcome())
		}
	case OutcomeNoBuild, OutcomeAsk:
	default:
		return fmt.Errorf("case %s: unknown outcome %q", c.ID, c.Outcome)
	}
	return nil
}

func (c Case) outcome() string {
	if c.Outcome == "" {
		return OutcomeCount
	}
	return c.Outcome
}

// Expect computes what the case expects from the raw data. It fails when
// the tree does not parse, names nothing in the data, disagrees with the
// count written in the file, or when an approximate case's tree has no
// text leaf (or a count case's tree has one).
func (c Case) Expect(d *Data) (Expectation, error) {
	e := Expectation{Outcome: c.outcome(), Search: c.Search, Says: c.Says}
	if c.Tree == "" {
		return e, nil
	}
	t, err := ParseTree(c.Tree)
	if err != nil {
		return e, fmt.Errorf("case %s: %w", c.ID, err)
	}
	if t.Approximate() != (e.Outcome == OutcomeApproximate) {
		return e, fmt.Errorf("case %s: a %s case's tree %s must have a text leaf exactly when the outcome is approximate", c.ID, e.Outcome, t)
	}
	genes, err := t.Eval(d)
	if err != nil {
		return e, fmt.Errorf("case %s: %w", c.ID, err)
	}
	e.Tree, e.Count = t, len(genes)
	if c.Count != nil && *c.Count != e.Count {
		return e, fmt.Errorf("case %s: the file says %d genes, the raw data %d for %s", c.ID, *c.Count, e.Count, t)
	}
	return e, nil
}
