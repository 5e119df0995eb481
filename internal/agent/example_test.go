package agent_test

import (
	"context"
	"fmt"

	"strategist/internal/agent"
	"strategist/internal/llm/scripted"
	"strategist/internal/tool"
)

func ExampleAgent_Run() {
	script, _ := scripted.Parse([]byte(`{"roles":{"planner":[
		{"toolCalls":[{"id":"c1","name":"count_genes","args":{"chromosome":"Pf3D7_05_v3"}}]},
		{"text":"Chromosome 5 has 339 genes."}]}}`))
	engine, _ := scripted.New(script)

	type countArgs struct {
		Chromosome string `json:"chromosome" jsonschema:"chromosome id, e.g. Pf3D7_05_v3"`
	}
	type countResult struct {
		Count int `json:"count"`
	}
	tools, err := tool.NewToolset(
		tool.NewTool("count_genes", "Count the genes on a chromosome.",
			func(_ context.Context, a countArgs) (countResult, error) {
				return countResult{Count: 339}, nil
			}),
	)
	if err != nil {
		panic(err)
	}
	planner, err := agent.New(agent.Config{Engine: engine, Agent: "planner", System: "You plan strategies.", Tools: tools})
	if err != nil {
		panic(err)
	}
	for ev := range planner.Run(context.Background(), agent.Input{User: "How many genes on chromosome 5?"}) {
		switch e := ev.(type) {
		case agent.ToolCallStart:
			fmt.Println("call", e.Name, string(e.Args))
		case agent.ToolCallEnd:
			fmt.Println("result", string(e.Result))
		case agent.AssistantMessage:
			if e.Message.Text != "" {
				fmt.Println("answer", e.Message.Text)
			}
		case agent.RunEnd:
			fmt.Println("end", e.Reason, "after", e.Rounds, "rounds;", len(e.Messages), "messages to store")
		}
	}
	// Output:
	// call count_genes {"chromosome":"Pf3D7_05_v3"}
	// result {"ok":true,"count":339}
	// answer Chromosome 5 has 339 genes.
	// end completed after 2 rounds; 3 messages to store
}
