package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/golem-box/golem-box/images"
	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/runstate"
)

// Backend runs jobs on an OCI runtime binary.
type Backend struct {
	name         string
	path         string // the runtime binary
	stateDir     string // bundles live in stateDir/bundles
	runtimeState string // the runtime's --root
	imageDir     string // the image cache
	hybrid       bool   // crun on a hybrid cgroup host: start it from a private mount namespace

	once     sync.Once
	features compile.Features
}

// Option configures New.
type Option func(*Backend)

// WithRuntime chooses the runtime binary (a name on PATH or a path).
func WithRuntime(path string) Option { return func(b *Backend) { b.path = path } }

// WithImageDir moves the image cache (default images.DefaultDir()).
func WithImageDir(dir string) Option { return func(b *Backend) { b.imageDir = dir } }

// WithStateDir moves the private state directory (default: /run/golem-box
// for root, else $XDG_RUNTIME_DIR/golem-box, else the temp directory).
func WithStateDir(dir string) Option { return func(b *Backend) { b.stateDir = dir } }

// New returns a backend for crun when present, else runc, unless
// WithRuntime says otherwise. It does not check that the runtime works;
// Available does.
func New(opts ...Option) *Backend {
	b := &Backend{}
	for _, o := range opts {
		o(b)
	}
	if b.path == "" {
		b.path = "runc"
		if _, err := exec.LookPath("crun"); err == nil {
			b.path = "crun"
		}
	}
	if p, err := exec.LookPath(b.path); err == nil {
		b.path = p // resolved once, not on every exec
	}
	if b.stateDir == "" {
		b.stateDir = DefaultStateDir()
	}
	if b.imageDir == "" {
		b.imageDir = images.DefaultDir()
	}
	base := filepath.Base(b.path)
	b.name = "oci/" + base
	b.runtimeState = filepath.Join(b.stateDir, "runtime", base)
	b.hybrid = base == "crun" && HybridCgroups()
	return b
}

// DefaultStateDir is where bundles live unless WithStateDir says otherwise
// (runstate.DefaultDir).
func DefaultStateDir() string { return runstate.DefaultDir() }

// Name is "oci/" and the runtime's base name.
func (b *Backend) Name() string { return b.name }

// Available checks that the runtime binary exists and answers.
func (b *Backend) Available(ctx context.Context) error {
	p, err := exec.LookPath(b.path)
	if err != nil {
		return runner.Unavailable(b.name, b.path+" not found", "install it: sudo apt-get install "+filepath.Base(b.path)+" (or sudo scripts/setup)")
	}
	if out, err := exec.CommandContext(ctx, p, "--version").CombinedOutput(); err != nil {
		return runner.Unavailable(b.name, fmt.Sprintf("%s --version failed: %v: %s", p, err, bytes.TrimSpace(out)), "reinstall it: sudo apt-get install --reinstall "+filepath.Base(b.path))
	}
	return nil
}

// Features asks the runtime once per binary what it supports: the answer is cached
// in the state directory under the binary's path, size and mtime, since
// asking costs an exec on every run.
func (b *Backend) Features() compile.Features {
	b.once.Do(func() {
		b.features = compile.Features{Runtime: filepath.Base(b.path)}
		key := b.path
		if fi, err := os.Stat(b.path); err == nil {
			key = fmt.Sprintf("%s %d %d", b.path, fi.Size(), fi.ModTime().UnixNano())
		}
		cache := filepath.Join(b.stateDir, "features", strings.ReplaceAll(strings.TrimPrefix(b.path, "/"), "/", "_"))
		if data, err := os.ReadFile(cache); err == nil {
			if k, v, ok := strings.Cut(string(data), "\n"); ok && k == key {
				b.features.RecursiveReadOnly = v == "rro"
				return
			}
		}
		b.features.RecursiveReadOnly = features(b.path)
		v := "-"
		if b.features.RecursiveReadOnly {
			v = "rro"
		}
		if os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
			_ = os.WriteFile(cache, []byte(key+"\n"+v), 0o600)
		}
	})
	return b.features
}

