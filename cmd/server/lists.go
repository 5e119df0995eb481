package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
)

const listsUsage = `usage: strategist lists <command> [--url URL] [--token T] [arguments]

Your gene lists on the server (STRATEGIST_URL, STRATEGIST_TOKEN):

  lists                              list them: id, name, size, mapped and unknown ids
  lists add --name N [--site S] [FILE]
                                     upload FILE (or standard input): ids in any separator,
                                     a header row ignored, CSV/TSV read by their id column,
                                     resolved on site S (default the offline plasmodb; a live
                                     site such as plasmodb-live needs your VEuPathDB key);
                                     prints mapped and unknown ids
  lists show <list-id>               the list's genes, one a line
  lists rename <list-id> <name>      rename it
  lists rm <list-id>                 delete it
  lists controls <conversation-id> [--positives ID] [--negatives ID]
                                     set (with flags) and print a conversation's controls
                                     and every step's recall and precision

  --url URL    server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T    API token (default $STRATEGIST_TOKEN; from strategist user token)`

// listsCmd is strategist lists: the gene-list API from the command line.
func listsCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist lists", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	name := fs.String("name", "", "")
	site := fs.String("site", "", "")
	positives := fs.String("positives", "", "")
	negatives := fs.String("negatives", "", "")
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return usageError{err.Error() + "\n" + listsUsage}
		}
		if fs.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	c := listsClient{base: strings.TrimRight(base, "/"), token: *token}
	sub := "ls"
	if len(pos) > 0 {
		sub, pos = pos[0], pos[1:]
	}
	switch {
	case (sub == "ls" || sub == "list") && len(pos) == 0:
		var out struct {
			GeneLists []struct {
				ID, Name, SiteID                string
				Size, UnknownCount, MappedCount int
			}
		}
		if err := c.do(ctx, http.MethodGet, "/api/v1/gene-lists", nil, &out); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSITE\tGENES\tMAPPED\tUNKNOWN")
		for _, l := range out.GeneLists {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", l.ID, l.Name, l.SiteID, l.Size, l.MappedCount, l.UnknownCount)
		}
		return tw.Flush()
	case sub == "add" && len(pos) <= 1:
		if *name == "" {
			return usageError{"lists add needs --name\n" + listsUsage}
		}
		text, err := readListText(stdin, pos)
		if err != nil {
			return err
		}
		var l struct {
			ID, Name string
			Size     int
			Unknown  []string
			Mapped   []struct{ From, To string }
		}
		body := map[string]string{"name": *name, "text": text}
		if *site != "" {
			body["siteId"] = *site
		}
		if err := c.do(ctx, http.MethodPost, "/api/v1/gene-lists", body, &l); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\t%s\t%d genes\n", l.ID, l.Name, l.Size)
		for _, m := range l.Mapped {
			fmt.Fprintf(stdout, "mapped\t%s → %s\n", m.From, m.To)
		}
		for _, u := range l.Unknown {
			fmt.Fprintf(stdout, "unknown\t%s\n", u)
		}
		return nil
	case sub == "show" && len(pos) == 1:
		var l struct{ Genes []string }
		if err := c.do(ctx, http.MethodGet, "/api/v1/gene-lists/"+url.PathEscape(pos[0]), nil, &l); err != nil {
			return err
		}
		for _, g := range l.Genes {
			fmt.Fprintln(stdout, g)
		}
		return nil
	case sub == "rename" && len(pos) == 2:
		return c.do(ctx, http.MethodPatch, "/api/v1/gene-lists/"+url.PathEscape(pos[0]), map[string]string{"name": pos[1]}, nil)
	case sub == "rm" && len(pos) == 1:
		return c.do(ctx, http.MethodDelete, "/api/v1/gene-lists/"+url.PathEscape(pos[0]), nil, nil)
	case sub == "controls" && len(pos) == 1:
		conv := "/api/v1/conversations/" + url.PathEscape(pos[0])
		if *positives != "" || *negatives != "" {
			body := map[string]*string{"positives": nil, "negatives": nil}
			if *positives != "" {
				body["positives"] = positives
			}
			if *negatives != "" {
				body["negatives"] = negatives
			}
			if err := c.do(ctx, http.MethodPut, conv+"/controls", body, nil); err != nil {
				return err
			}
		}
		var rep struct {
			Steps []struct {
				StepID                         string
				PositivesFound, NegativesFound *int
				PositivesTotal, NegativesTotal int
				Recall, Precision              *float64
				Message                        string
			}
		}
		if err := c.do(ctx, http.MethodGet, conv+"/strategy/controls", nil, &rep); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STEP\tPOSITIVES\tNEGATIVES\tRECALL\tPRECISION")
		for _, s := range rep.Steps {
			if s.PositivesFound == nil {
				fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s\n", s.StepID, s.Message)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%s\t%s\n", s.StepID, *s.PositivesFound, s.PositivesTotal, *s.NegativesFound, s.NegativesTotal, percent(s.Recall), percent(s.Precision))
		}
		return tw.Flush()
	}
	return usageError{listsUsage}
}

func percent(r *float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *r*100)
}

// readListText reads the named file, or standard input.
func readListText(stdin io.Reader, files []string) (string, error) {
	if len(files) == 1 && files[0] != "-" {
		b, err := os.ReadFile(files[0])
		if err != nil {
			return "", fmt.Errorf("lists: %w", err)
		}
		return string(b), nil
	}
	if stdin == nil {
		return "", usageError{"lists add: give a file or the ids on standard input\n" + listsUsage}
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("lists: read standard input: %w", err)
	}
	return string(b), nil
}

// listsClient calls the server's JSON API with the researcher's token.
type listsClient struct {
	base, token string
}

// do sends body as JSON and decodes a 2xx answer into out (nil: ignored);
// any other answer is an error with the server's code and message.
func (c listsClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("lists: %w (is the server at %s running?)", err, c.base)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("lists: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("lists: %s (%s, HTTP %d)", e.Error.Message, e.Error.Code, resp.StatusCode)
		}
		return fmt.Errorf("lists: HTTP %d from %s", resp.StatusCode, c.base)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("lists: %w", err)
		}
	}
	return nil
}
