// Command strategist is the Strategist server and its administration tool:
//
//	strategist [serve] [flags]        run the web server (the default)
//	strategist migrate                apply database migrations and exit
//	strategist user create --email E  create a local account (password from the terminal or stdin)
//	strategist user token --email E   issue an API token for E (printed once)
//	strategist user revoke --email E --token-id ID
//	strategist catalog search|describe|count ...   explore the offline PlasmoDB catalog
//	strategist watch <conversation-id>             follow a conversation's live events
//	strategist eval [FILE.jsonl ...]               score the default model on the evaluation set
//	strategist version
//
// Configuration comes from the environment (see README); serve also takes
// flags of the same settings.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(exitStatus()) }

// exitStatus runs the command and returns the process's exit status, so that
// its deferred calls run before main exits.
func exitStatus() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "strategist:", err)
		return 2
	default:
		fmt.Fprintln(os.Stderr, "strategist:", err)
		return 1
	}
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
func (e usageError) Is(target error) bool {
	return target == errUsage
}

const usage = `usage: strategist <command> [arguments]

commands:
  serve [flags]                     run the web server (default; -h lists flags)
  migrate                           apply database migrations and exit
  user create --email E             create a local account
  user token --email E [--name N]   issue an API token (printed once)
  user revoke --email E --token-id ID
  user count                        print how many accounts can sign in
  catalog search <words>            rank the offline catalog's searches
  catalog describe <search>         show a search's parameters
  catalog count <search> [p=v ...]  count genes offline
  watch <conversation-id>           follow a conversation live (STRATEGIST_URL, STRATEGIST_TOKEN)
  mcp                               serve the MCP tools on stdin/stdout, through the server (STRATEGIST_URL, STRATEGIST_TOKEN)
  acp                               serve the Agent Client Protocol on stdin/stdout for editors, through the server (STRATEGIST_URL, STRATEGIST_TOKEN)
  genes <conversation-id> <step-id> write all of a step's genes as TSV, CSV or JSON (--format)
  lists [add|show|rename|rm|controls] your gene lists and a conversation's controls (STRATEGIST_URL, STRATEGIST_TOKEN)
  eval [FILE.jsonl ...]             score the server's default model on the evaluation set (STRATEGIST_URL, STRATEGIST_TOKEN)
  healthcheck                       exit 0 when the local server is ready (containers)
  version                           print the version`

// run is the whole program, with its environment passed in for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stderr, getenv)
	case "migrate":
		return migrateCmd(ctx, args, stdout, stderr, getenv)
	case "user":
		return userCmd(ctx, args, stdin, stdout, stderr, getenv)
	case "catalog":
		return catalogCmd(ctx, args, stdout, getenv)
	case "watch":
		return watchCmd(ctx, args, stdout, getenv)
	case "mcp":
		return mcpCmd(ctx, args, stdin, stdout, getenv)
	case "acp":
		return acpCmd(ctx, args, stdin, stdout, getenv)
	case "genes":
		return genesCmd(ctx, args, stdout, getenv)
	case "lists":
		return listsCmd(ctx, args, stdin, stdout, getenv)
	case "eval":
		return evalCmd(ctx, args, stdout, stderr, getenv)
	case "healthcheck":
		return healthcheck(ctx, stdout, getenv)
	case "version":
		fmt.Fprintln(stdout, "strategist", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", cmd, usage)}
}
