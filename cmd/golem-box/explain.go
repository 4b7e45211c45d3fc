package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/trust"
	"github.com/spf13/cobra"
)

// explanation is run --explain's JSON.
type explanation struct {
	*trust.Decision
	Limitations []string `json:"limitations,omitempty"`
}

// printExplain prints the routing decision d; b is the chosen backend, if any.
func printExplain(cmd *cobra.Command, g *globals, d *trust.Decision, b runner.Backend) error {
	e := explanation{Decision: d}
	if doc, ok := b.(runner.Documenter); ok {
		e.Limitations = doc.Limitations()
	}
	if g.json() {
		return printJSON(cmd.OutOrStdout(), e)
	}
	w := cmd.OutOrStdout()
	verdict := "trusted"
	if d.Verdict.Untrusted {
		verdict = "untrusted"
	}
	backend := d.Backend
	if backend == "" {
		backend = "(none usable)"
	} else {
		backend += " (" + string(d.Layer) + ")"
	}
	fmt.Fprintf(w, "backend:   %s\ncontent:   %s (%d files checked for provenance marks)\nbecause:\n", backend, verdict, d.Verdict.Scanned)
	for _, r := range d.Reasons {
		fmt.Fprintf(w, "  - %s\n", r)
	}
	fmt.Fprintln(w, "considered:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range d.Considered {
		state := "usable"
		if c.Why != "" {
			state = c.Why
		}
		if c.Backend == d.Backend {
			state = "chosen"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Backend, c.Layer, state)
	}
	tw.Flush()
	if len(e.Limitations) > 0 {
		fmt.Fprintf(w, "limitations of %s:\n", d.Backend)
		for _, l := range e.Limitations {
			fmt.Fprintf(w, "  - %s\n", l)
		}
	}
	return nil
}
