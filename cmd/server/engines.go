package main

import (
	"strategist/internal/llm"
	offlineengine "strategist/internal/llm/offline"
)

// newOfflineEngine builds the offline planner, the engine used when no model
// key is configured.
func newOfflineEngine() (llm.Engine, error) { return offlineengine.New(offlineengine.Config{}) }
