package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"strategist/internal/account"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/event"
	"strategist/internal/executor"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy/graphtool"
	"strategist/internal/tool"
)

// Strategist as an MCP server (Streamable HTTP at /mcp; `strategist mcp`
// bridges stdio to it). Its tools are the agents' own: the catalog tools
// (catalogtool) with a `site` argument, get_strategy and the executor's
// graph tools (graphtool, with the list tools when the server has the
// lists and controls services) with a `conversationId` argument, and
// create_conversation to get one. Their schemas are the agents' tools'
// inferred schemas with that one property added; a call builds the same
// tool bound to the caller, the site or the conversation and runs it, so
// a strategy changes through the strategy service, is versioned and its
// graph_snapshot lands in the conversation's event log: the conversation's
// page shows it live.
//
// The transport is stateless (each POST is a session of its own), so any
// server process answers any request and nothing outlives a request; the
// caller is the API token's user, resolved by requireTokenUser before the
// MCP handler runs.

// GraphService is what the MCP strategy tools need of the strategy
// service (*strategies.Service): the agents' graph tools' and get_strategy's
// needs.
type GraphService interface {
	graphtool.Service
	graphtool.Reader
}

// mcpTool is one tool offered over MCP: its declaration and how a call
// runs it for a user.
type mcpTool struct {
	tool *mcp.Tool
	call func(ctx context.Context, userID string, args map[string]json.RawMessage) (any, string, error)
}

// Argument names the MCP tools add to the agents' tools.
const (
	argSite         = "site"
	argConversation = "conversationId"
)

// readOnlyTools are the tools that change nothing.
var readOnlyTools = map[string]bool{
	"list_sites": true, "list_record_types": true, "search_for_searches": true, "get_search_parameters": true,
	"lookup_genes": true, graphtool.GetStrategyTool: true, "list_steps": true, "validate_strategy": true, "get_result_count": true,
	"score_controls": true, "trace_gene": true,
}

// mcpHandler builds the MCP server over the agents' tools.
func (s *Server) mcpHandler() (http.Handler, error) {
	tools, err := s.mcpTools()
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "strategist", Title: "Strategist", Version: s.cfg.Version}, &mcp.ServerOptions{
		Instructions: "Strategist builds VEuPathDB search strategies. Either ask its own agents in words with ask_strategist " +
			"(build: true builds the plan; the result has the root count and the conversation's page), or build by hand: " +
			"find searches with search_for_searches and get_search_parameters, make a conversation with create_conversation, " +
			"then create_step, transform_step and combine_steps (each step comes back with its gene count) and read it with get_strategy. " +
			"Each conversation's page shows the strategy live.",
		Logger: s.log,
	})
	for _, t := range tools {
		srv.AddTool(t.tool, s.mcpCall(t))
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: s.log,
	}), nil
}

// serveMCP runs the MCP handler with the caller's user and the address of
// this server in the request's context. A request that follows a turn
// (ask_strategist) ends at shutdown or when its token is revoked, like a
// stream; the turn runs on.
func (s *Server) serveMCP(h http.Handler) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(s.stopping, cancel)()
		defer s.streams.add(currentIdentity(c).cred, cancel)()
		h.ServeHTTP(c.Response(), r.WithContext(ctx))
		return nil
	}
}

func (s *Server) denyMCP(c echo.Context, msg string) error {
	return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: msg}
}

