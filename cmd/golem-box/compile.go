package main

import (
	"fmt"
	"path/filepath"

	"github.com/golem-box/golem-box/runner/oci"
	"github.com/spf13/cobra"
)

func newCompileCmd(g *globals) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "compile [flags] -- CMD [ARGS...]",
		Short: "Print the OCI runtime spec (config.json) that run would use, for review",
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.backend == "" {
				f.backend = "oci"
			}
			job, b, _, err := f.job(g, cmd, args)
			if err != nil {
				return err
			}
			ob, ok := b.(*oci.Backend)
			if !ok {
				return usageError{fmt.Errorf("compile prints OCI specs; backend %s does not use one", b.Name())}
			}
			bundle, err := ob.Compile(cmd.Context(), job, filepath.Join(oci.DefaultStateDir(), "bundles", "compiled"), "compiled")
			if err != nil {
				return err
			}
			data, err := bundle.JSON()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	f.bind(cmd)
	return cmd
}

type errNotOCI string

func (e errNotOCI) Error() string {
	return "compile prints OCI specs; backend " + string(e) + " does not use one"
}
