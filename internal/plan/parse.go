package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"strategist/internal/strategy"
)

// The keys each kind of node may have. Anything else is refused by name:
// a key the parser ignored silently (an "id", a "hint" on a combine) would
// be an instruction the model believes was followed.
var (
	taskKeys       = []string{"type", "task", "hint", "context", "input"}
	combineKeys    = []string{"type", "operator", "left", "right", "displayName", "colocation"}
	stepKeys       = []string{"type", "stepId"}
	colocationKeys = []string{"upstream", "downstream", "strand"}
)

// Parse validates a delegation plan, a nested tree of these nodes:
//
//	{"type":"task","task":"...","hint"?:"...","context"?:{...},"input"?:<node>}
//	{"type":"combine","operator":"...","left":<node>,"right":<node>,
//	 "displayName"?:"...","colocation"?:{"upstream":n,"downstream":n,"strand"?:"same|opposite|both"}}
//	{"type":"step","stepId":"s3"}
//
// A task with an input transforms the result of that node. A step node
// reuses a step of the conversation's strategy (a follow-up edits what
// exists): it may stand wherever a task may, each step at most once in a
// plan; whether the step exists is checked against the strategy when the
// plan is built (CheckSteps). Operators go
// through strategy.ParseOperator (AND, OR, NOT, MINUS_LEFT, LMINUS,
// MINUS_RIGHT are accepted aliases); COLOCATE needs its colocation
// (upstream and downstream distances in bases, strand "both" when
// omitted), which no other operator takes. A null optional key counts as
// absent. A rejected plan is a *PlanError listing every problem with its
// JSON pointer.
func Parse(raw json.RawMessage) (*Plan, error) {
	p := &parser{}
	data := bytes.TrimSpace(raw)
	switch {
	case len(data) == 0 || string(data) == "null":
		p.add("", "a plan is required: a task, combine or step node object")
	case len(raw) > MaxPlanBytes:
		p.add("", fmt.Sprintf("the plan is %d bytes; at most %d", len(raw), MaxPlanBytes))
	case !utf8.Valid(data):
		p.add("", "the plan is not valid UTF-8")
	case !json.Valid(data):
		p.add("", "the plan is not valid JSON")
	default:
		root := p.node(data, "", 1)
		if p.tasks > MaxTasks {
			p.add("", fmt.Sprintf("the plan has %d tasks; at most %d (merge small tasks or build in several delegations)", p.tasks, MaxTasks))
		}
		if len(p.list) == 0 {
			return &Plan{Root: root, Nodes: p.nodes}, nil
		}
	}
	return nil, p.err()
}

// parser walks a plan depth-first, collecting problems and nodes; nodes
// are appended after their inputs, which numbers them in post-order.
type parser struct {
	problems
	nodes []Node
	tasks int
	steps []strategy.StepID // reused so far, to refuse a step reused twice
}

// pointer appends an escaped key to a JSON pointer (RFC 6901).
func pointer(path, key string) string {
	return path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// jsonKind names the JSON type of a valid value, for messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// object decodes a JSON object; ok is false (and a problem recorded) for
// any other value.
func (p *parser) object(v json.RawMessage, path, what string) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		p.add(path, fmt.Sprintf("%s must be an object, not %s", what, jsonKind(v)))
		return nil, false
	}
	return obj, true
}

// node checks one node and its subtree and returns the id it was given.
func (p *parser) node(v json.RawMessage, path string, depth int) string {
	if depth > MaxDepth {
		p.add(path, fmt.Sprintf("the plan nests deeper than %d levels; flatten it", MaxDepth))
		return ""
	}
	obj, ok := p.object(v, path, "a plan node")
	if !ok {
		return ""
	}
	typ, typed := p.nodeType(obj, path)
	switch typ {
	case KindTask:
		return p.task(obj, path, depth)
	case KindCombine:
		return p.combine(obj, path, depth)
	case KindStep:
		return p.step(obj, path)
	}
	// Without a type the keys cannot be checked, but the children can.
	if !typed {
		for _, k := range []string{"input", "left", "right"} {
			if c, ok := obj[k]; ok && !isNull(c) {
				p.node(c, pointer(path, k), depth+1)
			}
		}
	}
	return ""
}

// nodeType reads "type"; typed is false when it is missing or unknown.
func (p *parser) nodeType(obj map[string]json.RawMessage, path string) (Kind, bool) {
	names := kindNames()
	raw, ok := obj["type"]
	if !ok || isNull(raw) {
		p.add(pointer(path, "type"), `missing: every node needs "type": `+quotedList(names), names...)
		return KindUnknown, false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.add(pointer(path, "type"), fmt.Sprintf("must be a string, not %s", jsonKind(raw)), names...)
		return KindUnknown, false
	}
	var k Kind
	if err := k.UnmarshalText([]byte(strings.ToLower(strings.TrimSpace(s)))); err != nil || k == KindUnknown {
		p.add(pointer(path, "type"), fmt.Sprintf(`unknown node type %q (use %s)`, s, quotedList(names)), names...)
		return KindUnknown, false
	}
	return k, true
}