// mcpCall adapts a tool to MCP: arguments as a JSON object, the result as
// structured content (and its JSON text), a failure the model should see as
// an error result with its code, and where the answer comes from in _meta.
func (s *Server) mcpCall(t mcpTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (answer *mcp.CallToolResult, failed error) {
		// The SDK runs tool handlers on goroutines of its own, outside
		// echo's recovery: a panic here would end the process.
		defer func() {
			if p := recover(); p != nil {
				s.log.ErrorContext(ctx, "mcp tool panicked", slog.String("tool", t.tool.Name),
					slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				answer, failed = toolErrorResult(&tool.ToolError{Code: tool.CodeToolError, Message: "internal error"}), nil
			}
		}()
		userID := account.UserID(ctx)
		if userID == "" {
			return nil, errors.New("no authenticated user")
		}
		args := map[string]json.RawMessage{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return toolErrorResult(&tool.ToolError{Code: tool.CodeValidation, Message: "arguments must be a JSON object"}), nil
			}
		}
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			step := 0
			ctx = context.WithValue(ctx, progressKey{}, func(msg string) {
				step++
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: float64(step)})
			})
		}
		res, site, err := t.call(ctx, userID, args)
		if err != nil {
			if te, ok := errors.AsType[*tool.ToolError](err); ok {
				return toolErrorResult(te), nil
			}
			if errors.Is(err, store.ErrNotFound) {
				return toolErrorResult(&tool.ToolError{Code: "NOT_FOUND", Message: "no such conversation of yours"}), nil
			}
			s.log.ErrorContext(ctx, "mcp tool failed", slog.String("tool", t.tool.Name), slog.Any("error", err))
			return toolErrorResult(&tool.ToolError{Code: tool.CodeToolError, Message: "internal error"}), nil
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		var structured any = json.RawMessage(raw)
		if len(raw) == 0 || raw[0] != '{' {
			structured = map[string]json.RawMessage{"result": raw}
		}
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: structured}
		if site != "" {
			out.Meta = mcp.Meta{"strategist/provenance": s.siteProvenance(ctx, site)}
		}
		return out, nil
	}
}

func toolErrorResult(te *tool.ToolError) *mcp.CallToolResult {
	body := map[string]any{"code": te.Code, "message": te.Message}
	if len(te.Details) > 0 {
		body["details"] = te.Details
	}
	raw, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
}

// siteProvenance says where a tool's answers come from: the site and
// whether it is the offline snapshot or the live VEuPathDB site. Counts
// carry their own provenance (countProvenance) in the result.
func (s *Server) siteProvenance(ctx context.Context, site string) map[string]any {
	p := map[string]any{"site": site}
	list, err := s.cfg.Catalog.Sites(ctx)
	if err != nil {
		return p
	}
	for _, x := range list {
		if x.ID == site {
			p["siteName"], p["offline"] = x.DisplayName, x.Offline
			if x.Offline {
				p["source"] = "offline snapshot of " + x.DisplayName
			} else {
				p["source"] = "live " + x.DisplayName + " (VEuPathDB)"
			}
		}
	}
	return p
}

