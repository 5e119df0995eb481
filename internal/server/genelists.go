package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/executor"
	"strategist/internal/genelist"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// GeneLists keeps researchers' gene lists and conversations' control
// lists (*genelist.Service).
type GeneLists interface {
	Create(ctx context.Context, userID, siteID, name, text string) (store.GeneList, error)
	FromGenes(ctx context.Context, userID, siteID, name string, ids []string) (store.GeneList, error)
	Lists(ctx context.Context, userID string) ([]store.GeneListSummary, error)
	Get(ctx context.Context, userID, id string) (store.GeneList, error)
	Rename(ctx context.Context, userID, id, name string) (store.GeneList, error)
	Delete(ctx context.Context, userID, id string) error
	SetControls(ctx context.Context, userID, conversationID string, positives, negatives *string) (store.Controls, error)
	Controls(ctx context.Context, userID, conversationID string) (store.Controls, error)
	Resolve(ctx context.Context, siteID string, ids []string) (*catalog.GeneResolution, error)
}

// StrategyLists is what lists and imports need of the strategy service
// (*strategies.Service): a WDK strategy imported into a conversation, and a
// strategy's figures against control lists.
type StrategyLists interface {
	ForConversation(ctx context.Context, userID, conversationID, recordType, name string) (strategy.Snapshot, error)
	ImportWDK(ctx context.Context, userID, conversationID string, w *strategy.WDKStrategy) (strategies.Result, error)
	Controls(ctx context.Context, userID, strategyID string, positives, negatives []string) (*strategies.ControlReport, error)
	TraceGene(ctx context.Context, userID, strategyID, gene string) (*strategies.GeneTrace, error)
}

// geneListView is a list as the API gives it: its genes, the ids mapped
// from previous or transcript ids, and the ids that named no gene.
type geneListView struct {
	ID        string              `json:"id"`
	Name      string              `json:"name"`
	SiteID    string              `json:"siteId"`
	Size      int                 `json:"size"`
	Genes     []string            `json:"genes"`
	Unknown   []string            `json:"unknown"`
	Mapped    []catalog.IDMapping `json:"mapped"`
	CreatedAt time.Time           `json:"createdAt"`
	UpdatedAt time.Time           `json:"updatedAt"`
}

