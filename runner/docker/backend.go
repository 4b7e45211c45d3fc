package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	compile "github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	ocirunner "github.com/golem-box/golem-box/runner/oci"
	"github.com/golem-box/golem-box/runner/runstate"
)

// apiTimeout bounds every call to the engine but the wait for the command,
// so that a daemon that stops answering never hangs golem-box.
const apiTimeout = 30 * time.Second

// Backend runs jobs on the Docker Engine.
type Backend struct {
	host     string // DOCKER_HOST-style address; "" means the environment's
	stateDir string
	imageDir string

	mu        sync.Mutex
	cli       *client.Client
	skeletons map[string]bool
}

// Option configures New.
type Option func(*Backend)

// WithHost talks to the engine at host (unix:///var/run/docker.sock,
// tcp://...) instead of $DOCKER_HOST or the default socket.
func WithHost(host string) Option { return func(b *Backend) { b.host = host } }

// WithStateDir moves the private state directory (default runstate.DefaultDir()).
func WithStateDir(dir string) Option { return func(b *Backend) { b.stateDir = dir } }

// WithImageDir moves the image cache (default images.DefaultDir()).
func WithImageDir(dir string) Option { return func(b *Backend) { b.imageDir = dir } }

// New returns a backend for the engine; it does not connect until used.
func New(opts ...Option) *Backend {
	b := &Backend{skeletons: map[string]bool{}}
	for _, o := range opts {
		o(b)
	}
	if b.stateDir == "" {
		b.stateDir = runstate.DefaultDir()
	}
	return b
}

// Name is "docker".
func (b *Backend) Name() string { return "docker" }

// client connects once and negotiates the API version.
func (b *Backend) client(ctx context.Context) (*client.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cli != nil {
		return b.cli, nil
	}
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if b.host != "" {
		opts = append(opts, client.WithHost(b.host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, runner.Unavailable("docker", err.Error(), "check $DOCKER_HOST")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, unreachable(cli.DaemonHost(), err)
	}
	b.cli = cli
	return cli, nil
}

// unreachable explains why the engine did not answer, and the fix.
func unreachable(host string, err error) error {
	fix := "start it: sudo scripts/setup (or systemctl start docker)"
	switch {
	case errors.Is(err, syscall.EACCES) || errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "permission denied"):
		fix = "no permission on its socket: run as root, or add your user to the docker group (which is root-equivalent)"
	case errors.Is(err, context.DeadlineExceeded):
		fix = "it did not answer within 5 s; see its log (/var/log/golem-box/dockerd.log when scripts/setup started it)"
	}
	return runner.Unavailable("docker", fmt.Sprintf("the Docker Engine at %s is not reachable (%v)", host, err), fix)
}

// Available checks that the engine answers and says which API it speaks.
func (b *Backend) Available(ctx context.Context) error {
	_, err := b.client(ctx)
	return err
}

// APIVersion is the negotiated API version ("" before the first contact).
func (b *Backend) APIVersion() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cli == nil {
		return ""
	}
	return b.cli.ClientVersion()
}

func (b *Backend) features() engineFeatures {
	return engineFeatures{RecursiveReadOnly: apiAtLeast(b.APIVersion(), 1, 44)}
}

