package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// ANSI colours per severity, used only on a terminal.
var colours = map[Severity]string{Critical: "\x1b[1;31m", High: "\x1b[31m", Medium: "\x1b[33m", Low: "\x1b[36m", Info: "\x1b[2m"}

// WriteText writes the report as a table per target, grouped by severity,
// then the fix of each rule that fired. colour adds ANSI colours.
func WriteText(w io.Writer, r *Report, colour bool) error {
	paint := func(sev Severity, s string) string {
		if !colour {
			return s
		}
		return colours[sev] + s + "\x1b[0m"
	}
	fired := map[string]Finding{}
	var order []string
	for _, res := range r.Results {
		title := res.Target
		if res.Name != "" && !strings.Contains(res.Target, res.Name) {
			title += " (" + res.Name + ")"
		}
		fmt.Fprintf(w, "%s  [%s]\n", title, formatName(res.Format))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		shown := 0
		for _, sev := range Severities {
			for _, f := range res.Findings {
				if f.Severity != sev || f.Suppressed != "" {
					continue
				}
				// Pad before painting so that escape codes do not skew columns.
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", paint(sev, fmt.Sprintf("%-8s", strings.ToUpper(string(sev)))), f.RuleID, f.Field, f.Message)
				shown++
				if _, ok := fired[f.RuleID]; !ok {
					fired[f.RuleID] = f
					order = append(order, f.RuleID)
				}
			}
		}
		if shown == 0 {
			fmt.Fprintln(tw, "  no findings")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(order) > 0 {
		slices.SortFunc(order, func(a, b string) int {
			if d := fired[b].Severity.Rank() - fired[a].Severity.Rank(); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		fmt.Fprintln(w, "How to fix:")
		for _, id := range order {
			f := fired[id]
			fmt.Fprintf(w, "  %s %s: %s\n", id, f.Title, f.Fix)
		}
		fmt.Fprintln(w)
	}
	active, suppressed := r.Counts()
	var parts []string
	for _, sev := range Severities {
		parts = append(parts, fmt.Sprintf("%d %s", active[sev], sev))
	}
	fmt.Fprintf(w, "%d audited, %d not readable: %s", len(r.Results), len(r.Errors), strings.Join(parts, ", "))
	if suppressed > 0 {
		fmt.Fprintf(w, "; %d suppressed", suppressed)
	}
	if len(r.Ignored) > 0 {
		fmt.Fprintf(w, "; ignored %s", strings.Join(r.Ignored, ", "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func formatName(f Format) string {
	if f == FormatDocker {
		return "docker inspect"
	}
	return "OCI config.json"
}

// WriteJSON writes the report as one indented JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	type errJSON struct {
		Target string `json:"target"`
		Line   int    `json:"line,omitempty"`
		Column int    `json:"column,omitempty"`
		Error  string `json:"error"`
	}
	active, suppressed := r.Counts()
	out := struct {
		Results    []Result         `json:"results"`
		Errors     []errJSON        `json:"errors"`
		Ignored    []string         `json:"ignored"`
		Summary    map[Severity]int `json:"summary"`
		Suppressed int              `json:"suppressed"`
	}{Results: r.Results, Errors: []errJSON{}, Ignored: append([]string{}, r.Ignored...), Summary: map[Severity]int{}, Suppressed: suppressed}
	if out.Results == nil {
		out.Results = []Result{}
	}
	for _, sev := range Severities {
		out.Summary[sev] = active[sev]
	}
	for _, e := range r.Errors {
		out.Errors = append(out.Errors, errJSON{Target: e.Target, Line: e.Line, Column: e.Column, Error: e.Error()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
