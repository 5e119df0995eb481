package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"strategist/internal/agent"
	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/subagent"
	"strategist/internal/tool"
)

// tools are the planner's own tools, bound to one turn.
type tools struct {
	store      Store
	catalog    catalog.Catalog
	strategies graphtool.Reader
	lists      Lists
	env        agent.Env
}

const saveArtifactDoc = `Save a planning artifact the researcher can read: what you understood, which searches and parameters you chose and why, and your assumptions. Markdown summary. Pass artifact_id to revise an earlier one (a new version is kept).`

// SaveArtifactArgs are save_planning_artifact's arguments.
type SaveArtifactArgs struct {
	Title           string         `json:"title" jsonschema:"short title"`
	SummaryMarkdown string         `json:"summary_markdown" jsonschema:"the plan in markdown: what was understood, searches and parameters chosen, open questions"`
	Assumptions     []string       `json:"assumptions,omitempty" jsonschema:"assumptions the researcher should check"`
	Parameters      map[string]any `json:"parameters,omitempty" jsonschema:"key choices, e.g. search names and parameter values"`
	ArtifactID      string         `json:"artifact_id,omitempty" jsonschema:"id of an artifact to revise"`
}

// SavedArtifact is what saving an artifact returns to the model.
type SavedArtifact struct {
	ArtifactID string             `json:"artifactId"`
	Kind       event.ArtifactKind `json:"kind"`
	Version    int                `json:"version"`
	Warnings   []string           `json:"warnings,omitempty"`
	Tasks      int                `json:"tasks,omitempty"`
	Nodes      []string           `json:"nodes,omitempty"`
}

func (t *tools) savePlanningArtifact(ctx context.Context, a SaveArtifactArgs) (*SavedArtifact, error) {
	title := strings.TrimSpace(a.Title)
	if title == "" || strings.TrimSpace(a.SummaryMarkdown) == "" {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "title and summary_markdown must not be empty"}
	}
	params, err := json.Marshal(orEmpty(a.Parameters))
	if err != nil {
		return nil, err
	}
	body := artifactBody{SummaryMarkdown: a.SummaryMarkdown, Assumptions: orNone(a.Assumptions), Parameters: params}
	saved, err := t.save(ctx, a.ArtifactID, event.ArtifactPlanning, limit(title, 200), body)
	if err != nil {
		return nil, err
	}
	return &SavedArtifact{ArtifactID: saved.ID, Kind: saved.Kind, Version: saved.Version}, nil
}

const saveDraftDoc = `Save the delegation plan the executor will build, validated now. plan is a nested tree:
{"type":"task","task":"what to find","hint":"which search and why","context":{"searchName":"GenesByGoTerm","parameters":{"go_typeahead":"[\"GO:0006260\"]"}}}
or {"type":"combine","operator":"UNION|INTERSECT|MINUS|RMINUS|LONLY|RONLY|COLOCATE","left":<node>,"right":<node>,"displayName":"..."}
or {"type":"step","stepId":"s3"} to reuse a step of the existing strategy (get_strategy lists them), wherever a task could stand: a follow-up edits what exists, e.g. MINUS(step <root>, <new task>).
A task with "input":<node> transforms that node's result. Put the search name and parameter values you verified with get_search_parameters in each task's context. When built, the plan's result becomes the whole strategy: steps it does not use are removed (Undo brings them back). Problems come back with JSON-pointer paths; fix them and save again.`

// SaveDraftArgs are save_delegation_draft's arguments.
type SaveDraftArgs struct {
	Goal string          `json:"goal" jsonschema:"the researcher's goal in one sentence"`
	Plan json.RawMessage `json:"plan" jsonschema:"the nested task/combine tree"`
}

