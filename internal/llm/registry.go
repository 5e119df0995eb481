package llm

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// The engine families, used as the prefix of model ids ("gemini:<model>").
const (
	EngineGemini   = "gemini"
	EngineOpenAI   = "openai"
	EngineScripted = "scripted"
	EngineOffline  = "offline"
)

// ErrUnknownModel is matched (errors.Is) by every *UnknownModelError, so that
// the server can answer 400 without knowing the error's fields.
var ErrUnknownModel = errors.New("unknown model")

// UnknownModelError says that a model id does not name a configured model.
// Valid lists the ids that would have been accepted, so that the researcher
// (or a program) can correct the request.
type UnknownModelError struct {
	ID     string
	Reason string
	Valid  []string
}

// Error names the id, the reason and the valid ids.
func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("llm: unknown model %q: %s (valid: %s)", e.ID, e.Reason, strings.Join(e.Valid, ", "))
}

// Is makes errors.Is(err, ErrUnknownModel) true.
func (e *UnknownModelError) Is(target error) bool { return target == ErrUnknownModel }

// HostedConfig configures a hosted engine family (Gemini, an OpenAI-compatible
// server). Enabled is what main derives from the environment: a Gemini key
// present, an OpenAI base URL present.
type HostedConfig struct {
	Enabled bool
	// Models are the model names offered in the model list, in display order.
	Models []string
	// AcceptUnlisted lets any model name through: an OpenAI-compatible
	// server (Ollama, vLLM) hosts whatever its operator pulled.
	AcceptUnlisted bool
	// New builds the family's engine; one engine serves all its models.
	New func() (Engine, error)
}

// ScriptedConfig allows "scripted:<file>" ids. Files is the only place
// scripts are read from, so that a model id in a request cannot name an
// arbitrary file on the server.
type ScriptedConfig struct {
	Enabled bool
	Files   fs.FS
	// New loads the script called name from fsys.
	New func(fsys fs.FS, name string) (Engine, error)
}

// RegistryConfig is what main knows about the engines it can offer.
type RegistryConfig struct {
	// Default is the model id used when a request names none. Empty means:
	// the first Gemini model if Gemini is enabled, else the first
	// OpenAI-compatible model, else offline.
	Default  string
	Gemini   HostedConfig
	OpenAI   HostedConfig
	Scripted ScriptedConfig
	// Offline builds the offline engine, which is always available.
	Offline func() (Engine, error)
}

// Model is a resolved model id: the engine to call and the engine-local
// model name to put in Request.Model.
type Model struct {
	ID     string
	Family string
	Name   string
	Engine Engine
}

// ModelInfo describes one selectable model (GET /api/v1/models).
type ModelInfo struct {
	ID          string `json:"id"`
	Engine      string `json:"engine"`
	DisplayName string `json:"displayName"`
	Default     bool   `json:"default"`
}

// ModelList is the body of GET /api/v1/models.
type ModelList struct {
	Models  []ModelInfo `json:"models"`
	Default string      `json:"default"`
}

// Registry maps model ids to engines. It is built once by main; hosted and
// offline engines are constructed up front (so a bad configuration fails at
// start-up), scripted engines on first use of their file, then kept for the
// registry's lifetime (a script's responses are consumed across turns, so a
// multi-turn scenario can be one file). Safe for concurrent use.
type Registry struct {
	cfg     RegistryConfig
	gemini  Engine
	openai  Engine
	offline Engine
	def     string

	mu      sync.Mutex
	scripts map[string]Engine // by file name; guarded by mu
}

// NewRegistry builds the engines cfg enables and checks the default model.
func NewRegistry(cfg RegistryConfig) (*Registry, error) {
	r := &Registry{cfg: cfg, scripts: make(map[string]Engine)}
	if cfg.Offline == nil {
		return nil, errors.New("llm: new registry: the offline engine constructor is required")
	}
	var err error
	if r.offline, err = cfg.Offline(); err != nil {
		return nil, fmt.Errorf("llm: new registry: offline engine: %w", err)
	}
	if r.gemini, err = newHosted(EngineGemini, cfg.Gemini); err != nil {
		return nil, fmt.Errorf("llm: new registry: %w", err)
	}
	if r.openai, err = newHosted(EngineOpenAI, cfg.OpenAI); err != nil {
		return nil, fmt.Errorf("llm: new registry: %w", err)
	}
	if cfg.Scripted.Enabled && (cfg.Scripted.Files == nil || cfg.Scripted.New == nil) {
		return nil, errors.New("llm: new registry: scripted models need Files and New")
	}
	r.def = cfg.Default
	if r.def == "" {
		switch {
		case r.gemini != nil && len(cfg.Gemini.Models) > 0:
			r.def = EngineGemini + ":" + cfg.Gemini.Models[0]
		case r.openai != nil && len(cfg.OpenAI.Models) > 0:
			r.def = EngineOpenAI + ":" + cfg.OpenAI.Models[0]
		default:
			r.def = EngineOffline
		}
	}
	if _, err := r.Resolve(r.def); err != nil {
		return nil, fmt.Errorf("llm: new registry: default model: %w", err)
	}
	return r, nil
}

