package main

import (
	"context"
	"fmt"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/policy"
	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/trust"
	"github.com/spf13/cobra"
)

// runFlags are the flags of run and compile: the job and limit overrides.
type runFlags struct {
	backend, runtime, image, workdir string
	env                              []string
	timeout                          time.Duration
	memory                           string
	pids                             int64
	cpus                             float64
	tty, trusted, untrusted          bool
}

func (f *runFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.backend, "backend", "", "backend: auto, oci, runc, crun, docker, containerd (default: sandbox.backend, else auto)")
	fl.StringVar(&f.runtime, "runtime", "", "OCI runtime binary for the oci backend (default: crun if installed, else runc)")
	fl.StringVar(&f.image, "image", "", `operating system: "host" (default), "none" (the root is the whole filesystem), or a cached image (golem-box image ls)`)
	fl.StringVarP(&f.workdir, "workdir", "w", "", "working directory inside the sandbox (default /)")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "add KEY=VALUE to the environment")
	fl.DurationVar(&f.timeout, "timeout", 0, "kill the command after this long (default: limits.timeout)")
	fl.StringVar(&f.memory, "memory", "", "memory limit such as 512m (default: limits.memory, else 1g)")
	fl.Int64Var(&f.pids, "pids", 0, "process limit (default: limits.pids, else 512)")
	fl.Float64Var(&f.cpus, "cpus", 0, "CPU limit such as 1.5 (default: limits.cpus, else none)")
	fl.BoolVarP(&f.tty, "tty", "t", false, "allocate a terminal")
	fl.BoolVar(&f.untrusted, "untrusted", false, "the command handles content from outside: run it in a container")
	fl.BoolVar(&f.trusted, "trusted", false, "vouch for everything the command can reach, overriding provenance marks and trust: untrusted")
	cmd.Flags().SetInterspersed(false) // everything after the command is its own
}

// job builds the job from the configuration and the flags, and routes it:
// what the command can reach decides whether it needs a container.
func (f *runFlags) job(g *globals, cmd *cobra.Command, args []string) (*runner.Job, runner.Backend, *trust.Decision, error) {
	if len(args) == 0 {
		return nil, nil, nil, usageError{fmt.Errorf("give the command to run after --")}
	}
	cfg, _, err := g.config()
	if err != nil {
		return nil, nil, nil, err
	}
	sb := cfg.Sandbox
	if f.memory != "" {
		m, err := mountspec.ParseByteSize(f.memory)
		if err != nil {
			return nil, nil, nil, usageError{fmt.Errorf("--memory: %w", err)}
		}
		sb.Limits.Memory = m
	}
	if f.pids > 0 {
		sb.Limits.PIDs = f.pids
	}
	if f.cpus > 0 {
		sb.Limits.CPUs = f.cpus
	}
	name := f.backend
	if name == "" {
		name = string(sb.Backend)
	}
	if f.runtime != "" && (name == "" || name == "auto") {
		name = "oci" // a runtime binary means the OCI backend
	}
	settings := runner.Settings{Runtime: f.runtime}
	v, err := trust.Classify(cmd.Context(), &sb, trust.Options{Trusted: f.trusted, Untrusted: f.untrusted})
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	d, err := trust.Route(cmd.Context(), v, name, sb.RequireOSSandbox, func(ctx context.Context, n string) error {
		b, err := runner.New(n, settings)
		if err != nil {
			return err
		}
		return b.Available(ctx)
	})
	job := &runner.Job{Sandbox: &sb, Args: args, Env: f.env, Workdir: f.workdir, Image: f.image,
		Stdin: cmd.InOrStdin(), Timeout: f.timeout, Terminal: f.tty}
	if err != nil {
		return job, nil, d, err
	}
	b, err := runner.New(d.Backend, settings)
	if err != nil {
		return nil, nil, d, err
	}
	return job, b, d, nil
}

// exitError carries the command's exit status out of golem-box run.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRunCmd(g *globals) *cobra.Command {
	var f runFlags
	var explain bool
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run a command in the sandbox (a network-less, read-only container by default)",
		Long: `Run a command in the sandbox. Its output is captured (up to limits.output_bytes
each) and printed when it ends; golem-box exits with the command's status.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			job, b, d, err := f.job(g, cmd, args)
			if explain && d != nil {
				if perr := printExplain(cmd, g, d, b); perr != nil {
					return perr
				}
				return err // the decision failed: the explanation says why, the error too
			}
			if err != nil {
				return err
			}
			res, err := b.Run(cmd.Context(), job)
			if err != nil {
				return err
			}
			var hints []string
			if res.ExitCode != 0 {
				hints = policy.Hints(res.Stderr, job.Sandbox)
			}
			if g.json() {
				if err := printJSON(cmd.OutOrStdout(), struct {
					*runner.Result
					Hints []string `json:"hints,omitempty"`
				}{res, hints}); err != nil {
					return err
				}
			} else {
				cmd.OutOrStdout().Write(res.Stdout)
				cmd.ErrOrStderr().Write(res.Stderr)
				for _, tr := range []struct {
					on   bool
					name string
				}{{res.StdoutTruncated, "stdout"}, {res.StderrTruncated, "stderr"}} {
					if tr.on {
						fmt.Fprintf(cmd.ErrOrStderr(), "golem-box: %s truncated at %d bytes (limits.output_bytes)\n", tr.name, job.OutputLimit())
					}
				}
				if res.Reason != runner.ReasonExit {
					fmt.Fprintf(cmd.ErrOrStderr(), "golem-box: ended by %s after %s (exit %d)\n", res.Reason, res.Duration.Round(time.Millisecond), res.ExitCode)
				}
				for _, h := range hints {
					fmt.Fprintf(cmd.ErrOrStderr(), "golem-box: note: %s\n", h)
				}
			}
			if res.ExitCode != 0 {
				return exitError{res.ExitCode}
			}
			return nil
		},
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&explain, "explain", false, "print where the command would run and every reason why, and do not run it")
	return cmd
}