func (t *tools) saveDelegationDraft(ctx context.Context, a SaveDraftArgs) (*SavedArtifact, error) {
	goal := strings.TrimSpace(a.Goal)
	if goal == "" {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "goal must not be empty",
			Details: map[string]any{"problems": []tool.Problem{{Field: "/goal", Problem: "empty"}}}}
	}
	p, err := subagent.ParseArg(a.Plan, "/plan")
	if err != nil {
		return nil, err
	}
	if err := t.checkSteps(ctx, p); err != nil {
		return nil, err
	}
	tree, err := p.Tree()
	if err != nil {
		return nil, err
	}
	warnings := t.preflight(ctx, p)
	validation, err := json.Marshal(map[string]any{
		"valid": true, "tasks": p.Tasks(), "nodes": len(p.Nodes), "warnings": orNone(warnings),
	})
	if err != nil {
		return nil, err
	}
	body := artifactBody{
		Goal: goal, SummaryMarkdown: draftSummary(goal, p), Assumptions: []string{},
		Parameters: json.RawMessage(`{}`), Plan: tree, Validation: validation,
	}
	saved, err := t.save(ctx, "", event.ArtifactDelegationDraft, limit("Delegation plan: "+goal, 200), body)
	if err != nil {
		return nil, err
	}
	out := &SavedArtifact{ArtifactID: saved.ID, Kind: saved.Kind, Version: saved.Version, Warnings: warnings, Tasks: p.Tasks()}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, n.ID+": "+n.Label)
	}
	return out, nil
}

// checkSteps refuses a draft whose step nodes name steps the strategy does
// not have, with the ids it has (the scheduler checks again at build time:
// the strategy may change in between).
func (t *tools) checkSteps(ctx context.Context, p *plan.Plan) error {
	if len(p.Steps()) == 0 {
		return nil
	}
	snap, err := t.strategies.Conversation(ctx, t.env.UserID, t.env.ConversationID)
	if errors.Is(err, store.ErrNotFound) {
		snap, err = strategy.Snapshot{}, nil
	}
	if err != nil {
		return err
	}
	if pe, ok := errors.AsType[*plan.PlanError](p.CheckSteps(snap)); ok {
		return subagent.ToolError(pe, "/plan")
	}
	return nil
}

// preflight checks what the plan's task contexts say about searches against
// the catalog, so a plan naming a missing search or a bad value is caught
// before any sub-agent is spent on it. Problems are warnings: the sub-agent
// can still find the right search.
func (t *tools) preflight(ctx context.Context, p *plan.Plan) []string {
	var warnings []string
	for _, n := range p.Nodes {
		if n.Kind != plan.KindTask {
			continue
		}
		hint, ok := n.TaskContext()
		if !ok {
			continue
		}
		search, err := t.catalog.Search(ctx, t.env.SiteID, "", hint.SearchName)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: search %q: %v", n.ID, hint.SearchName, err))
			continue
		}
		wantKind := catalog.KindLeaf
		if n.Input != "" {
			wantKind = catalog.KindTransform
		}
		if search.Kind != wantKind {
			warnings = append(warnings, fmt.Sprintf("%s: %s is a %s search, but the task is a %s", n.ID, hint.SearchName, search.Kind, wantKind))
		}
		if _, err := t.catalog.Validate(ctx, t.env.SiteID, hint.SearchName, hint.Parameters); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", n.ID, err))
		}
	}
	return warnings
}

func draftSummary(goal string, p *plan.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Goal:** %s\n\n", goal)
	for _, n := range p.Nodes {
		switch n.Kind {
		case plan.KindCombine:
			fmt.Fprintf(&b, "- `%s` %s of %s\n", n.ID, n.Operator, strings.Join(n.DependsOn, " and "))
		case plan.KindStep:
			fmt.Fprintf(&b, "- `%s` the existing step %s, reused\n", n.ID, n.StepID)
		default:
			fmt.Fprintf(&b, "- `%s` %s\n", n.ID, n.Label)
		}
	}
	return b.String()
}

// save stores an artifact and streams it.
func (t *tools) save(ctx context.Context, id string, kind event.ArtifactKind, title string, body artifactBody) (store.Artifact, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return store.Artifact{}, err
	}
	saved, err := t.store.SaveArtifact(ctx, store.SaveArtifact{
		UserID: t.env.UserID, ConversationID: t.env.ConversationID, TurnID: t.env.TurnID,
		ID: id, Kind: kind, Title: title, Body: raw,
	})
	if errors.Is(err, store.ErrNotFound) && id != "" {
		return store.Artifact{}, &tool.ToolError{Code: "NOT_FOUND", Message: "no artifact " + id + " of this kind in this conversation"}
	}
	if err != nil {
		return store.Artifact{}, err
	}
	if err := t.env.Emit(ctx, &event.ArtifactSaved{Artifact: View(saved)}); err != nil {
		return store.Artifact{}, err
	}
	return saved, nil
}

