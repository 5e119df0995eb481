package mcp

import (
	"context"
	"errors"
	"strings"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/tool"
)

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

func (p *Protocol) createConversation(ctx context.Context, args createConversationArgs) (*createdConversation, error) {
	userID := account.UserID(ctx)
	site := strings.TrimSpace(args.Site)
	if site == "" {
		site = protocol.DefaultSite
	}
	if err := p.host.UsableSite(ctx, userID, site); err != nil {
		return nil, err
	}
	title := "New conversation"
	if strings.TrimSpace(args.Title) != "" {
		t, err := protocol.CheckTitle(args.Title)
		if err != nil {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: err.(*protocol.APIError).Message}
		}
		title = t
	}
	conv, err := p.host.CreateConversation(ctx, userID, site, title)
	if err != nil {
		return nil, err
	}
	return &createdConversation{ConversationID: conv.ID, Title: conv.Title, Site: conv.SiteID, URL: p.host.ConversationURL(conv.ID)}, nil
}

var _ GraphService = (*strategies.Service)(nil)

// askTool is ask_strategist: a message to Strategist's own agents, run as
// a turn of a conversation exactly as if typed on its page, with the turn's
// progress sent as MCP progress notifications (when the client asks for
// them with a progress token) and the answer, the root count and the
// page's address as the result.
func (p *Protocol) askTool() tool.Tool {
	return tool.NewTool("ask_strategist",
		"Ask Strategist's planner in words (\"DNA repair genes, excluding chromosome 14\", or a follow-up such as \"now only those with a signal peptide\"): "+
			"it plans the strategy with the catalog, and builds it with sub-agents when build is true (or when the message is \"build\" and a plan waits). "+
			"Returns the answer, the root step's count and the conversation's page; the turn runs on the server, its page shows it live. "+
			"When Strategist cannot tell what a phrase means it asks back instead of planning: the result's question has 2 to 4 options, "+
			"each a reading with what it would build and its count; answer by calling again in the same conversation with one option's message "+
			"(or its number), or in the researcher's own words.",
		p.ask)
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
	PlanWaiting bool `json:"planWaiting"`
	// Question is the question the turn ended with, waiting for the
	// answer: the next message of the conversation.
	Question   *askQuestion `json:"question,omitempty"`
	Answer     string       `json:"answer"`
	Summary    string       `json:"summary"`
	RootStepID string       `json:"rootStepId,omitempty"`
	RootCount  *int         `json:"rootCount,omitempty"`
}

// askQuestion is a question the planner asked the researcher: each option
// is a reading, with the message that answers with it, what it would build
// and its count; freeText welcomes an answer in words of their own.
type askQuestion struct {
	QuestionID string                 `json:"questionId"`
	Question   string                 `json:"question"`
	Options    []event.QuestionOption `json:"options"`
	FreeText   bool                   `json:"freeText"`
}

type progressKey struct{}

func (p *Protocol) ask(ctx context.Context, args askArgs) (*askResult, error) {
	userID := account.UserID(ctx)
	var (
		conv    store.Conversation
		err     error
		created bool
	)
	if id := strings.TrimSpace(args.ConversationID); id != "" {
		if !protocol.IsUUID(id) {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: argConversation + " must be a conversation id (a UUID)"}
		}
		conv, err = p.host.Conversation(ctx, userID, strings.ToLower(id))
	} else {
		site := strings.TrimSpace(args.Site)
		if site == "" {
			site = protocol.DefaultSite
		}
		if err := p.host.UsableSite(ctx, userID, site); err != nil {
			return nil, err
		}
		conv, err = p.host.CreateConversation(ctx, userID, site, protocol.TitleFrom(args.Message))
		created = true
	}
	if err != nil {
		return nil, err
	}
	progress, _ := ctx.Value(progressKey{}).(func(string))
	n := protocol.NewNarrator(args.Build)
	var answer strings.Builder
	out, err := p.host.Converse(ctx, protocol.Message{UserID: userID, Conversation: conv, Text: args.Message, AutoBuild: args.Build, Created: created},
		func(_ *event.Record, e event.Event) error {
			if e == nil {
				return nil
			}
			t := n.Text(e)
			answer.WriteString(t)
			if progress != nil && strings.HasPrefix(strings.TrimSpace(t), ">") {
				progress(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), ">")))
			}
			return nil
		})
	if err != nil {
		if ae, ok := errors.AsType[*protocol.APIError](err); ok && ae.Status < 500 {
			te := &tool.ToolError{Code: ae.Code, Message: ae.Message}
			if d, ok := ae.Details.(map[string]any); ok {
				te.Details = d
			}
			return nil, te
		}
		return nil, err
	}
	summary, root := p.host.RootSummary(ctx, userID, conv.ID)
	res := &askResult{ConversationID: conv.ID, URL: p.host.ConversationURL(conv.ID), Status: out.Status, Error: out.Error,
		PlanWaiting: out.PendingHandoff != "", Answer: answer.String(), Summary: summary}
	if root != nil {
		res.RootStepID, res.RootCount = string(root.ID), root.Count
	}
	if q := out.Question; q != nil && out.Status == event.TurnCompleted && out.PendingHandoff == "" {
		res.Question = &askQuestion{QuestionID: q.QuestionID, Question: q.Question, Options: q.Options, FreeText: q.FreeText}
	}
	return res, nil
}
