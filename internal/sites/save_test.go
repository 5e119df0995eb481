package sites_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk"
	"strategist/internal/catalog/wdk/wdkfake"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// memCreds is an in-memory credential store.
type memCreds struct {
	mu    sync.Mutex
	m     map[string]store.WDKCredential
	reads int // WDKCredential calls
}

func (s *memCreds) WDKCredential(_ context.Context, userID, siteID string) (store.WDKCredential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	c, ok := s.m[userID+"/"+siteID]
	if !ok {
		return c, store.ErrNotFound
	}
	return c, nil
}

func (s *memCreds) WDKCredentials(_ context.Context, userID string) ([]store.WDKCredential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.WDKCredential
	for _, c := range s.m {
		if c.UserID == userID {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *memCreds) PutWDKCredential(_ context.Context, userID, siteID string, ct []byte, id *int64) (store.WDKCredential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := store.WDKCredential{UserID: userID, SiteID: siteID, Ciphertext: ct, WDKUserID: id, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	s.m[userID+"/"+siteID] = c
	return c, nil
}

func (s *memCreds) DeleteWDKCredential(_ context.Context, userID, siteID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, userID+"/"+siteID)
	return nil
}

// newFakeSite is the WDK fake over the offline catalog's searches, where
// the key "key-of-ada" signs in as user 77.
func newFakeSite(t *testing.T) *wdkfake.Fake {
	t.Helper()
	off, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := wdkfake.New(wdkfake.Config{Catalog: off, Site: offline.SiteID, Keys: map[string]wdkfake.User{"key-of-ada": {ID: 77}}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// exported is an export of DNA repair minus chromosome 14, its values
// completed as an export's are (the site does not fill missing ones).
func exported(t *testing.T) *strategy.WDKStrategy {
	t.Helper()
	off, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	full := func(search string, params map[string]string) map[string]string {
		p, err := off.Validate(context.Background(), offline.SiteID, search, params)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const pf = `["Plasmodium falciparum 3D7"]`
	w := 10
	return &strategy.WDKStrategy{
		Name: "DNA repair minus chromosome 14", RecordType: "transcript",
		Steps: map[strategy.StepID]strategy.WDKStep{
			"s1": {SearchName: "GenesByGoTerm", SearchConfig: strategy.WDKSearchConfig{Parameters: full("GenesByGoTerm", map[string]string{"organism": pf, "go_typeahead": `["GO:0006281"]`}), WDKWeight: &w}},
			"s2": {SearchName: "GenesByLocation", SearchConfig: strategy.WDKSearchConfig{Parameters: full("GenesByLocation", map[string]string{"organismSinglePick": pf, "chromosomeOptional": "Pf3D7_14_v3"}), WDKWeight: &w}},
			"s3": {SearchName: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass", SearchConfig: strategy.WDKSearchConfig{Parameters: map[string]string{"bq_operator": "MINUS", "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass": "", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass": ""}}},
		},
		StepTree: strategy.WDKStepTree{StepID: "s3", PrimaryInput: &strategy.WDKStepTree{StepID: "s1"}, SecondaryInput: &strategy.WDKStepTree{StepID: "s2"}},
	}
}

func liveRegistry(t *testing.T, fake *wdkfake.Fake) (*sites.Registry, context.Context, string) {
	reg, ctx, _, base := liveRegistryCreds(t, fake)
	return reg, ctx, base
}

// liveRegistryCreds is liveRegistry with its credential store.
func liveRegistryCreds(t *testing.T, fake *wdkfake.Fake) (*sites.Registry, context.Context, *memCreds, string) {
	t.Helper()
	srv := httptest.NewServer(fake.Handler("/plasmo"))
	t.Cleanup(srv.Close)
	creds, err := wdk.NewCredentials([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	db := &memCreds{m: map[string]store.WDKCredential{}}
	sealed, _ := creds.Seal("u1", "plasmodb-live", "key-of-ada")
	_, _ = db.PutWDKCredential(context.Background(), "u1", "plasmodb-live", sealed, nil)
	off, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := sites.NewLive(sites.LiveConfig{Offline: off, Keys: sites.NewKeyring(db, creds, 2*time.Second, nil), BaseURL: srv.URL + "/plasmo/service", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return reg, account.WithUser(context.Background(), "u1"), db, srv.URL
}

// TestSaveReadsTheKeyOnce: the requests of one save (its steps, then the
// strategy) read and open the researcher's key once, not once a request.
func TestSaveReadsTheKeyOnce(t *testing.T) {
	reg, ctx, db, _ := liveRegistryCreds(t, newFakeSite(t))
	if _, err := reg.SaveStrategy(ctx, "plasmodb-live", exported(t)); err != nil {
		t.Fatal(err)
	}
	if db.reads != 1 {
		t.Errorf("the save read the key %d times, want once", db.reads)
	}
}

func TestSaveStrategy(t *testing.T) {
	fake := newFakeSite(t)
	reg, ctx, base := liveRegistry(t, fake)
	saved, err := reg.SaveStrategy(ctx, "plasmodb-live", exported(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.StepCount(); n != 3 || fake.StrategyCount() != 1 {
		t.Fatalf("account holds %d steps, %d strategies", n, fake.StrategyCount())
	}
	st, ok := fake.Strategy(saved.StrategyID)
	if !ok {
		t.Fatalf("strategy %d is not in the account", saved.StrategyID)
	}
	var tree wdk.StepTree
	if err := json.Unmarshal(st.StepTree, &tree); err != nil {
		t.Fatal(err)
	}
	step := func(id int64) wdkfake.StepState { s, _ := fake.Step(id); return s }
	if st.Name != "DNA repair minus chromosome 14" || st.Owner != 77 || tree.PrimaryInput == nil || tree.SecondaryInput == nil ||
		step(tree.StepID).Params["bq_operator"] != "MINUS" ||
		step(tree.PrimaryInput.StepID).Search != "GenesByGoTerm" ||
		step(tree.SecondaryInput.StepID).Search != "GenesByLocation" {
		t.Errorf("strategy = %+v", st)
	}
	if want := base + "/plasmo/app/workspace/strategies/" + strconv.FormatInt(saved.StrategyID, 10); saved.URL != want {
		t.Errorf("saved = %+v, want the URL %s", saved, want)
	}
	if v := fake.Violations(); len(v) != 0 {
		t.Errorf("client behaviour the live site punishes: %v", v)
	}
	if _, err := reg.SaveStrategy(ctx, "plasmodb", exported(t)); !errors.Is(err, sites.ErrNotLive) {
		t.Errorf("saving an offline strategy = %v", err)
	}
}

func TestSaveStrategyFailureRemovesSteps(t *testing.T) {
	fake := newFakeSite(t)
	fake.Inject(http.MethodPost, "/users/77/strategies", wdkfake.Response{Status: http.StatusInternalServerError, Body: "Internal Error"})
	reg, ctx, _ := liveRegistry(t, fake)
	_, err := reg.SaveStrategy(ctx, "plasmodb-live", exported(t))
	se, ok := errors.AsType[*catalog.SiteError](err)
	if !ok || se.Kind != catalog.SiteFault {
		t.Fatalf("save = %v, want a site fault", err)
	}
	if fake.StepCount() != 0 || fake.StrategyCount() != 0 {
		t.Errorf("a failed save left %d steps and %d strategies", fake.StepCount(), fake.StrategyCount())
	}
	// Without a key nothing is created and the researcher is told why.
	_, err = reg.SaveStrategy(account.WithUser(context.Background(), "u2"), "plasmodb-live", exported(t))
	if se, ok := errors.AsType[*catalog.SiteError](err); !ok || se.Kind != catalog.SiteAccount {
		t.Errorf("save without a key = %v", err)
	}
}
