package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/policy"
	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

func newWorkerCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Worker files: what a worker may touch when it is called",
	}
	cmd.AddCommand(newWorkerCheckCmd(g))
	return cmd
}

func newWorkerCheckCmd(g *globals) *cobra.Command {
	var attach []string
	var call mountspec.Restriction
	var callRO bool
	cmd := &cobra.Command{
		Use:   "check FILE.worker",
		Short: "Print a worker's effective sandbox under the project and a chain of --parent workers",
		Long: `Print the effective sandbox of a worker: the project's sandbox (the ceiling),
narrowed by each --parent worker in turn (outermost first), by the restriction
of the call (--restrict, --restrict-readonly), and by what the worker itself
declares. --attach checks that files can be handed to it: they must be
readable in its caller's sandbox.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if g.worker != "" {
				return usageError{errors.New("worker check takes the worker as its argument, not --worker")}
			}
			if cmd.Flags().Changed("restrict-readonly") {
				call.ReadOnly = &callRO
			}
			cfg, file, err := g.project()
			if err != nil {
				return err
			}
			chain, err := g.delegate(cfg, file, append(slices.Clone(g.parents), a[0]), call)
			if err != nil {
				return err
			}
			caller := &chain.Levels[len(chain.Levels)-2]
			atts, err := attachments(caller, attach)
			if err != nil {
				return err
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), struct {
					*policy.Chain
					Attachments []*sandbox.Attachment `json:"attachments,omitempty"`
				}{chain, atts})
			}
			printChain(cmd, chain, atts)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&attach, "attach", nil, "a file (virtual path) the caller hands to the worker; repeat for more")
	cmd.Flags().StringVar(&call.Restrict, "restrict", "", "the subtree the caller restricts this call to")
	cmd.Flags().BoolVar(&callRO, "restrict-readonly", false, "the caller makes this call read-only (=false asks to keep write access)")
	return cmd
}

// attachments checks that each path is a file the caller can read.
func attachments(caller *policy.Level, paths []string) ([]*sandbox.Attachment, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if caller.Sandbox == nil {
		return nil, fmt.Errorf("cannot attach %s: the caller %s has no file access", paths[0], levelName(caller))
	}
	fsys, err := sandbox.Open(caller.Sandbox)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	var out []*sandbox.Attachment
	for _, p := range paths {
		a, err := fsys.Attach(p)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func levelName(l *policy.Level) string {
	if l.Name == "" {
		return "the project"
	}
	return l.Name
}

func printChain(cmd *cobra.Command, c *policy.Chain, atts []*sandbox.Attachment) {
	w := cmd.OutOrStdout()
	names := make([]string, len(c.Levels))
	for i := range c.Levels {
		names[i] = levelName(&c.Levels[i])
	}
	config := c.Config
	if config == "" {
		config = "(none: flags only)"
	}
	fmt.Fprintf(w, "config:   %s\n", config)
	fmt.Fprintf(w, "chain:    %s (depth %d of at most %d)\n", strings.Join(names, " → "), c.Last().Depth, c.MaxDepth)
	for i := range c.Levels {
		l := &c.Levels[i]
		switch {
		case l.Name == "":
			fmt.Fprintln(w, "\nthe project (the ceiling):")
		case i == len(c.Levels)-1:
			fmt.Fprintf(w, "\n%s (%s), depth %d: effective sandbox\n", l.Name, l.File, l.Depth)
		default:
			fmt.Fprintf(w, "\n%s (%s), depth %d:\n", l.Name, l.File, l.Depth)
		}
		printMounts(w, l.Sandbox)
	}
	if len(atts) > 0 {
		fmt.Fprintf(w, "\nattachments (readable by %s):\n", names[len(names)-2])
		for _, a := range atts {
			fmt.Fprintf(w, "  %-20s %d bytes  %s\n", a.Path, a.Bytes, a.MIMEType)
		}
	}
}