// ArtifactInfo lists an artifact.
type ArtifactInfo struct {
	ID      string             `json:"id"`
	Kind    event.ArtifactKind `json:"kind"`
	Title   string             `json:"title"`
	Version int                `json:"version"`
}

// ArtifactList is list_artifacts' result.
type ArtifactList struct {
	Artifacts []ArtifactInfo `json:"artifacts"`
}

func (t *tools) listArtifacts(ctx context.Context, _ struct{}) (*ArtifactList, error) {
	arts, err := t.store.Artifacts(ctx, t.env.UserID, t.env.ConversationID)
	if err != nil {
		return nil, err
	}
	out := &ArtifactList{Artifacts: []ArtifactInfo{}}
	for _, a := range arts {
		out.Artifacts = append(out.Artifacts, ArtifactInfo{ID: a.ID, Kind: a.Kind, Title: a.Title, Version: a.Version})
	}
	return out, nil
}

// GetArtifactArgs are get_artifact's arguments.
type GetArtifactArgs struct {
	ArtifactID string `json:"artifact_id"`
}

func (t *tools) getArtifact(ctx context.Context, a GetArtifactArgs) (*event.Artifact, error) {
	art, err := t.store.Artifact(ctx, t.env.UserID, t.env.ConversationID, a.ArtifactID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &tool.ToolError{Code: "NOT_FOUND", Message: "no artifact " + a.ArtifactID + " in this conversation; list_artifacts shows the ids"}
	}
	if err != nil {
		return nil, err
	}
	v := View(art)
	return &v, nil
}

func (t *tools) findDraft(ctx context.Context, id string) (store.Artifact, error) {
	if id != "" {
		a, err := t.store.Artifact(ctx, t.env.UserID, t.env.ConversationID, id)
		if err == nil && a.Kind == event.ArtifactDelegationDraft {
			return a, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.Artifact{}, err
		}
		return store.Artifact{}, &tool.ToolError{Code: "NOT_FOUND", Message: "no delegation draft " + id + "; save one with save_delegation_draft"}
	}
	arts, err := t.store.Artifacts(ctx, t.env.UserID, t.env.ConversationID)
	if err != nil {
		return store.Artifact{}, err
	}
	for _, a := range arts {
		if a.Kind == event.ArtifactDelegationDraft {
			return a, nil
		}
	}
	return store.Artifact{}, &tool.ToolError{Code: "NO_DRAFT", Message: "there is no delegation draft yet; save one with save_delegation_draft first"}
}

// TitleArgs are set_conversation_title's arguments.
type TitleArgs struct {
	Title string `json:"title"`
}

// TitleSet is set_conversation_title's result.
type TitleSet struct {
	Title string `json:"title"`
	// Kept says the conversation already had a title (the researcher's, or
	// one given earlier) and keeps it.
	Kept bool `json:"kept,omitempty"`
}

func (t *tools) setTitle(ctx context.Context, a TitleArgs) (*TitleSet, error) {
	title := strings.TrimSpace(a.Title)
	if title == "" || utf8.RuneCountInString(title) > 200 {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "title must be 1 to 200 characters"}
	}
	conv, set, err := t.store.AutoTitleConversation(ctx, t.env.UserID, t.env.ConversationID, title)
	if err != nil {
		return nil, err
	}
	if !set {
		return &TitleSet{Title: conv.Title, Kept: true}, nil
	}
	if err := t.env.Emit(ctx, &event.ConversationRenamed{Title: title}); err != nil {
		return nil, err
	}
	return &TitleSet{Title: title}, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func limit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

