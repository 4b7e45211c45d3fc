package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/errdefs"
	"github.com/containerd/errdefs/pkg/errgrpc"

	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	ocirunner "github.com/golem-box/golem-box/runner/oci"
	"github.com/golem-box/golem-box/runner/runstate"
)

// Defaults.
const (
	DefaultAddress   = "/run/containerd/containerd.sock"
	Namespace        = "golem-box"
	RuntimeName      = "io.containerd.runc.v2"
	LabelRun         = "io.golem-box.run"
	LabelOwner       = "io.golem-box.owner"
	apiTimeout       = 30 * time.Second
	leaseExpiration  = 24 * time.Hour
	connectTimeout   = 5 * time.Second
	outputDrainLimit = 2 * time.Second
)

// Backend runs jobs on containerd.
type Backend struct {
	address  string
	stateDir string
	imageDir string

	mu      sync.Mutex
	cli     *client.Client
	version string
}

// Option configures New.
type Option func(*Backend)

// WithAddress talks to containerd at this socket (default
// $CONTAINERD_ADDRESS, else /run/containerd/containerd.sock).
func WithAddress(addr string) Option { return func(b *Backend) { b.address = addr } }

// WithStateDir moves the private state directory (default runstate.DefaultDir()).
func WithStateDir(dir string) Option { return func(b *Backend) { b.stateDir = dir } }

// WithImageDir moves the image cache (default images.DefaultDir()).
func WithImageDir(dir string) Option { return func(b *Backend) { b.imageDir = dir } }

// New returns a backend; it does not connect until used.
func New(opts ...Option) *Backend {
	b := &Backend{}
	for _, o := range opts {
		o(b)
	}
	if b.address == "" {
		b.address = os.Getenv("CONTAINERD_ADDRESS")
	}
	if b.address == "" {
		b.address = DefaultAddress
	}
	if b.stateDir == "" {
		b.stateDir = runstate.DefaultDir()
	}
	return b
}

// Name is "containerd".
func (b *Backend) Name() string { return "containerd" }

// client connects and asks the daemon its version, which proves it
// answers. A connection that worked is kept; a failure is tried again on
// the next call, so that a daemon started later is found.
func (b *Backend) client(ctx context.Context) (*client.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cli != nil {
		return b.cli, nil
	}
	if _, err := os.Stat(b.address); err != nil {
		return nil, b.unreachable(err)
	}
	cli, err := client.New(b.address, client.WithDefaultNamespace(Namespace), client.WithTimeout(connectTimeout))
	if err != nil {
		return nil, b.unreachable(err)
	}
	vctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	v, err := cli.Version(vctx)
	if err != nil {
		cli.Close()
		return nil, b.unreachable(err)
	}
	b.cli, b.version = cli, v.Version
	return cli, nil
}

func (b *Backend) unreachable(err error) error {
	fix := "start it: sudo scripts/setup (or systemctl start containerd)"
	switch {
	case errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EACCES):
		fix = "no permission on its socket: containerd is for root"
	case errors.Is(err, context.DeadlineExceeded):
		fix = "it did not answer within 5 s; see its log (/var/log/golem-box/containerd.log when scripts/setup started it)"
	}
	return runner.Unavailable(b.Name(), fmt.Sprintf("containerd at %s is not reachable (%v)", b.address, err), fix)
}

// Available checks that containerd answers.
func (b *Backend) Available(ctx context.Context) error {
	_, err := b.client(ctx)
	return err
}

// Version is the daemon's version ("" before the first contact).
func (b *Backend) Version() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.version
}

func (b *Backend) bundles() runstate.Bundles {
	return runstate.Bundles{Dir: filepath.Join(b.stateDir, "containerd")}
}

// Compile is the bundle a run would use; its spec is what containerd gets,
// with the root filesystem at the bundle's absolute path.
func (b *Backend) Compile(ctx context.Context, job *runner.Job, bundle, id string) (*compile.Bundle, error) {
	// containerd's runc shim runs the runc on PATH; rro needs runc >= 1.1,
	// which the features of that runc tell.
	f := ocirunner.New(ocirunner.WithRuntime("runc"), ocirunner.WithStateDir(b.stateDir)).Features()
	cb, err := ocirunner.CompileJob(ctx, job, b.imageDir, bundle, id, f)
	if err != nil {
		return nil, err
	}
	cb.Spec.Root.Path = filepath.Join(bundle, "rootfs")
	return cb, nil
}

// Run compiles the job, runs it as a containerd task and deletes the task,
// the container and the lease.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("containerd: --tty is not supported yet: output is captured")
	}
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	id, bundle, cb, err := ocirunner.NewBundle(ctx, b.bundles(), job, b.Compile)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bundle)
	labels := map[string]string{LabelRun: id, LabelOwner: runstate.OwnerStamp()}
	// Whatever happens from here, even a cancel while containerd is still
	// creating something, the task, the container and the lease of this id
	// go: cleanup works by id, not by what the calls returned.
	defer b.cleanup(cli, id)
	callCtx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	lctx, _, err := cli.WithLease(callCtx, leases.WithID(id), leases.WithExpiration(leaseExpiration), leases.WithLabels(labels))
	if err != nil {
		return nil, b.daemonError("create the lease", err)
	}
	ctr, err := cli.NewContainer(lctx, id, client.WithSpec(cb.Spec), client.WithRuntime(RuntimeName, nil), client.WithContainerLabels(labels))
	if err != nil {
		return nil, b.daemonError("create the container", err)
	}
	return b.run(ctx, lctx, ctr, job, id)
}

