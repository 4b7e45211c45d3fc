package runnertest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/runner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const canary = "CANARY host secret"

var (
	probeOnce sync.Once
	probeDir  string
	probeErr  error
)

// buildProbe compiles the probe once per test binary.
func buildProbe(t *testing.T) string {
	t.Helper()
	probeOnce.Do(func() {
		_, self, _, _ := runtime.Caller(0)
		probeDir, probeErr = os.MkdirTemp("", "golem-box-probe-")
		if probeErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(probeDir, "probe"), "./probe")
		cmd.Dir = filepath.Dir(self)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			probeErr = err
			t.Logf("%s", out)
		}
	})
	require.NoError(t, probeErr, "build the probe")
	return probeDir
}

// Limitation is something a backend documents that it cannot do. The
// suite then checks the documented behaviour in place of the property.
type Limitation string

// Limitations.
const (
	// HostPaths: paths cannot be remapped; inside, virtual paths are host
	// paths. The fixture mounts everything at its host path.
	HostPaths Limitation = "host-paths"
	// HostNetworkNamespace: the host's interfaces are visible, but no
	// connection can be made.
	HostNetworkNamespace Limitation = "host-network-namespace"
	// HostPIDNamespace: host processes are visible, but cannot be signalled.
	HostPIDNamespace Limitation = "host-pid-namespace"
	// PermissionDenied: writes to read-only mounts fail with EACCES, not EROFS.
	PermissionDenied Limitation = "permission-denied"
)

// fixture is a host tree: proj (the root, read-write), in (read-only at /in),
// out (read-write at /out), the probe at /probe and, beside the root,
// canary.txt, which nothing inside may read.
type fixture struct {
	dir string
	sb  *mountspec.Sandbox
	// moved maps the virtual targets of mounts to their sources, for a
	// backend with HostPaths.
	moved map[string]string
}

// v is the path the command uses for the fixture's virtual path: itself,
// or for a backend with HostPaths, where it lives on the host.
func (f *fixture) v(virtual string) string {
	if f.moved == nil {
		return virtual
	}
	for target, source := range f.moved {
		if virtual == target || strings.HasPrefix(virtual, target+"/") {
			return source + strings.TrimPrefix(virtual, target)
		}
	}
	r, err := f.sb.Resolve(virtual)
	if err != nil {
		return virtual
	}
	return r.Host
}

func newFixture(t *testing.T, limits []Limitation) *fixture {
	t.Helper()
	probe := buildProbe(t)
	dir := t.TempDir()
	for _, d := range []string{"proj/src", "in", "out"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "canary.txt"), []byte(canary), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in/doc.txt"), []byte("untrusted document\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proj/src/app.txt"), []byte("app\n"), 0o644))
	sb := &mountspec.Sandbox{
		Root: filepath.Join(dir, "proj"),
		Mounts: []mountspec.Mount{
			{Source: filepath.Join(dir, "in"), Target: "/in", ReadOnly: true},
			{Source: filepath.Join(dir, "out"), Target: "/out"},
			{Source: probe, Target: "/probe", ReadOnly: true},
		},
		Limits: mountspec.Limits{Timeout: mountspec.Duration(60 * time.Second)},
	}
	f := &fixture{dir: dir, sb: sb}
	if slices.Contains(limits, HostPaths) {
		f.moved = map[string]string{}
		for i, m := range sb.Mounts {
			f.moved[m.Target] = m.Source
			sb.Mounts[i].Target = m.Source
		}
	}
	require.NoError(t, sb.Validate())
	return f
}

func (f *fixture) host(rel string) string { return filepath.Join(f.dir, rel) }

func run(t *testing.T, b runner.Backend, job *runner.Job) *runner.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := b.Run(ctx, job)
	require.NoError(t, err)
	return res
}

func sh(f *fixture, script string) *runner.Job {
	return &runner.Job{Sandbox: f.sb, Args: []string{"/bin/sh", "-c", script}}
}