// mcpTools lists the tools: the catalog tools, create_conversation, then
// get_strategy and the executor's graph tools. The declarations come from
// tools built once with placeholder bindings; each call builds the tool
// again, bound to the caller.
func (s *Server) mcpTools() ([]mcpTool, error) {
	var out []mcpTool
	cat, err := catalogtool.New(catalogtool.Config{Catalog: s.cfg.Catalog, Site: defaultProtocolSite})
	if err != nil {
		return nil, err
	}
	for _, t := range cat.Tools() {
		name := t.Name()
		decl, err := mcpDecl(t, name != "list_sites", argSite, map[string]any{
			"type":        "string",
			"description": "the VEuPathDB site to use (list_sites lists them); default " + defaultProtocolSite,
		}, false)
		if err != nil {
			return nil, err
		}
		out = append(out, mcpTool{tool: decl, call: func(ctx context.Context, userID string, args map[string]json.RawMessage) (any, string, error) {
			site, err := stringArg(args, argSite, defaultProtocolSite)
			if err != nil {
				return nil, "", err
			}
			if err := s.usableSite(ctx, userID, site); err != nil {
				return nil, "", err
			}
			set, err := catalogtool.New(catalogtool.Config{Catalog: s.cfg.Catalog, Site: site})
			if err != nil {
				return nil, "", err
			}
			res, err := callNamed(ctx, set.Tools(), name, args)
			return res, site, err
		}})
	}

	create := tool.NewTool("create_conversation",
		"Start a Strategist conversation to build a strategy in; returns its conversationId (the strategy tools' argument) and the address of its page, which shows the strategy live.",
		func(ctx context.Context, args createConversationArgs) (*createdConversation, error) {
			return s.mcpCreateConversation(ctx, args)
		})
	decl, err := mcpDecl(create, false, "", nil, false)
	if err != nil {
		return nil, err
	}
	out = append(out, mcpTool{tool: decl, call: func(ctx context.Context, _ string, args map[string]json.RawMessage) (any, string, error) {
		res, err := callNamed(ctx, []tool.Tool{create}, create.Name(), args)
		if err != nil {
			// A failed call's result is a typed nil: never read it.
			return nil, "", err
		}
		c, ok := res.(*createdConversation)
		if !ok || c == nil {
			return nil, "", fmt.Errorf("server: create_conversation answered %T", res)
		}
		return c, c.Site, nil
	}})

	ask := s.askTool()
	decl, err = mcpDecl(ask, false, "", nil, false)
	if err != nil {
		return nil, err
	}
	out = append(out, mcpTool{tool: decl, call: func(ctx context.Context, _ string, args map[string]json.RawMessage) (any, string, error) {
		res, err := callNamed(ctx, []tool.Tool{ask}, ask.Name(), args)
		return res, "", err
	}})

	if s.cfg.Graph == nil {
		return out, nil // no strategy service: the catalog tools only
	}
	placeholder := "00000000-0000-0000-0000-000000000000"
	graph, err := s.graphTools(placeholder, placeholder, defaultProtocolSite)
	if err != nil {
		return nil, err
	}
	for _, t := range graph {
		name := t.Name()
		decl, err := mcpDecl(t, true, argConversation, map[string]any{
			"type":        "string",
			"description": "the conversation whose strategy to read or change (create_conversation makes one)",
		}, true)
		if err != nil {
			return nil, err
		}
		out = append(out, mcpTool{tool: decl, call: func(ctx context.Context, userID string, args map[string]json.RawMessage) (any, string, error) {
			id, err := stringArg(args, argConversation, "")
			if err != nil {
				return nil, "", err
			}
			if !isUUID(id) {
				return nil, "", &tool.ToolError{Code: tool.CodeValidation, Message: argConversation + " must be a conversation id (a UUID)"}
			}
			conv, err := s.cfg.Store.Conversation(ctx, userID, strings.ToLower(id))
			if err != nil {
				return nil, "", err
			}
			tools, err := s.graphTools(userID, conv.ID, conv.SiteID)
			if err != nil {
				return nil, "", err
			}
			res, err := callNamed(ctx, tools, name, args)
			return res, conv.SiteID, err
		}})
	}
	return out, nil
}

// graphTools are get_strategy and the executor's graph tools over one
// conversation's strategy, bound as the executor binds them.
func (s *Server) graphTools(userID, conversationID, site string) ([]tool.Tool, error) {
	if s.cfg.Graph == nil {
		return nil, errors.New("server: no strategy service for the MCP graph tools")
	}
	get, err := graphtool.GetStrategy(graphtool.OverviewConfig{Strategies: s.cfg.Graph, Catalog: s.cfg.Catalog,
		UserID: userID, ConversationID: conversationID})
	if err != nil {
		return nil, err
	}
	b := graphtool.Binding{Service: s.cfg.Graph, UserID: userID, ConversationID: conversationID,
		Site: site, RecordType: executor.RecordType, StrategyName: "Strategy"}
	if s.cfg.GeneLists != nil && s.cfg.StrategyLists != nil {
		b.Lists, b.Scorer = s.cfg.GeneLists, s.cfg.StrategyLists // the list tools, as the executor has them
	}
	graph, err := graphtool.ExecutorTools(b)
	if err != nil {
		return nil, err
	}
	return append([]tool.Tool{get}, graph...), nil
}