func (b *Backend) run(ctx, callCtx context.Context, ctr client.Container, job *runner.Job, id string) (*runner.Result, error) {
	out := runner.NewOutput(job)
	var stdin io.Reader = job.Stdin
	if stdin == nil {
		stdin = emptyReader{}
	}
	task, err := ctr.NewTask(callCtx, cio.NewCreator(cio.WithStreams(stdin, out.Stdout, out.Stderr)))
	if err != nil {
		return nil, b.daemonError("containerd could not run the container", err)
	}
	// Deleting the task closes its FIFOs; the cleanup by id that follows
	// finds nothing left of it.
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		_, _ = task.Delete(c, client.WithProcessKill)
	}()
	// The wait has no deadline of its own: the job's timeout kills the task.
	waitCtx, stopWait := context.WithCancel(context.Background())
	defer stopWait()
	statusC, err := task.Wait(waitCtx)
	if err != nil {
		return nil, b.daemonError("wait for the task", err)
	}
	oomBefore := runstate.OOMKills()
	start := time.Now()
	if err := task.Start(callCtx); err != nil {
		return nil, b.daemonError("containerd could not start the command", err)
	}
	ended := make(chan struct{})
	var status client.ExitStatus
	go func() {
		defer close(ended)
		status = <-statusC
	}()
	reason := runner.Supervise(ctx, job, ended, func() { b.kill(task) })
	code, _, err := status.Result()
	if err != nil {
		return nil, b.daemonError("lost containerd while the command ran", err)
	}
	dur := time.Since(start)
	// The FIFOs drain after the exit; processes the command left holding
	// them do not keep golem-box waiting.
	drained := make(chan struct{})
	go func() { task.IO().Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(outputDrainLimit):
	}
	res := out.Result(b.Name(), dur)
	// The task's cgroup lives until the task is deleted: its OOM counter
	// is read first.
	res.SetExit(int(code), reason, func() bool { return runstate.OOMKilled(id, oomBefore) })
	return res, nil
}

// cleanup removes the task, the container and the lease of id, whichever
// exist, with its own deadline whatever the run's context says.
func (b *Backend) cleanup(cli *client.Client, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	var errs []error
	if c, err := cli.LoadContainer(ctx, id); err == nil {
		if task, err := c.Task(ctx, nil); err == nil {
			_ = task.Kill(ctx, syscall.SIGKILL, client.WithKillAll)
			if _, err := task.Delete(ctx, client.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
				errs = append(errs, b.daemonError("delete task "+id, err))
			}
		}
		if err := c.Delete(ctx); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, b.daemonError("delete container "+id, err))
		}
	} else if !errdefs.IsNotFound(err) {
		errs = append(errs, b.daemonError("load container "+id, err))
	}
	if err := cli.LeasesService().Delete(ctx, leases.Lease{ID: id}); err != nil && !errdefs.IsNotFound(err) {
		errs = append(errs, b.daemonError("delete lease "+id, err))
	}
	return errors.Join(errs...)
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

func (b *Backend) kill(task client.Task) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	_ = task.Kill(ctx, syscall.SIGKILL, client.WithKillAll)
}

// daemonError says plainly when the failure is containerd being gone.
func (b *Backend) daemonError(what string, err error) error {
	if errdefs.IsUnavailable(err) || errdefs.IsUnavailable(errgrpc.ToNative(err)) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, b.unreachable(err))
	}
	return fmt.Errorf("containerd: %s: %w", what, err)
}

// GC removes the tasks, containers, leases and bundles of runs whose
// golem-box process is gone, and returns their ids.
func (b *Backend) GC(ctx context.Context) ([]string, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	ctrs, err := cli.Containers(ctx, `labels."`+LabelOwner+`"`)
	if err != nil {
		return nil, b.daemonError("list containers", err)
	}
	var removed []string
	for _, c := range ctrs {
		labels, err := c.Labels(ctx)
		if err != nil || runstate.OwnerAlive(labels[LabelOwner]) {
			continue
		}
		if err := b.cleanup(cli, c.ID()); err != nil {
			return removed, err
		}
		removed = append(removed, c.ID())
	}
	ls := cli.LeasesService()
	leaseList, err := ls.List(ctx, `labels."`+LabelOwner+`"`)
	if err != nil {
		return removed, b.daemonError("list leases", err)
	}
	for _, l := range leaseList {
		if runstate.OwnerAlive(l.Labels[LabelOwner]) {
			continue
		}
		if err := ls.Delete(ctx, l, leases.SynchronousDelete); err != nil && !errdefs.IsNotFound(err) {
			return removed, b.daemonError("delete lease "+l.ID, err)
		}
		if !slices.Contains(removed, l.ID) {
			removed = append(removed, l.ID)
		}
	}
	bundles := b.bundles()
	left, err := bundles.Leftovers()
	if err != nil {
		return removed, err
	}
	for _, id := range left {
		if err := bundles.Remove(id); err != nil {
			return removed, err
		}
		if !slices.Contains(removed, id) {
			removed = append(removed, id)
		}
	}
	return removed, nil
}
