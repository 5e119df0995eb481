package sites

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"strategist/internal/catalog/wdk"
	"strategist/internal/strategy"
)

// strategyReader is what importing needs from the live client
// (*wdk.Client).
type strategyReader interface {
	ReadStrategy(ctx context.Context, siteID string, strategyID int64) (*wdk.Strategy, error)
	CopyStrategy(ctx context.Context, siteID, signature string) (int64, error)
	DeleteStrategy(ctx context.Context, siteID string, strategyID int64) error
}

// ErrShareLink means a shared strategy's link names no strategy Strategist
// can read: not a VEuPathDB share link, or one of another site.
var ErrShareLink = errors.New("not a shared strategy link of this site")

// ShareLinkError says what is wrong with a share link.
type ShareLinkError struct {
	Link   string
	Reason string
}

func (e *ShareLinkError) Error() string { return e.Reason }

// Unwrap lets errors.Is(err, ErrShareLink) match.
func (e *ShareLinkError) Unwrap() error { return ErrShareLink }

// ImportStrategy reads a strategy of the user's account on a live site in
// WDK's export form (what strategy.ImportWDK takes): its steps with their
// parameters, list steps holding the genes they find, and its step tree.
// Bounded like a save: one live call per step and one for the strategy.
func (r *Registry) ImportStrategy(ctx context.Context, site string, strategyID int64) (*strategy.WDKStrategy, error) {
	rd, err := r.reader(site)
	if err != nil {
		return nil, err
	}
	ctx = withTokenMemo(ctx)
	cctx, cancel := r.bounded(ctx, site, 2)
	defer cancel()
	s, err := rd.ReadStrategy(cctx, site, strategyID)
	if err := r.done(ctx, cctx, site, err); err != nil {
		return nil, fmt.Errorf("reading strategy %d of your VEuPathDB account: %w", strategyID, err)
	}
	return exported(s)
}

// ImportShared reads the strategy a VEuPathDB share link names (its
// signature, the link's last segment; the signature alone is taken too):
// the site copies it into the user's account, Strategist reads the copy
// and deletes it again, so the account is left as it was.
func (r *Registry) ImportShared(ctx context.Context, site, link string) (*strategy.WDKStrategy, error) {
	rd, err := r.reader(site)
	if err != nil {
		return nil, err
	}
	sig, err := r.signatureOf(site, link)
	if err != nil {
		return nil, err
	}
	ctx = withTokenMemo(ctx)
	cctx, cancel := r.bounded(ctx, site, 3)
	defer cancel()
	id, err := rd.CopyStrategy(cctx, site, sig)
	if err := r.done(ctx, cctx, site, err); err != nil {
		return nil, fmt.Errorf("opening the shared strategy: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.Timeout)
		defer cancel()
		if err := rd.DeleteStrategy(dctx, site, id); err != nil {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "sites: the copy of a shared strategy was not deleted", slog.String("site", site),
				slog.Int64("strategy_id", id), slog.Any("error", err))
		}
	}()
	s, err := rd.ReadStrategy(cctx, site, id)
	if err := r.done(ctx, cctx, site, err); err != nil {
		return nil, fmt.Errorf("reading the shared strategy: %w", err)
	}
	return exported(s)
}

func (r *Registry) reader(site string) (strategyReader, error) {
	rd, ok := r.cfg.Live.(strategyReader)
	if !r.live[site] || !ok {
		return nil, ErrNotLive
	}
	return rd, nil
}

// bounded is the context of an import: calls live calls' worth of the
// registry's timeout.
func (r *Registry) bounded(ctx context.Context, site string, calls int) (context.Context, context.CancelFunc) {
	limit := r.cfg.Timeout * time.Duration(calls)
	return context.WithTimeoutCause(ctx, limit, &TimeoutError{Site: site, After: limit})
}

// signatureRE is what a strategy signature looks like: WDK's hex digest.
var signatureRE = regexp.MustCompile(`^[0-9A-Za-z]{6,64}$`)

// signatureOf reads a share link: https://<site>/<app>/app/workspace/
// strategies/import/<signature> (or …/app/import/<signature>, which the
// site redirects there), on the site's own host, or a bare signature.
func (r *Registry) signatureOf(site, link string) (string, error) {
	link = strings.TrimSpace(link)
	if signatureRE.MatchString(link) {
		return link, nil
	}
	bad := func(format string, args ...any) error {
		return &ShareLinkError{Link: link, Reason: fmt.Sprintf(format, args...)}
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", bad("%q is not a shared strategy's link: give the link VEuPathDB's Share button shows (…/app/workspace/strategies/import/<signature>)", link)
	}
	if app, ok := r.cfg.AppURLs[site]; ok {
		if au, err := url.Parse(app); err == nil && !sameHost(au.Host, u.Host) {
			return "", bad("the link is to %s, not to %s (%s), this conversation's site", u.Host, r.names[site], au.Host)
		}
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if n := len(parts); n >= 2 && parts[n-2] == "import" && signatureRE.MatchString(parts[n-1]) {
		return parts[n-1], nil
	}
	return "", bad("%q does not end in /import/<signature>, as a shared strategy's link does", link)
}

// sameHost compares hosts without case and a leading "www.".
func sameHost(a, b string) bool {
	trim := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return trim(a) == trim(b)
}

// exported turns a strategy read from an account into WDK's export form:
// step ids as text, the step tree over them.
func exported(s *wdk.Strategy) (*strategy.WDKStrategy, error) {
	out := &strategy.WDKStrategy{Name: s.Name, RecordType: s.RecordType, Steps: make(map[strategy.StepID]strategy.WDKStep, len(s.Steps))}
	for id, st := range s.Steps {
		out.Steps[strategy.StepID(strconv.FormatInt(id, 10))] = strategy.WDKStep{
			SearchName: st.SearchName, CustomName: st.CustomName,
			SearchConfig: strategy.WDKSearchConfig{Parameters: st.SearchConfig.Parameters, WDKWeight: st.SearchConfig.WDKWeight},
		}
	}
	if s.StepTree.StepID == 0 {
		return nil, fmt.Errorf("the strategy %d has no step tree", s.ID)
	}
	out.StepTree = exportedTree(out, &s.StepTree)
	return out, nil
}

// exportedTree is a step tree over the export's step ids. A combine's
// weight is left out, as an export leaves it (the site reports one for
// every step; a combine's sums its inputs').
func exportedTree(w *strategy.WDKStrategy, t *wdk.StepTree) strategy.WDKStepTree {
	out := strategy.WDKStepTree{StepID: strategy.StepID(strconv.FormatInt(t.StepID, 10))}
	if t.PrimaryInput != nil {
		p := exportedTree(w, t.PrimaryInput)
		out.PrimaryInput = &p
	}
	if t.SecondaryInput != nil {
		s := exportedTree(w, t.SecondaryInput)
		out.SecondaryInput = &s
		if st, ok := w.Steps[out.StepID]; ok {
			st.SearchConfig.WDKWeight = nil
			w.Steps[out.StepID] = st
		}
	}
	return out
}
