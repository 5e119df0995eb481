package server

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"strategist/internal/config"
)

// routes is the route table: pages, the JSON API, the streams, and the
// agent protocols; and the middleware every route runs through.
func (s *Server) routes() error {
	e := s.echo
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.IPExtractor = ipExtractor(s.cfg.TrustedProxies)

	metrics, err := newHTTPMetrics(s.cfg.Registry, s.cfg.Metrics)
	if err != nil {
		return err
	}
	metrics.isStream = s.isStream
	if s.cfg.Auth == config.AuthDev {
		e.Pre(loopbackHostOnly)
	}
	e.Use(middleware.RequestID())
	e.Use(securityHeaders)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.ErrorContext(c.Request().Context(), "panic", slog.String("path", c.Path()), slog.Any("error", err), slog.String("stack", string(stack)))
			return err
		},
	}))
	e.Use(s.requestLogger())
	e.Use(metrics.middleware)
	e.Use(middleware.BodyLimit(s.cfg.BodyLimit))
	e.Use(s.readBody)
	e.Use(s.crossOriginProtection())
	e.Use(s.checkInput())
	e.Use(middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(s.cfg.RequestRate), Burst: int(4 * s.cfg.RequestRate), ExpiresIn: 3 * time.Minute,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return c.RealIP(), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return &APIError{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: "too many requests; slow down", RetryAfter: time.Second}
		},
	}))
	e.Use(compress(s.isStream))
	e.Use(middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
		Skipper: s.isStream,
		Timeout: s.cfg.RequestTimeout,
	}))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	if s.cfg.MetricsToken != "" {
		e.GET("/metrics", echo.WrapHandler(s.MetricsHandler()), s.requireMetricsToken)
	}
	e.GET("/static/*", s.static())

	// A share link's page decides itself whom it answers: anyone for a
	// public link, any signed-in account otherwise.
	e.GET("/shared/:token", s.sharedPage)
	e.GET("/shared/:token/steps/:stepId/genes", s.sharedStepGenes)

	e.GET("/signin", s.signInPage)
	e.POST("/signin", s.signIn)
	e.POST("/signout", s.signOut)

	// Routes take their auth middleware one by one: an echo group with
	// middleware would answer 404 instead of 405 for a wrong method.
	page := func(method, path string, h echo.HandlerFunc) { e.Add(method, path, h, s.requirePageUser) }
	api := func(method, path string, h echo.HandlerFunc) { e.Add(method, "/api/v1"+path, h, s.requireAPIUser) }

	page(http.MethodGet, "/", s.homePage)
	page(http.MethodPost, "/conversations", s.createConversationForm)
	if s.cfg.StrategyLists != nil {
		page(http.MethodPost, "/shared/:token/copy", s.copySharedForm)
	}
	page(http.MethodGet, "/conversations/:id", s.conversationPage)
	e.Add(http.MethodGet, "/conversations/:id/stream", s.streamPage, s.requirePageUser, s.streamRoute)
	page(http.MethodPost, "/conversations/:id/rename", s.renameConversationForm)
	page(http.MethodPost, "/conversations/:id/delete", s.deleteConversationForm)
	page(http.MethodPost, "/conversations/:id/turns", s.sendMessageForm)
	page(http.MethodGet, "/conversations/:id/turns/:turnId", s.turnPage)
	page(http.MethodGet, "/conversations/:id/tool-calls/:key", s.toolCallPage)
	page(http.MethodGet, "/conversations/:id/artifacts", s.olderArtifactsPage)
	page(http.MethodGet, "/conversations/:id/artifacts/:artifactId", s.artifactPage)
	page(http.MethodPost, "/conversations/:id/turns/:turnId/cancel", s.cancelTurnForm)
	page(http.MethodPost, "/conversations/:id/handoffs/:handoffId/accept", s.acceptHandoffForm)
	page(http.MethodPost, "/conversations/:id/strategy/undo", s.undoStrategyForm)
	page(http.MethodPost, "/conversations/:id/strategy/redo", s.redoStrategyForm)
	page(http.MethodPost, "/conversations/:id/strategy/restore", s.restoreStrategyForm)
	page(http.MethodPost, "/conversations/:id/strategy/combine", s.combineStepsForm)
	page(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/delete", s.deleteStepForm)
	page(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/rename", s.renameStepForm)
	page(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/parameters", s.stepParamsForm)
	page(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/operator", s.stepOperatorForm)
	page(http.MethodPost, "/conversations/:id/strategy/veupathdb", s.saveStrategyForm)
	page(http.MethodGet, "/conversations/:id/strategy/steps/:stepId/results", s.stepResultsPage)
	page(http.MethodGet, "/conversations/:id/strategy/steps/:stepId/terms", s.stepTermsPage)
	page(http.MethodGet, "/conversations/:id/share", s.sharePanelPage)
	page(http.MethodPost, "/conversations/:id/share", s.shareConversationForm)
	page(http.MethodPost, "/conversations/:id/share/:shareId/revoke", s.revokeShareForm)
	page(http.MethodGet, "/conversations/:id/strategy/steps/:stepId/enrichment", s.stepEnrichmentPage)
	if s.cfg.GeneLists != nil && s.cfg.StrategyLists != nil {
		page(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/gene-list", s.saveStepGenesForm)
		page(http.MethodPost, "/conversations/:id/controls", s.setControlsForm)
		page(http.MethodPost, "/conversations/:id/gene-lists", s.uploadGeneListForm)
		page(http.MethodPost, "/conversations/:id/strategy/import", s.importStrategyForm)
	}
	page(http.MethodGet, "/settings", s.settingsPage)
	page(http.MethodPost, "/settings/veupathdb", s.saveKeyForm)
	page(http.MethodPost, "/settings/veupathdb/delete", s.deleteKeyForm)

	api(http.MethodGet, "/sites", s.listSites)
	api(http.MethodGet, "/catalog/:site/searches", s.searchSearches)
	api(http.MethodGet, "/catalog/:site/searches/:name", s.getSearch)
	api(http.MethodPost, "/catalog/:site/searches/:name/count", s.countSearch)
	api(http.MethodPost, "/conversations", s.createConversation)
	api(http.MethodGet, "/conversations", s.listConversations)
	api(http.MethodGet, "/conversations/:id", s.getConversation)
	api(http.MethodPatch, "/conversations/:id", s.renameConversation)
	api(http.MethodDelete, "/conversations/:id", s.deleteConversation)
	api(http.MethodGet, "/conversations/:id/export", s.exportConversation)
	api(http.MethodPost, "/conversations/:id/share", s.createShare)
	api(http.MethodGet, "/conversations/:id/share", s.listShares)
	api(http.MethodDelete, "/conversations/:id/share/:shareId", s.revokeShare)
	api(http.MethodGet, "/models", s.listModels)
	api(http.MethodGet, "/account/veupathdb", s.getVEuPathDBAccount)
	api(http.MethodPut, "/account/veupathdb", s.putVEuPathDBKey)
	api(http.MethodDelete, "/account/veupathdb", s.deleteVEuPathDBKey)
	api(http.MethodPost, "/conversations/:id/turns", s.startTurn)
	api(http.MethodPost, "/conversations/:id/turns/:turnId/cancel", s.cancelTurn)
	e.Add(http.MethodGet, "/api/v1/conversations/:id/events", s.streamEvents, s.requireAPIUser, s.streamRoute)
	api(http.MethodPost, "/conversations/:id/handoffs/:handoffId/accept", s.acceptHandoff)
	api(http.MethodGet, "/conversations/:id/strategy", s.getStrategy)
	api(http.MethodPost, "/conversations/:id/strategy/veupathdb", s.saveStrategyAPI)
	api(http.MethodGet, "/conversations/:id/strategy/versions", s.strategyVersions)
	api(http.MethodPost, "/conversations/:id/strategy/undo", s.undoStrategy)
	api(http.MethodPost, "/conversations/:id/strategy/redo", s.redoStrategy)
	api(http.MethodPost, "/conversations/:id/strategy/combine", s.combineSteps)
	api(http.MethodDelete, "/conversations/:id/strategy/steps/:stepId", s.deleteStep)
	api(http.MethodPatch, "/conversations/:id/strategy/steps/:stepId", s.updateStep)
	api(http.MethodGet, "/conversations/:id/strategy/steps/:stepId/results", s.stepResults)
	api(http.MethodGet, "/conversations/:id/strategy/steps/:stepId/enrichment", s.stepEnrichment)
	api(http.MethodGet, "/conversations/:id/strategy/wdk", s.strategyWDK)
	if s.cfg.GeneLists != nil && s.cfg.StrategyLists != nil {
		api(http.MethodPost, "/gene-lists", s.createGeneList)
		api(http.MethodGet, "/gene-lists", s.listGeneLists)
		api(http.MethodGet, "/gene-lists/:listId", s.getGeneList)
		api(http.MethodPatch, "/gene-lists/:listId", s.renameGeneList)
		api(http.MethodDelete, "/gene-lists/:listId", s.deleteGeneList)
		api(http.MethodGet, "/gene-lists/:listId/download", s.downloadGeneList)
		api(http.MethodPost, "/conversations/:id/strategy/steps/:stepId/gene-list", s.saveStepGenes)
		api(http.MethodGet, "/conversations/:id/controls", s.getControls)
		api(http.MethodPut, "/conversations/:id/controls", s.putControls)
		api(http.MethodGet, "/conversations/:id/strategy/controls", s.strategyControls)
		api(http.MethodPost, "/conversations/:id/strategy/wdk", s.importStrategyWDK)
		api(http.MethodPost, "/conversations/:id/strategy/list-step", s.addListStep)
		api(http.MethodPost, "/shared/:token/copy", s.copyShared)
		api(http.MethodGet, "/conversations/:id/strategy/genes/:geneId/trace", s.traceGene)
	}

	// The agent protocols of Config.Protocols (internal/protocol/...), for
	// API tokens (hosting.go).
	if err := s.mountProtocols(e); err != nil {
		return err
	}
	return nil
}

// maxCompressing bounds the responses gzipped at once.
const maxCompressing = 16

// compress gzips pages and JSON (a built conversation's page is ~90 KB,
// ~12 KB gzipped), never streams. Each gzip writer holds about 800 KB from
// the start of its response, so a burst of requests (a sign-in flood)
// would grow memory by that much per request: at most maxCompressing
// responses are compressed at once, and the rest go out uncompressed.
func compress(isStream func(echo.Context) bool) echo.MiddlewareFunc {
	gz := middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 1024})
	slots := make(chan struct{}, maxCompressing)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		zipped := gz(next)
		return func(c echo.Context) error {
			if isStream(c) {
				return next(c)
			}
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
				return zipped(c)
			default:
				return next(c)
			}
		}
	}
}

// isStream skips middleware that must not apply to long-lived streams: the
// JSON event stream, the page's HTML stream, and the protocol routes, whose
// answers follow turns to their end (a build takes minutes on a live site).
func (s *Server) isStream(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasSuffix(p, "/events") || strings.HasSuffix(p, "/stream") || s.streamPaths[p]
}