// Run compiles the job, runs it in the foreground and cleans up.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("%s: --tty is not supported yet: output is captured", b.name)
	}
	if err := os.MkdirAll(b.runtimeState, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	id, bundle, _, err := NewBundle(ctx, b.bundles(), job, b.Compile)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bundle)
	defer b.delete(id)
	return b.run(ctx, job, id, bundle)
}

// Compile is the bundle a run of job would use, in bundle under the given
// container id: what `golem-box compile` prints.
func (b *Backend) Compile(ctx context.Context, job *runner.Job, bundle, id string) (*compile.Bundle, error) {
	return CompileJob(ctx, job, b.imageDir, bundle, id, b.Features())
}

// Compiler compiles a job into the bundle directory dir of container id.
type Compiler func(ctx context.Context, job *runner.Job, dir, id string) (*compile.Bundle, error)

// NewBundle gives a run its id, compiles the job and writes its bundle
// under bundles, the owner file first so that GC can always tell whose it
// is. The caller removes the directory when the run ends.
func NewBundle(ctx context.Context, bundles runstate.Bundles, job *runner.Job, c Compiler) (id, dir string, cb *compile.Bundle, err error) {
	if id, err = runstate.NewID(); err != nil {
		return "", "", nil, err
	}
	if cb, err = c(ctx, job, filepath.Join(bundles.Dir, id), id); err != nil {
		return "", "", nil, err
	}
	if dir, err = bundles.Create(id); err != nil {
		return "", "", nil, err
	}
	if err = cb.Write(dir); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	return id, dir, cb, nil
}

// CompileJob compiles a job for any backend that runs OCI specs (this one,
// containerd, the Docker Engine): the invoking user's ids, and the job's
// image resolved in the image cache at imageDir.
func CompileJob(ctx context.Context, job *runner.Job, imageDir, bundle, id string, f compile.Features) (*compile.Bundle, error) {
	o := compile.Options{
		Args: job.Args, Env: job.Env, Workdir: job.Workdir, Image: job.Image,
		UID: uint32(os.Getuid()), GID: uint32(os.Getgid()), Terminal: job.Terminal,
		BundleDir: bundle, ID: id, Features: f,
	}
	image := job.Image
	if image == "" {
		image = job.Sandbox.Image
	}
	if image != "" && image != compile.ImageHost && image != compile.ImageNone {
		if imageDir == "" {
			imageDir = images.DefaultDir()
		}
		img, err := (&images.Cache{Dir: imageDir}).Get(image)
		if err != nil {
			return nil, err
		}
		o.Image, o.ImageRootfs = image, img.Rootfs
	}
	return compile.Compile(ctx, job.Sandbox, o)
}

func (b *Backend) run(ctx context.Context, job *runner.Job, id, bundle string) (*runner.Result, error) {
	logFile := filepath.Join(bundle, "runtime.log")
	cmd := b.command(append(b.logArgs(logFile), "run", "--bundle", bundle, id)...)
	out := runner.Attach(cmd, job)
	// The runtime must not die with our terminal's ^C before it is told to
	// kill the container: give it its own process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	oomBefore := runstate.OOMKills()
	start := time.Now()
	if err := b.start(cmd); err != nil {
		return nil, fmt.Errorf("%s: start: %w", b.name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var deadline <-chan time.Time
	if t := job.TimeoutOrDefault(); t > 0 {
		timer := time.NewTimer(t)
		defer timer.Stop()
		deadline = timer.C
	}
	reason := runner.Reason("")
	var waitErr error
	select {
	case waitErr = <-done:
	case <-deadline:
		reason = runner.ReasonTimeout
		waitErr = b.killAndWait(id, cmd, done)
	case <-ctx.Done():
		reason = runner.ReasonKilled
		waitErr = b.killAndWait(id, cmd, done)
	}
	res := out.Result(b.name, time.Since(start))
	code, err := runner.ExitStatus(waitErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.name, err)
	}
	res.SetExit(code, reason, func() bool { return runstate.OOMKilled(id, oomBefore) })
	if msg := runtimeError(logFile); code != 0 && msg != "" {
		return res, fmt.Errorf("%s could not run the container: %s", b.name, msg)
	}
	return res, nil
}

// logArgs send the runtime's own messages to a JSON log file: crun takes
// a destination ("file:PATH"), runc and the runtimes that follow it a path.
func (b *Backend) logArgs(file string) []string {
	if filepath.Base(b.path) == "crun" {
		return []string{"--log=file:" + file, "--log-format=json"}
	}
	return []string{"--log=" + file, "--log-format=json"}
}

// runtimeError reads the runtime's own error entries from its JSON log.
// The runtime also prints them on stderr, but stderr is the command's too:
// a command that prints "level=error" and fails is not a runtime failure.
func runtimeError(logFile string) string {
	data, err := os.ReadFile(logFile)
	if err != nil {
		return ""
	}
	var msgs []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && (e.Level == "error" || e.Level == "fatal") && e.Msg != "" {
			msgs = append(msgs, e.Msg)
		}
	}
	return strings.Join(msgs, "; ")
}

