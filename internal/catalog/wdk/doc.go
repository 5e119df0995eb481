// Package wdk is Strategist's client of the VEuPathDB WDK REST API and the
// live implementation of catalog.Catalog.
//
// # Credentials
//
// Since 2026-08 the live sites answer only registered users. Every call
// carries the API key of the Strategist user it is made for, from a
// TokenSource the server implements over the user's sealed credential
// (Credentials seals and opens them; the store keeps bytes only). A user
// without a key gets a *MissingTokenError saying to add one. Each request
// carries exactly one credential, the Authorization: Bearer header: the
// client keeps no cookie jar, so the guest cookies WDK mints on every
// answer are never sent back. The numeric user id is resolved once per
// key from GET /users/current (a guest is refused) and used in every
// /users/{id}/... path, never the "current" alias, which with a wrong key
// silently writes into a guest account. Keys never reach logs or errors.
//
// # Transport
//
// Each site has a bound on requests in flight (default 6). A request that
// meets 429, 502, 503, 504 or a transport failure is retried with
// exponential backoff and jitter, waiting at least the Retry-After the site
// asks for; other statuses are final, 500 included (WDK answers it for
// deterministic faults). A 202 WDK-DELAYED-RESULT (a slow process query
// still running) is polled by repeating the same request with backoff, up
// to Config.MaxDelayedPolls, then a *DelayedError says to try again later:
// polling keeps callers simple, and the bound keeps a stuck query from
// holding an agent's turn.
//
// Final answers are typed: 422 is a *catalog.ValidationError (WDK's
// errors.byKey), 401/403 an *AuthError, 404 a *NotFoundError matching
// catalog.ErrNotFound, 409 a *ConflictError, other 4xx a *RequestError, and
// 5xx or exhausted retries a *ServerError (matching catalog.ErrUnavailable
// when asking later may work, as does a *DelayedError). Bodies are decoded
// leniently: WDK's published schemas do not match the live sites.
//
// # Catalog
//
// Record types, search lists and search details are cached per site for
// Config.CacheTTL; a 404 for a search drops the cached list that named it.
// Below that cache, a Config.DocCache keeps the documents as the site sent
// them (the server keeps them in PostgreSQL) for Config.DocTTL, so a second
// server or a restart does not fetch them again; an expired document is
// revalidated with its ETag (304 keeps it), and when the site is down the
// expired document is served with a warning in the log (getDoc has the
// rules).
// SearchForSearches ranks the cached lists (no site-search call) with the
// offline catalog's ranking (package rank). Validate checks what it can
// locally, with the rules both catalogs share (catalog.CheckValues), then
// asks WDK (POST contextParamValues), and returns every parameter filled
// from its default. Answer runs a single leaf as a stateless report
// (nothing is created in the user's account) and a tree as steps plus one
// temporary strategy (named with Config.TempStrategyPrefix), deleted
// afterwards; BuildStrategy, which makes them, also saves strategies into
// a researcher's account.
package wdk
