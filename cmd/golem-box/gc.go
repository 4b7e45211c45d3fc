package main

import (
	"errors"
	"fmt"

	"github.com/golem-box/golem-box/runner"
	"github.com/spf13/cobra"
)

func newGCCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Remove the containers, tasks, snapshots and bundles that killed runs left behind",
		Long: `Remove what runs left behind when their golem-box process was killed, on
every backend: runtime containers and bundles, Docker containers, containerd
tasks, containers, snapshots and leases. Runs whose golem-box is alive stay.
A backend that cannot be reached (its daemon is down) is reported and skipped.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			type report struct {
				Removed []string          `json:"removed"`
				Skipped map[string]string `json:"skipped,omitempty"`
			}
			rep := report{Removed: []string{}, Skipped: map[string]string{}}
			var failed error
			for _, name := range runner.Names() {
				b, err := runner.New(name, runner.Settings{})
				if err != nil {
					return err
				}
				c, ok := b.(runner.Collector)
				if !ok {
					continue
				}
				ids, err := c.GC(cmd.Context())
				rep.Removed = append(rep.Removed, ids...)
				switch {
				case errors.Is(err, runner.ErrUnavailable):
					rep.Skipped[name] = err.Error()
				case err != nil:
					failed = errors.Join(failed, fmt.Errorf("%s: %w", name, err))
				}
			}
			if g.json() {
				if err := printJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				for _, id := range rep.Removed {
					fmt.Fprintln(cmd.OutOrStdout(), "removed", id)
				}
				for name, why := range rep.Skipped {
					fmt.Fprintf(cmd.ErrOrStderr(), "golem-box gc: skipped %s: %s\n", name, why)
				}
			}
			return failed
		},
	}
}
