package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// No Docker engine runs where Strategist is developed, so the container
// files are checked by parsing them.

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Profiles    []string          `yaml:"profiles"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Ports       []string `yaml:"ports"`
		Volumes     []string `yaml:"volumes"`
		Healthcheck struct {
			Test        []string `yaml:"test"`
			Interval    string   `yaml:"interval"`
			Timeout     string   `yaml:"timeout"`
			Retries     int      `yaml:"retries"`
			StartPeriod string   `yaml:"start_period"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	db, ok := c.Services["db"]
	if !ok || !strings.HasPrefix(db.Image, "postgres:") {
		t.Fatalf("no postgres db service: %+v", c.Services)
	}
	if len(db.Healthcheck.Test) == 0 || !strings.Contains(strings.Join(db.Healthcheck.Test, " "), "pg_isready") {
		t.Errorf("db healthcheck = %v", db.Healthcheck.Test)
	}
	srv, ok := c.Services["server"]
	if !ok || srv.Build == nil {
		t.Fatalf("no server service built from the Dockerfile")
	}
	if srv.DependsOn["db"].Condition != "service_healthy" {
		t.Errorf("server must wait for a healthy db: %+v", srv.DependsOn)
	}
	url := srv.Environment["DATABASE_URL"]
	m := regexp.MustCompile(`^postgres://([^:]+):([^@]+)@db:5432/([^?]+)`).FindStringSubmatch(url)
	if m == nil || m[1] != db.Environment["POSTGRES_USER"] || m[2] != db.Environment["POSTGRES_PASSWORD"] || m[3] != db.Environment["POSTGRES_DB"] {
		t.Errorf("server DATABASE_URL %q does not match the db service's credentials %v", url, db.Environment)
	}
	if srv.Environment["STRATEGIST_AUTH"] == "dev" {
		t.Error("the container listens on 0.0.0.0, where dev auth is refused")
	}
	if strings.Join(srv.Healthcheck.Test, " ") != "CMD strategist healthcheck" {
		t.Errorf("server healthcheck = %v", srv.Healthcheck.Test)
	}
	for name, svc := range c.Services {
		if len(svc.Profiles) > 0 {
			continue // optional tooling (the observability profile) has no healthcheck
		}
		for _, d := range []string{svc.Healthcheck.Interval, svc.Healthcheck.Timeout} {
			if _, err := time.ParseDuration(d); err != nil {
				t.Errorf("%s healthcheck duration %q: %v", name, d, err)
			}
		}
		if svc.Healthcheck.Retries < 1 {
			t.Errorf("%s healthcheck retries = %d", name, svc.Healthcheck.Retries)
		}
	}
	if _, ok := c.Volumes["pgdata"]; !ok {
		t.Error("the pgdata volume is not declared")
	}
}

// TestObservabilityProfile checks `docker compose --profile observability
// up`: a collector reading deploy/otel-collector.yaml, whose pipelines use
// only components it defines and send traces to the Jaeger service over
// OTLP; both only in that profile, on loopback ports; and the server
// exporting to the collector only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
func TestObservabilityProfile(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	col, jaeger := c.Services["otel-collector"], c.Services["jaeger"]
	for name, svc := range map[string]struct {
		profiles []string
		ports    []string
	}{"otel-collector": {col.Profiles, col.Ports}, "jaeger": {jaeger.Profiles, jaeger.Ports}} {
		if len(svc.profiles) != 1 || svc.profiles[0] != "observability" {
			t.Errorf("%s profiles = %v, want [observability]", name, svc.profiles)
		}
		for _, p := range svc.ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond loopback", name, p)
			}
		}
	}
	if !strings.HasPrefix(col.Image, "otel/opentelemetry-collector:") || !strings.HasPrefix(jaeger.Image, "jaegertracing/all-in-one:") {
		t.Errorf("images = %q, %q", col.Image, jaeger.Image)
	}
	if jaeger.Environment["COLLECTOR_OTLP_ENABLED"] != "true" {
		t.Errorf("jaeger does not take OTLP: %v", jaeger.Environment)
	}
	mount := "./deploy/otel-collector.yaml:/etc/otelcol/config.yaml:ro"
	if !slices.Contains(col.Volumes, mount) || !slices.Contains(col.Command, "--config=/etc/otelcol/config.yaml") {
		t.Errorf("collector volumes %v, command %v", col.Volumes, col.Command)
	}
	if got := c.Services["server"].Environment["OTEL_EXPORTER_OTLP_ENDPOINT"]; got != "${OTEL_EXPORTER_OTLP_ENDPOINT:-}" {
		t.Errorf("server OTEL_EXPORTER_OTLP_ENDPOINT = %q: tracing must stay off unless it is set", got)
	}

	raw, err := os.ReadFile("../../deploy/otel-collector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Receivers  map[string]any `yaml:"receivers"`
		Processors map[string]any `yaml:"processors"`
		Exporters  map[string]struct {
			Endpoint string `yaml:"endpoint"`
		} `yaml:"exporters"`
		Service struct {
			Pipelines map[string]struct {
				Receivers  []string `yaml:"receivers"`
				Processors []string `yaml:"processors"`
				Exporters  []string `yaml:"exporters"`
			} `yaml:"pipelines"`
		} `yaml:"service"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("deploy/otel-collector.yaml: %v", err)
	}
	for _, sig := range []string{"traces", "metrics"} {
		p, ok := cfg.Service.Pipelines[sig]
		if !ok {
			t.Errorf("no %s pipeline", sig)
			continue
		}
		for _, r := range p.Receivers {
			if _, ok := cfg.Receivers[r]; !ok {
				t.Errorf("%s pipeline uses undefined receiver %s", sig, r)
			}
		}
		for _, pr := range p.Processors {
			if _, ok := cfg.Processors[pr]; !ok {
				t.Errorf("%s pipeline uses undefined processor %s", sig, pr)
			}
		}
		for _, e := range p.Exporters {
			if _, ok := cfg.Exporters[e]; !ok {
				t.Errorf("%s pipeline uses undefined exporter %s", sig, e)
			}
		}
	}
	traces := cfg.Service.Pipelines["traces"].Exporters
	if len(traces) != 1 || cfg.Exporters[traces[0]].Endpoint != "jaeger:4317" {
		t.Errorf("traces go to %v, want Jaeger's OTLP port", traces)
	}
	if !strings.Contains(string(raw), "0.0.0.0:4318") {
		t.Error("the collector does not take OTLP/HTTP on 4318, where the server sends")
	}
}

func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms, instrs []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "STRATEGIST_DATA_DIR") {
			continue
		}
		word := strings.Fields(line)[0]
		if word != strings.ToUpper(word) {
			t.Errorf("not an instruction: %q", line)
		}
		instrs = append(instrs, word)
		if word == "FROM" {
			froms = append(froms, line)
		}
	}
	if len(froms) != 2 || !strings.Contains(froms[0], "golang:1.26") || !strings.Contains(froms[0], " AS build") {
		t.Errorf("FROM lines = %v, want a golang:1.26 build stage and a runtime stage", froms)
	}
	src := string(b)
	for _, want := range []string{"./cmd/server", "COPY --from=build", `ENTRYPOINT ["strategist"]`, `HEALTHCHECK`, "CGO_ENABLED=0"} {
		if !strings.Contains(src, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if instrs[len(instrs)-1] != "CMD" {
		t.Errorf("last instruction = %s, want CMD", instrs[len(instrs)-1])
	}
}
