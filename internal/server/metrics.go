package server

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/telemetry"
)

// httpMetrics counts requests by route (the route pattern, never the raw
// path, so ids do not explode the label set).
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// isStream says which requests are streams (Server.isStream).
	isStream func(echo.Context) bool
	// app holds the instruments shared with the rest of the server (open
	// streams), read through the same registry.
	app *telemetry.Metrics
}

func newHTTPMetrics(reg prometheus.Registerer, app *telemetry.Metrics) (*httpMetrics, error) {
	m := &httpMetrics{
		app: app,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strategist_http_requests_total",
			Help: "HTTP requests answered, by method, route and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "strategist_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests (streams excluded), by method and route.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("server: register metrics: %w", err)
		}
	}
	return m, nil
}

func (m *httpMetrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		stream := m.isStream(c)
		if stream {
			defer m.app.StreamOpened(c.Request().Context())()
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		if span := trace.SpanFromContext(c.Request().Context()); span.IsRecording() {
			// The request's span (otelhttp) learns its route only now, and
			// its url.path, set from the raw path, is replaced by the one
			// logs show: a share link's token is a credential.
			span.SetName(c.Request().Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route), attribute.String("url.path", loggedPath(c)))
		}
		err := next(c)
		status := c.Response().Status
		if err != nil {
			status = toAPIError(err).Status
		}
		m.requests.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Inc()
		if !stream {
			m.duration.WithLabelValues(c.Request().Method, route).Observe(time.Since(start).Seconds())
		}
		return err
	}
}

func metricsHandler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}
