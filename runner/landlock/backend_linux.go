package landlock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/cgroup"
	ocirun "github.com/golem-box/golem-box/runner/oci"
	"github.com/golem-box/golem-box/runner/procinit"
	"github.com/golem-box/golem-box/runner/runstate"
	"github.com/golem-box/golem-box/seccomp"
)

// Name is the backend's name.
const Name = "landlock"

// Backend runs jobs under Landlock.
type Backend struct {
	stateDir string
}

// Option configures New.
type Option func(*Backend)

// WithStateDir moves the private state directory (runstate.DefaultDir).
func WithStateDir(dir string) Option { return func(b *Backend) { b.stateDir = dir } }

// New returns the backend; Available checks the kernel.
func New(opts ...Option) *Backend {
	b := &Backend{}
	for _, o := range opts {
		o(b)
	}
	if b.stateDir == "" {
		b.stateDir = runstate.DefaultDir()
	}
	return b
}

// Name is "landlock".
func (b *Backend) Name() string { return Name }

// Available checks that the kernel has Landlock ABI MinABI or later.
func (b *Backend) Available(context.Context) error {
	_, err := abi()
	return err
}

// abi is the kernel's Landlock ABI, or why golem-box cannot use it.
func abi() (int, error) {
	v, err := procinit.ABI()
	if err != nil {
		return 0, runner.Unavailable(Name, err.Error(), "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in lsm=")
	}
	if v < MinABI {
		return 0, runner.Unavailable(Name, fmt.Sprintf("the kernel has Landlock ABI %d; golem-box needs %d (Linux 6.2), which restricts truncate", v, MinABI), "use a newer kernel, or the bwrap backend")
	}
	return v, nil
}

func (b *Backend) bundles() runstate.Bundles {
	return runstate.Bundles{Dir: filepath.Join(b.stateDir, "landlock")}
}

// Run runs the job under Landlock and cleans up.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("%s: --tty is not supported: output is captured", Name)
	}
	abi, err := abi()
	if err != nil {
		return nil, err
	}
	id, err := runstate.NewID()
	if err != nil {
		return nil, err
	}
	dir, err := b.bundles().Create(id)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	// The process, limits and seccomp profile are the containers'.
	cb, err := ocirun.CompileJob(ctx, &runner.Job{Sandbox: job.Sandbox, Args: job.Args, Env: job.Env, Image: compile.ImageHost},
		"", dir, id, compile.Features{RecursiveReadOnly: true, Runtime: Name})
	if err != nil {
		return nil, err
	}
	plan, err := NewPlan(job.Sandbox, job.Image, job.Workdir, cb.Spec.Process.Env, tmp, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	group, err := cgroup.ForRun(id, cb.Spec.Linux.Resources, job.Sandbox.Limits.Asked())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if group != nil {
		defer group.Remove()
	}
	filter, err := Filter(cb, !job.Sandbox.Network.Enabled, abi)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	spec := &procinit.Spec{Path: job.Args[0], Args: job.Args, Env: plan.Env, Dir: plan.Dir,
		DropCaps: true, NoNewPrivs: true, Landlock: plan.Landlock, Seccomp: filter, NoFile: compile.DefaultNoFile}
	if group != nil {
		spec.Cgroups = group.Procs()
	}
	h, err := procinit.Command(spec)
	if err != nil {
		return nil, err
	}
	out := runner.Attach(h.Cmd, job)
	start := time.Now()
	if err := h.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	ended := make(chan struct{})
	var waitErr error
	go func() { waitErr = h.Cmd.Wait(); close(ended) }()
	reason := runner.Supervise(ctx, job, ended, func() {
		_ = syscall.Kill(-h.Cmd.Process.Pid, syscall.SIGKILL)
		if group != nil {
			group.Kill()
		}
	})
	res := out.Result(Name, time.Since(start))
	code, err := runner.ExitStatus(waitErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	res.SetExit(code, reason, func() bool { return group != nil && group.OOMKills() > 0 })
	return res, nil
}

// Filter is the containers' seccomp filter for a process that shares the
// host's network namespace: with the network off, no inet or packet
// sockets; before Landlock ABI 9, no UNIX sockets of its own either.
func Filter(cb *compile.Bundle, networkOff bool, abi int) ([]byte, error) {
	pre := seccomp.DenyTerminalInjection()
	if networkOff {
		pre = append(pre, seccomp.DenySockets(seccomp.AFInet, seccomp.AFInet6, seccomp.AFPacket)...)
	}
	if abi < ResolveUnixABI {
		pre = append(pre, seccomp.DenySockets(seccomp.AFUnix)...)
	}
	return seccomp.Program(cb.Spec.Linux.Seccomp, pre...)
}

// GC removes the state and control groups of runs whose golem-box is gone.
func (b *Backend) GC(context.Context) ([]string, error) { return cgroup.GC(b.bundles()) }

// Diagnose is Available with the kernel's ABI and what it cannot do.
func (b *Backend) Diagnose(ctx context.Context) runner.Diagnosis {
	d := runner.FromAvailable(Name, b.Available(ctx))
	if !d.Usable {
		return d
	}
	v, _ := abi()
	d.Version = fmt.Sprintf("ABI %d", v)
	return d
}
