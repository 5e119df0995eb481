package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"strategist/internal/llm"
)

// accumulator turns the streamed GenerateContentResponses of one attempt
// into chunks, and merges their parts into the one Content that goes back to
// Gemini in the next round. It belongs to a single attempt.
type accumulator struct {
	seed    string
	content genai.Content
	calls   int
	reason  genai.FinishReason
	usage   *genai.GenerateContentResponseUsageMetadata
	// openText is the index in content.Parts of the text part still
	// receiving deltas (-1 if none); its text collects in text and is
	// written back when the part closes, so n deltas cost O(n), not O(n²).
	openText int
	text     strings.Builder
}

func newAccumulator(seed string) *accumulator {
	return &accumulator{seed: seed, content: genai.Content{Role: genai.RoleModel}, openText: -1}
}

// add takes one streamed response and returns the chunks it produces: a
// text delta per visible text part, a tool call per function-call part.
func (a *accumulator) add(resp *genai.GenerateContentResponse) ([]llm.Chunk, error) {
	if resp == nil {
		return nil, nil
	}
	if resp.UsageMetadata != nil {
		a.usage = resp.UsageMetadata
	}
	if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" && fb.BlockReason != genai.BlockedReasonUnspecified {
		msg := fmt.Sprintf("Gemini blocked the prompt (reason %s)", fb.BlockReason)
		if fb.BlockReasonMessage != "" {
			msg += ": " + fb.BlockReasonMessage
		}
		return nil, &blockedError{message: msg}
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil, nil
	}
	cand := resp.Candidates[0]
	var chunks []llm.Chunk
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if p == nil {
				continue
			}
			a.merge(p)
			switch {
			case p.FunctionCall != nil:
				call, err := a.toolCall(p.FunctionCall)
				if err != nil {
					return nil, err
				}
				chunks = append(chunks, llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: call})
			case p.Text != "" && !p.Thought:
				chunks = append(chunks, llm.Chunk{Kind: llm.ChunkText, Text: p.Text})
			}
		}
	}
	if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
		a.reason = cand.FinishReason
		if blocking(cand.FinishReason) {
			msg := fmt.Sprintf("Gemini stopped the answer for safety reasons (finish reason %s)", cand.FinishReason)
			if cand.FinishMessage != "" {
				msg += ": " + cand.FinishMessage
			}
			return chunks, &blockedError{message: msg}
		}
	}
	return chunks, nil
}

// merge appends p to the merged content. A text delta joins the previous
// part when both are plain text of the same kind (thought or not) and the
// previous part is still open, that is has no signature yet; every other
// part, and any part after a signature, stays a part of its own, so each
// signature stays on the part it came with.
func (a *accumulator) merge(p *genai.Part) {
	if a.openText >= 0 && a.openText == len(a.content.Parts)-1 && p.Text != "" && plainText(p) &&
		a.content.Parts[a.openText].Thought == p.Thought {
		a.text.WriteString(p.Text)
		if len(p.ThoughtSignature) > 0 {
			a.content.Parts[a.openText].ThoughtSignature = p.ThoughtSignature
			a.closeText()
		}
		return
	}
	a.closeText()
	cp := *p
	a.content.Parts = append(a.content.Parts, &cp)
	if cp.Text != "" && plainText(&cp) && len(cp.ThoughtSignature) == 0 {
		a.openText = len(a.content.Parts) - 1
		a.text.Reset()
		a.text.WriteString(cp.Text)
	}
}

// closeText writes the collected text back into the open text part.
func (a *accumulator) closeText() {
	if a.openText >= 0 {
		a.content.Parts[a.openText].Text = a.text.String()
		a.openText = -1
	}
}

// plainText reports whether p is a text part and nothing else.
func plainText(p *genai.Part) bool {
	return p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil &&
		p.FileData == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
		p.ToolCall == nil && p.ToolResponse == nil && p.VideoMetadata == nil &&
		p.PartMetadata == nil
}

func (a *accumulator) toolCall(fc *genai.FunctionCall) (*llm.ToolCall, error) {
	args := []byte("{}")
	if len(fc.Args) > 0 {
		var err error
		if args, err = json.Marshal(fc.Args); err != nil {
			return nil, fmt.Errorf("encode arguments of %s: %w", fc.Name, err)
		}
	}
	id := fc.ID
	if id == "" {
		id = llm.DerivedCallID(a.seed, a.calls, fc.Name, args)
	}
	a.calls++
	return &llm.ToolCall{ID: id, Name: fc.Name, Args: args}, nil
}

// finish ends a complete stream: the usage chunk, then the finish chunk
// carrying the merged content as Raw.
func (a *accumulator) finish() ([]llm.Chunk, error) {
	if a.reason == "" {
		return nil, errTruncated
	}
	a.closeText()
	raw, err := json.Marshal(&a.content)
	if err != nil {
		return nil, fmt.Errorf("encode model content: %w", err)
	}
	var chunks []llm.Chunk
	if u := a.usage; u != nil {
		completion := int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount)
		total := int(u.TotalTokenCount)
		if total == 0 {
			total = int(u.PromptTokenCount) + completion
		}
		chunks = append(chunks, llm.Chunk{Kind: llm.ChunkUsage, Usage: &llm.Usage{
			PromptTokens:     int(u.PromptTokenCount),
			CompletionTokens: completion,
			TotalTokens:      total,
		}})
	}
	chunks = append(chunks, llm.Chunk{
		Kind:   llm.ChunkFinish,
		Finish: a.finishReason(),
		Raw:    &llm.Raw{Engine: Name, Data: raw},
	})
	return chunks, nil
}

// finishReason maps Gemini's reason onto Strategist's. Gemini reports STOP
// after function calls too, so calls decide.
func (a *accumulator) finishReason() llm.FinishReason {
	switch {
	case a.calls > 0:
		return llm.FinishToolCalls
	case a.reason == genai.FinishReasonStop:
		return llm.FinishStop
	case a.reason == genai.FinishReasonMaxTokens:
		return llm.FinishLength
	default:
		return llm.FinishOther
	}
}

// blocking reports whether a finish reason means Gemini refused the content.
func blocking(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return true
	}
	return false
}
