package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"strategist/internal/llm"
)

// params maps a request onto Chat Completions parameters: the system prompt
// first, then the history, with assistant tool calls and one tool message per
// result carrying its tool_call_id.
func (e *Engine) params(req llm.Request) (oai.ChatCompletionNewParams, error) {
	msgs, err := toMessages(req.System, req.Messages)
	if err != nil {
		return oai.ChatCompletionNewParams{}, err
	}
	p := oai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      msgs,
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.Temperature != nil {
		p.Temperature = oai.Float(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = oai.Float(*req.TopP)
	}
	if req.MaxOutputTokens > 0 {
		if e.maxCompletionTokens {
			p.MaxCompletionTokens = oai.Int(int64(req.MaxOutputTokens))
		} else {
			p.MaxTokens = oai.Int(int64(req.MaxOutputTokens))
		}
	}
	for _, t := range req.Tools {
		params, err := schemaObject(t.Schema)
		if err != nil {
			return oai.ChatCompletionNewParams{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		fn := oai.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

func toMessages(system string, history []llm.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	msgs := make([]oai.ChatCompletionMessageParamUnion, 0, len(history)+1)
	if system != "" {
		msgs = append(msgs, oai.SystemMessage(system))
	}
	for i, m := range history {
		switch m.Role {
		case llm.RoleUser:
			if m.Text != "" {
				msgs = append(msgs, oai.UserMessage(m.Text))
			}
		case llm.RoleAssistant:
			if m.Text == "" && len(m.ToolCalls) == 0 {
				continue
			}
			var a oai.ChatCompletionAssistantMessageParam
			if m.Text != "" {
				a.Content.OfString = oai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				args := strings.TrimSpace(string(c.Args))
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			msgs = append(msgs, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case llm.RoleTool:
			for _, r := range m.ToolResults {
				content := strings.TrimSpace(string(r.Content))
				if content == "" {
					content = "{}"
				}
				msgs = append(msgs, oai.ToolMessage(content, r.CallID))
			}
		default:
			return nil, fmt.Errorf("history message %d: unknown role %q", i, m.Role)
		}
	}
	return msgs, nil
}

// schemaObject decodes a tool's JSON schema; an absent schema declares a
// tool without parameters, which some servers require spelled out.
func schemaObject(schema json.RawMessage) (oai.FunctionParameters, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return oai.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	if !json.Valid(schema) {
		return nil, fmt.Errorf("schema is not valid JSON")
	}
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	return oai.FunctionParameters(obj), nil
}
