package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := struct {
				Version string `json:"version"`
				Commit  string `json:"commit,omitempty"`
				Go      string `json:"go"`
				OS      string `json:"os"`
				Arch    string `json:"arch"`
			}{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						v.Commit = s.Value
					}
				}
			}
			if g.json() {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "golem-box %s (%s, %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
			return nil
		},
	}
}