// mcpDecl declares an agent tool to MCP: its name, description and
// inferred schema, with one property added (required or not) when add is
// set.
func mcpDecl(t tool.Tool, add bool, prop string, propSchema map[string]any, required bool) (*mcp.Tool, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	d := t.Decl()
	var schema map[string]any
	if err := json.Unmarshal(d.Schema, &schema); err != nil {
		return nil, fmt.Errorf("server: schema of %s: %w", d.Name, err)
	}
	if schema["type"] == nil {
		schema["type"] = "object"
	}
	if add {
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		props[prop] = propSchema
		schema["properties"] = props
		if required {
			req, _ := schema["required"].([]any)
			schema["required"] = append([]any{prop}, req...)
		}
	}
	tool := &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: schema}
	if readOnlyTools[d.Name] {
		tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	return tool, nil
}

// callNamed runs the tool called name of tools with args (the added
// property already taken out), as the agents' loop would: arguments are
// validated against the tool's schema first.
func callNamed(ctx context.Context, tools []tool.Tool, name string, args map[string]json.RawMessage) (any, error) {
	for _, t := range tools {
		if t.Name() != name {
			continue
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return t.Call(ctx, raw)
	}
	return nil, fmt.Errorf("server: no tool %s", name)
}

// stringArg takes a string argument out of args (def when absent).
func stringArg(args map[string]json.RawMessage, name, def string) (string, error) {
	raw, ok := args[name]
	delete(args, name)
	if !ok || string(raw) == "null" {
		if def == "" {
			return "", &tool.ToolError{Code: tool.CodeValidation, Message: name + " is required"}
		}
		return def, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || strings.TrimSpace(v) == "" {
		return "", &tool.ToolError{Code: tool.CodeValidation, Message: name + " must be a non-empty string"}
	}
	return strings.TrimSpace(v), nil
}

// usableSite refuses a site the catalog does not know or the caller cannot
// use (a live site without their VEuPathDB API key).
func (s *Server) usableSite(ctx context.Context, userID, site string) error {
	var known []string
	if s.cfg.Sites != nil {
		all, err := s.cfg.Sites.Statuses(ctx, userID)
		if err != nil {
			return err
		}
		for _, st := range all {
			if st.ID == site {
				if !st.Available {
					return &tool.ToolError{Code: "SITE_ACCOUNT", Message: st.Name + " is not available: " + st.Message}
				}
				return nil
			}
			known = append(known, st.ID)
		}
	} else {
		list, err := s.cfg.Catalog.Sites(ctx)
		if err != nil {
			return err
		}
		for _, x := range list {
			if x.ID == site {
				return nil
			}
			known = append(known, x.ID)
		}
	}
	return &tool.ToolError{Code: "NOT_FOUND", Message: "unknown site " + quote(site), Details: map[string]any{"known": known}}
}

type createConversationArgs struct {
	Title string `json:"title,omitempty" jsonschema:"the conversation's title (default: New conversation)"`
	Site  string `json:"site,omitempty" jsonschema:"the VEuPathDB site of its strategy (list_sites lists them); default plasmodb"`
}

type createdConversation struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title"`
	Site           string `json:"site"`
	URL            string `json:"url"`
}

func (s *Server) mcpCreateConversation(ctx context.Context, args createConversationArgs) (*createdConversation, error) {
	userID := account.UserID(ctx)
	site := strings.TrimSpace(args.Site)
	if site == "" {
		site = defaultProtocolSite
	}
	if err := s.usableSite(ctx, userID, site); err != nil {
		return nil, err
	}
	title := "New conversation"
	if strings.TrimSpace(args.Title) != "" {
		t, err := checkTitle(args.Title)
		if err != nil {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: err.(*APIError).Message}
		}
		title = t
	}
	conv, err := s.cfg.Store.CreateConversation(ctx, userID, site, title, s.cfg.DefaultModel)
	if err != nil {
		return nil, err
	}
	return &createdConversation{ConversationID: conv.ID, Title: conv.Title, Site: conv.SiteID, URL: s.conversationURL(conv.ID)}, nil
}

var _ GraphService = (*strategies.Service)(nil)

