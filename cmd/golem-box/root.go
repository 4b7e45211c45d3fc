package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/policy"
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
	// worker and parents make the sandbox that of a worker called through
	// a chain (outermost parent first) under the project's ceiling.
	worker  string
	parents []string
	// chain is the delegation chain, once config has walked it.
	chain *policy.Chain
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
	f.StringVar(&g.worker, "worker", "", "act as the worker in this NAME.worker file: its sandbox is the project's intersected with what it declares")
	f.StringArrayVar(&g.parents, "parent", nil, "a worker that calls the next one down to --worker (repeat, outermost first)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	root.AddCommand(
		newResolveCmd(g), newReadCmd(g), newWriteCmd(g), newEditCmd(g), newRmCmd(g),
		newLsCmd(g), newStatCmd(g), newCheckCmd(g), newVersionCmd(g),
		newRunCmd(g), newCompileCmd(g), newGCCmd(g), newImageCmd(g), newDoctorCmd(g), newAuditCmd(g),
		newWorkerCmd(g),
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
// With --worker, its sandbox is the worker's effective one (empty when the
// worker declares none).
func (g *globals) config() (*mountspec.Config, string, error) {
	cfg, file, err := g.project()
	if err != nil || g.worker == "" {
		if err == nil && len(g.parents) > 0 {
			err = usageError{errors.New("--parent needs --worker: the worker the parents call")}
		}
		return cfg, file, err
	}
	chain, err := g.delegate(cfg, file, append(slices.Clone(g.parents), g.worker), mountspec.Restriction{})
	if err != nil {
		return nil, file, err
	}
	if sb := chain.Last().Sandbox; sb != nil {
		cfg.Sandbox = *sb
	} else {
		cfg.Sandbox.Root, cfg.Sandbox.ReadOnly, cfg.Sandbox.Mounts = "", false, nil
	}
	return cfg, file, nil
}

// project loads the project's configuration and the flags: the ceiling.
func (g *globals) project() (*mountspec.Config, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	return mountspec.FromFlags(wd, g.overrides)
}

// delegate loads worker files and walks the chain they make.
func (g *globals) delegate(cfg *mountspec.Config, file string, files []string, call mountspec.Restriction) (*policy.Chain, error) {
	workers := make([]*policy.Worker, len(files))
	for i, f := range files {
		w, err := policy.LoadWorker(f)
		if err != nil {
			return nil, err
		}
		workers[i] = w
	}
	chain, err := policy.Delegate(cfg, file, workers, call)
	g.chain = chain
	return chain, err
}

// who names the actor in approval requests and the log.
func (g *globals) who() string {
	if g.chain != nil && len(g.chain.Levels) > 1 {
		return g.chain.Last().Name
	}
	return "golem-box"
}

// approvals are the flags of commands that change files.
type approvals struct {
	yes     bool
	command string
}

func (a *approvals) flags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&a.yes, "yes", "y", false, "approve every change this command makes (for changes set to ask)")
	cmd.Flags().StringVar(&a.command, "approval-command", "", "shell command that approves a change by exiting 0; it reads the request as JSON on stdin (overrides approval.command)")
}

// gate is the approval gate for the changes of one command: --yes, an
// approval command, a prompt on the terminal, or nobody, in that order.
func (g *globals) gate(ctx context.Context, cfg *mountspec.Config, a *approvals) (*policy.Gate, error) {
	// The log must be out of reach of every worker, not only this one:
	// its place is checked against the project's sandbox.
	project := cfg
	if g.chain != nil {
		p := *cfg
		p.Sandbox = *g.chain.Levels[0].Sandbox
		project = &p
	}
	logPath, err := policy.LogPath(project)
	if err != nil {
		return nil, err
	}
	gate := &policy.Gate{Sandbox: &cfg.Sandbox, Who: g.who(), Log: policy.OpenLog(logPath), Context: ctx}
	switch {
	case a.yes:
		gate.Approver = policy.Yes{}
	case a.command != "":
		gate.Approver = policy.Command{Argv: []string{"/bin/sh", "-c", a.command}}
	case len(cfg.Approval.Command) > 0:
		gate.Approver = policy.Command{Argv: cfg.Approval.Command}
	default:
		if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
			gate.Approver = policy.Prompt{In: tty, Out: tty} // closed when the command exits
		}
	}
	return gate, nil
}

// withFS makes a RunE that opens the sandbox's file tools for fn and
// closes them after. Commands that change files pass their approval flags;
// the changes then go through the approval gate.
func (g *globals) withFS(a *approvals, fn func(*cobra.Command, []string, *sandbox.FS) error) func(*cobra.Command, []string) error {
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
		if a != nil {
			gate, err := g.gate(cmd.Context(), cfg, a)
			if err != nil {
				return err
			}
			fsys.SetGuard(gate)
		}
		return fn(cmd, args, fsys)
	}
}

func (g *globals) json() bool { return g.output == "json" }

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
