package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

// Exit statuses: 0 ok, 1 denied or failed, 2 usage or bad configuration.
const (
	exitFailed = 1
	exitUsage  = 2
)

// usageError marks a command line that cannot be run as written.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func exitCode(err error) int {
	var x exitError
	if errors.As(err, &x) {
		return x.code
	}
	var u usageError
	if errors.As(err, &u) || errors.Is(err, mountspec.ErrInvalidConfig) {
		return exitUsage
	}
	return exitFailed
}

// annotationOutputs lists, comma-separated, the --output formats of a
// command that accepts more than text and json.
const annotationOutputs = "golem-box/outputs"

// globals are the flags every command shares.
type globals struct {
	overrides mountspec.Overrides
	output    string
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "golem-box",
		Short: "Docker-style sandboxes for AI workers, CI jobs and untrusted files",
		Long: `golem-box describes a sandbox the way Docker users already think: a root
mounted at /, extra mounts with source, target and readonly, and no network
unless asked for. The description comes from golem-box.yaml (found like .git)
and the --root, --mount and -v flags.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// A command may accept more formats (audit: sarif).
			formats := []string{"text", "json"}
			if more := cmd.Annotations[annotationOutputs]; more != "" {
				formats = strings.Split(more, ",")
			}
			if !slices.Contains(formats, g.output) {
				list := strings.Join(formats[:len(formats)-1], ", ") + " or " + formats[len(formats)-1]
				return usageError{fmt.Errorf("--output must be %s, got %q", list, g.output)}
			}
			return nil
		},
	}
	f := root.PersistentFlags()
	f.StringVar(&g.overrides.ConfigFile, "config", "", "configuration file (default: golem-box.yaml in this or a parent directory)")
	f.StringVar(&g.overrides.Root, "root", "", "host directory seen as / (overrides sandbox.root)")
	f.BoolVar(&g.overrides.ReadOnly, "readonly", false, "make the root read-only")
	f.StringArrayVar(&g.overrides.Mounts, "mount", nil, "add a bind mount: type=bind,source=DIR,target=/PATH[,readonly]")
	f.StringArrayVarP(&g.overrides.Volumes, "volume", "v", nil, "add a bind mount: DIR:/PATH[:ro]")
	f.StringVarP(&g.output, "output", "o", "text", "output format: text or json")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	root.AddCommand(
		newResolveCmd(g), newReadCmd(g), newWriteCmd(g), newEditCmd(g), newRmCmd(g),
		newLsCmd(g), newStatCmd(g), newCheckCmd(g), newVersionCmd(g),
		newRunCmd(g), newCompileCmd(g), newGCCmd(g), newImageCmd(g), newDoctorCmd(g), newAuditCmd(g),
	)
	return root
}

// args wraps a cobra argument rule so that its failure is a usage error.
func args(rule cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := rule(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// config loads the effective configuration from the file and the flags.
func (g *globals) config() (*mountspec.Config, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	return mountspec.FromFlags(wd, g.overrides)
}

// withFS makes a RunE that opens the sandbox's file tools for fn and
// closes them after.
func (g *globals) withFS(fn func(*cobra.Command, []string, *sandbox.FS) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cfg, _, err := g.config()
		if err != nil {
			return err
		}
		fsys, err := sandbox.Open(&cfg.Sandbox)
		if err != nil {
			return err
		}
		defer fsys.Close()
		return fn(cmd, args, fsys)
	}
}

func (g *globals) json() bool { return g.output == "json" }

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