// askTool is ask_strategist: a message to Strategist's own agents, run as
// a turn of a conversation exactly as if typed on its page, with the turn's
// progress sent as MCP progress notifications (when the client asks for
// them with a progress token) and the answer, the root count and the
// page's address as the result.
func (s *Server) askTool() tool.Tool {
	return tool.NewTool("ask_strategist",
		"Ask Strategist's planner in words (\"DNA repair genes, excluding chromosome 14\", or a follow-up such as \"now only those with a signal peptide\"): "+
			"it plans the strategy with the catalog, and builds it with sub-agents when build is true (or when the message is \"build\" and a plan waits). "+
			"Returns the answer, the root step's count and the conversation's page; the turn runs on the server, its page shows it live.",
		s.ask)
}

type askArgs struct {
	Message        string `json:"message" jsonschema:"the request or follow-up, in words; \"build\" builds the plan that waits"`
	ConversationID string `json:"conversationId,omitempty" jsonschema:"continue this conversation; empty starts a new one"`
	Build          bool   `json:"build,omitempty" jsonschema:"build the plan as soon as it is ready (default false: the plan waits for \"build\")"`
	Site           string `json:"site,omitempty" jsonschema:"the site of a new conversation (default plasmodb)"`
}

type askResult struct {
	ConversationID string           `json:"conversationId"`
	URL            string           `json:"url"`
	Status         event.TurnStatus `json:"status"`
	Error          string           `json:"error,omitempty"`
	// PlanWaiting is true when a plan waits for "build".
	PlanWaiting bool   `json:"planWaiting"`
	Answer      string `json:"answer"`
	Summary     string `json:"summary"`
	RootStepID  string `json:"rootStepId,omitempty"`
	RootCount   *int   `json:"rootCount,omitempty"`
}

type progressKey struct{}

func (s *Server) ask(ctx context.Context, args askArgs) (*askResult, error) {
	userID := account.UserID(ctx)
	var (
		conv    store.Conversation
		err     error
		created bool
	)
	if id := strings.TrimSpace(args.ConversationID); id != "" {
		if !isUUID(id) {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: argConversation + " must be a conversation id (a UUID)"}
		}
		conv, err = s.cfg.Store.Conversation(ctx, userID, strings.ToLower(id))
	} else {
		site := strings.TrimSpace(args.Site)
		if site == "" {
			site = defaultProtocolSite
		}
		if err := s.usableSite(ctx, userID, site); err != nil {
			return nil, err
		}
		conv, err = s.cfg.Store.CreateConversation(ctx, userID, site, titleFrom(args.Message), s.cfg.DefaultModel)
		created = true
	}
	if err != nil {
		return nil, err
	}
	progress, _ := ctx.Value(progressKey{}).(func(string))
	n := newNarrator(args.Build)
	var answer strings.Builder
	out, err := s.converse(ctx, converseRequest{userID: userID, conv: conv, message: args.Message, autoBuild: args.Build, heartbeat: s.cfg.KeepAlive, created: created},
		func(_ *event.Record, e event.Event) error {
			if e == nil {
				return nil
			}
			t := n.text(e)
			answer.WriteString(t)
			if progress != nil && strings.HasPrefix(strings.TrimSpace(t), ">") {
				progress(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), ">")))
			}
			return nil
		})
	if err != nil {
		if ae, ok := errors.AsType[*APIError](chatError(err)); ok && ae.Status < 500 {
			te := &tool.ToolError{Code: ae.Code, Message: ae.Message}
			if d, ok := ae.Details.(map[string]any); ok {
				te.Details = d
			}
			return nil, te
		}
		return nil, err
	}
	summary, root := s.rootSummary(ctx, userID, conv.ID)
	res := &askResult{ConversationID: conv.ID, URL: s.conversationURL(conv.ID), Status: out.status, Error: out.errText,
		PlanWaiting: out.pendingHandoff != "", Answer: answer.String(), Summary: summary}
	if root != nil {
		res.RootStepID, res.RootCount = string(root.ID), root.Count
	}
	return res, nil
}
