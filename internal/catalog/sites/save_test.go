package sites_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/sites"
	"strategist/internal/catalog/wdk"
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

// fakeAccount is a WDK user account: steps and strategies, as the service
// stores them (POST /users/{id}/steps and /strategies answer {"id":...}).
type fakeAccount struct {
	mu             sync.Mutex
	nextID         int64
	steps          map[int64]wdk.NewStep
	strategies     map[int64]wdk.NewStrategy
	failStrategies bool
}

func (f *fakeAccount) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer key-of-ada" {
		http.Error(w, "Invalid token", http.StatusUnauthorized)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/plasmo/service")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && path == "/users/current":
		_, _ = w.Write([]byte(`{"id":77,"isGuest":false,"email":"ada@example.org"}`))
	case r.Method == http.MethodPost && path == "/users/77/steps":
		var s wdk.NewStep
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil || s.SearchName == "" {
			http.Error(w, "bad step", http.StatusBadRequest)
			return
		}
		f.nextID++
		f.steps[f.nextID] = s
		_ = json.NewEncoder(w).Encode(map[string]int64{"id": f.nextID})
	case r.Method == http.MethodPost && path == "/users/77/strategies":
		if f.failStrategies {
			http.Error(w, "Internal error", http.StatusInternalServerError)
			return
		}
		var s wdk.NewStrategy
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			http.Error(w, "bad strategy", http.StatusBadRequest)
			return
		}
		f.nextID++
		f.strategies[f.nextID] = s
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(map[string]int64{"id": f.nextID})
	case r.Method == http.MethodDelete && strings.HasPrefix(path, "/users/77/steps/"):
		var id int64
		_ = json.Unmarshal([]byte(strings.TrimPrefix(path, "/users/77/steps/")), &id)
		delete(f.steps, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func exported() *strategy.WDKStrategy {
	w := 10
	return &strategy.WDKStrategy{
		Name: "DNA repair minus chromosome 14", RecordType: "transcript",
		Steps: map[strategy.StepID]strategy.WDKStep{
			"s1": {SearchName: "GenesByGoTerm", SearchConfig: strategy.WDKSearchConfig{Parameters: map[string]string{"go_term": "GO:0006281"}, WDKWeight: &w}},
			"s2": {SearchName: "GenesByLocation", SearchConfig: strategy.WDKSearchConfig{Parameters: map[string]string{"chromosomeOptional": "Pf3D7_14_v3"}, WDKWeight: &w}},
			"s3": {SearchName: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass", SearchConfig: strategy.WDKSearchConfig{Parameters: map[string]string{"bq_operator": "MINUS", "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass": "", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass": ""}}},
		},
		StepTree: strategy.WDKStepTree{StepID: "s3", PrimaryInput: &strategy.WDKStepTree{StepID: "s1"}, SecondaryInput: &strategy.WDKStepTree{StepID: "s2"}},
	}
}

func liveRegistry(t *testing.T, fake http.Handler) (*sites.Registry, context.Context) {
	reg, ctx, _ := liveRegistryCreds(t, fake)
	return reg, ctx
}

// liveRegistryCreds is liveRegistry with its credential store.
func liveRegistryCreds(t *testing.T, fake http.Handler) (*sites.Registry, context.Context, *memCreds) {
	t.Helper()
	srv := httptest.NewServer(fake)
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
	reg, err := sites.Live(off, sites.NewKeyring(db, creds, 2*time.Second, nil), srv.URL+"/plasmo/service", 2*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	return reg, account.WithUser(context.Background(), "u1"), db
}

// TestSaveReadsTheKeyOnce: the requests of one save (its steps, then the
// strategy) read and open the researcher's key once, not once a request.
func TestSaveReadsTheKeyOnce(t *testing.T) {
	fake := &fakeAccount{steps: map[int64]wdk.NewStep{}, strategies: map[int64]wdk.NewStrategy{}}
	reg, ctx, db := liveRegistryCreds(t, fake)
	if _, err := reg.SaveStrategy(ctx, "plasmodb-live", exported()); err != nil {
		t.Fatal(err)
	}
	if db.reads != 1 {
		t.Errorf("the save read the key %d times, want once", db.reads)
	}
}

func TestSaveStrategy(t *testing.T) {
	fake := &fakeAccount{steps: map[int64]wdk.NewStep{}, strategies: map[int64]wdk.NewStrategy{}}
	reg, ctx := liveRegistry(t, fake)
	saved, err := reg.SaveStrategy(ctx, "plasmodb-live", exported())
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.steps) != 3 || len(fake.strategies) != 1 {
		t.Fatalf("account holds %d steps, %d strategies", len(fake.steps), len(fake.strategies))
	}
	st := fake.strategies[saved.StrategyID]
	tree := st.StepTree
	if st.Name != "DNA repair minus chromosome 14" || tree.PrimaryInput == nil || tree.SecondaryInput == nil ||
		fake.steps[tree.StepID].SearchConfig.Parameters["bq_operator"] != "MINUS" ||
		fake.steps[tree.PrimaryInput.StepID].SearchName != "GenesByGoTerm" ||
		fake.steps[tree.SecondaryInput.StepID].SearchName != "GenesByLocation" {
		t.Errorf("strategy = %+v", st)
	}
	if !strings.HasSuffix(saved.URL, "/plasmo/app/workspace/strategies/4") || saved.StrategyID != 4 {
		t.Errorf("saved = %+v", saved)
	}
	if _, err := reg.SaveStrategy(ctx, "plasmodb", exported()); !errors.Is(err, sites.ErrNotLive) {
		t.Errorf("saving an offline strategy = %v", err)
	}
}

func TestSaveStrategyFailureRemovesSteps(t *testing.T) {
	fake := &fakeAccount{steps: map[int64]wdk.NewStep{}, strategies: map[int64]wdk.NewStrategy{}, failStrategies: true}
	reg, ctx := liveRegistry(t, fake)
	_, err := reg.SaveStrategy(ctx, "plasmodb-live", exported())
	se, ok := errors.AsType[*catalog.SiteError](err)
	if !ok || se.Kind != catalog.SiteFault {
		t.Fatalf("save = %v, want a site fault", err)
	}
	if len(fake.steps) != 0 || len(fake.strategies) != 0 {
		t.Errorf("a failed save left %d steps and %d strategies", len(fake.steps), len(fake.strategies))
	}
	// Without a key nothing is created and the researcher is told why.
	_, err = reg.SaveStrategy(account.WithUser(context.Background(), "u2"), "plasmodb-live", exported())
	if se, ok := errors.AsType[*catalog.SiteError](err); !ok || se.Kind != catalog.SiteAccount {
		t.Errorf("save without a key = %v", err)
	}
}
