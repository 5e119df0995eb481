package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"strategist/internal/catalog/catalogtool"
	"strategist/internal/executor"
	"strategist/internal/protocol"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// tools lists the tools: the catalog tools, create_conversation, then
// get_strategy and the executor's graph tools. The declarations come from
// tools built once with placeholder bindings; each call builds the tool
// again, bound to the caller.
func (p *Protocol) tools() ([]offered, error) {
	var out []offered
	cat, err := catalogtool.New(catalogtool.Config{Catalog: p.host.Catalog(), Site: protocol.DefaultSite})
	if err != nil {
		return nil, err
	}
	for _, t := range cat.Tools() {
		name := t.Name()
		decl, err := declare(t, name != "list_sites", argSite, map[string]any{
			"type":        "string",
			"description": "the VEuPathDB site to use (list_sites lists them); default " + protocol.DefaultSite,
		}, false)
		if err != nil {
			return nil, err
		}
		out = append(out, offered{tool: decl, call: func(ctx context.Context, userID string, args map[string]json.RawMessage) (any, string, error) {
			site, err := stringArg(args, argSite, protocol.DefaultSite)
			if err != nil {
				return nil, "", err
			}
			if err := p.host.UsableSite(ctx, userID, site); err != nil {
				return nil, "", err
			}
			set, err := catalogtool.New(catalogtool.Config{Catalog: p.host.Catalog(), Site: site})
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
			return p.createConversation(ctx, args)
		})
	decl, err := declare(create, false, "", nil, false)
	if err != nil {
		return nil, err
	}
	out = append(out, offered{tool: decl, call: func(ctx context.Context, _ string, args map[string]json.RawMessage) (any, string, error) {
		res, err := callNamed(ctx, []tool.Tool{create}, create.Name(), args)
		if err != nil {
			// A failed call's result is a typed nil: never read it.
			return nil, "", err
		}
		c, ok := res.(*createdConversation)
		if !ok || c == nil {
			return nil, "", fmt.Errorf("mcp: create_conversation answered %T", res)
		}
		return c, c.Site, nil
	}})

	ask := p.askTool()
	decl, err = declare(ask, false, "", nil, false)
	if err != nil {
		return nil, err
	}
	out = append(out, offered{tool: decl, call: func(ctx context.Context, _ string, args map[string]json.RawMessage) (any, string, error) {
		res, err := callNamed(ctx, []tool.Tool{ask}, ask.Name(), args)
		return res, "", err
	}})

	if p.graph == nil {
		return out, nil // no strategy service: the catalog tools only
	}
	placeholder := "00000000-0000-0000-0000-000000000000"
	graph, err := p.graphTools(placeholder, placeholder, protocol.DefaultSite)
	if err != nil {
		return nil, err
	}
	for _, t := range graph {
		name := t.Name()
		decl, err := declare(t, true, argConversation, map[string]any{
			"type":        "string",
			"description": "the conversation whose strategy to read or change (create_conversation makes one)",
		}, true)
		if err != nil {
			return nil, err
		}
		out = append(out, offered{tool: decl, call: func(ctx context.Context, userID string, args map[string]json.RawMessage) (any, string, error) {
			id, err := stringArg(args, argConversation, "")
			if err != nil {
				return nil, "", err
			}
			if !protocol.IsUUID(id) {
				return nil, "", &tool.ToolError{Code: tool.CodeValidation, Message: argConversation + " must be a conversation id (a UUID)"}
			}
			conv, err := p.host.Conversation(ctx, userID, strings.ToLower(id))
			if err != nil {
				return nil, "", err
			}
			tools, err := p.graphTools(userID, conv.ID, conv.SiteID)
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
func (p *Protocol) graphTools(userID, conversationID, site string) ([]tool.Tool, error) {
	if p.graph == nil {
		return nil, errors.New("mcp: no strategy service for the MCP graph tools")
	}
	get, err := graphtool.GetStrategy(graphtool.OverviewConfig{Strategies: p.graph, Catalog: p.host.Catalog(),
		UserID: userID, ConversationID: conversationID})
	if err != nil {
		return nil, err
	}
	graph, err := graphtool.ExecutorTools(graphtool.Binding{Service: p.graph, UserID: userID, ConversationID: conversationID,
		Site: site, RecordType: executor.RecordType, StrategyName: "Strategy", Lists: p.lists, Scorer: p.scorer})
	if err != nil {
		return nil, err
	}
	return append([]tool.Tool{get}, graph...), nil
}

// declare declares an agent tool to MCP: its name, description and
// inferred schema, with one property added (required or not) when add is
// set.
func declare(t tool.Tool, add bool, prop string, propSchema map[string]any, required bool) (*sdk.Tool, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	d := t.Decl()
	var schema map[string]any
	if err := json.Unmarshal(d.Schema, &schema); err != nil {
		return nil, fmt.Errorf("mcp: schema of %s: %w", d.Name, err)
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
	tool := &sdk.Tool{Name: d.Name, Description: d.Description, InputSchema: schema}
	if readOnlyTools[d.Name] {
		tool.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
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
	return nil, fmt.Errorf("mcp: no tool %s", name)
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
