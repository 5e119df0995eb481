package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"google.golang.org/genai"

	"strategist/internal/llm"
)

// skipSignature is the placeholder thought signature Gemini documents for
// function calls it did not produce itself, such as history written by
// another engine: without some signature on the first function call of a
// step, current models reject the request.
const skipSignature = "skip_thought_signature_validator"

// toContents maps Strategist's history onto Gemini contents: user text as
// role "user", assistant messages as role "model" (sent back verbatim from
// Raw when Gemini wrote them), tool results as functionResponse parts of a
// role "user" content.
func toContents(msgs []llm.Message) ([]*genai.Content, error) {
	out := make([]*genai.Content, 0, len(msgs))
	// issued holds the function-call ids Gemini gave in the latest model
	// content: only those may be echoed in a functionResponse.
	var issued map[string]bool
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			if m.Text == "" {
				continue
			}
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: m.Text}}})
		case llm.RoleAssistant:
			c, err := modelContent(m)
			if err != nil {
				return nil, fmt.Errorf("history message %d: %w", i, err)
			}
			issued = issuedIDs(c)
			if len(c.Parts) > 0 {
				out = append(out, c)
			}
		case llm.RoleTool:
			parts := make([]*genai.Part, 0, len(m.ToolResults))
			for _, r := range m.ToolResults {
				resp, err := responseObject(r)
				if err != nil {
					return nil, fmt.Errorf("history message %d: %w", i, err)
				}
				fr := &genai.FunctionResponse{Name: r.Name, Response: resp}
				if issued[r.CallID] {
					fr.ID = r.CallID
				}
				parts = append(parts, &genai.Part{FunctionResponse: fr})
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			}
		default:
			return nil, fmt.Errorf("history message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// modelContent is the content of one assistant message: Gemini's own
// encoding when it wrote the message, else one rebuilt from text and calls.
func modelContent(m llm.Message) (*genai.Content, error) {
	if m.Raw != nil && m.Raw.Engine == Name {
		var c genai.Content
		if err := json.Unmarshal(m.Raw.Data, &c); err != nil {
			return nil, fmt.Errorf("decode stored Gemini content: %w", err)
		}
		return &c, nil
	}
	c := &genai.Content{Role: genai.RoleModel}
	if m.Text != "" {
		c.Parts = append(c.Parts, &genai.Part{Text: m.Text})
	}
	for i, call := range m.ToolCalls {
		args, err := decodeObject(call.Args)
		if err != nil {
			return nil, fmt.Errorf("tool call %s (%s) arguments: %w", call.ID, call.Name, err)
		}
		p := &genai.Part{FunctionCall: &genai.FunctionCall{Name: call.Name, Args: args}}
		if i == 0 {
			p.ThoughtSignature = []byte(skipSignature)
		}
		c.Parts = append(c.Parts, p)
	}
	return c, nil
}

// issuedIDs collects the ids of the function calls in c.
func issuedIDs(c *genai.Content) map[string]bool {
	var ids map[string]bool
	for _, p := range c.Parts {
		if p != nil && p.FunctionCall != nil && p.FunctionCall.ID != "" {
			if ids == nil {
				ids = make(map[string]bool)
			}
			ids[p.FunctionCall.ID] = true
		}
	}
	return ids
}

// responseObject is the functionResponse.response of a tool result. Gemini
// wants an object: a non-object result goes under "output", and an error
// result under "error", as the API documents.
func responseObject(r llm.ToolResult) (map[string]any, error) {
	var v any = map[string]any{}
	if len(bytes.TrimSpace(r.Content)) > 0 {
		d := json.NewDecoder(bytes.NewReader(r.Content))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("tool result %s (%s) is not JSON: %w", r.CallID, r.Name, err)
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{"output": v}
	}
	if r.IsError {
		return map[string]any{"error": obj}, nil
	}
	return obj, nil
}

// decodeObject decodes tool-call arguments, keeping numbers exact.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var args map[string]any
	if err := d.Decode(&args); err != nil {
		return nil, err
	}
	return args, nil
}

// generateConfig maps the request's system prompt, tools and sampling
// options. Automatic continuation is off: each continuation is a billed
// request the orchestrator did not ask for.
func generateConfig(req llm.Request) (*genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: req.System}}}
	}
	if req.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*req.Temperature))
	}
	if req.TopP != nil {
		cfg.TopP = genai.Ptr(float32(*req.TopP))
	}
	if req.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxOutputTokens, math.MaxInt32))
	}
	if len(req.Tools) == 0 {
		return cfg, nil
	}
	decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
	for _, t := range req.Tools {
		d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
		if len(bytes.TrimSpace(t.Schema)) > 0 {
			if !json.Valid(t.Schema) {
				return nil, fmt.Errorf("tool %s: schema is not valid JSON", t.Name)
			}
			d.ParametersJsonSchema = t.Schema
		}
		decls = append(decls, d)
	}
	cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	return cfg, nil
}