func viewGeneList(l store.GeneList) geneListView {
	return geneListView{ID: l.ID, Name: l.Name, SiteID: l.SiteID, Size: len(l.Genes), Genes: nonNil(l.Genes),
		Unknown: nonNil(l.Unknown), Mapped: nonNil(l.Mapped), CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

// createGeneListRequest is POST /gene-lists: the list's text pasted or read
// from a file, in any separator, a header row ignored.
type createGeneListRequest struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	SiteID string `json:"siteId"`
}

// createGeneList is POST /api/v1/gene-lists {"name","text"}. The API
// takes JSON only (checkAPIWrite); a file is uploaded as its text (the page
// and the CLI read it).
func (s *Server) createGeneList(c echo.Context) error {
	var req createGeneListRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	l, err := s.cfg.GeneLists.Create(c.Request().Context(), userID(c), req.SiteID, req.Name, req.Text)
	if err != nil {
		return geneListError(err)
	}
	return c.JSON(http.StatusCreated, viewGeneList(l))
}

// geneListError maps the list service's refusals onto responses.
func geneListError(err error) error {
	if ie, ok := errors.AsType[*genelist.InputError](err); ok {
		return validationError(ie.Message, map[string]string{ie.Field: ie.Message})
	}
	if errors.Is(err, catalog.ErrNotFound) {
		return validationError("unknown site; gene lists are resolved against a site the catalog has", map[string]string{"siteId": "unknown"})
	}
	return err
}

func (s *Server) listGeneLists(c echo.Context) error {
	ls, err := s.cfg.GeneLists.Lists(c.Request().Context(), userID(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"geneLists": nonNil(ls)})
}

func (s *Server) getGeneList(c echo.Context) error {
	l, err := s.cfg.GeneLists.Get(c.Request().Context(), userID(c), c.Param("listId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewGeneList(l))
}

func (s *Server) renameGeneList(c echo.Context) error {
	ctx := c.Request().Context()
	// Ownership first: another user's list is a 404 whatever the body says.
	if _, err := s.cfg.GeneLists.Get(ctx, userID(c), c.Param("listId")); err != nil {
		return err
	}
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	l, err := s.cfg.GeneLists.Rename(ctx, userID(c), c.Param("listId"), req.Name)
	if err != nil {
		return geneListError(err)
	}
	return c.JSON(http.StatusOK, viewGeneList(l))
}

func (s *Server) deleteGeneList(c echo.Context) error {
	if err := s.cfg.GeneLists.Delete(c.Request().Context(), userID(c), c.Param("listId")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// downloadGeneList is GET /gene-lists/{id}/download: the list's current
// gene ids, one a line.
func (s *Server) downloadGeneList(c echo.Context) error {
	l, err := s.cfg.GeneLists.Get(c.Request().Context(), userID(c), c.Param("listId"))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s.txt"`, fileName(l.Name)))
	h.Set("Cache-Control", "no-store")
	var b strings.Builder
	for _, g := range l.Genes {
		b.WriteString(g)
		b.WriteByte('\n')
	}
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()))
}

// fileName keeps letters, digits, dots, dashes and underscores of a name.
func fileName(name string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, name)
	if out = strings.Trim(out, "-."); out == "" {
		return "gene-list"
	}
	return out
}

// saveStepGenes is POST …/strategy/steps/{stepId}/gene-list {"name"}: the
// step's genes (its whole answer) saved as one of the researcher's lists.
func (s *Server) saveStepGenes(c echo.Context) error {
	// Ownership first: another user's conversation is a 404 whatever the
	// body says.
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	l, err := s.stepGenesList(c, conv, snap, req.Name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, viewGeneList(l))
}

// stepGenesList saves all of the route's step's genes as a list named name.
func (s *Server) stepGenesList(c echo.Context, conv store.Conversation, snap strategy.Snapshot, name string) (store.GeneList, error) {
	ctx := c.Request().Context()
	stepID := strategy.StepID(c.Param("stepId"))
	var ids []string
	page := catalog.Page{Limit: strategies.MaxPageSize}
	for {
		ans, err := s.cfg.Strategies.StepResults(ctx, userID(c), snap.StrategyID, stepID, page)
		if err != nil {
			return store.GeneList{}, strategyError(err)
		}
		for _, r := range ans.Records {
			ids = append(ids, r.GeneID)
		}
		page.Offset += len(ans.Records)
		if len(ans.Records) == 0 || page.Offset >= ans.Count {
			break
		}
	}
	if len(ids) == 0 {
		return store.GeneList{}, validationError("step "+string(stepID)+" has no genes to save", map[string]string{"stepId": "empty"})
	}
	l, err := s.cfg.GeneLists.FromGenes(ctx, userID(c), conv.SiteID, name, ids)
	if err != nil {
		return store.GeneList{}, geneListError(err)
	}
	return l, nil
}

// controlsRequest is PUT …/controls: list ids, either null.
type controlsRequest struct {
	Positives *string `json:"positives"`
	Negatives *string `json:"negatives"`
}

// controlsView is a conversation's control lists, without their genes.
type controlsView struct {
	Positives *controlList `json:"positives"`
	Negatives *controlList `json:"negatives"`
}

type controlList struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int    `json:"size"`
}

func viewControls(c store.Controls) controlsView {
	side := func(l *store.GeneList) *controlList {
		if l == nil {
			return nil
		}
		return &controlList{ID: l.ID, Name: l.Name, Size: len(l.Genes)}
	}
	return controlsView{Positives: side(c.Positives), Negatives: side(c.Negatives)}
}

// putControls is PUT /conversations/{id}/controls.
func (s *Server) putControls(c echo.Context) error {
	ctx := c.Request().Context()
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}
	var req controlsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	for field, id := range map[string]*string{"positives": req.Positives, "negatives": req.Negatives} {
		if id == nil {
			continue
		}
		if _, err := s.cfg.GeneLists.Get(ctx, userID(c), *id); errors.Is(err, store.ErrNotFound) {
			return validationError(field+": you have no gene list "+quote(*id), map[string]string{field: "not found"})
		} else if err != nil {
			return err
		}
	}
	ctl, err := s.cfg.GeneLists.SetControls(ctx, userID(c), c.Param("id"), req.Positives, req.Negatives)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewControls(ctl))
}

