package wdk

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"strategist/internal/catalog"
)

// Datasets. An input-dataset parameter (the gene ids search's ds_gene_ids)
// takes the id of a list of identifiers uploaded to the user's account.
// Strategist's strategies hold the identifiers themselves
// (catalog.DatasetIDs); the client uploads them when it sends a step's
// values to the site (to validate, to answer, to build), and keeps the
// dataset's id per user and content, as WDK does (createOrGetDataset gives
// the same dataset for the same ids), so a list step counted again asks
// nothing more.

// datasetIDs caches dataset ids by (site, token, identifiers), keyed by a
// hash so the map holds no token.
type datasetIDs struct {
	mu sync.Mutex
	m  map[[32]byte]int64
}

// maxCachedDatasets bounds the dataset cache; when full it starts over.
const maxCachedDatasets = 10000

func datasetKey(sc scope, ids []string) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", sc.site.ID, sc.token)
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func (d *datasetIDs) get(k [32]byte) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id, ok := d.m[k]
	return id, ok
}

func (d *datasetIDs) put(k [32]byte, id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m) >= maxCachedDatasets {
		d.m = map[[32]byte]int64{}
	}
	d.m[k] = id
}

// CreateDataset uploads identifiers as a dataset of the caller's account
// (POST /users/{id}/datasets, sourceType idList) and returns its id, the
// value of an input-dataset parameter. The same identifiers uploaded again
// are answered from memory.
func (c *Client) CreateDataset(ctx context.Context, siteID string, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, opErr(siteID, "create dataset", &catalog.ValidationError{General: []string{"a dataset needs at least one identifier"}})
	}
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return 0, opErr(siteID, "create dataset", err)
	}
	k := datasetKey(sc, ids)
	if id, ok := c.datasets.get(k); ok {
		return id, nil
	}
	body := map[string]any{"sourceType": "idList", "sourceContent": map[string]any{"ids": ids}}
	var out struct {
		ID optInt `json:"id"`
	}
	if err := c.doUser(ctx, sc, request{method: http.MethodPost, path: sc.path("/datasets"), body: body, out: &out}); err != nil {
		return 0, opErr(siteID, fmt.Sprintf("create dataset of %d ids", len(ids)), err)
	}
	if out.ID.V <= 0 {
		return 0, opErr(siteID, "create dataset", fmt.Errorf("no dataset id in the answer"))
	}
	c.datasets.put(k, out.ID.V)
	return out.ID.V, nil
}

// withDatasets returns values with each input-dataset value of d that
// holds identifiers replaced by the id of a dataset of them; a value that
// is a dataset id already, or empty, is kept. values is not modified. A
// value that names no identifier is a *catalog.ValidationError.
func (c *Client) withDatasets(ctx context.Context, site string, d *SearchDetails, values map[string]string) (map[string]string, error) {
	var out map[string]string
	for _, p := range d.Params {
		v, ok := values[p.Name]
		if p.Type != catalog.ParamInputDataset || !ok || v == "" || catalog.IsDatasetID(v) {
			continue
		}
		ids := catalog.DatasetIDs(v)
		if len(ids) == 0 {
			return nil, &catalog.ValidationError{Search: d.Name, ByKey: map[string][]string{p.Name: {"no identifiers: give the gene ids as a JSON array"}}}
		}
		id, err := c.CreateDataset(ctx, site, ids)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make(map[string]string, len(values))
			for k, v := range values {
				out[k] = v
			}
		}
		out[p.Name] = strconv.FormatInt(id, 10)
	}
	if out == nil {
		return values, nil
	}
	return out, nil
}

// datasetParam is the input-dataset parameter of d ("" for none).
func datasetParam(d *SearchDetails) string {
	for _, p := range d.Params {
		if p.Type == catalog.ParamInputDataset {
			return p.Name
		}
	}
	return ""
}
