package main

import (
	"strategist/internal/llm"
	"strategist/internal/rules"
)

// newOfflineEngine builds the offline planner, the engine used when no model
// key is configured.
func newOfflineEngine() (llm.Engine, error) { return rules.New(rules.Config{}) }
