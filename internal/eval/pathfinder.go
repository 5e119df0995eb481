package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// StructureCase is one conversation of PathFinder's acceptance corpus,
// converted: what the strategy should look like after the last message,
// at the level of its structure (built or not, searches and operators,
// steps, record type, stated parameters), not its counts or replies.
type StructureCase struct {
	ID       string   `json:"id"`
	Messages []string `json:"messages"`
	// Builds says whether a strategy should exist at the end; nil when
	// the corpus accepts either (asking back or building named searches).
	Builds *bool `json:"builds"`
	// Structure is the expected tree with search names only, in the tree
	// language's operators; "" when the corpus does not pin it.
	Structure     string                       `json:"structure,omitempty"`
	Steps         int                          `json:"steps,omitempty"`
	RootOperator  string                       `json:"rootOperator,omitempty"`
	RecordType    string                       `json:"recordType,omitempty"`
	Parameters    map[string]map[string]string `json:"parameters,omitempty"`
	OmitSearches  []string                     `json:"omitSearches,omitempty"` // searches no step may run
	Note          string                       `json:"note,omitempty"`
	normStructure string
}

// LoadStructureCases reads a JSON-lines file of structure cases; blank
// lines and lines starting with # are skipped.
func LoadStructureCases(path string) ([]StructureCase, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: structure cases: %w", err)
	}
	var cases []StructureCase
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var c StructureCase
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("eval: %s line %d: %w", path, n, err)
		}
		switch {
		case c.ID == "" || seen[c.ID]:
			return nil, fmt.Errorf("eval: %s line %d: a case without an id, or one used twice", path, n)
		case len(c.Messages) == 0:
			return nil, fmt.Errorf("eval: %s line %d: case %s has no message", path, n, c.ID)
		case c.Builds != nil && !*c.Builds && (c.Structure != "" || c.Steps != 0):
			return nil, fmt.Errorf("eval: %s line %d: case %s builds nothing but names a structure", path, n, c.ID)
		}
		if c.Structure != "" {
			norm, err := NormalizeStructure(c.Structure)
			if err != nil {
				return nil, fmt.Errorf("eval: %s line %d: case %s: %w", path, n, c.ID, err)
			}
			c.normStructure = norm
		}
		seen[c.ID] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	return cases, nil
}

// NormalizeStructure rewrites a structure (search names under INTERSECT,
// UNION and MINUS, or a transform's name over its input) with the
// operands of INTERSECT and UNION sorted, as Observation.Structure is.
func NormalizeStructure(s string) (string, error) {
	p := &structureParser{src: strings.TrimSpace(s)}
	out, err := p.node()
	if err != nil {
		return "", fmt.Errorf("structure %q: %w", s, err)
	}
	if p.pos != len(p.src) {
		return "", fmt.Errorf("structure %q: unexpected %q", s, p.src[p.pos:])
	}
	return out, nil
}

type structureParser struct {
	src string
	pos int
}

func (p *structureParser) node() (string, error) {
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune("(), ", rune(p.src[p.pos])) {
		p.pos++
	}
	name := p.src[start:p.pos]
	if name == "" {
		return "", fmt.Errorf("a name expected at %d", start)
	}
	if p.pos == len(p.src) || p.src[p.pos] != '(' {
		return name, nil
	}
	p.pos++
	var operands []string
	for {
		for p.pos < len(p.src) && p.src[p.pos] == ' ' {
			p.pos++
		}
		o, err := p.node()
		if err != nil {
			return "", err
		}
		operands = append(operands, o)
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
			break
		}
		return "", fmt.Errorf("',' or ')' expected at %d", p.pos)
	}
	switch name {
	case OpIntersect, OpUnion, OpMinus:
		if len(operands) < 2 {
			return "", fmt.Errorf("%s needs two operands", name)
		}
		return structureNode(name, operands), nil
	}
	return name + "(" + strings.Join(operands, ", ") + ")", nil
}

// StructureResult is one structure case played and scored: Pass, or the
// reasons it failed.
type StructureResult struct {
	Case        StructureCase
	Observation Observation
	Pass        bool
	Why         []string
	Err         error
}

// ScoreStructure compares what a conversation left with a structure case.
func ScoreStructure(c StructureCase, o Observation) (bool, []string) {
	var why []string
	if c.Builds != nil {
		switch {
		case *c.Builds && !o.Built:
			return false, []string{"nothing built"}
		case !*c.Builds && o.Built:
			return false, []string{"built " + o.Structure}
		}
	}
	if !o.Built {
		return true, nil
	}
	if c.normStructure != "" && c.normStructure != o.Structure {
		why = append(why, "structure "+o.Structure)
	}
	if c.Steps != 0 && c.Steps != o.Steps {
		why = append(why, fmt.Sprintf("%d steps, not %d", o.Steps, c.Steps))
	}
	if c.RootOperator != "" && !strings.HasPrefix(o.Structure, c.RootOperator+"(") {
		why = append(why, "root is not "+c.RootOperator)
	}
	if c.RecordType != "" && !strings.Contains(strings.ToLower(o.RecordType), strings.ToLower(c.RecordType)) {
		why = append(why, "record type "+o.RecordType)
	}
	for search, want := range c.Parameters {
		got, ok := o.Parameters[search]
		if !ok {
			continue // the structure check reports a missing search
		}
		for k, v := range want {
			if got[k] != v && !strings.Contains(got[k], `"`+v+`"`) {
				why = append(why, fmt.Sprintf("%s %s=%q, not %q", search, k, got[k], v))
			}
		}
	}
	for _, s := range c.OmitSearches {
		if _, ok := o.Parameters[s]; ok {
			why = append(why, "runs "+s)
		}
	}
	return len(why) == 0, why
}

// WriteStructureTable prints the structure cases' results: passes by what
// the corpus expects (a build, nothing built, either), the total, and
// each failure with why.
func WriteStructureTable(w io.Writer, name string, results []StructureResult) error {
	kinds := []string{"build", "no build", "either"}
	pass, total := map[string]int{}, map[string]int{}
	for _, r := range results {
		k := "either"
		if r.Case.Builds != nil {
			k = map[bool]string{true: "build", false: "no build"}[*r.Case.Builds]
		}
		total[k]++
		if r.Pass {
			pass[k]++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "expected\tcases\tpass\t")
	all, allPass := 0, 0
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", k, total[k], pass[k])
		all, allPass = all+total[k], allPass+pass[k]
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t\n", all, allPass)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("eval: structure table: %w", err)
	}
	fmt.Fprintf(w, "%s: %d of %d conversations leave the expected structure\n", name, allPass, all)
	for _, r := range results {
		if r.Pass {
			continue
		}
		why := strings.Join(r.Why, "; ")
		if r.Err != nil {
			why = "error: " + r.Err.Error()
		}
		if _, err := fmt.Fprintf(w, "%s: %s (conversation %s)\n", r.Case.ID, why, r.Observation.ConversationID); err != nil {
			return fmt.Errorf("eval: structure table: %w", err)
		}
	}
	return nil
}
