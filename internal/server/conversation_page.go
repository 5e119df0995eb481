package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/web"
	"strategist/web/view"
)

// foldPage is how many events one read of the log returns while folding.
const foldPage = 1000

// conversationPage is GET /conversations/{id}: the page drawn from the
// conversation's events up to its lastEventSeq N, following the live
// stream from N. Another user's or an unknown id is the 404 page.
func (s *Server) conversationPage(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	proj, err := s.project(ctx, userID(c), conv, conv.LastEventSeq)
	if err != nil {
		return err
	}
	// The page is a snapshot at N; a page restored from a cache would
	// resume from a stale N and show events twice.
	c.Response().Header().Set("Cache-Control", "no-store")
	p := s.conversationView(c, proj)
	p.Overlaps = s.overlaps(ctx, proj)
	return s.render(c, http.StatusOK, web.ConversationView(s.page(c, conv.Title), p))
}

// overlaps are the combines' overlaps of the strategy the projection
// shows (none without one).
func (s *Server) overlaps(ctx context.Context, proj *view.Conversation) map[strategy.StepID]strategy.Overlap {
	if proj.Strategy == nil {
		return nil
	}
	return s.cfg.Strategies.Overlaps(ctx, *proj.Strategy)
}

// turnPage is GET /conversations/{id}/turns/{turnId}: one turn drawn
// whole, as the fragment an opened summary line of the page loads, or as a
// page of its own for a plain browser. Another user's conversation or a
// turn it does not have is a 404.
func (s *Server) turnPage(c echo.Context) error {
	// What a turn shows is complete at its turn_end: the log after it
	// need not be read.
	id := c.Param("turnId")
	conv, proj, err := s.projectNow(c, func(p *view.Conversation) bool {
		t := p.Turn(id)
		return t != nil && !t.Running()
	})
	if err != nil {
		return err
	}
	t := proj.Turn(id)
	if t == nil {
		return notFound("turn")
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	p := s.conversationView(c, proj)
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.TurnContent(p, t))
	}
	return s.render(c, http.StatusOK, web.TurnPage(s.page(c, conv.Title), p, t))
}

// toolCallPage is GET /conversations/{id}/tool-calls/{key}: the arguments
// and the result or error of the tool call (of the chat or of a sub-agent)
// whose tool_call_start is event key, as the fragment an opened tool card
// loads, or as a page of its own for a plain browser.
func (s *Server) toolCallPage(c echo.Context) error {
	key, err := strconv.ParseInt(c.Param("key"), 10, 64)
	if err != nil || key < 1 {
		return badRequest("the tool call in the address must be a positive whole number")
	}
	// A call is complete when it ended: the log after that need not be read.
	conv, proj, err := s.projectNow(c, func(p *view.Conversation) bool {
		tc := p.ToolCall(key)
		return p.Seq >= key && (tc == nil || tc.Status != view.CallRunning)
	})
	if err != nil {
		return err
	}
	tc := proj.ToolCall(key)
	if tc == nil {
		return notFound("tool call")
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.ToolCallBody(tc))
	}
	return s.render(c, http.StatusOK, web.ToolCallPage(s.page(c, tc.Name+" · "+conv.Title), s.conversationView(c, proj), tc))
}

// artifactPage is GET /conversations/{id}/artifacts/{artifactId}: an
// artifact's notes or draft and its handoffs, as the fragment an opened
// title line of the plan panel loads, or as a page of its own for a plain
// browser.
func (s *Server) artifactPage(c echo.Context) error {
	// An artifact's handoffs change until the end of the log: all of it is
	// read.
	conv, proj, err := s.projectNow(c, nil)
	if err != nil {
		return err
	}
	a := proj.Artifact(c.Param("artifactId"))
	if a == nil {
		return notFound("artifact")
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	p := s.conversationView(c, proj)
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.ArtifactBody(p, a))
	}
	return s.render(c, http.StatusOK, web.ArtifactPage(s.page(c, a.Title+" · "+conv.Title), p, a))
}

// olderArtifactsPage is GET /conversations/{id}/artifacts: the artifacts
// the plan panel keeps behind its "Earlier notes and plans" line, each as
// its title line for htmx, or all drawn whole as a page for a plain
// browser.
func (s *Server) olderArtifactsPage(c echo.Context) error {
	conv, proj, err := s.projectNow(c, nil)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	p := s.conversationView(c, proj)
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.OlderArtifacts(p))
	}
	return s.render(c, http.StatusOK, web.OlderArtifactsPage(s.page(c, "Earlier notes and plans · "+conv.Title), p))
}

