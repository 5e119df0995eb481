package rules

import (
	"fmt"
	"slices"
	"strings"

	"strategist/internal/llm"
)

// summarize answers a history summary request with a digest, not a
// paraphrase: the researcher's requests, the tools called and how often,
// and the assistant's last words, each cut short. It reads the transcript
// the compactor sends ("Researcher: ...", "Assistant called ...") or, for
// another caller, the request's messages.
func summarize(req llm.Request) response {
	var requests, answers []string
	calls := map[string]int{}
	add := func(role, text string) {
		text = strings.TrimSpace(text)
		if text == "" {
			return
		}
		switch role {
		case "user":
			requests = append(requests, text)
		case "assistant":
			answers = append(answers, text)
		}
	}
	transcript := ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			if _, body, ok := strings.Cut(m.Text, "<transcript>"); ok {
				transcript, _, _ = strings.Cut(body, "</transcript>")
			}
		}
	}
	if transcript != "" {
		for _, line := range strings.Split(transcript, "\n") {
			switch {
			case strings.HasPrefix(line, "Researcher: "):
				add("user", strings.TrimPrefix(line, "Researcher: "))
			case strings.HasPrefix(line, "Assistant called "):
				name, _, _ := strings.Cut(strings.TrimPrefix(line, "Assistant called "), " ")
				calls[name]++
			case strings.HasPrefix(line, "Assistant: "):
				add("assistant", strings.TrimPrefix(line, "Assistant: "))
			}
		}
	} else {
		for _, m := range req.Messages {
			add(string(m.Role), m.Text)
			for _, c := range m.ToolCalls {
				calls[c.Name]++
			}
		}
	}
	var b strings.Builder
	b.WriteString("Digest written by Strategist's offline planner, which is not a language model: the conversation's requests and tool calls, cut short, not a paraphrase.\n")
	if len(requests) == 0 {
		b.WriteString("\nThe researcher made no request yet.\n")
	} else {
		fmt.Fprintf(&b, "\nThe researcher's requests (%d, the last %d shown):\n", len(requests), min(len(requests), 5))
		for _, r := range requests[max(0, len(requests)-5):] {
			fmt.Fprintf(&b, "- %s\n", limit(oneLine(r), 300))
		}
	}
	if len(calls) > 0 {
		names := make([]string, 0, len(calls))
		for n := range calls {
			names = append(names, n)
		}
		slices.Sort(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s ×%d", n, calls[n])
		}
		fmt.Fprintf(&b, "\nTools called: %s.\n", strings.Join(parts, ", "))
	}
	if len(answers) > 0 {
		fmt.Fprintf(&b, "\nThe assistant's last message: %s\n", limit(oneLine(answers[len(answers)-1]), 600))
	}
	return say(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