// quotedList renders names as "a", "b" or "c".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// unknownKeys refuses keys outside allowed, in sorted order.
func (p *parser) unknownKeys(obj map[string]json.RawMessage, path, what string, allowed []string) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(allowed, k) {
			p.add(pointer(path, k), fmt.Sprintf("unknown key %q: %s has only %s", k, what, strings.Join(allowed, ", ")), allowed...)
		}
	}
}

func (p *parser) task(obj map[string]json.RawMessage, path string, depth int) string {
	p.tasks++
	p.unknownKeys(obj, path, "a task node", taskKeys)
	n := Node{Kind: KindTask, Path: path, DependsOn: []string{}}
	if raw, ok := obj["task"]; !ok || isNull(raw) {
		p.add(pointer(path, "task"), "missing: a task node needs the text of its task")
	} else if s, ok := p.text(raw, pointer(path, "task"), MaxTaskLength); ok {
		if s == "" {
			p.add(pointer(path, "task"), "the task text is empty")
		}
		n.Task = s
	}
	if raw, ok := obj["hint"]; ok && !isNull(raw) {
		n.Hint, _ = p.text(raw, pointer(path, "hint"), MaxHintLength)
	}
	if raw, ok := obj["context"]; ok && !isNull(raw) {
		n.Context = p.context(raw, pointer(path, "context"))
	}
	if raw, ok := obj["input"]; ok && !isNull(raw) {
		n.Input = p.node(raw, pointer(path, "input"), depth+1)
		if n.Input != "" {
			n.DependsOn = []string{n.Input}
		}
	}
	n.Label = taskLabel(n.Task)
	return p.emit(n)
}

func (p *parser) combine(obj map[string]json.RawMessage, path string, depth int) string {
	p.unknownKeys(obj, path, "a combine node", combineKeys)
	n := Node{Kind: KindCombine, Path: path}
	opKnown := false
	if raw, ok := obj["operator"]; !ok || isNull(raw) {
		p.add(pointer(path, "operator"), "missing: a combine node needs an operator", operatorNames()...)
	} else {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			p.add(pointer(path, "operator"), fmt.Sprintf("must be a string, not %s", jsonKind(raw)), operatorNames()...)
		} else if op, err := strategy.ParseOperator(s); err != nil {
			p.add(pointer(path, "operator"), err.Error(), operatorNames()...)
		} else {
			n.Operator, opKnown = op, true
		}
	}
	if raw, ok := obj["displayName"]; ok && !isNull(raw) {
		if s, ok := p.text(raw, pointer(path, "displayName"), strategy.MaxNameLength); ok {
			if strings.ContainsFunc(s, unicode.IsControl) {
				p.add(pointer(path, "displayName"), "a display name cannot contain control characters")
			}
			n.DisplayName = s
		}
	}
	raw, hasCol := obj["colocation"]
	hasCol = hasCol && !isNull(raw)
	switch {
	case hasCol && opKnown && n.Operator != strategy.Colocate:
		p.add(pointer(path, "colocation"), fmt.Sprintf("colocation belongs to COLOCATE, not %s; remove it", n.Operator))
	case hasCol:
		n.Colocation = p.colocation(raw, pointer(path, "colocation"))
	case opKnown && n.Operator == strategy.Colocate:
		p.add(pointer(path, "colocation"), `missing: COLOCATE needs "colocation": {"upstream": bases, "downstream": bases, "strand": "both"|"same"|"opposite"}`)
	}
	for _, side := range []string{"left", "right"} {
		var id string
		if c, ok := obj[side]; !ok || isNull(c) {
			p.add(pointer(path, side), "missing: a combine node needs both left and right nodes")
		} else {
			id = p.node(c, pointer(path, side), depth+1)
		}
		if side == "left" {
			n.Left = id
		} else {
			n.Right = id
		}
	}
	n.DependsOn = []string{n.Left, n.Right}
	return p.emit(n)
}

// stepIDPattern is the form of the strategy's step ids (s1, s2, ...).
var stepIDPattern = regexp.MustCompile(`^s[1-9][0-9]{0,8}$`)

func (p *parser) step(obj map[string]json.RawMessage, path string) string {
	p.unknownKeys(obj, path, "a step node", stepKeys)
	n := Node{Kind: KindStep, Path: path, DependsOn: []string{}}
	at := pointer(path, "stepId")
	raw, ok := obj["stepId"]
	if !ok || isNull(raw) {
		p.add(at, `missing: a step node names the existing step it reuses, e.g. "stepId": "s3" (get_strategy lists them)`)
		return p.emit(n)
	}
	s, ok := p.text(raw, at, 32)
	if !ok {
		return p.emit(n)
	}
	switch id := strategy.StepID(s); {
	case !stepIDPattern.MatchString(s):
		p.add(at, fmt.Sprintf(`%q is not a step id; step ids look like "s3" (get_strategy lists them)`, s))
	case slices.Contains(p.steps, id):
		p.add(at, fmt.Sprintf("step %s is already reused by this plan; a step is the input of at most one node", id))
	default:
		p.steps = append(p.steps, id)
		n.StepID = id
		n.Label = "step " + s
	}
	return p.emit(n)
}

