// Package mcp serves Strategist as an MCP server (Streamable HTTP at /mcp;
// `strategist mcp` bridges stdio to it). Its tools are the agents' own: the
// catalog tools (catalogtool) with a `site` argument, get_strategy and the
// executor's graph tools (graphtool, with its list tools under WithLists)
// with a `conversationId` argument, create_conversation to get one, and ask_strategist to ask Strategist's
// own agents in words. Their schemas are the agents' tools' inferred
// schemas with that one property added; a call builds the same tool bound
// to the caller, the site or the conversation and runs it, so a strategy
// changes through the strategy service, is versioned and its
// graph_snapshot lands in the conversation's event log: the conversation's
// page shows it live.
//
// The transport is stateless (each POST is a session of its own), so any
// server process answers any request and nothing outlives a request; the
// caller is the API token's user, resolved by the server (internal/server)
// before the MCP handler runs. Only this package imports the MCP SDK.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/labstack/echo/v4"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// Path is where the MCP server answers (Streamable HTTP).
const Path = "/mcp"

// Host is what the MCP server needs of the server hosting it
// (*server.Host).
type Host interface {
	Logger() *slog.Logger
	Version() string
	Catalog() catalog.Catalog
	// UsableSite refuses, as a tool error, a site the catalog does not
	// know or the user cannot use.
	UsableSite(ctx context.Context, userID, site string) error
	// Conversation is one of the user's conversations (store.ErrNotFound
	// for another's or none).
	Conversation(ctx context.Context, userID, conversationID string) (store.Conversation, error)
	// CreateConversation starts a conversation of the user's on site.
	CreateConversation(ctx context.Context, userID, site, title string) (store.Conversation, error)
	// Converse starts the turn a message asks for and calls onRecord with
	// the events of the turns it follows until the last ends; the
	// orchestrator's refusals come back as *protocol.APIError.
	Converse(ctx context.Context, m protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error)
	// RootSummary describes the conversation's strategy in one line, with
	// its root step (nil when there is no single one).
	RootSummary(ctx context.Context, userID, conversationID string) (string, *strategy.Step)
	// ConversationURL is the absolute address of a conversation's page.
	ConversationURL(conversationID string) string
	// Hold registers a request that may follow turns for long: cancel is
	// called at shutdown or when the caller's credential is revoked.
	Hold(c echo.Context, cancel context.CancelFunc) (release func())
}

// GraphService is what the MCP strategy tools need of the strategy
// service (*strategies.Service): the agents' graph tools' and get_strategy's
// needs.
type GraphService interface {
	graphtool.Service
	graphtool.Reader
}

// Protocol is the MCP server, a protocol.Protocol.
type Protocol struct {
	host  Host
	graph GraphService
	// lists and scorer, when both set, add the list tools to the graph
	// tools (WithLists).
	lists  graphtool.Lists
	scorer graphtool.Scorer
	log    *slog.Logger
	// handler is the SDK's Streamable HTTP handler over the tools.
	handler http.Handler
}

var _ protocol.Protocol = (*Protocol)(nil)

// Option configures the MCP server.
type Option func(*Protocol)

// WithLists offers the list tools with the strategy tools
// (create_list_step, save_gene_list, score_controls, trace_gene), bound to
// the researcher's gene lists and the conversation's controls as the
// executor's are: lists is *genelist.Service, scorer *strategies.Service.
func WithLists(lists graphtool.Lists, scorer graphtool.Scorer) Option {
	return func(p *Protocol) { p.lists, p.scorer = lists, scorer }
}