// StartRuntime starts a command of this backend's runtime the way the
// backend itself does (on hybrid hosts, crun from a private mount
// namespace). make bench uses it for the raw-runtime baseline.
func (b *Backend) StartRuntime(cmd *exec.Cmd) error { return b.start(cmd) }

// exec runs a short runtime command (kill, delete) to its end.
func (b *Backend) exec(args ...string) error {
	cmd := b.command(args...)
	if err := b.start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// killAndWait kills the container and waits for the runtime to report.
// A cancel can come while the runtime is still creating the container,
// when `kill` has nothing to kill yet: it is retried until the runtime
// returns or 5 s pass; then the runtime itself is killed, and the deferred
// `delete --force` removes whatever it had started.
func (b *Backend) killAndWait(id string, cmd *exec.Cmd, done chan error) error {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		_ = b.exec("kill", id, "KILL")
		select {
		case err := <-done:
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	b.delete(id) // the container's processes hold the pipes that Wait drains
	return <-done
}

// delete removes the container from the runtime, whatever its state. A
// foreground run that ended has already been deleted by the runtime: its
// state directory is gone, and there is nothing to run.
func (b *Backend) delete(id string) {
	if _, err := os.Stat(filepath.Join(b.runtimeState, id)); errors.Is(err, os.ErrNotExist) {
		return
	}
	_ = b.exec("delete", "--force", id)
}

// GC removes the bundles, containers and state that killed runs left
// behind, and returns the ids it removed. Runs whose owner is alive stay.
// Containers the runtime still knows without a bundle are removed too.
func (b *Backend) GC(ctx context.Context) ([]string, error) {
	bundles := b.bundles()
	removed, err := bundles.Leftovers()
	if err != nil {
		return nil, err
	}
	for _, id := range removed {
		b.delete(id)
		if err := bundles.Remove(id); err != nil {
			return removed, err
		}
	}
	if states, err := os.ReadDir(b.runtimeState); err == nil {
		for _, st := range states {
			id := st.Name()
			if !strings.HasPrefix(id, runstate.Prefix) || bundles.Exists(id) {
				continue
			}
			b.delete(id)
			if !slices.Contains(removed, id) {
				removed = append(removed, id)
			}
		}
	}
	return removed, nil
}

// bundles is where this backend's bundles live.
func (b *Backend) bundles() runstate.Bundles {
	return runstate.Bundles{Dir: filepath.Join(b.stateDir, "bundles")}
}

// features asks the runtime what it supports; runtimes without a features
// command (crun 1.8) support nothing we can rely on.
func features(path string) (rro bool) {
	out, err := exec.Command(path, "features").Output()
	if err != nil {
		return false
	}
	var f struct {
		MountOptions []string `json:"mountOptions"`
	}
	if json.Unmarshal(out, &f) != nil {
		return false
	}
	return slices.Contains(f.MountOptions, "rro")
}
