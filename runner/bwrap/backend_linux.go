package bwrap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/golem-box/golem-box/images"
	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/cgroup"
	ocirun "github.com/golem-box/golem-box/runner/oci"
	"github.com/golem-box/golem-box/runner/procinit"
	"github.com/golem-box/golem-box/runner/runstate"
	"github.com/golem-box/golem-box/seccomp"
	"golang.org/x/sys/unix"
)

// Name is the backend's name.
const Name = "bwrap"

// Backend runs jobs under bubblewrap.
type Backend struct {
	path     string
	stateDir string
	imageDir string
}

// Option configures New.
type Option func(*Backend)

// WithBinary chooses the bwrap binary (a name on PATH or a path).
func WithBinary(path string) Option { return func(b *Backend) { b.path = path } }

// WithStateDir moves the private state directory (runstate.DefaultDir).
func WithStateDir(dir string) Option { return func(b *Backend) { b.stateDir = dir } }

// New returns the backend; Available checks that bwrap works.
func New(opts ...Option) *Backend {
	b := &Backend{path: "bwrap"}
	for _, o := range opts {
		o(b)
	}
	if p, err := exec.LookPath(b.path); err == nil {
		b.path = p
	}
	if b.stateDir == "" {
		b.stateDir = runstate.DefaultDir()
	}
	if b.imageDir == "" {
		b.imageDir = images.DefaultDir()
	}
	return b
}

// Name is "bwrap".
func (b *Backend) Name() string { return Name }

// Available checks that bwrap exists and that this host lets it make user
// namespaces, without running it: it is asked on every run. Diagnose
// (doctor) runs it.
func (b *Backend) Available(ctx context.Context) error {
	if _, err := exec.LookPath(b.path); err != nil {
		return runner.Unavailable(Name, b.path+" not found", "install it: sudo apt-get install bubblewrap (or sudo scripts/setup)")
	}
	for file, zero := range map[string]string{
		"/proc/sys/user/max_user_namespaces":         "sudo sysctl -w user.max_user_namespaces=15000",
		"/proc/sys/kernel/unprivileged_userns_clone": "sudo sysctl -w kernel.unprivileged_userns_clone=1",
	} {
		if data, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(data)) == "0" && (os.Getuid() != 0 || strings.Contains(file, "max_user")) {
			return runner.Unavailable(Name, file+" is 0: bwrap cannot create a user namespace", zero)
		}
	}
	return nil
}

// works runs bwrap once, for doctor.
func (b *Backend) works(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, b.path, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "true").CombinedOutput()
	if err != nil {
		return runner.Unavailable(Name, fmt.Sprintf("bwrap cannot create namespaces here: %v: %s", err, bytes.TrimSpace(out)),
			"allow unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1 (and user.max_user_namespaces > 0)")
	}
	return nil
}

// Version is bwrap's version line.
func (b *Backend) Version(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, b.path, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (b *Backend) bundles() runstate.Bundles {
	return runstate.Bundles{Dir: filepath.Join(b.stateDir, "bwrap")}
}

// Compile is the bundle a run of job would use: bwrap's read-only binds
// are recursive, as rro is.
func (b *Backend) Compile(ctx context.Context, job *runner.Job, bundle, id string) (*compile.Bundle, error) {
	return ocirun.CompileJob(ctx, job, b.imageDir, bundle, id, compile.Features{RecursiveReadOnly: true, Runtime: "bwrap"})
}

// Run runs the job under bwrap and cleans up.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("%s: --tty is not supported: output is captured", Name)
	}
	id, dir, cb, err := ocirun.NewBundle(ctx, b.bundles(), job, b.Compile)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	group, err := cgroup.ForRun(id, cb.Spec.Linux.Resources, job.Sandbox.Limits.Asked())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if group != nil {
		defer group.Remove()
	}
	filter, err := filterFile(cb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	defer filter.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	args, err := Args(cb, FDs{Seccomp: procinit.FirstExtraFD, Status: procinit.FirstExtraFD + 1}, HostKind)
	if err != nil {
		statusW.Close()
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	spec := &procinit.Spec{Path: b.path, Args: append([]string{"bwrap"}, args...), NoNewPrivs: true}
	spec.NoFile, spec.Cgroups = rlimitNoFile(cb), procs(group)
	h, err := procinit.Command(spec, filter, statusW)
	if err != nil {
		statusW.Close()
		return nil, err
	}
	out := runner.Attach(h.Cmd, job)
	start := time.Now()
	err = h.Start()
	statusW.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	status := make(chan int, 1)
	go func() { status <- exitCode(statusR) }()
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
	code := <-status
	if code < 0 && reason == "" {
		return nil, fmt.Errorf("%s could not run the command: %s", Name, bwrapError(out.Stderr.Bytes(), waitErr))
	}
	if code < 0 {
		code = 128 + int(syscall.SIGKILL)
	}
	res.SetExit(code, reason, func() bool { return group != nil && group.OOMKills() > 0 })
	return res, nil
}

func procs(g *cgroup.Group) []string {
	if g == nil {
		return nil
	}
	return g.Procs()
}

func rlimitNoFile(cb *compile.Bundle) uint64 {
	for _, r := range cb.Spec.Process.Rlimits {
		if r.Type == "RLIMIT_NOFILE" {
			return r.Hard
		}
	}
	return 0
}

// filterFile is the seccomp program in a sealed memory file at offset 0.
func filterFile(cb *compile.Bundle) (*os.File, error) {
	data, err := seccomp.Program(cb.Spec.Linux.Seccomp, seccomp.DenyTerminalInjection()...)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("golem-box-seccomp", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("seccomp: memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "seccomp")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	_, _ = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// exitCode reads bwrap's JSON status until it closes: the command's exit
// code, or -1 when bwrap never ran it.
func exitCode(r *os.File) int {
	code := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		var st struct {
			ExitCode *int `json:"exit-code"`
		}
		if json.Unmarshal(sc.Bytes(), &st) == nil && st.ExitCode != nil {
			code = *st.ExitCode
		}
	}
	return code
}

// bwrapError is bwrap's own message: its last "bwrap: " line on stderr.
func bwrapError(stderr []byte, waitErr error) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m, ok := strings.CutPrefix(lines[i], "bwrap: "); ok {
			return m
		}
	}
	if waitErr != nil {
		return waitErr.Error()
	}
	return "it exited without running the command"
}

// GC removes the bundles and control groups of runs whose golem-box is gone.
func (b *Backend) GC(context.Context) ([]string, error) { return cgroup.GC(b.bundles()) }

// Diagnose is Available with bwrap's version and what it cannot do.
func (b *Backend) Diagnose(ctx context.Context) runner.Diagnosis {
	err := b.Available(ctx)
	if err == nil {
		err = b.works(ctx)
	}
	d := runner.FromAvailable(Name, err)
	if !d.Usable {
		return d
	}
	d.Version = strings.TrimPrefix(b.Version(ctx), "bubblewrap ")
	d.Notes = append(d.Notes, limitsNote())
	return d
}

// limitsNote says whether memory, process and CPU limits hold here.
func limitsNote() runner.Note {
	if err := cgroup.Writable(); err != nil {
		return runner.Note{Level: "warning", Msg: "limits: " + err.Error() + "; limits the configuration sets are refused, the defaults are not enforced"}
	}
	return runner.Note{Level: "info", Msg: "limits: enforced in a control group of golem-box's own"}
}