func apiAtLeast(v string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(v, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func (b *Backend) bundles() runstate.Bundles {
	return runstate.Bundles{Dir: filepath.Join(b.stateDir, "docker")}
}

// Compile is the bundle a run would use, and the container configuration
// the engine gets for it.
func (b *Backend) Compile(ctx context.Context, job *runner.Job, bundle, id string) (*compile.Bundle, error) {
	cb, err := ocirunner.CompileJob(ctx, job, b.imageDir, bundle, id, compile.Features{
		RecursiveReadOnly: b.features().RecursiveReadOnly, Runtime: "the Docker Engine (API " + b.APIVersion() + ")"})
	if err != nil {
		return nil, err
	}
	if cb.RootfsLink != "" {
		return nil, fmt.Errorf(`docker: image "none" (the root as the whole filesystem) needs a runtime that takes a host directory as root; use the oci or containerd backend, or image "host"`)
	}
	// The engine binds its own /etc/hostname, /etc/hosts and
	// /etc/resolv.conf over golem-box's /etc: their mount points must be
	// there, since that /etc is read-only.
	if _, ok := cb.EtcFiles["hostname"]; !ok && len(cb.EtcFiles) > 0 {
		cb.EtcFiles["hostname"] = compile.Hostname + "\n"
	}
	return cb, nil
}

// Run compiles the job, runs it in a fresh container and removes it.
func (b *Backend) Run(ctx context.Context, job *runner.Job) (*runner.Result, error) {
	if job.Terminal {
		return nil, fmt.Errorf("docker: --tty is not supported yet: output is captured")
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
	callCtx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	image, err := b.ensureSkeleton(callCtx, cli, cb.Symlinks)
	if err != nil {
		return nil, b.engineError(err)
	}
	labels := map[string]string{LabelRun: id, LabelOwner: runstate.OwnerStamp()}
	cfg, hc, err := translate(cb.Spec, image, labels, b.features())
	if err != nil {
		return nil, err
	}
	stdin := job.Stdin
	cfg.AttachStdout, cfg.AttachStderr = true, true
	if stdin != nil {
		cfg.AttachStdin, cfg.OpenStdin, cfg.StdinOnce = true, true, true
	}
	// Removed by name, so that a cancel while the engine is still creating
	// it leaves nothing either.
	defer b.remove(id)
	created, err := cli.ContainerCreate(callCtx, client.ContainerCreateOptions{Name: id, Config: cfg, HostConfig: hc})
	if err != nil {
		return nil, b.engineError(fmt.Errorf("create the container: %w", err))
	}
	return b.run(ctx, cli, job, created.ID, stdin)
}

func (b *Backend) run(ctx context.Context, cli *client.Client, job *runner.Job, cid string, stdin io.Reader) (*runner.Result, error) {
	callCtx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	att, err := cli.ContainerAttach(callCtx, cid, client.ContainerAttachOptions{Stream: true, Stdin: stdin != nil, Stdout: true, Stderr: true})
	if err != nil {
		return nil, b.engineError(fmt.Errorf("attach: %w", err))
	}
	defer att.Close()
	out := runner.NewOutput(job)
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(out.Stdout, out.Stderr, att.Reader)
		copied <- err
	}()
	// The wait is registered before the start, so that no exit is missed;
	// it has no deadline of its own: the job's timeout kills the container.
	waitCtx, stopWait := context.WithCancel(context.Background())
	defer stopWait()
	wait := cli.ContainerWait(waitCtx, cid, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	oomBefore := runstate.OOMKills()
	start := time.Now()
	if _, err := cli.ContainerStart(callCtx, cid, client.ContainerStartOptions{}); err != nil {
		return nil, b.engineError(fmt.Errorf("docker could not run the container: %w", err))
	}
	if stdin != nil {
		go func() {
			_, _ = io.Copy(att.Conn, stdin)
			_ = att.CloseWrite()
		}()
	}
	// The wait's outcome, whichever channel brings it, ends the run.
	ended := make(chan struct{})
	code, waitErr := -1, error(nil)
	go func() {
		defer close(ended)
		select {
		case w := <-wait.Result:
			if w.Error != nil && w.Error.Message != "" {
				waitErr = fmt.Errorf("docker: waiting for the container: %s", w.Error.Message)
				return
			}
			code = int(w.StatusCode)
		case err := <-wait.Error:
			// The wait is the one call without a deadline: its end
			// without a status is the engine going away.
			waitErr = fmt.Errorf("docker: lost the engine while the command ran: %w", unreachable(b.cli.DaemonHost(), err))
		}
	}()
	reason := runner.Supervise(ctx, job, ended, func() { b.kill(cid) })
	if waitErr != nil {
		return nil, waitErr
	}
	dur := time.Since(start)
	// The stream ends with the container; processes it left holding the
	// output do not keep golem-box waiting.
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	res := out.Result(b.Name(), dur)
	res.SetExit(code, reason, func() bool {
		ictx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if in, err := cli.ContainerInspect(ictx, cid, client.ContainerInspectOptions{}); err == nil && in.Container.State != nil && in.Container.State.OOMKilled {
			return true
		}
		return runstate.OOMKilled(cid, oomBefore)
	})
	return res, nil
}

// kill sends SIGKILL to the container, whatever the run's context says.
func (b *Backend) kill(cid string) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	_, _ = b.cli.ContainerKill(ctx, cid, client.ContainerKillOptions{Signal: "KILL"})
}

// remove deletes the container (by id or name), whatever the run's context says.
func (b *Backend) remove(cid string) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	_, _ = b.cli.ContainerRemove(ctx, cid, client.ContainerRemoveOptions{Force: true})
}

// engineError says plainly when the failure is the engine being gone.
func (b *Backend) engineError(err error) error {
	if client.IsErrConnectionFailed(err) {
		return unreachable(b.cli.DaemonHost(), err)
	}
	return fmt.Errorf("docker: %w", err)
}

// GC removes the containers and bundles of runs whose golem-box process is
// gone, and returns their ids.
func (b *Backend) GC(ctx context.Context) ([]string, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelOwner)})
	if err != nil {
		return nil, b.engineError(err)
	}
	var removed []string
	for _, c := range list.Items {
		if runstate.OwnerAlive(c.Labels[LabelOwner]) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			return removed, b.engineError(err)
		}
		removed = append(removed, c.Labels[LabelRun])
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

// Inspect returns the engine's raw inspect document of a container (what
// docker inspect prints for it), for golem-box audit --container. Its
// errors leave naming the container to the caller.
func (b *Backend) Inspect(ctx context.Context, id string) ([]byte, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, fmt.Errorf("no such container on the engine at %s (docker ps -a lists them)", cli.DaemonHost())
		}
		return nil, b.engineError(fmt.Errorf("inspect %s: %w", id, err))
	}
	return res.Raw, nil
}