// emit numbers a node after its inputs and keeps it.
func (p *parser) emit(n Node) string {
	n.ID = "n" + strconv.Itoa(len(p.nodes)+1)
	if n.Kind == KindCombine && n.Label == "" {
		n.Label = n.DisplayName
		if n.Label == "" {
			n.Label = fmt.Sprintf("%s %s %s", n.Left, n.Operator, n.Right)
		}
	}
	p.nodes = append(p.nodes, n)
	return n.ID
}

// text reads a string, trims it and checks its length and that it has no
// NUL (which Postgres text cannot hold).
func (p *parser) text(raw json.RawMessage, path string, max int) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.add(path, fmt.Sprintf("must be a string, not %s", jsonKind(raw)))
		return "", false
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > max {
		p.add(path, fmt.Sprintf("%d characters; at most %d", n, max))
		return "", false
	}
	if strings.ContainsRune(s, 0) {
		p.add(path, "must not contain NUL characters")
		return "", false
	}
	return s, true
}

// context checks a task's context object and returns it compacted.
func (p *parser) context(raw json.RawMessage, path string) json.RawMessage {
	if _, ok := p.object(raw, path, "context"); !ok {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil { // raw is valid JSON
		p.add(path, "not valid JSON")
		return nil
	}
	if buf.Len() > MaxContextBytes {
		p.add(path, fmt.Sprintf("the context is %d bytes; at most %d", buf.Len(), MaxContextBytes))
		return nil
	}
	var v any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil || hasNUL(v) {
		p.add(path, "must not contain NUL characters")
		return nil
	}
	return buf.Bytes()
}

// hasNUL reports whether a decoded JSON value has a NUL in a key or string.
func hasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, 0)
	case []any:
		return slices.ContainsFunc(x, hasNUL)
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, 0) || hasNUL(e) {
				return true
			}
		}
	}
	return false
}

// colocation checks COLOCATE's parameters: distances are whole numbers of
// bases within strategy.MaxColocationDistance; strand defaults to both.
func (p *parser) colocation(raw json.RawMessage, path string) *strategy.Colocation {
	obj, ok := p.object(raw, path, "colocation")
	if !ok {
		return nil
	}
	p.unknownKeys(obj, path, "colocation", colocationKeys)
	c := &strategy.Colocation{Strand: strategy.StrandBoth}
	good := true
	for _, k := range []string{"upstream", "downstream"} {
		d, ok := p.distance(obj[k], pointer(path, k))
		good = good && ok
		if k == "upstream" {
			c.Upstream = d
		} else {
			c.Downstream = d
		}
	}
	if s, ok := obj["strand"]; ok && !isNull(s) {
		var name string
		if err := json.Unmarshal(s, &name); err != nil {
			p.add(pointer(path, "strand"), fmt.Sprintf("must be a string, not %s", jsonKind(s)), "both", "same", "opposite")
			good = false
		} else if st, err := strategy.ParseStrand(name); err != nil {
			p.add(pointer(path, "strand"), fmt.Sprintf("unknown strand %q (use both, same or opposite)", name), "both", "same", "opposite")
			good = false
		} else {
			c.Strand = st
		}
	}
	if !good {
		return nil
	}
	return c
}

func (p *parser) distance(raw json.RawMessage, path string) (int, bool) {
	if raw == nil || isNull(raw) {
		p.add(path, "missing: COLOCATE needs upstream and downstream distances in bases (0 or more)")
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		if jsonKind(raw) == "a number" {
			p.add(path, fmt.Sprintf("must be at most %d bases", strategy.MaxColocationDistance))
		} else {
			p.add(path, fmt.Sprintf("must be a number of bases, not %s", jsonKind(raw)))
		}
		return 0, false
	}
	switch {
	case f != math.Trunc(f):
		p.add(path, fmt.Sprintf("must be a whole number of bases, not %v", f))
	case f < 0:
		p.add(path, fmt.Sprintf("must be 0 or more, not %v", f))
	case f > strategy.MaxColocationDistance:
		p.add(path, fmt.Sprintf("must be at most %d bases, not %v", strategy.MaxColocationDistance, f))
	default:
		return int(f), true
	}
	return 0, false
}

func operatorNames() []string {
	ops := strategy.Operators()
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = string(o)
	}
	return names
}

// taskLabel is the first line of a task, clipped for display.
func taskLabel(task string) string {
	line, _, _ := strings.Cut(task, "\n")
	return Clip(strings.TrimSpace(line), 80)
}

// Clip shortens s to at most max characters, marking the cut.
func Clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}