const askDoc = `End the turn with a question to the researcher instead of a plan, when you cannot tell what they mean: a phrase that maps to no search, a word with two readings that give different counts, a change that would change nothing. Give 2 to 4 options (one is enough when free_text is set and there is only one reading), each one reading: label (the reading in their words), message (the text choosing it sends as their next message, a complete request), and, where it builds one search, search_name and parameters, so the catalog counts it; mark a reading approximate when it is a text search for the words. free_text says they may answer in their own words. After asking, say the question and its options in your answer and stop.`

// AskArgs are ask_researcher's arguments.
type AskArgs struct {
	Question string      `json:"question" jsonschema:"the question, one sentence"`
	Options  []AskOption `json:"options" jsonschema:"2 to 4 readings to choose from (1 with free_text)"`
	FreeText bool        `json:"free_text,omitempty" jsonschema:"the researcher may answer in words of their own"`
}

// AskOption is one reading a question offers.
type AskOption struct {
	Label       string            `json:"label" jsonschema:"the reading, in the researcher's words"`
	Message     string            `json:"message" jsonschema:"the message choosing it sends"`
	SearchName  string            `json:"search_name,omitempty" jsonschema:"the search it would build"`
	Parameters  map[string]string `json:"parameters,omitempty" jsonschema:"that search's parameter values"`
	Approximate bool              `json:"approximate,omitempty" jsonschema:"the reading is a text search whose count is approximate"`
}

// Asked is what asking returns to the model: the question as the
// researcher sees it, with the catalog's count for every option.
type Asked struct {
	QuestionID string                 `json:"questionId"`
	Options    []event.QuestionOption `json:"options"`
}

// askResearcher checks a question, counts each option's search with the
// catalog and streams the question. An option whose search the catalog
// cannot count keeps its reading and says why it has no count.
func (t *tools) askResearcher(ctx context.Context, a AskArgs) (*Asked, error) {
	question := strings.TrimSpace(a.Question)
	if question == "" || utf8.RuneCountInString(question) > 500 {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "question must be 1 to 500 characters"}
	}
	// One reading is a question only when the researcher may answer in
	// words of their own: "a text search for it, or say it another way?"
	least := 2
	if a.FreeText {
		least = 1
	}
	if len(a.Options) < least || len(a.Options) > 4 {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: fmt.Sprintf("give %d to 4 options, not %d", least, len(a.Options))}
	}
	opts := make([]event.QuestionOption, len(a.Options))
	for i, o := range a.Options {
		label, msg := strings.TrimSpace(o.Label), strings.TrimSpace(o.Message)
		if label == "" || msg == "" {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: fmt.Sprintf("option %d needs a label and a message", i+1)}
		}
		opt := event.QuestionOption{Label: limit(label, 300), Message: limit(msg, 1000), Approximate: o.Approximate}
		if o.SearchName != "" {
			opt.Builds = o.SearchName + paramsText(o.Parameters)
			opt.Count, opt.CountNote = t.count(ctx, o.SearchName, o.Parameters)
		}
		opts[i] = opt
	}
	q := &event.QuestionAsked{QuestionID: uuid.NewString(), Question: question, Options: opts, FreeText: a.FreeText}
	if err := t.env.Emit(ctx, q); err != nil {
		return nil, err
	}
	return &Asked{QuestionID: q.QuestionID, Options: opts}, nil
}

// count is the catalog's count for one search, or why it has none.
func (t *tools) count(ctx context.Context, search string, params map[string]string) (*int, string) {
	full, err := t.catalog.Validate(ctx, t.env.SiteID, search, params)
	if err != nil {
		return nil, "the catalog refused its values: " + err.Error()
	}
	return t.countQuery(ctx, &catalog.Query{Search: search, Params: full})
}

// countQuery is the catalog's count for a query tree, or why it has none.
func (t *tools) countQuery(ctx context.Context, q *catalog.Query) (*int, string) {
	ans, err := t.catalog.Answer(ctx, t.env.SiteID, q, catalog.Page{Limit: 1})
	if err != nil {
		if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
			return nil, "not evaluable offline: " + ne.Reason
		}
		return nil, "the catalog could not count it: " + err.Error()
	}
	n := ans.Count
	return &n, ""
}

// paramsText renders parameter values in a stable order: " (a=1, b=2)".
func paramsText(params map[string]string) string {
	if len(params) == 0 {
		return ""
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + params[k]
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