// New builds the MCP server over host. graph serves the strategy tools;
// nil leaves them out (the catalog tools, create_conversation and
// ask_strategist only).
func New(host Host, graph GraphService, opts ...Option) (*Protocol, error) {
	if host == nil {
		return nil, errors.New("mcp: nil host")
	}
	p := &Protocol{host: host, graph: graph, log: host.Logger()}
	for _, o := range opts {
		o(p)
	}
	tools, err := p.tools()
	if err != nil {
		return nil, err
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "strategist", Title: "Strategist", Version: host.Version()}, &sdk.ServerOptions{
		Instructions: "Strategist builds VEuPathDB search strategies. Either ask its own agents in words with ask_strategist " +
			"(build: true builds the plan; the result has the root count and the conversation's page), or build by hand: " +
			"find searches with search_for_searches and get_search_parameters, make a conversation with create_conversation, " +
			"then create_step, transform_step and combine_steps (each step comes back with its gene count) and read it with get_strategy. " +
			"Each conversation's page shows the strategy live.",
		Logger: p.log,
	})
	for _, t := range tools {
		srv.AddTool(t.tool, p.call(t))
	}
	p.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Stateless: true, Logger: p.log,
	})
	return p, nil
}

// Routes is /mcp, for any method: it follows turns (ask_strategist).
func (p *Protocol) Routes() []protocol.Route {
	return []protocol.Route{{Path: Path, Handler: p.serve, Stream: true}}
}

// Deny answers a caller without an API token 401 UNAUTHENTICATED.
func (p *Protocol) Deny(_ echo.Context, msg string) error {
	return protocol.Unauthenticated(msg)
}

// Owns says whether r is on /mcp.
func (p *Protocol) Owns(r *http.Request) bool { return r.URL.Path == Path }

// WriteError writes the API's JSON error body: the HTTP errors of /mcp
// (authentication, limits) are the API's; tool failures are tool results.
func (p *Protocol) WriteError(c echo.Context, ae *protocol.APIError) error {
	return protocol.WriteJSONError(c, ae)
}

// serve runs the MCP handler with the caller's user in the request's
// context. A request that follows a turn (ask_strategist) ends at shutdown
// or when its token is revoked, like a stream; the turn runs on.
func (p *Protocol) serve(c echo.Context) error {
	r := c.Request()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer p.host.Hold(c, cancel)()
	p.handler.ServeHTTP(c.Response(), r.WithContext(ctx))
	return nil
}

// offered is one tool offered over MCP: its declaration and how a call
// runs it for a user.
type offered struct {
	tool *sdk.Tool
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

// call adapts a tool to MCP: arguments as a JSON object, the result as
// structured content (and its JSON text), a failure the model should see as
// an error result with its code, and where the answer comes from in _meta.
func (p *Protocol) call(t offered) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (answer *sdk.CallToolResult, failed error) {
		// The SDK runs tool handlers on goroutines of its own, outside
		// echo's recovery: a panic here would end the process.
		defer func() {
			if v := recover(); v != nil {
				p.log.ErrorContext(ctx, "mcp tool panicked", slog.String("tool", t.tool.Name),
					slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
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
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: float64(step)})
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
			p.log.ErrorContext(ctx, "mcp tool failed", slog.String("tool", t.tool.Name), slog.Any("error", err))
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
		out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}, StructuredContent: structured}
		if site != "" {
			out.Meta = sdk.Meta{"strategist/provenance": p.siteProvenance(ctx, site)}
		}
		return out, nil
	}
}

func toolErrorResult(te *tool.ToolError) *sdk.CallToolResult {
	body := map[string]any{"code": te.Code, "message": te.Message}
	if len(te.Details) > 0 {
		body["details"] = te.Details
	}
	raw, _ := json.Marshal(body)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}}
}

// siteProvenance says where a tool's answers come from: the site and
// whether it is the offline snapshot or the live VEuPathDB site. Counts
// carry their own provenance (countProvenance) in the result.
func (p *Protocol) siteProvenance(ctx context.Context, site string) map[string]any {
	prov := map[string]any{"site": site}
	list, err := p.host.Catalog().Sites(ctx)
	if err != nil {
		return prov
	}
	for _, x := range list {
		if x.ID == site {
			prov["siteName"], prov["offline"] = x.DisplayName, x.Offline
			if x.Offline {
				prov["source"] = "offline snapshot of " + x.DisplayName
			} else {
				prov["source"] = "live " + x.DisplayName + " (VEuPathDB)"
			}
		}
	}
	return prov
}
