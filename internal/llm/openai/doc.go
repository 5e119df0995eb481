// Package openai is Strategist's llm.Engine for any server that speaks the
// OpenAI Chat Completions API: Ollama, vLLM, the llama.cpp server, or OpenAI
// itself. It is built on the official SDK, github.com/openai/openai-go/v3.
//
// # Configuration
//
// The server maps OPENAI_BASE_URL onto Config.BaseURL ("http://localhost:11434/v1"
// for Ollama, "http://localhost:8000/v1" for vLLM) and OPENAI_API_KEY onto
// Config.APIKey, which local servers usually do not need. Model ids
// "openai:<model>" reach Stream as Request.Model "<model>". The engine does
// not read the environment itself: the SDK's own defaults (OPENAI_* variables,
// OPENAI_CUSTOM_HEADERS) are bypassed so that the configuration Strategist
// shows is the one it uses.
//
// The completion limit goes out as max_completion_tokens to api.openai.com
// (its reasoning models refuse the older name) and as max_tokens to every
// other server (Ollama reads only that one); Config.TokenLimitField
// overrides the choice.
//
// # Retry policy
//
// The SDK's own retries are disabled (option.WithMaxRetries(0)) so that one
// policy, llm.Retrier, shared with the Gemini engine, governs every request
// (this package only says which answers are worth another attempt and how
// long the server asked to wait): at most Config.MaxAttempts requests per
// call (default 4); 429, 408, 5xx, timeouts and dropped connections retried
// with a jittered exponential backoff (BackoffBase·2ⁿ capped at BackoffMax,
// drawn from [d/2, d]), only while nothing has been yielded in this call; a
// Retry-After header (seconds or HTTP date, or the Retry-After-Ms that
// OpenAI sends) honoured exactly, and a wait longer than BackoffMax ends the
// call with a retryable error instead. 400, unknown models (404, code
// model_not_found), rejected keys (401, 403) and content-filter stops fail
// at once. Every error is an *llm.Error whose text never contains the API
// key; cancelling the context ends the call with ctx.Err().
//
// # Streaming
//
// The request asks for stream_options.include_usage, and the final usage
// chunk (empty choices) becomes a ChunkUsage when the server sends it.
// Streamed tool-call deltas are assembled by their index; each call is
// yielded once complete, that is when a later call starts or the choice
// finishes, with its arguments checked to be JSON. Servers that omit call ids
// get stable derived ones.
//
// # Raw
//
// Nothing: the Chat Completions format has no opaque parts that must go
// back to the server, so the history is rebuilt from each message's text and
// tool calls, and Raw written by other engines is ignored.
package openai