// getControls is GET /conversations/{id}/controls.
func (s *Server) getControls(c echo.Context) error {
	ctx := c.Request().Context()
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}
	ctl, err := s.cfg.GeneLists.Controls(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewControls(ctl))
}

// strategyControls is GET …/strategy/controls: every step's figures
// against the conversation's control lists.
func (s *Server) strategyControls(c echo.Context) error {
	_, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	ctl, err := s.cfg.GeneLists.Controls(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	genes := func(l *store.GeneList) []string {
		if l == nil {
			return nil
		}
		return l.Genes
	}
	rep, err := s.cfg.StrategyLists.Controls(ctx, userID(c), snap.StrategyID, genes(ctl.Positives), genes(ctl.Negatives))
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"strategyId": rep.StrategyID, "version": rep.Version, "rootStepId": rep.RootStepID,
		"controls": viewControls(ctl), "steps": rep.Steps})
}

// importRequest is POST …/strategy/wdk: a strategy in WDK's JSON (what
// GET …/strategy/wdk gives), or, on a live site, a strategy of the
// researcher's VEuPathDB account by its id or one shared by its link.
type importRequest struct {
	strategy.WDKStrategy
	StrategyID *int64 `json:"strategyId"`
	ShareURL   string `json:"shareUrl"`
}