// projectNow reads the request's conversation (the user's own, else
// store.ErrNotFound) and folds its events, all of them or until done.
func (s *Server) projectNow(c echo.Context, done func(*view.Conversation) bool) (store.Conversation, *view.Conversation, error) {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return conv, nil, err
	}
	proj, err := s.projectUntil(ctx, userID(c), conv, conv.LastEventSeq, done)
	return conv, proj, err
}

// conversationView is what the page's components are drawn with.
func (s *Server) conversationView(c echo.Context, proj *view.Conversation) *web.ConversationPage {
	models := s.cfg.Models.Models()
	return &web.ConversationPage{
		Conv:      proj,
		CSRFToken: currentIdentity(c).csrf,
		Now:       time.Now(),
		MD:        s.md,
		Models:    web.ModelOptions(models),
		Model:     web.SelectedModel(models, proj.Model),
	}
}

// project folds a conversation's events with seq up to upTo into the
// page's projection. An event that cannot be decoded is logged and left
// out; the rest of the page is still drawn.
func (s *Server) project(ctx context.Context, uid string, conv store.Conversation, upTo int64) (*view.Conversation, error) {
	return s.projectUntil(ctx, uid, conv, upTo, nil)
}

// projectUntil is project that stops early, after a read of the log, once
// done (if not nil) says the projection has what is asked of it.
func (s *Server) projectUntil(ctx context.Context, uid string, conv store.Conversation, upTo int64, done func(*view.Conversation) bool) (*view.Conversation, error) {
	proj := view.New(view.Start{
		ID: conv.ID, Title: conv.Title, SiteID: conv.SiteID, Mode: conv.Mode, Model: conv.Model,
		UserText: s.storedUserText(ctx, uid, conv.ID),
	})
	for proj.Seq < upTo {
		rows, err := s.cfg.Store.EventsAfter(ctx, uid, conv.ID, proj.Seq, foldPage)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			break
		}
		for _, row := range rows {
			if row.Seq > upTo {
				return proj, nil
			}
			s.apply(proj, eventlog.FromRow(row))
		}
		if len(rows) < foldPage || done != nil && done(proj) {
			break
		}
	}
	return proj, nil
}

// apply folds one record, logging (not failing on) a record it cannot read.
func (s *Server) apply(proj *view.Conversation, rec event.Record) []view.Change {
	changes, err := proj.Apply(rec)
	if err != nil {
		s.log.Warn("event left out of the page", slog.String("conversation_id", rec.ConversationID), slog.Int64("seq", rec.Seq), slog.Any("error", err))
	}
	return changes
}

// storedUserText looks up user messages by id, for turns recorded before
// turn_start carried the text. It reads the messages once, on first use.
func (s *Server) storedUserText(ctx context.Context, uid, conversationID string) func(string) string {
	var texts map[string]string
	return func(id string) string {
		if texts == nil {
			texts = map[string]string{}
			msgs, err := s.cfg.Store.Messages(ctx, uid, conversationID)
			if err != nil {
				s.log.Warn("reading messages for the page", slog.String("conversation_id", conversationID), slog.Any("error", err))
			}
			for _, m := range msgs {
				if m.Role == store.RoleUser {
					texts[m.ID] = m.Content
				}
			}
		}
		return texts[id]
	}
}

// stepResultsPage is GET /conversations/{id}/strategy/steps/{stepId}/results:
// one page of a step's genes (filtered by q, sorted by sort and dir, a
// page of offset and limit, "all" for every row), as the fragment htmx puts
// into the strategy panel, or as a page of its own for a plain browser. A
// step whose genes cannot be listed (not evaluable offline) shows why
// instead.
func (s *Server) stepResultsPage(c echo.Context) error {
	q, offset, limit, err := web.ParseGeneTable(c.QueryParams())
	if err != nil {
		return badRequest(err.Error())
	}
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return err
	}
	return s.renderResults(c, snap, strategy.StepID(c.Param("stepId")), q, offset, limit)
}

