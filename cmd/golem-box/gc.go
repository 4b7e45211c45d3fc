package main

import (
	"fmt"

	"github.com/golem-box/golem-box/runner/oci"
	"github.com/spf13/cobra"
)

func newGCCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Remove containers and bundles that killed runs left behind",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var removed []string
			for _, rt := range []string{"runc", "crun"} {
				ids, err := oci.New(oci.WithRuntime(rt)).GC(cmd.Context())
				if err != nil {
					return err
				}
				removed = append(removed, ids...)
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), map[string][]string{"removed": removed})
			}
			for _, id := range removed {
				fmt.Fprintln(cmd.OutOrStdout(), "removed", id)
			}
			return nil
		},
	}
}