// importStrategyWDK is POST …/strategy/wdk: the strategy becomes the
// conversation's strategy, as its next version. One read from the live
// site's account or through a share link is imported the same way as the
// JSON, after it is read (its list steps holding the genes they find).
func (s *Server) importStrategyWDK(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	var req importRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	w := &req.WDKStrategy
	if req.StrategyID != nil || req.ShareURL != "" {
		if w, err = s.readLiveStrategy(ctx, conv, req); err != nil {
			return err
		}
	}
	res, err := s.cfg.StrategyLists.ImportWDK(ctx, userID(c), conv.ID, w)
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

// importStrategyForm is the strategy panel's "Open a strategy from
// VEuPathDB" form on a live conversation: a strategy id of the
// researcher's account, or a share link, imported as POST …/strategy/wdk
// imports it; the page redraws from the import's graph_snapshot.
func (s *Server) importStrategyForm(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	from := strings.TrimSpace(c.FormValue("from"))
	if from == "" {
		return validationError("give a strategy id of your VEuPathDB account or a shared strategy's link", map[string]string{"from": "required"})
	}
	var req importRequest
	if id, err := strconv.ParseInt(from, 10, 64); err == nil && id > 0 {
		req.StrategyID = &id
	} else {
		req.ShareURL = from
	}
	w, err := s.readLiveStrategy(ctx, conv, req)
	if err != nil {
		return err
	}
	if _, err := s.cfg.StrategyLists.ImportWDK(ctx, userID(c), conv.ID, w); err != nil {
		return strategyError(err)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// readLiveStrategy reads the strategy an import names on the
// conversation's live site.
func (s *Server) readLiveStrategy(ctx context.Context, conv store.Conversation, req importRequest) (*strategy.WDKStrategy, error) {
	if req.StrategyID != nil && req.ShareURL != "" || req.StepTree.StepID != "" || len(req.Steps) > 0 {
		return nil, validationError("give one strategy: its WDK JSON, a strategyId of your VEuPathDB account, or a shareUrl",
			map[string]string{"strategyId": "one of three", "shareUrl": "one of three"})
	}
	if s.cfg.Saver == nil {
		return nil, &APIError{Status: http.StatusConflict, Code: "NOT_LIVE", Message: sites.ErrNotLive.Error()}
	}
	var w *strategy.WDKStrategy
	var err error
	what := "the shared strategy"
	if req.StrategyID != nil {
		what = fmt.Sprintf("strategy %d of your VEuPathDB account", *req.StrategyID)
		w, err = s.cfg.Saver.ImportStrategy(ctx, conv.SiteID, *req.StrategyID)
	} else {
		w, err = s.cfg.Saver.ImportShared(ctx, conv.SiteID, req.ShareURL)
	}
	refused := func(detail string, cause error) error {
		return strategyError(&strategy.StepError{Kind: strategy.ErrInvalidImport, Op: "import strategy", Detail: detail, Cause: cause})
	}
	switch ve, invalid := errors.AsType[*catalog.ValidationError](err); {
	case err == nil:
		return w, nil
	case invalid:
		return nil, refused("the site refused "+what, ve)
	case errors.Is(err, sites.ErrNotLive):
		return nil, &APIError{Status: http.StatusConflict, Code: "NOT_LIVE", Message: "strategies are read from a VEuPathDB account on a live site only; this conversation is about the offline snapshot (" + conv.SiteID + "): import the strategy's WDK JSON instead", Err: err}
	case errors.Is(err, sites.ErrShareLink):
		return nil, validationError(err.Error(), map[string]string{"shareUrl": "not a share link of this site"})
	case errors.Is(err, catalog.ErrNotFound):
		return nil, refused(conv.SiteID+" has no "+what, nil)
	}
	return nil, strategyError(err)
}

// listStepRequest is POST …/strategy/list-step: one of the researcher's
// lists as a search step of the conversation's strategy.
type listStepRequest struct {
	ListID      string `json:"listId"`
	DisplayName string `json:"displayName"`
}

// addListStep is POST …/strategy/list-step: the list becomes a root step
// (the gene ids search over its genes), starting the strategy when the
// conversation has none; combine it with other roots by hand or by chat.
func (s *Server) addListStep(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	var req listStepRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.ListID) == "" {
		return validationError("listId is required", map[string]string{"listId": "required"})
	}
	l, err := s.cfg.GeneLists.Get(ctx, userID(c), req.ListID)
	if errors.Is(err, store.ErrNotFound) {
		return validationError("you have no gene list "+quote(req.ListID), map[string]string{"listId": "not found"})
	}
	if err != nil {
		return err
	}
	if l.SiteID != conv.SiteID {
		return validationError("the list was resolved on "+l.SiteID+", not this conversation's site "+conv.SiteID, map[string]string{"listId": "other site"})
	}
	m, err := genelist.Step(l, req.DisplayName)
	if err != nil {
		return err
	}
	snap, err := s.cfg.StrategyLists.ForConversation(ctx, userID(c), conv.ID, executor.RecordType, "Strategy")
	if err != nil {
		return strategyError(err)
	}
	res, err := s.cfg.Strategies.Apply(ctx, userID(c), snap.StrategyID, m)
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusCreated, res)
}

// traceGene is GET …/strategy/genes/{geneId}/trace: which step drops a
// gene. The id may be a previous or transcript id; it is resolved first.
func (s *Server) traceGene(c echo.Context) error {
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := s.cfg.GeneLists.Resolve(ctx, conv.SiteID, []string{c.Param("geneId")})
	if err != nil {
		return geneListError(err)
	}
	if len(res.Genes) != 1 {
		return validationError(quote(c.Param("geneId"))+" names "+strconv.Itoa(len(res.Genes))+" genes of "+conv.SiteID+"; give one current gene id",
			map[string]any{"geneId": "unknown or ambiguous", "genes": res.Genes})
	}
	tr, err := s.cfg.StrategyLists.TraceGene(ctx, userID(c), snap.StrategyID, res.Genes[0])
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"gene": tr.Gene, "mapped": nonNil(res.Mapped), "steps": tr.Steps, "lostAt": tr.LostAt})
}
