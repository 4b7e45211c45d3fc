package main

import (
	"fmt"

	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

func newLsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "ls [PATH|GLOB]",
		Short: "List a directory, or the paths matching a glob (** for any depth)",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: g.withFS(nil, func(cmd *cobra.Command, a []string, fsys *sandbox.FS) error {
			p := "/"
			if len(a) == 1 {
				p = a[0]
			}
			r, err := fsys.List(p)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if g.json() {
				return printJSON(out, r)
			}
			for _, e := range r.Entries {
				fmt.Fprintln(out, formatInfo(e))
			}
			if r.Truncated {
				fmt.Fprintf(cmd.ErrOrStderr(), "[truncated at %d entries; narrow the pattern]\n", sandbox.MaxListEntries)
			}
			return nil
		}),
	}
}

func newStatCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stat PATH",
		Short: "Describe a file through the sandbox",
		Args:  args(cobra.ExactArgs(1)),
		RunE: g.withFS(nil, func(cmd *cobra.Command, a []string, fsys *sandbox.FS) error {
			info, err := fsys.Stat(a[0])
			if err != nil {
				return err
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), info)
			}
			fmt.Fprintln(cmd.OutOrStdout(), formatInfo(*info))
			return nil
		}),
	}
}

func formatInfo(e sandbox.Info) string {
	mode := "rw"
	if e.ReadOnly {
		mode = "ro"
	}
	name := e.Path
	if e.Type == sandbox.EntryDir && name != "/" {
		name += "/"
	}
	return fmt.Sprintf("%-7s %s %10d  %s", e.Type, mode, e.Size, name)
}
