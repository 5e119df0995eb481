// Package genelist is a researcher's gene lists: reading a pasted or
// uploaded list (Parse), resolving its identifiers against a site's genes
// (current ids kept, previous ids mapped and reported, unknown ids listed,
// none dropped), and keeping the lists, which belong to their user and
// outlive any conversation.
package genelist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/store"
)

// Bounds of a list.
const (
	// MaxIDs is the most identifiers one upload may name: far beyond a
	// control set or a screen's hits, and still one request to resolve.
	MaxIDs = 20000
	// MaxNameLength bounds a list's name, in characters.
	MaxNameLength = 200
)

// ErrInput marks a list the researcher must change: no identifiers, too
// many, or an unusable name. Its message says what to do.
var ErrInput = errors.New("genelist: invalid list")

// InputError is an ErrInput naming the field at fault.
type InputError struct {
	Field   string
	Message string
}

func (e *InputError) Error() string { return "genelist: " + e.Field + ": " + e.Message }

// Unwrap lets errors.Is(err, ErrInput) match.
func (e *InputError) Unwrap() error { return ErrInput }

// Store is the persistence the Service needs (*store.DB).
type Store interface {
	CreateGeneList(ctx context.Context, userID string, l store.GeneList) (store.GeneList, error)
	GeneLists(ctx context.Context, userID string) ([]store.GeneListSummary, error)
	GeneList(ctx context.Context, userID, id string) (store.GeneList, error)
	RenameGeneList(ctx context.Context, userID, id, name string) (store.GeneList, error)
	DeleteGeneList(ctx context.Context, userID, id string) ([]string, error)
	SetControls(ctx context.Context, userID, conversationID string, positives, negatives *string) (store.Controls, error)
	ConversationControls(ctx context.Context, userID, conversationID string) (store.Controls, error)
}

// Resolver resolves identifiers against a site's genes (*sites.Registry).
type Resolver interface {
	ResolveGenes(ctx context.Context, site string, ids []string) (*catalog.GeneResolution, error)
}

// EventLog appends to a conversation's event log (*eventlog.Log). Sync
// waits for what turns have queued, so that a change a turn's tool makes
// is announced after the call that made it.
type EventLog interface {
	Append(ctx context.Context, conversationID string, events ...event.Event) ([]event.Record, error)
	Sync(ctx context.Context) error
}

// Config holds the Service's dependencies.
type Config struct {
	Store    Store    // required
	Resolver Resolver // required
	// Events, when set, gets a controls_changed event for every change of
	// a conversation's controls, so its open pages and clients update.
	Events EventLog
	// DefaultSite is the site of a list created without one.
	DefaultSite string
}

// Service creates, reads, renames and deletes gene lists.
type Service struct {
	events      EventLog
	store       Store
	resolver    Resolver
	defaultSite string
}

// New checks cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Resolver == nil || cfg.DefaultSite == "" {
		return nil, errors.New("genelist: new: Store, Resolver and DefaultSite are required")
	}
	return &Service{store: cfg.Store, resolver: cfg.Resolver, defaultSite: cfg.DefaultSite, events: cfg.Events}, nil
}

// Create reads text (Parse), resolves its identifiers on the site ("" for
// the default) and stores the list under name. The stored list says which
// ids were mapped and which are unknown; a list of unknown ids alone is
// still stored, so the researcher sees what was not found.
func (s *Service) Create(ctx context.Context, userID, siteID, name, text string) (store.GeneList, error) {
	return s.create(ctx, userID, siteID, name, Parse(text))
}

// FromGenes stores ids (a step's genes, an agent's selection) as a list,
// resolved like an upload.
func (s *Service) FromGenes(ctx context.Context, userID, siteID, name string, ids []string) (store.GeneList, error) {
	return s.create(ctx, userID, siteID, name, ids)
}

func (s *Service) create(ctx context.Context, userID, siteID, name string, ids []string) (store.GeneList, error) {
	name, err := CleanName(name)
	if err != nil {
		return store.GeneList{}, err
	}
	switch {
	case len(ids) == 0:
		return store.GeneList{}, &InputError{Field: "text", Message: "no gene ids found; give one id per line, or separated by commas, tabs or spaces"}
	case len(ids) > MaxIDs:
		return store.GeneList{}, &InputError{Field: "text", Message: fmt.Sprintf("%d ids; a list has at most %d", len(ids), MaxIDs)}
	}
	if siteID == "" {
		siteID = s.defaultSite
	}
	res, err := s.resolver.ResolveGenes(ctx, siteID, ids)
	if err != nil {
		return store.GeneList{}, fmt.Errorf("genelist: resolve %d ids on %s: %w", len(ids), siteID, err)
	}
	l, err := s.store.CreateGeneList(ctx, userID, store.GeneList{SiteID: siteID, Name: name, Genes: res.Genes, Unknown: res.Unknown, Mapped: res.Mapped})
	if err != nil {
		return store.GeneList{}, fmt.Errorf("genelist: create %q: %w", name, err)
	}
	return l, nil
}

// Lists returns the user's lists, newest first, without their genes.
func (s *Service) Lists(ctx context.Context, userID string) ([]store.GeneListSummary, error) {
	ls, err := s.store.GeneLists(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("genelist: lists: %w", err)
	}
	if ls == nil {
		ls = []store.GeneListSummary{}
	}
	return ls, nil
}

