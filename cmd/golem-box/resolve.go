package main

import (
	"errors"
	"fmt"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

func newResolveCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "resolve PATH...",
		Short: "Show the host path, mount and mode behind virtual paths",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: g.withFS(nil, func(cmd *cobra.Command, paths []string, fsys *sandbox.FS) error {
			type row struct {
				Asked string `json:"asked"`
				mountspec.Resolution
				Error string `json:"error,omitempty"`
			}
			var rows []row
			var errs []error
			for _, p := range paths {
				r, err := fsys.Resolve(p)
				rows = append(rows, row{Asked: p, Resolution: r})
				if err != nil {
					rows[len(rows)-1].Error = err.Error()
					errs = append(errs, err)
				}
			}
			out := cmd.OutOrStdout()
			if g.json() {
				if err := printJSON(out, rows); err != nil {
					return err
				}
			} else {
				for _, r := range rows {
					if r.Error != "" {
						continue
					}
					mode := "rw"
					if r.ReadOnly {
						mode = "ro"
					}
					via := ""
					if c, _ := mountspec.CleanVirtual(r.Asked); c != r.Virtual {
						via = " (via symbolic links: " + r.Virtual + ")"
					}
					fmt.Fprintf(out, "%s\t%s\tmount %s\t%s%s\n", r.Asked, r.Host, r.Target, mode, via)
				}
			}
			return errors.Join(errs...)
		}),
	}
}
