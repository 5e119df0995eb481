// Package gemini is Strategist's llm.Engine for Google's Gemini API, built on
// the Google Gen AI SDK (google.golang.org/genai).
//
// # Why this SDK
//
// The older github.com/google/generative-ai-go is deprecated: its support
// ended on 2025-08-31, and it decodes responses with 2024 protos that silently
// drop the thoughtSignature of each part. Current Gemini models refuse a
// multi-step function-calling conversation whose function-call parts come
// back without their signatures, so that SDK cannot run Strategist's tool
// loop. genai keeps every part (text, thought, functionCall, thoughtSignature)
// and speaks the REST API directly.
//
// # Configuration
//
// The server maps GEMINI_API_KEY onto Config.APIKey; model ids
// "gemini:<model>" reach Stream as Request.Model "<model>". Config.BaseURL
// points the client elsewhere (tests use an httptest server speaking the
// :streamGenerateContent?alt=sse wire format). The SDK's own retries and its
// automatic continuation are switched off so that the orchestrator stays in
// control of every billed request.
//
// # Retry policy
//
// The policy is llm.Retrier, shared with the openai engine; this package
// only says which of Gemini's answers are worth another attempt and how long
// the server asked to wait. One call is at most Config.MaxAttempts requests
// (default 4). Rate limits (429), server errors (5xx, 408), timeouts and
// dropped connections are retried, but only while nothing has been yielded
// to the caller in this call, so a retry never repeats text the researcher
// already saw. Between attempts the engine waits BackoffBase·2ⁿ (capped at
// BackoffMax), jittered into [d/2, d], unless the server said how long to
// wait: a Retry-After header (seconds or HTTP date) or a
// google.rpc.RetryInfo detail is honoured exactly. A requested wait longer
// than BackoffMax ends the call at once with a retryable error instead of
// sleeping. Bad requests (400), unknown models (404), rejected keys (401,
// 403, or 400 API_KEY_INVALID) and blocked content (prompt feedback
// blockReason, finish reasons SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII, IMAGE_*) fail at once. Every error is an
// *llm.Error whose text never contains the API key; cancelling the context
// ends the call with ctx.Err().
//
// # Raw
//
// The ChunkFinish of each call carries Raw{Engine: "gemini"} holding the
// JSON of the model's whole response as one genai.Content: the streamed
// parts merged (adjacent text deltas joined, a part that carries a signature
// closed), every thought part and thoughtSignature kept. An assistant message
// that carries this Raw is sent back exactly as received; one without it
// (written by another engine, or compacted) is rebuilt from its text and tool
// calls, with the documented placeholder signature on its first function call
// so that Gemini accepts a history it did not produce.
//
// Tool calls keep the id Gemini gives them; when it gives none (the Gemini
// API usually does not), the engine derives a stable one from the call's
// position and content, and then sends the matching functionResponse by name
// only.
package gemini