// renderResults draws one page of a step's genes of snap, with its rename
// form and parameter editor: the fragment htmx puts into the strategy
// panel, or a page of its own for a plain browser.
func (s *Server) renderResults(c echo.Context, snap strategy.Snapshot, stepID strategy.StepID, q web.GeneQuery, offset, limit int) error {
	v := web.ResultsView{ConversationID: c.Param("id"), StepID: string(stepID), StepName: string(stepID), Offset: offset, Limit: limit,
		GeneQuery: q, Editable: true, CSRFToken: currentIdentity(c).csrf, Version: snap.Version}
	if page, name := sites.GenePages(snap.SiteID); page != nil {
		v.GenePage = page
		v.GenePageLabel = "Open the gene on " + name + " (its current release)"
		if !strings.HasSuffix(snap.SiteID, sites.LiveSuffix) {
			v.GenePageLabel = "Open the gene on " + name + " today; these genes come from the offline snapshot"
		}
	}
	st, ok := snap.Step(stepID)
	if !ok {
		return strategyError(strategy.ErrStepNotFound)
	}
	v.StepName = cmp.Or(st.DisplayName, st.SearchName)
	if st.Kind == strategy.KindCombine && st.Operator != strategy.Colocate {
		v.Operator = string(st.Operator)
	}
	if search := s.stepSearch(c, snap, st); search != nil {
		v.Params = web.ParamFields(search, st.Parameters)
	}
	ans, matched, whole, err := s.geneTable(c, snap, stepID, q, offset, limit)
	v.Matched = matched
	if !whole && q.ReadsAll(limit) {
		v.GeneQuery, v.Limit = web.GeneQuery{}, cmp.Or(limit, web.DefaultPageSize)
		v.TableNote = fmt.Sprintf("This step has more than %d genes, too many to filter, sort or show at once here: "+
			"they are paged in the site's order. Download them to sort or filter.", web.MaxTableGenes)
	}
	switch ne, ok := errors.AsType[*catalog.NotEvaluableError](err); {
	case ok:
		v.NotEvaluable, v.NotEvaluableReason = true, ne.Reason
	case errors.Is(err, strategy.ErrNotEvaluable):
		v.NotEvaluable = true
	case err != nil:
		ae := toAPIError(strategyError(err))
		if ae.Status >= 500 && ae.Code != CodeUnavailable && ae.Code != CodeSiteUnavailable && ae.Code != CodeSiteError {
			return err
		}
		v.Error = ae.Message
	default:
		v.Answer = ans
	}
	if v.Answer != nil {
		if v.Lists, err = s.listsPanel(c, snap, stepID); err != nil {
			return err
		}
	}
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.Results(v))
	}
	return s.render(c, http.StatusOK, web.ResultsPage(s.page(c, "Genes of "+v.StepName), v))
}

// geneTable reads the page of a step's genes the table shows: one page of
// the catalog's when the table is neither filtered nor sorted, else all of
// the step's genes (as a download reads them, up to web.MaxTableGenes),
// filtered, sorted and cut to the page; matched counts what the filter
// kept. A step too large to read whole is paged in the catalog's order
// (whole is false).
func (s *Server) geneTable(c echo.Context, snap strategy.Snapshot, stepID strategy.StepID, q web.GeneQuery, offset, limit int) (ans *catalog.Answer, matched int, whole bool, err error) {
	ctx := c.Request().Context()
	onePage := func(limit int) (*catalog.Answer, int, bool, error) {
		ans, err := s.cfg.Strategies.StepResults(ctx, userID(c), snap.StrategyID, stepID, catalog.Page{Offset: offset, Limit: limit})
		if err != nil {
			return nil, 0, false, err
		}
		return ans, ans.Count, false, nil
	}
	if !q.ReadsAll(limit) {
		return onePage(limit)
	}
	page := catalog.Page{Limit: strategies.MaxPageSize}
	if ans, err = s.cfg.Strategies.StepResults(ctx, userID(c), snap.StrategyID, stepID, page); err != nil {
		return nil, 0, false, err
	}
	if ans.Count > web.MaxTableGenes {
		return onePage(cmp.Or(limit, web.DefaultPageSize))
	}
	all := ans.Records
	for len(ans.Records) == page.Limit && len(all) < ans.Count {
		page.Offset += len(ans.Records)
		next, err := s.cfg.Strategies.StepResults(ctx, userID(c), snap.StrategyID, stepID, page)
		if err != nil {
			return nil, 0, false, err
		}
		all = append(all, next.Records...)
		ans.Records = next.Records
	}
	out := *ans
	out.Records, matched = q.Apply(all, offset, limit)
	return &out, matched, true, nil
}

// stepSearch is the catalog's description of the search a search or
// transform step runs, or nil for a combine (its operator is its
// parameter) or when the catalog cannot say (the editor is left out and
// the genes still show).
func (s *Server) stepSearch(c echo.Context, snap strategy.Snapshot, st strategy.Step) *catalog.Search {
	if st.Kind == strategy.KindCombine || st.SearchName == "" {
		return nil
	}
	search, err := s.cfg.Catalog.Search(c.Request().Context(), snap.SiteID, st.RecordType, st.SearchName)
	if err != nil {
		s.cfg.Logger.Warn("results panel: the step's search is not described", "site", snap.SiteID, "search", st.SearchName, "err", err)
		return nil
	}
	return search
}