// Get returns one of the user's lists; another user's is store.ErrNotFound.
func (s *Service) Get(ctx context.Context, userID, id string) (store.GeneList, error) {
	l, err := s.store.GeneList(ctx, userID, id)
	if err != nil {
		return store.GeneList{}, fmt.Errorf("genelist: get %s: %w", id, err)
	}
	return l, nil
}

// Rename renames one of the user's lists.
func (s *Service) Rename(ctx context.Context, userID, id, name string) (store.GeneList, error) {
	name, err := CleanName(name)
	if err != nil {
		return store.GeneList{}, err
	}
	l, err := s.store.RenameGeneList(ctx, userID, id, name)
	if err != nil {
		return store.GeneList{}, fmt.Errorf("genelist: rename %s: %w", id, err)
	}
	return l, nil
}

// Delete deletes one of the user's lists. Conversations that used it as a
// control lose that control, and (with an event log) their streams say so.
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	convs, err := s.store.DeleteGeneList(ctx, userID, id)
	if err != nil {
		return fmt.Errorf("genelist: delete %s: %w", id, err)
	}
	if s.events == nil {
		return nil
	}
	for _, conv := range convs {
		c, err := s.store.ConversationControls(ctx, userID, conv)
		if err != nil {
			return fmt.Errorf("genelist: delete %s: controls of %s: %w", id, conv, err)
		}
		if _, err := s.events.Append(ctx, conv, ControlsEvent(c)); err != nil {
			return fmt.Errorf("genelist: delete %s: announce to %s: %w", id, conv, err)
		}
	}
	return nil
}

// CleanName trims a list's name and checks it is printable and not too
// long.
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", &InputError{Field: "name", Message: "a list needs a name"}
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", &InputError{Field: "name", Message: fmt.Sprintf("a list's name has at most %d characters", MaxNameLength)}
	case strings.ContainsFunc(name, unicode.IsControl):
		return "", &InputError{Field: "name", Message: "a list's name cannot contain control characters"}
	}
	return name, nil
}

// SetControls makes two of the user's lists the positive and negative
// controls of one of the user's conversations (nil: none on that side).
// A conversation or list that is not the user's is store.ErrNotFound.
func (s *Service) SetControls(ctx context.Context, userID, conversationID string, positives, negatives *string) (store.Controls, error) {
	c, err := s.store.SetControls(ctx, userID, conversationID, positives, negatives)
	if err != nil {
		return store.Controls{}, fmt.Errorf("genelist: set controls of %s: %w", conversationID, err)
	}
	if s.events != nil {
		// A turn's tool names its turn, after what the turn queued.
		ev := ControlsEvent(c)
		if ev.TurnID = event.TurnFrom(ctx); ev.TurnID != "" {
			_ = s.events.Sync(ctx)
		}
		if _, err := s.events.Append(ctx, conversationID, ev); err != nil {
			return c, fmt.Errorf("genelist: set controls of %s: announce: %w", conversationID, err)
		}
	}
	return c, nil
}

// KnownAsControls saves ids the researcher named as known genes as a list
// (resolved like an upload) and makes it one side of the conversation's
// controls, positives or negatives, keeping the other side as it is. It
// returns the controls and the new list (with its mapped and unknown ids).
func (s *Service) KnownAsControls(ctx context.Context, userID, siteID, conversationID, name string, ids []string, negatives bool) (store.Controls, store.GeneList, error) {
	cur, err := s.Controls(ctx, userID, conversationID)
	if err != nil {
		return store.Controls{}, store.GeneList{}, err
	}
	l, err := s.create(ctx, userID, siteID, name, ids)
	if err != nil {
		return store.Controls{}, store.GeneList{}, err
	}
	pos, neg := listID(cur.Positives), listID(cur.Negatives)
	if negatives {
		neg = &l.ID
	} else {
		pos = &l.ID
	}
	c, err := s.SetControls(ctx, userID, conversationID, pos, neg)
	return c, l, err
}

// listID is a list's id, nil for none.
func listID(l *store.GeneList) *string {
	if l == nil {
		return nil
	}
	return &l.ID
}

// Controls returns the control lists of one of the user's conversations.
func (s *Service) Controls(ctx context.Context, userID, conversationID string) (store.Controls, error) {
	c, err := s.store.ConversationControls(ctx, userID, conversationID)
	if err != nil {
		return store.Controls{}, fmt.Errorf("genelist: controls of %s: %w", conversationID, err)
	}
	return c, nil
}

// ControlsEvent is the controls_changed event of a conversation's controls.
func ControlsEvent(c store.Controls) *event.ControlsChanged {
	e := &event.ControlsChanged{}
	if l := c.Positives; l != nil {
		e.PositivesID, e.PositivesName, e.PositivesSize = l.ID, l.Name, len(l.Genes)
	}
	if l := c.Negatives; l != nil {
		e.NegativesID, e.NegativesName, e.NegativesSize = l.ID, l.Name, len(l.Genes)
	}
	return e
}

// Resolve resolves identifiers on a site as a list's are (previous ids
// mapped, unknown ids listed).
func (s *Service) Resolve(ctx context.Context, siteID string, ids []string) (*catalog.GeneResolution, error) {
	res, err := s.resolver.ResolveGenes(ctx, siteID, ids)
	if err != nil {
		return nil, fmt.Errorf("genelist: resolve %d ids on %s: %w", len(ids), siteID, err)
	}
	return res, nil
}