func newHosted(family string, c HostedConfig) (Engine, error) {
	if !c.Enabled {
		return nil, nil
	}
	if c.New == nil {
		return nil, fmt.Errorf("%s: engine constructor is required", family)
	}
	if len(c.Models) == 0 && !c.AcceptUnlisted {
		return nil, fmt.Errorf("%s: no models configured", family)
	}
	for _, m := range c.Models {
		if m == "" {
			return nil, fmt.Errorf("%s: empty model name", family)
		}
	}
	e, err := c.New()
	if err != nil {
		return nil, fmt.Errorf("%s engine: %w", family, err)
	}
	return e, nil
}

// Default returns the id of the default model.
func (r *Registry) Default() string { return r.def }

// ParseModelID splits "family:name" into its parts; "offline" has no name.
func ParseModelID(id string) (family, name string) {
	family, name, _ = strings.Cut(id, ":")
	return family, name
}

// Resolve returns the engine and model name for id; an empty id means the
// default. An id that names nothing configured is an *UnknownModelError.
func (r *Registry) Resolve(id string) (Model, error) {
	if id == "" {
		id = r.def
	}
	family, name := ParseModelID(id)
	unknown := func(reason string) (Model, error) {
		return Model{}, &UnknownModelError{ID: id, Reason: reason, Valid: r.ids()}
	}
	switch family {
	case EngineOffline:
		if name != "" {
			return unknown("the offline engine takes no model name")
		}
		return Model{ID: id, Family: family, Engine: r.offline}, nil
	case EngineGemini, EngineOpenAI:
		eng, cfg := r.gemini, r.cfg.Gemini
		if family == EngineOpenAI {
			eng, cfg = r.openai, r.cfg.OpenAI
		}
		if eng == nil {
			return unknown(family + " is not configured")
		}
		if name == "" {
			return unknown("missing model name")
		}
		if !cfg.AcceptUnlisted && !slices.Contains(cfg.Models, name) {
			return unknown("model not offered")
		}
		return Model{ID: id, Family: family, Name: name, Engine: eng}, nil
	case EngineScripted:
		if !r.cfg.Scripted.Enabled {
			return unknown("scripted models are not enabled")
		}
		if !fs.ValidPath(name) || name == "." || !strings.HasSuffix(name, ".json") {
			return unknown("a script is a .json file name inside the scripts directory")
		}
		eng, err := r.script(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return unknown("no such script")
			}
			return Model{}, fmt.Errorf("llm: resolve %s: %w", id, err)
		}
		return Model{ID: id, Family: family, Name: name, Engine: eng}, nil
	default:
		return unknown("unknown engine " + fmt.Sprintf("%q", family))
	}
}

func (r *Registry) script(name string) (Engine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.scripts[name]; ok {
		return e, nil
	}
	if _, err := fs.Stat(r.cfg.Scripted.Files, name); err != nil {
		return nil, err
	}
	e, err := r.cfg.Scripted.New(r.cfg.Scripted.Files, name)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	r.scripts[name] = e
	return e, nil
}

// Models lists the models a researcher can choose, the default marked.
func (r *Registry) Models() ModelList {
	var list []ModelInfo
	add := func(id, family, display string) {
		list = append(list, ModelInfo{ID: id, Engine: family, DisplayName: display, Default: id == r.def})
	}
	if r.gemini != nil {
		for _, m := range r.cfg.Gemini.Models {
			add(EngineGemini+":"+m, EngineGemini, "Gemini "+m)
		}
	}
	if r.openai != nil {
		for _, m := range r.cfg.OpenAI.Models {
			add(EngineOpenAI+":"+m, EngineOpenAI, m+" (OpenAI-compatible)")
		}
	}
	for _, f := range r.scriptFiles() {
		add(EngineScripted+":"+f, EngineScripted, "Scripted: "+f)
	}
	add(EngineOffline, EngineOffline, "Offline planner (not a language model)")
	if !slices.ContainsFunc(list, func(m ModelInfo) bool { return m.Default }) {
		// An unlisted default (an OpenAI-compatible model named only in the
		// configuration) is still shown, first.
		family, name := ParseModelID(r.def)
		list = slices.Insert(list, 0, ModelInfo{ID: r.def, Engine: family, DisplayName: name, Default: true})
	}
	return ModelList{Models: list, Default: r.def}
}

// maxScriptFiles bounds the model list when a scripts directory is large.
const maxScriptFiles = 200

func (r *Registry) scriptFiles() []string {
	if !r.cfg.Scripted.Enabled {
		return nil
	}
	var files []string
	_ = fs.WalkDir(r.cfg.Scripted.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry is left out of the list
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		if len(files) >= maxScriptFiles {
			return fs.SkipAll
		}
		return nil
	})
	return files
}

func (r *Registry) ids() []string {
	list := r.Models()
	ids := make([]string, len(list.Models))
	for i, m := range list.Models {
		ids[i] = m.ID
	}
	return ids
}
