package seatbelt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
)

const sandboxExec = "/usr/bin/sandbox-exec"

// Backend runs jobs under sandbox-exec.
type Backend struct{}

// New returns the backend.
func New() *Backend { return &Backend{} }

// Name is "seatbelt".
func (b *Backend) Name() string { return Name }

// Available checks that sandbox-exec is there.
func (b *Backend) Available(context.Context) error {
	if _, err := os.Stat(sandboxExec); err != nil {
		return runner.Unavailable(Name, sandboxExec+" not found", "it ships with macOS; check the system installation")
	}
	return nil
}

// Run writes the profile and runs the job under sandbox-exec.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("%s: --tty is not supported: output is captured", Name)
	}
	if job.Sandbox.Limits.Asked() {
		return nil, fmt.Errorf("%s: limits: %w: macOS has no control groups; use a container backend", Name, ErrUnsupported)
	}
	dir, err := os.MkdirTemp("", "golem-box-seatbelt-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	canon := func(p string) string {
		if c, err := filepath.EvalSymlinks(p); err == nil {
			return c
		}
		return p
	}
	profile, err := Profile(job.Sandbox, tmp, canon)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	pf := filepath.Join(dir, "profile.sb")
	if err := os.WriteFile(pf, []byte(profile), 0o600); err != nil {
		return nil, err
	}
	wd := job.Sandbox.Root
	if job.Workdir != "" {
		r, err := job.Sandbox.Resolve(job.Workdir)
		if err != nil {
			return nil, fmt.Errorf("workdir %q: %w", job.Workdir, err)
		}
		wd = r.Host
	}
	cmd := exec.Command(sandboxExec, append([]string{"-f", pf, "--"}, job.Args...)...)
	cmd.Dir = wd
	cmd.Env = append([]string{"PATH=" + oci.DefaultPath, "HOME=" + tmp, "TMPDIR=" + tmp}, job.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := runner.Attach(cmd, job)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	ended := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(ended) }()
	reason := runner.Supervise(ctx, job, ended, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	res := out.Result(Name, time.Since(start))
	code, err := runner.ExitStatus(waitErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	res.SetExit(code, reason, nil)
	return res, nil
}