// Run runs the conformance suite against the backend that newBackend
// returns; limits are what the backend documents it cannot do.
func Run(t *testing.T, newBackend func(t *testing.T) runner.Backend, limits ...Limitation) {
	has := func(l Limitation) bool { return slices.Contains(limits, l) }
	newFixture := func(t *testing.T) *fixture { return newFixture(t, limits) }
	b := newBackend(t)
	require.NoError(t, b.Available(context.Background()), "the backend must be usable here: CI installs and starts everything")

	t.Run("ReadsAndWritesWhereAllowed", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, "cat "+f.v("/in/doc.txt")+" "+f.v("/src/app.txt")+" && echo out > "+f.v("/out/o.txt")+" && echo root > "+f.v("/src/new.txt")))
		require.Equal(t, 0, res.ExitCode, "stderr: %s", res.Stderr)
		assert.Equal(t, "untrusted document\napp\n", string(res.Stdout))
		assert.FileExists(t, f.host("out/o.txt"))
		assert.FileExists(t, f.host("proj/src/new.txt"))
	})

	t.Run("RootSymlinksStayLinks", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.Symlink(f.v("/in"), f.host("proj/data")))
		res := run(t, b, sh(f, "readlink "+f.v("/data")+"; cat "+f.v("/data")+"/doc.txt"))
		require.Equal(t, 0, res.ExitCode, "stderr: %s", res.Stderr)
		assert.Equal(t, f.v("/in")+"\nuntrusted document\n", string(res.Stdout))
	})

	t.Run("ReadOnlyMountRefusesWrites", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, "echo x > "+f.v("/in/new.txt")))
		assert.NotEqual(t, 0, res.ExitCode)
		if has(PermissionDenied) {
			assert.Contains(t, string(res.Stderr), "Permission denied")
		} else {
			assert.Contains(t, string(res.Stderr), "Read-only file system")
		}
		assert.NoFileExists(t, f.host("in/new.txt"))
		res = run(t, b, sh(f, "echo x > "+f.v("/in/doc.txt")+"; rm -f "+f.v("/in/doc.txt")+"; : > "+f.v("/in/doc.txt")+"; touch "+f.v("/newtop")))
		b, err := os.ReadFile(f.host("in/doc.txt"))
		require.NoError(t, err)
		assert.Equal(t, "untrusted document\n", string(b))
		assert.NoFileExists(t, f.host("proj/newtop"))
	})

	t.Run("NothingOutsideTheMountsIsVisible", func(t *testing.T) {
		f := newFixture(t)
		script := "cat /canary.txt /../canary.txt " + f.host("canary.txt") + " 2>/dev/null; " +
			"grep -rl 'CANARY host' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr --exclude-dir=dev 2>/dev/null; true"
		res := run(t, b, sh(f, script))
		assert.NotContains(t, string(res.Stdout), canary)
		assert.Empty(t, strings.TrimSpace(string(res.Stdout)))
	})

	t.Run("NoNetwork", func(t *testing.T) {
		f := newFixture(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		// The listener is reachable from the host, so a failure inside means isolation.
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		c.Close()
		res := run(t, b, sh(f, f.v("/probe/probe")+" connect "+ln.Addr().String()))
		assert.NotEqual(t, 0, res.ExitCode, "stdout: %s", res.Stdout)
		if has(HostNetworkNamespace) {
			// Documented: the host's namespace, in which nothing connects.
			res = run(t, b, sh(f, "readlink /proc/self/ns/net"))
			hostNet, err := os.Readlink("/proc/self/ns/net")
			require.NoError(t, err)
			assert.Equal(t, hostNet+"\n", string(res.Stdout))
			return
		}
		// /proc/net/dev lists the interfaces of the reader's network
		// namespace; every backend has a /proc, not every one a /sys.
		res = run(t, b, sh(f, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; readlink /proc/self/ns/net"))
		hostNet, err := os.Readlink("/proc/self/ns/net")
		require.NoError(t, err)
		assert.Equal(t, "lo\n"+"net:", string(res.Stdout)[:min(len(res.Stdout), 7)], "only lo exists: %s", res.Stdout)
		assert.NotContains(t, string(res.Stdout), hostNet, "a network namespace of its own")
	})

	t.Run("HostProcessesInvisible", func(t *testing.T) {
		f := newFixture(t)
		if has(HostPIDNamespace) {
			// Documented: visible, but out of reach.
			pid := strconv.Itoa(os.Getpid())
			res := run(t, b, sh(f, "test -d /proc/"+pid+" && echo visible; kill -0 "+pid+" 2>/dev/null && echo signalled || echo refused; cat /proc/"+pid+"/environ >/dev/null 2>&1 && echo environ || echo private"))
			assert.Equal(t, "visible\nrefused\nprivate\n", string(res.Stdout), "stderr: %s", res.Stderr)
			return
		}
		res := run(t, b, sh(f, "ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | tr '\\0' ' '"))
		lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
		require.Len(t, lines, 2, "stdout %q stderr %q", res.Stdout, res.Stderr)
		n, err := strconv.Atoi(lines[0])
		require.NoError(t, err)
		assert.LessOrEqual(t, n, 5, "only the sandbox's own processes")
		assert.Contains(t, lines[1], "/bin/sh", "pid 1 is the command itself")
	})

	t.Run("NoPrivileges", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status"))
		out := string(res.Stdout)
		for _, want := range []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000",
			"NoNewPrivs:\t1", "Seccomp:\t2"} {
			assert.Contains(t, out, want)
		}
	})

	t.Run("DangerousSyscallsFail", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, f.v("/probe/probe")+" syscalls; true"))
		out := string(res.Stdout)
		for _, name := range []string{"mount", "unshare", "ptrace", "keyctl", "proc-sys-write"} {
			assert.Contains(t, out, name+"=denied", "%s must fail:\n%s", name, out)
		}
	})

	t.Run("RuntimeFailureIsAnError", func(t *testing.T) {
		f := newFixture(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := b.Run(ctx, &runner.Job{Sandbox: f.sb, Args: []string{"/no/such/program"}})
		require.Error(t, err, "a command that cannot even start is golem-box's error, not an exit status")
		assert.Contains(t, err.Error(), "/no/such/program")
	})

	t.Run("TimeoutKills", func(t *testing.T) {
		f := newFixture(t)
		job := sh(f, "echo started; sleep 60")
		job.Timeout = time.Second
		start := time.Now()
		res := run(t, b, job)
		assert.Equal(t, runner.ReasonTimeout, res.Reason)
		assert.Less(t, time.Since(start), 15*time.Second)
		assert.Equal(t, "started\n", string(res.Stdout))
		assert.NotEqual(t, 0, res.ExitCode)
	})

	t.Run("OutputIsCapped", func(t *testing.T) {
		f := newFixture(t)
		f.sb.Limits.OutputBytes = 1000
		res := run(t, b, sh(f, "head -c 5000000 /dev/zero; echo done >&2"))
		assert.Equal(t, 0, res.ExitCode)
		assert.Len(t, res.Stdout, 1000)
		assert.True(t, res.StdoutTruncated)
		assert.Equal(t, "done\n", string(res.Stderr))
		assert.False(t, res.StderrTruncated)
	})

	t.Run("ExitCodesPropagate", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, "exit 7"))
		assert.Equal(t, 7, res.ExitCode)
		assert.Equal(t, runner.ReasonExit, res.Reason)
		// A command whose stderr looks like a runtime's log is still the
		// command failing, not the runtime.
		res = run(t, b, sh(f, "echo 'level=error msg=\"runc run failed: unable to start container process\"' >&2; exit 1"))
		assert.Equal(t, 1, res.ExitCode)
		assert.Contains(t, string(res.Stderr), "runc run failed")
		// pid 1 ignores signals it has no handler for: a child is killed.
		res = run(t, b, sh(f, "sh -c 'kill -TERM $$'"))
		assert.Equal(t, 128+int(syscall.SIGTERM), res.ExitCode)
		assert.Equal(t, runner.ReasonSignal, res.Reason)
		assert.Equal(t, "terminated", res.Signal)
	})

	t.Run("FilesBelongToTheInvokingUser", func(t *testing.T) {
		f := newFixture(t)
		res := run(t, b, sh(f, "echo mine > "+f.v("/out/owned.txt")+"; id -u"))
		require.Equal(t, 0, res.ExitCode, "stderr: %s", res.Stderr)
		fi, err := os.Stat(f.host("out/owned.txt"))
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		assert.Equal(t, uint32(os.Getuid()), st.Uid)
		assert.Equal(t, uint32(os.Getgid()), st.Gid)
		assert.Equal(t, strconv.Itoa(os.Getuid())+"\n", string(res.Stdout))
	})

	t.Run("PidsLimit", func(t *testing.T) {
		f := newFixture(t)
		f.sb.Limits.PIDs = 20
		res := run(t, b, sh(f, "i=0; while [ $i -lt 40 ]; do sleep 2 & i=$((i+1)); done; echo started $i"))
		assert.NotContains(t, string(res.Stdout), "started 40", "40 processes must not fit under pids=20")
		assert.Contains(t, string(res.Stderr), "fork")
	})

	t.Run("MemoryLimitOOM", func(t *testing.T) {
		f := newFixture(t)
		f.sb.Limits.Memory = 32 << 20
		res := run(t, b, sh(f, "exec dd if=/dev/zero of=/dev/null bs=64M count=1"))
		assert.Equal(t, runner.ReasonOOM, res.Reason, "exit %d stderr %s", res.ExitCode, res.Stderr)
		assert.Equal(t, 128+int(syscall.SIGKILL), res.ExitCode)
		res = run(t, b, sh(f, "dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null && echo fits"))
		assert.Equal(t, "fits\n", string(res.Stdout))
	})
}
